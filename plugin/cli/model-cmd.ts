// `strata model download|import|verify|list`: the embedding models of this build's release,
// checked against the table compiled into the bundle (plugin/core/release.ts).

import * as path from "node:path";

import {
  downloadModel,
  formatBytes,
  importModel,
  ModelDownloadError,
  releaseBaseUrl,
  verifyModel,
  type DownloadProgress,
} from "../core/model-download.ts";
import { findModelDir, modelCatalog } from "../node/host.ts";
import { nodeFetcher, nodeModelFs, nodeSourceFolder, vaultModelsDir } from "../node/model-download.ts";
import { bundledRelease } from "../core/release.ts";
import { CliError, parse } from "./common.ts";

export const MODEL_USAGE =
  "model download|import|verify|list [--model M] [--from URL | --folder DIR] [--models-dir DIR | --vault V]   get and check the embedding models";

const HELP = `usage:
  strata model list                          the models of this build's release: size, license, installed or not
  strata model download [--model M] [--from URL]
                                             downloads model M (default: the default model) from this build's
                                             release (or from URL, a folder holding the release's assets: a mirror)
  strata model import --folder DIR [--model M]
                                             installs M from a folder holding its model.onnx and tokenizer.json
  strata model verify [--model M]            checks installed models against the release's SHA-256 table

  --models-dir DIR   where models go (default: $STRATA_MODELS, else the models/ folder the CLI reads)
  --vault V          use the vault's plugin folder (<vault>/<config-dir>/plugins/strata-search/models),
                     where the Obsidian plugin and the MCP bridge read them
  --config-dir DIR   Obsidian's config folder name with --vault (default .obsidian)
Every part and every file is checked against the table compiled into this build; a download
resumes from the parts an interrupted one left, and the model folder appears only when complete.
`;

const options = {
  model: { type: "string" },
  from: { type: "string" },
  folder: { type: "string" },
  "models-dir": { type: "string" },
  vault: { type: "string" },
  "config-dir": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function modelCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, options);
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined || sub === "help") {
    process.stdout.write(HELP);
    return sub === undefined && !values.help ? 2 : 0;
  }
  if (rest.length) throw new CliError(`unexpected argument ${JSON.stringify(rest[0])}\n\n${HELP}`, 2);
  const release = bundledRelease();
  const table = release.table;
  const catalog = modelCatalog();
  const modelsDir = (id: string) =>
    values["models-dir"]
      ? path.resolve(values["models-dir"])
      : values.vault
        ? vaultModelsDir(path.resolve(values.vault), values["config-dir"] ?? ".obsidian")
        : path.dirname(findModelDir(id));
  const one = values.model ?? catalog.defaultId;
  if (values.model && !catalog.has(values.model))
    throw new CliError(`unknown model ${JSON.stringify(values.model)} (known: ${catalog.ids.join(", ")})`, 2);
  const noTable = () =>
    new CliError(
      `this build of strata carries no model table (it was built without models/): use a release build, or scripts/fetch-model.sh in the repository`,
      1,
    );

  try {
    switch (sub) {
      case "list": {
        const rows = [];
        for (const id of catalog.ids) {
          const m = table.models.find((x) => x.id === id);
          const info = catalog.info(id)!;
          const dir = modelsDir(id);
          const v = m ? await verifyModel({ table, id, modelsDir: dir, fs: nodeModelFs }) : null;
          const installed = v
            ? v.ok
              ? "installed"
              : v.problems.every((p) => p.endsWith("missing"))
                ? "not installed"
                : `broken: ${v.problems.join("; ")}`
            : "not in this build's table";
          rows.push({ id, license: info.license, size: m?.size ?? null, dir: path.join(dir, id), state: installed });
        }
        if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        else
          for (const r of rows)
            process.stdout.write(`${r.id}  ${r.size ? formatBytes(r.size) : "?"}  ${r.license}  ${r.state}  (${r.dir})\n`);
        return 0;
      }
      case "download": {
        if (!table.models.length) throw noTable();
        const base = values.from ?? releaseBaseUrl(release);
        if (!base)
          throw new CliError(
            "this build does not know the repository its release is published in: pass --from URL (the folder holding the release's assets)",
            2,
          );
        const dir = modelsDir(one);
        if ((await verifyModel({ table, id: one, modelsDir: dir, fs: nodeModelFs })).ok) {
          process.stdout.write(`${one} is already installed in ${path.join(dir, one)} (checked: SHA-256)\n`);
          return 0;
        }
        const bar = progressLine();
        const res = await downloadModel({
          table,
          id: one,
          baseUrl: base,
          modelsDir: dir,
          fs: nodeModelFs,
          fetch: nodeFetcher,
          onProgress: (p) => bar.update(p),
        });
        bar.done();
        const resumed = res.resumedParts ? ` (${res.resumedParts} parts kept from an earlier attempt)` : "";
        process.stdout.write(
          `${one} installed in ${res.dir}: ${formatBytes(res.bytes)}, every part and file checked (SHA-256)${resumed}\n`,
        );
        return 0;
      }
      case "import": {
        if (!table.models.length) throw noTable();
        if (!values.folder) throw new CliError("model import needs --folder DIR (a folder holding model.onnx and tokenizer.json)", 2);
        const res = await importModel({
          table,
          id: one,
          source: nodeSourceFolder(path.resolve(values.folder)),
          modelsDir: modelsDir(one),
          fs: nodeModelFs,
        });
        process.stdout.write(`${one} installed in ${res.dir}: ${formatBytes(res.bytes)}, checked (SHA-256)\n`);
        return 0;
      }
      case "verify": {
        if (!table.models.length) throw noTable();
        const ids = values.model ? [values.model] : table.models.map((m) => m.id);
        let bad = 0;
        let checked = 0;
        for (const id of ids) {
          const v = await verifyModel({ table, id, modelsDir: modelsDir(id), fs: nodeModelFs });
          const absent =
            v.problems.length === table.models.find((m) => m.id === id)!.files.length && v.problems.every((p) => p.endsWith("missing"));
          if (absent && !values.model) {
            process.stdout.write(`${id}: not installed (${v.dir})\n`);
            continue;
          }
          checked++;
          if (v.ok) process.stdout.write(`${id}: ok (${v.dir})\n`);
          else {
            bad++;
            process.stdout.write(`${id}: ${v.problems.join("; ")} (${v.dir}); strata model download --model ${id} installs it again\n`);
          }
        }
        if (checked === 0) process.stdout.write("no model installed: strata model download gets one\n");
        return bad ? 1 : 0;
      }
      default:
        throw new CliError(`unknown model command ${JSON.stringify(sub)}\n\n${HELP}`, 2);
    }
  } catch (err) {
    if (err instanceof ModelDownloadError) throw new CliError(err.message, err.kind === "unknown-model" ? 2 : 1);
    throw err;
  }
}

/** One progress line on stderr (rewritten in place on a terminal). */
function progressLine() {
  const tty = process.stderr.isTTY;
  let last = -1;
  return {
    update(p: DownloadProgress) {
      const pct = p.totalBytes ? Math.floor((p.doneBytes / p.totalBytes) * 100) : 0;
      if (pct === last && p.phase === "download") return;
      last = pct;
      const line =
        p.phase === "install"
          ? `${p.model}: checking and installing…`
          : `${p.model}: ${formatBytes(p.doneBytes)} / ${formatBytes(p.totalBytes)} (${pct}%, part ${p.partsDone}/${p.parts})`;
      process.stderr.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
    },
    done() {
      if (tty) process.stderr.write("\n");
    },
  };
}
