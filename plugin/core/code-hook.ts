// The code chunker's wasm (build/wasm/strata_chunker_bg.wasm, tree-sitter and its grammars,
// ~10 MB) as the core reaches it: through `globalThis.__strataChunkCode`, installed by the host.
// A host registers how it loads the module (setCodeLoader: Node reads the file, the plugin's
// worker decodes its inlined copy); the module is loaded only when an update is to chunk a code
// file at once (prepareCode: a file whose definitions are in the index, or an update that is not a
// bulk index) or when the code pass has files to define (code-pass.ts), so a vault of notes never
// pays for it. Without the hook the core indexes code files as plain line windows, waiting for the
// code pass, and says so in its report.

import type { NoteInput, StrataCoreApi, UpdateReport, Warning } from "./api.ts";
import { errorMessage } from "./errors.ts";
import { globalScope } from "./global-scope.ts";

/** The code wasm's export: a file's chunks, encoded for the core. */
export type ChunkCode = (lang: string, text: string, budgetTokens: number) => Uint8Array;

/** Loads the code wasm and returns its `chunkCode` (throws when it is missing or corrupt). */
export type CodeLoader = () => ChunkCode | Promise<ChunkCode>;

/** The code wasm's file name in build/wasm (and beside the bundles). */
export const CODE_WASM_NAME = "strata_chunker_bg.wasm";

/** The extensions indexed as code by default (crate/chunker's DEFAULT_EXTENSIONS). */
export const DEFAULT_CODE_EXTENSIONS = [
  "py",
  "js",
  "jsx",
  "mjs",
  "cjs",
  "ts",
  "tsx",
  "mts",
  "cts",
  "go",
  "rs",
  "java",
  "c",
  "h",
  "cpp",
  "hpp",
  "cc",
  "cxx",
  "hh",
  "json",
  "yaml",
  "yml",
];

/** Folders whose code files are skipped by default (the core's DEFAULT_CODE_EXCLUDE). */
export const DEFAULT_CODE_EXCLUDE = ["node_modules", "target", "dist", "build", ".venv", "vendor", "__pycache__"];

/** The largest code file indexed by default (the core's `maxCodeBytes`). */
export const DEFAULT_MAX_CODE_BYTES = 1024 * 1024;

/** Extensions the chunker has a grammar for (crate/chunker's CodeLang::from_extension): a path the
 *  core indexes with one of these is chunked through the hook. */
const CHUNKED_EXTENSIONS = new Set([...DEFAULT_CODE_EXTENSIONS, "pyi", "hxx", "c++"]);

/** The extension of a path, lower case, without the dot ("" when it has none). */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

/** Whether the core would chunk `path` as code: it indexes the path, and the chunker knows the
 *  language (code indexing off, or another extension: false). */
export function isCodePath(core: Pick<StrataCoreApi, "shouldIndex">, path: string): boolean {
  return CHUNKED_EXTENSIONS.has(extensionOf(path)) && core.shouldIndex(path);
}

const HOOK = "__strataChunkCode";

let loader: CodeLoader | null = null;
let loading: Promise<void> | null = null;
let failure: string | null = null;

/** Sets how this thread loads the code wasm (null: none, code files stay line windows). */
export function setCodeLoader(load: CodeLoader | null): void {
  loader = load;
  failure = null;
}

/** Why the code wasm could not be loaded in this thread (null: loaded, not tried, or no failure). */
export function codeLoadFailure(): string | null {
  return failure;
}

/** Whether the hook is installed (the code wasm was loaded in this thread). */
export function codeHookInstalled(): boolean {
  return typeof globalScope[HOOK] === "function";
}

/** Installs `chunk` as the core's hook. */
export function installCodeHook(chunk: ChunkCode): void {
  globalScope[HOOK] = chunk;
}

/**
 * Before files are indexed: when the update of `paths` chunks a code file at once (the core's
 * `codeChunkerWanted`: one whose definitions are in the index, or any code file when `deferCode`
 * is false) and the hook is not installed, loads the code wasm (once per thread) and installs
 * it. Returns null when the hook is there (or not needed), else a warning on the first code file
 * saying why code files will be indexed as plain line windows: no loader in this host, or a load
 * that failed (missing or corrupt wasm; not retried until setCodeLoader is called again). Never
 * throws: the notes are indexed regardless.
 */
export async function prepareCode(
  core: Pick<StrataCoreApi, "shouldIndex" | "codeChunkerWanted">,
  paths: Iterable<string>,
  deferCode = false,
): Promise<Warning | null> {
  if (codeHookInstalled()) return null;
  const all = [...paths];
  if (!core.codeChunkerWanted(all, deferCode)) return null;
  return loadCodeChunker(all.find((p) => isCodePath(core, p)) ?? all[0]);
}

/** Loads the code wasm (once per thread) and installs the hook; a warning on `first` (the file
 *  it is loaded for) when it cannot be loaded. */
export async function loadCodeChunker(first: string): Promise<Warning | null> {
  if (codeHookInstalled()) return null;
  if (failure) return { path: first, message: failure };
  const load = loader;
  if (!load) return { path: first, message: "this host cannot load the code chunker; code files are indexed as plain line windows" };
  loading ??= (async () => {
    try {
      installCodeHook(await load());
    } catch (err) {
      failure = `the code chunker could not be loaded (${errorMessage(err)}); code files are indexed as plain line windows`;
    } finally {
      loading = null;
    }
  })();
  await loading;
  return codeHookInstalled() ? null : { path: first, message: failure ?? "the code chunker is not loaded" };
}

/**
 * After `core.update`: notes whose large fenced code blocks stayed whole because the chunker was
 * not loaded (`report.codeChunkerNeeded`: a vault of notes never loads it for its paths alone)
 * are passed again once it is, and their blocks are chunked. Returns the second update's report
 * (null when none was needed), with a warning when the chunker cannot be loaded.
 */
export async function retryCodeBlocks(
  core: Pick<StrataCoreApi, "update">,
  report: UpdateReport,
  upserts: readonly NoteInput[],
  commit: boolean,
): Promise<UpdateReport | null> {
  const needed = new Set(report.codeChunkerNeeded ?? []);
  if (needed.size === 0) return null;
  const first = [...needed][0];
  const warning = await loadCodeChunker(first);
  if (warning) {
    return { added: 0, updated: 0, unchanged: 0, moved: 0, deleted: 0, skipped: [], warnings: [warning], sections: 0, tookMs: 0 };
  }
  return core.update({ upserts: upserts.filter((u) => needed.has(u.path)), commit });
}
