// The bench's measurements in fresh processes (the hidden `__bench-worker` command of
// dist/strata-bench.js): full index runs, cold opens, the vector index and the embedders, so
// that the peak memory and start-up of one engine do not pollute the other's.

import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";

import { openIndex } from "../core/index-store.ts";
import { FsIndexStore, loadCore, modelCatalog, NodeVault } from "../node/host.ts";
import { searchWithSnippets } from "../core/note-reads.ts";
import { reconcile } from "../core/reconcile.ts";
import { CliError } from "../cli/common.ts";
import { embedModelWorker, embedOrtWorker, embedPoolWorker, embedTractWorker } from "./embed-bench.ts";
import { buildOmni, loadOmni, omniSearch } from "./omnisearch.ts";
import { CONFIG } from "./settings.ts";
import { benchVectors } from "./vector-bench.ts";

export interface WorkerResult {
  [key: string]: number | string | boolean | null;
}

/** Runs one measurement in a fresh process of this bundle; its last line of output is the result. */
export function runWorker(args: string[]): Promise<WorkerResult & { wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1], "__bench-worker", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0) return reject(new Error(`bench worker ${args[0]} failed (${code}): ${err.trim()}`));
      const last = out.trim().split("\n").pop() ?? "{}";
      resolve({ ...(JSON.parse(last) as WorkerResult), wallMs });
    });
  });
}

const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

/** The hidden `__bench-worker` command: one measurement in a fresh process, JSON on stdout. */
export async function benchWorker(args: string[]): Promise<number> {
  const [what, a, b] = args;
  const t0 = performance.now();
  let res: WorkerResult;
  switch (what) {
    case "baseline":
      res = {};
      break;
    case "index-strata": {
      const store = new FsIndexStore(b);
      const { core } = await openIndex(loadCore(), store, CONFIG);
      const sum = await reconcile(core, new NodeVault(a), { store });
      const st = core.status();
      res = {
        notes: st.notes,
        sections: st.sections,
        bytesWritten: sum.bytesWritten,
        indexBytes: await store.size(),
        warnings: sum.warnings.length,
        skipped: sum.skipped.length,
      };
      break;
    }
    case "index-omni": {
      const { ms: mini, notes, bytes: read } = await buildOmni(new NodeVault(a));
      const json = JSON.stringify(mini);
      await mkdir(path.dirname(b), { recursive: true });
      await writeFile(b, json);
      res = { notes, bytesRead: read, indexBytes: Buffer.byteLength(json) };
      break;
    }
    case "cold-strata": {
      const { core } = await openIndex(loadCore(), new FsIndexStore(a), CONFIG);
      const t1 = performance.now();
      // With snippets, as a user sees it: the hit notes are read from the vault (args[3]).
      const vault = new NodeVault(args[3]);
      const hits = (await searchWithSnippets(core, (p) => vault.read(p), { query: b, k: 10, mode: "lexical" })).hits.length;
      res = { openMs: t1 - t0, queryMs: performance.now() - t1, hits };
      break;
    }
    case "cold-omni": {
      const mini = loadOmni(await readFile(a, "utf8"));
      const t1 = performance.now();
      const hits = omniSearch(mini, b).slice(0, 10).length;
      res = { openMs: t1 - t0, queryMs: performance.now() - t1, hits };
      break;
    }
    case "vectors":
      res = { rows: JSON.stringify(await benchVectors(a.split(",").map(Number), 384)) };
      break;
    case "embed-tract":
      res = { ...(await embedTractWorker(a, b, Number(args[3] ?? 8))) };
      break;
    case "embed-ort":
      res = { ...(await embedOrtWorker(a, b, Number(args[3] ?? 8), Number(args[4] ?? 1))) };
      break;
    case "embed-pool":
      res = { ...(await embedPoolWorker(a, b, Number(args[3] ?? 1))) };
      break;
    case "embed-model": {
      const id = args[3];
      if (!modelCatalog().has(id)) throw new CliError(`unknown model ${args[3]}`, 2);
      res = { ...(await embedModelWorker(a, b, id)) };
      break;
    }
    default:
      throw new CliError(`unknown bench worker ${what}`, 2);
  }
  res.ms = performance.now() - t0;
  res.maxRssMb = maxRssMb();
  process.stdout.write(JSON.stringify(res) + "\n");
  return 0;
}
