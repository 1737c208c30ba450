// The bundled `strata` CLI (dist/strata.js) run as a child process, for the CLI's tests
// (cli.test.ts: without a model; cli-models.test.ts: with the embedding models).

import { spawnSync } from "node:child_process";
import * as path from "node:path";

import { MODEL, ROOT } from "./helpers.ts";

export const CLI = path.join(ROOT, "dist", "strata.js");
/** A model folder that holds no model (nor a models folder: no model folders in it). */
export const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");
/** The CLI as on a machine without any model. */
export const NO_MODELS = { STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR };

export function run(env: Record<string, string>, args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 300_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The CLI without an embedding model (lexical behaviour, fast). */
export function strata(...args: string[]) {
  return run(NO_MODELS, args);
}

/** The CLI with all-MiniLM-L6-v2, chosen explicitly (tests that use it need NEEDS_MODEL). */
export function strataModel(...args: string[]) {
  return run({ STRATA_MODEL_DIR: MODEL?.dir ?? NO_MODEL_DIR }, [...args, "--model", "all-MiniLM-L6-v2"]);
}

/** The CLI with the models it finds (models/ in the repository), --model as given. */
export function strataModels(...args: string[]) {
  return run({}, args);
}
