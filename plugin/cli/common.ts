// Shared pieces of the CLI commands: errors with exit codes, argument parsing, opening a
// vault's index, and finding the repository (for the bench's default vault).

import { existsSync, readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";

import type { CoreConfig, EmbedProgress, OpenReport, StrataCoreApi } from "../core/api.ts";
import { errorMessage } from "../core/errors.ts";
import { addSharedVectors, defaultIndexDir, type IndexStore, openIndex } from "../core/index-store.ts";
import { machineDeviceId } from "../node/device-id.ts";
import type { VaultSource } from "../core/note-reads.ts";
import { reconcile, type ReconcileProgress, type ReconcileSummary } from "../core/reconcile.ts";
import { embedAll, type EmbedSummary } from "../core/embedding/loop.ts";
import { chooseWorkers, EmbedPool, MAX_WORKERS } from "../core/embedding/pool.ts";
import { isEmbedWorkerThread, nodeEmbedSpawner } from "../node/pool-workers.ts";
import { forgetLoadedModels } from "../core/wasm-classes.ts";
import { AUTO_MODEL, loadChosenModel, type ModelLoad } from "../core/models.ts";
import { readBridgeInfo } from "../bridge/forward.ts";
import {
  acquireIndexLock,
  checkVaultDir,
  describeHolder,
  FsIndexStore,
  loadCore,
  modelCatalog,
  modelReader,
  NodeVault,
  processAlive,
} from "../node/host.ts";
import { EmbedBar, Progress } from "./ui.ts";

/** An error the CLI reports as one line and an exit code (2 = usage/input, 1 = failure). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Runs a command-line program's `main` with the process's arguments: its result is the exit
 * code; a CliError is reported as one line with its code, anything else with its stack (exit 1).
 */
export function runMain(main: (argv: string[]) => Promise<number>): void {
  // In an embedder worker (the bundle runs itself in worker_threads), the worker serves; no command.
  if (isEmbedWorkerThread()) return;
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof CliError) {
        process.stderr.write(`strata: ${err.message}\n`);
        process.exitCode = err.exitCode;
      } else {
        process.stderr.write(`strata: error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError((err as Error).message, 2);
  }
}

export function intOption(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`--${name} expects an integer ≥ ${min}, got ${JSON.stringify(value)}`, 2);
  return n;
}

export const vaultOptions = {
  "index-dir": { type: "string" },
  "config-dir": { type: "string" },
  json: { type: "boolean" },
} as const;

/** What is indexed as code (`strata index`, and `strata search` when it indexes): the core's
 *  defaults unless given. */
export const codeOptions = {
  "no-code": { type: "boolean" },
  "code-ext": { type: "string" },
  "code-exclude": { type: "string" },
} as const;
export const CODE_USAGE = "[--no-code] [--code-ext py,ts,…] [--code-exclude node_modules,…]";

/** The CoreConfig fields of the code options (a comma-separated list replaces the default one). */
export function codeConfig(opts: { "no-code"?: boolean; "code-ext"?: string; "code-exclude"?: string }): CoreConfig {
  const items = (v: string) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  const out: CoreConfig = {};
  if (opts["no-code"]) out.codeEnabled = false;
  if (opts["code-ext"] !== undefined) {
    const exts = items(opts["code-ext"]).map((e) => e.replace(/^\./, "").toLowerCase());
    const bad = exts.find((e) => !/^[a-z0-9+]+$/.test(e));
    if (bad !== undefined || exts.length === 0)
      throw new CliError(`--code-ext expects extensions separated by commas (py,ts,go), got ${JSON.stringify(opts["code-ext"])}`, 2);
    out.codeExtensions = exts;
  }
  if (opts["code-exclude"] !== undefined) out.codeExcludeFolders = items(opts["code-exclude"]).map((f) => f.replace(/^\/+|\/+$/g, ""));
  return out;
}

export interface VaultContext {
  vaultDir: string;
  indexDir: string;
  config: CoreConfig;
  vault: NodeVault;
  store: FsIndexStore;
  /** Who else writes this index (Obsidian, another `strata` process) when the command only
   *  reads: it then answers from the index as it is and writes nothing. Null: this process
   *  holds the index's writer lock. */
  readOnly: string | null;
}

/** A command that must write the index (`index`, `eval`), or one that can answer from it as it is. */
export type IndexAccess = { access: "write" | "read"; what: string };

export async function vaultContext(
  vaultArg: string | undefined,
  opts: { "index-dir"?: string; "config-dir"?: string; "no-code"?: boolean; "code-ext"?: string; "code-exclude"?: string },
  use: IndexAccess,
): Promise<VaultContext> {
  const code = codeConfig(opts);
  if (!vaultArg) throw new CliError("missing <vault> argument", 2);
  const vaultDir = path.resolve(vaultArg);
  const problem = await checkVaultDir(vaultDir);
  if (problem) throw new CliError(problem, 2);
  const configDir = opts["config-dir"] ?? ".obsidian";
  const defaultDir = path.resolve(vaultDir, defaultIndexDir(configDir));
  const indexDir = path.resolve(opts["index-dir"] ?? defaultDir);
  const writer = await otherWriter(vaultDir, configDir, indexDir === defaultDir, indexDir, use.what);
  if (writer && use.access === "write") {
    throw new CliError(
      `${writer} is writing the index in ${indexDir}; two writers would break it. Wait for it to finish (or quit it), or give --index-dir for a separate index`,
      1,
    );
  }
  return {
    vaultDir,
    indexDir,
    config: { configDir, ...code, deviceId: machineDeviceId() },
    vault: new NodeVault(vaultDir, { configDir }),
    store: new FsIndexStore(indexDir),
    readOnly: writer,
  };
}

/**
 * Who else writes the index, if anyone: Obsidian with the plugin running on this vault (its
 * bridge.json names a live process; the vault's own index folder only), else the holder of the
 * folder's writer lock, which this process takes otherwise (released at exit).
 */
async function otherWriter(
  vaultDir: string,
  configDir: string,
  vaultsOwn: boolean,
  indexDir: string,
  what: string,
): Promise<string | null> {
  if (vaultsOwn) {
    const found = await readBridgeInfo(vaultDir, configDir);
    if (found && processAlive(found.info.pid)) return `Obsidian (pid ${found.info.pid}, with the Strata plugin on this vault)`;
  }
  const got = acquireIndexLock(indexDir, what);
  return "heldBy" in got ? describeHolder(got.heldBy) : null;
}

export interface Ready {
  core: StrataCoreApi;
  report: OpenReport;
  /** Set when the index was updated (fresh, rebuilt or refreshed). */
  summary?: ReconcileSummary;
}

/**
 * Opens the vault's index; indexes the vault when there is no usable index, or when
 * `refresh` is set. Progress goes to stderr unless `quiet`.
 */
export async function openVaultIndex(ctx: VaultContext, refresh: boolean, quiet: boolean): Promise<Ready> {
  const Core = loadCore();
  if (ctx.readOnly) {
    // The writer's files in progress look like orphans to an open: nothing is deleted here.
    const { core, report } = await openIndex(Core, ctx.store, ctx.config, { removeOrphans: false });
    if (report.fresh || report.rebuilt) {
      core.free();
      throw new CliError(`no usable index in ${ctx.indexDir} yet, and ${ctx.readOnly} is writing it: try again when it is done`, 1);
    }
    if (!quiet)
      process.stderr.write(
        `strata: ${ctx.readOnly} is updating this index: answering from it as it is${refresh ? " (not refreshed)" : ""}, writing nothing\n`,
      );
    return { core, report };
  }
  const { core, report } = await openIndex(Core, ctx.store, ctx.config);
  if (report.rebuilt && !quiet) {
    process.stderr.write(`strata: the index in ${ctx.indexDir} was unusable (${report.reason ?? "unknown reason"}); rebuilding it\n`);
  }
  if (!(report.fresh || report.rebuilt || refresh)) return { core, report };
  if (report.fresh && !quiet) process.stderr.write(`strata: no index yet in ${ctx.indexDir}; indexing ${ctx.vaultDir}\n`);
  const summary = await indexWithProgress(core, ctx, quiet);
  return { core, report, summary };
}

export async function indexWithProgress(
  core: StrataCoreApi,
  ctx: VaultContext,
  quiet: boolean,
  deferCode = false,
): Promise<ReconcileSummary> {
  const bar = quiet ? undefined : new Progress("indexing");
  try {
    return await reconcile(core, ctx.vault, {
      store: ctx.store,
      deferCode,
      onProgress: (p: ReconcileProgress) => bar?.update(p.phase, p.done, p.total),
    });
  } finally {
    bar?.end();
  }
}

/** --model: which embedding model semantic search uses. */
export const modelOptions = { model: { type: "string" } } as const;
export const MODEL_USAGE = `[--model ${modelCatalog().settings().join("|")}]`;

/** The --model setting: "auto" (the default: the core chooses by the vault's scripts) or a model id. */
export function parseModelSetting(value: string | undefined): string {
  const setting = value ?? AUTO_MODEL;
  if (!modelCatalog().isSetting(setting))
    throw new CliError(`--model must be one of ${modelCatalog().settings().join(", ")}, got ${JSON.stringify(value)}`, 2);
  return setting;
}

/**
 * Loads the embedding model `setting` chooses for the indexed vault (loadChosenModel: the
 * model switched from too, during a switch). When semantic queries cannot be answered: with
 * `required`, a CliError (exit 2, "[unavailable] …"); otherwise search stays lexical. Unless
 * `quiet`, what is missing and how to get it is told once on stderr.
 */
export async function loadModel(
  core: StrataCoreApi,
  setting: string,
  opts: { required?: boolean; quiet?: boolean; store?: IndexStore | null } = {},
): Promise<ModelLoad> {
  let load: ModelLoad;
  try {
    load = await loadChosenModel(core, setting, modelReader(), modelCatalog());
  } catch (err) {
    throw new CliError(`the embedding model could not be loaded: ${errorMessage(err)}`, 1);
  }
  if (opts.store) {
    // A model whose vectors were not read at the open (another device's model): read them.
    await addSharedVectors(core, opts.store);
    load.progress = core.embedProgress();
  }
  if (!load.semantic && opts.required) throw new CliError(`[unavailable] semantic search needs an embedding model; ${load.notice}`, 2);
  if (load.notice && !opts.quiet) process.stderr.write(`strata: ${load.notice}\n`);
  return load;
}

export interface EmbedRun extends EmbedSummary {
  interrupted: boolean;
}

/**
 * Embeds every pending chunk with a progress bar on stderr (unless `quiet`), reading the notes
 * the steps need from `vault` and persisting to `store` as it goes (null: an in-memory index).
 * Ctrl-C stops between two steps, persists what was done and returns with `interrupted` set:
 * the next run resumes there.
 */
export async function embedWithProgress(
  core: StrataCoreApi,
  vault: VaultSource,
  store: IndexStore | null,
  quiet: boolean,
  threads = 1,
): Promise<EmbedRun> {
  const bar = quiet ? undefined : new EmbedBar("embedding");
  const ctl = new AbortController();
  const onSigint = () => {
    if (!quiet) process.stderr.write("\nstrata: stopping after the current step (Ctrl-C again to quit at once)…\n");
    ctl.abort();
    process.off("SIGINT", onSigint);
  };
  process.on("SIGINT", onSigint);
  // Persist this often while embedding (STRATA_EMBED_FLUSH_MS; default 8 s).
  const flushEveryMs = Number(process.env.STRATA_EMBED_FLUSH_MS) || undefined;
  const opts = { signal: ctl.signal, flushEveryMs, onProgress: (p: EmbedProgress) => bar?.update(p) };
  // One thread: the core embeds (no second copy of the model); more: a pool of worker threads.
  const pool = threads > 1 ? new EmbedPool(nodeEmbedSpawner(), threads) : null;
  if (!pool) forgetLoadedModels();
  try {
    const sum = pool
      ? await pool.run(core, vault, store, {
          ...opts,
          onWorkerFailure: (msg, attempt) =>
            process.stderr.write(`\nstrata: an embedder worker failed (try ${attempt}), restarting it: ${msg}\n`),
        })
      : await embedAll(core, vault, store, opts);
    return { ...sum, interrupted: sum.aborted };
  } finally {
    pool?.close();
    process.off("SIGINT", onSigint);
    bar?.end();
  }
}

/** `--threads N`: embedder threads for `strata index` (1 to 16; default: Auto, see chooseWorkers). */
export function parseThreads(value: string | undefined, model: string | null | undefined): number {
  if (value === undefined || value === "auto") {
    return chooseWorkers("auto", { cores: availableParallelism(), totalMemoryMB: totalmem() / 2 ** 20, model }).workers;
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS)
    throw new CliError(`--threads must be auto or 1…${MAX_WORKERS}, not ${JSON.stringify(value)}`, 2);
  return n;
}

/** Chunks `search` and `similar` embed before they answer, at most (~1 min with
 *  all-MiniLM-L6-v2 on one core): after a few edits that is all of them; a vault indexed with
 *  --no-embed (27k chunks for the Obsidian Help vault: hours) is answered at once with the
 *  vectors there are, and `strata index` embeds the rest. */
export const EMBED_FIRST_LIMIT = 256;

/**
 * Gets `core` ready for a search mode: nothing for lexical; otherwise the model `setting`
 * chooses is loaded (semantic without a model: exit 2; hybrid without one answers
 * lexically, and the core's notice says why) and, unless `noEmbed`, the chunks the index
 * lacks are embedded first (persisted to `store` when given, so this is a one-time cost).
 */
export async function readySemantic(
  core: StrataCoreApi,
  vault: VaultSource,
  store: IndexStore | null,
  mode: string,
  opts: { setting?: string; noEmbed?: boolean; quiet?: boolean; embedLimit?: number } = {},
): Promise<{ model: ModelLoad | null; run: EmbedRun | null; unembedded: number }> {
  if (mode === "lexical") return { model: null, run: null, unembedded: 0 };
  const model = await loadModel(core, opts.setting ?? AUTO_MODEL, { required: mode === "semantic", quiet: true, store });
  // Without semantic answers the core's notice (hybrid) or the error above says why; a
  // fallback or a partial switch is worth a line.
  if (model.semantic && model.notice && !opts.quiet) process.stderr.write(`strata: ${model.notice}\n`);
  if (!model.loaded || opts.noEmbed) return { model, run: null, unembedded: 0 };
  const p = core.embedProgress();
  if (p.done >= p.total) return { model, run: null, unembedded: 0 };
  // More than `embedLimit` chunks to embed (a vault indexed with --no-embed, a model switch):
  // answer with the vectors there are rather than embed for minutes or hours first.
  if (p.total - p.done > (opts.embedLimit ?? Infinity)) return { model, run: null, unembedded: p.total - p.done };
  const run = await embedWithProgress(core, vault, store, Boolean(opts.quiet));
  if (run.interrupted) throw new CliError("interrupted while embedding (the work done so far is saved)", 130);
  return { model, run, unembedded: 0 };
}

/** The repository root (the folder holding Strata's package.json), found from this module. */
export function repoRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: unknown }).name === "strata-search") return dir;
      } catch {
        // not ours
      }
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
