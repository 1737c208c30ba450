// The Node host of the shared client, what the CLI, the MCP bridge and the bench run on: the wasm
// core loaded from disk and the models found there, the index folder on the file system (atomic
// writes), the vault walker and the writer lock.

import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import * as fs from "node:fs/promises";
import { hostname } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { initSync, StrataCore } from "../../build/wasm/strata_core.js";
import { initSync as initEmbedderSync, StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import type { FileStat, Skip } from "../core/api.ts";
import { CODE_WASM_NAME, setCodeLoader } from "../core/code-hook.ts";
import { installEmbedderHook, type StrataCoreStatic } from "../core/wasm-classes.ts";
import type { IndexStore } from "../core/index-store.ts";
import type { VaultListing, VaultSource } from "../core/note-reads.ts";
import { MODEL_FILE, ModelCatalog, TOKENIZER_FILE, type ReadModel } from "../core/models.ts";

const WASM_NAME = "strata_core_bg.wasm";
export const EMBEDDER_WASM_NAME = "strata_embedder_bg.wasm";

/**
 * Finds the core's .wasm: $STRATA_WASM, else `build/wasm/strata_core_bg.wasm` or a sibling
 * `strata_core_bg.wasm` in this module's folder or any folder above it (this file sits in
 * plugin/node/ when run from source and in dist/ when bundled). The embedder's and the code
 * chunker's .wasm (`name` = EMBEDDER_WASM_NAME, CODE_WASM_NAME) are looked for the same way,
 * and beside $STRATA_WASM.
 */
export function findWasm(name: string = WASM_NAME): string {
  const env = process.env.STRATA_WASM;
  if (env) {
    const file = name === WASM_NAME ? env : path.join(path.dirname(env), name);
    if (!existsSync(file)) throw new Error(`STRATA_WASM points to a folder without ${name}: ${file}`);
    return file;
  }
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const candidate of [path.join(dir, "build", "wasm", name), path.join(dir, name)]) {
      if (existsSync(candidate)) return candidate;
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(`${name} was not found: run scripts/build-wasm.sh (or set STRATA_WASM)`);
}

export { MODEL_FILE, TOKENIZER_FILE } from "../core/models.ts";

let catalog: ModelCatalog | null = null;

/** The embedding models the core knows (StrataCore.models(), once per process). */
export function modelCatalog(): ModelCatalog {
  catalog ??= new ModelCatalog(loadCore().models());
  return catalog;
}

/**
 * A model's folder: `$STRATA_MODELS/<id>` when that is set, else `models/<id>` in this
 * module's folder or any folder above it (the repository from source or from dist/; the
 * plugin folder for the installed bridge). `$STRATA_MODEL_DIR`, the older setting, still
 * names the default model's folder and comes first for it. The first candidate is returned
 * even when it holds no model, so messages can name it.
 */
export function findModelDir(id: string = modelCatalog().defaultId): string {
  const single = process.env.STRATA_MODEL_DIR;
  if (single && id === modelCatalog().defaultId) return path.resolve(single);
  const root = process.env.STRATA_MODELS;
  if (root) return path.resolve(root, id);
  const start = path.dirname(fileURLToPath(import.meta.url));
  let dir = start;
  let first: string | undefined;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, "models", id);
    if (existsSync(path.join(candidate, MODEL_FILE))) return candidate;
    if (!first && existsSync(path.join(dir, "package.json"))) first = candidate;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return first ?? path.join(start, "models", id);
}

/** Whether a model's two files are in its folder (without reading them). */
export function modelPresent(id: string): boolean {
  const dir = findModelDir(id);
  return existsSync(path.join(dir, MODEL_FILE)) && existsSync(path.join(dir, TOKENIZER_FILE));
}

/** Reads models by id, from `<modelsDir>/<id>/` when given, else from findModelDir(id). */
export function modelReader(modelsDir?: string): ReadModel {
  return (id) => loadModelFiles(modelsDir ? path.join(modelsDir, id) : findModelDir(id));
}

export interface ModelFiles {
  dir: string;
  model: Uint8Array;
  tokenizer: Uint8Array;
}

/**
 * Reads the embedding model (model.onnx + tokenizer.json) from `dir` (default: findModelDir()).
 * Returns null when either file is absent: semantic search is then off and lexical search
 * keeps working. Other read errors throw.
 */
export async function loadModelFiles(dir: string = findModelDir()): Promise<ModelFiles | null> {
  const read = async (name: string): Promise<Uint8Array | null> => {
    try {
      const buf = await fs.readFile(path.join(dir, name));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw err;
    }
  };
  const [model, tokenizer] = await Promise.all([read(MODEL_FILE), read(TOKENIZER_FILE)]);
  if (!model || !tokenizer) return null;
  return { dir, model, tokenizer };
}

let loaded = false;
let embedderLoaded = false;
let coreMemory: WebAssembly.Memory | null = null;
let embedderMemory: WebAssembly.Memory | null = null;
let codeMemory: WebAssembly.Memory | null = null;
let embedderCompiled: WebAssembly.Module | null = null;

/**
 * The embedder's wasm, compiled once per process: this thread's embedder and every pool worker
 * (pool-workers.ts posts it to them) instantiate this one module, so its machine code is
 * shared rather than compiled again per worker (−40 MB of process memory a worker with
 * all-MiniLM-L6-v2, docs/benchmarks.md#memory).
 */
export function embedderModule(): WebAssembly.Module {
  embedderCompiled ??= new WebAssembly.Module(readFileSync(findWasm(EMBEDDER_WASM_NAME)));
  return embedderCompiled;
}

/** Bytes of the wasm modules' linear memories (0 for a module not instantiated yet). */
export function wasmMemory(): { core: number; embedder: number; code: number } {
  return {
    core: coreMemory?.buffer.byteLength ?? 0,
    embedder: embedderMemory?.buffer.byteLength ?? 0,
    code: codeMemory?.buffer.byteLength ?? 0,
  };
}

/**
 * Instantiates the wasm core once per process and returns the StrataCore class. The
 * embedder's wasm (tract, 4× the core's size) is instantiated only when a model is loaded:
 * the core calls `globalThis.__strataCreateEmbedder`, installed here. The code chunker's
 * (tree-sitter) only when code files are to be indexed: see code-hook.ts.
 */
export function loadCore(): StrataCoreStatic {
  if (!loaded) {
    const bytes = readFileSync(findWasm());
    coreMemory = initSync({ module: bytes }).memory;
    loaded = true;
    installEmbedderHook(() => {
      if (!embedderLoaded) {
        embedderMemory = initEmbedderSync({ module: embedderModule() }).memory;
        embedderLoaded = true;
      }
      return StrataEmbedder;
    });
    setCodeLoader(async () => {
      const code = await import("../../build/wasm/strata_chunker.js");
      codeMemory = code.initSync({ module: readFileSync(findWasm(CODE_WASM_NAME)) }).memory;
      return code.chunkCode;
    });
  }
  return StrataCore;
}

/** Rejects names that would leave the folder they are relative to. */
function checkRelative(name: string): void {
  if (name === "" || name.includes("\0") || path.isAbsolute(name) || name.split(/[\\/]/).some((seg) => seg === ".." || seg === "")) {
    throw new Error(`refusing a path outside its folder: ${JSON.stringify(name)}`);
  }
}

let tmpCounter = 0;

export interface AtomicWriteOptions {
  /** The temporary file, in the same folder as `full`. */
  tmp: string;
  /** File mode of a new file (default 0o666 before umask). */
  mode?: number;
  /** Fail if `tmp` exists (never follow a planted file). */
  exclusive?: boolean;
  /** Runs after the bytes are durable and before the rename; a throw leaves `full` as it was. */
  beforeRename?: () => Promise<void>;
}

/** Writes `full` atomically: temp file, fsync, rename. A crash leaves the old file or the new one. */
export async function atomicWrite(full: string, bytes: Uint8Array, opts: AtomicWriteOptions): Promise<void> {
  const fh = await fs.open(opts.tmp, opts.exclusive ? "wx" : "w", opts.mode);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await opts.beforeRename?.();
    await fs.rename(opts.tmp, full);
  } catch (err) {
    await fs.rm(opts.tmp, { force: true });
    throw err;
  }
}

/**
 * The index folder on the file system. Every write is atomic: temp file, fsync, rename; the
 * renames are made durable by sync(), which fsyncs the folders written to since the last one.
 */
export class FsIndexStore implements IndexStore {
  private readonly dirty = new Set<string>();

  constructor(readonly dir: string) {}

  /** The folder's files, or (`prefix`, a folder's, ending in "/") those under that folder only,
   *  as the Obsidian host lists them (plugin/obsidian/host-io.ts `indexList`). */
  async list(prefix?: string): Promise<string[]> {
    const start = prefix?.replace(/\/+$/, "") ?? "";
    if (start) checkRelative(start);
    const out: string[] = [];
    const walk = async (rel: string) => {
      let entries;
      try {
        entries = await fs.readdir(path.join(this.dir, rel), { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT" && rel === start) return;
        throw err;
      }
      for (const e of entries) {
        const name = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(name);
        else if (e.isFile()) out.push(name);
      }
    };
    await walk(start);
    return out.sort();
  }

  async read(name: string): Promise<Uint8Array> {
    checkRelative(name);
    const buf = await fs.readFile(path.join(this.dir, name));
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    checkRelative(name);
    const full = path.join(this.dir, name);
    const dir = path.dirname(full);
    await fs.mkdir(dir, { recursive: true });
    await atomicWrite(full, bytes, { tmp: `${full}.tmp-${process.pid}-${++tmpCounter}` });
    this.dirty.add(dir);
  }

  async sync(): Promise<void> {
    const dirs = [...this.dirty];
    this.dirty.clear();
    await Promise.all(dirs.map(syncDir));
  }

  async delete(name: string): Promise<void> {
    checkRelative(name);
    await fs.rm(path.join(this.dir, name), { force: true });
  }

  /** Total bytes of the files in the folder. */
  async size(): Promise<number> {
    let total = 0;
    for (const name of await this.list()) {
      total += (await fs.stat(path.join(this.dir, name))).size;
    }
    return total;
  }
}

/** Makes a rename durable (POSIX); a no-op where directories cannot be opened (Windows). */
async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await fs.open(dir, "r");
    await fh.sync();
  } catch {
    // not supported on this platform
  } finally {
    await fh?.close();
  }
}

/**
 * A file's creation time for the core (`file.ctime`): its birth time, else the time its inode
 * last changed (file systems without birth times report 0); undefined when neither is known.
 */
export function creationTime(st: { birthtimeMs: number; ctimeMs: number }): number | undefined {
  const t = st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  return Number.isFinite(t) && t > 0 ? Math.trunc(t) : undefined;
}

export interface NodeVaultOptions {
  /** Obsidian's config folder (never walked). Default ".obsidian". */
  configDir?: string;
}

/**
 * A vault folder on disk. Lists files with size, mtime and ctime without following symlinks
 * (lstat semantics), skips every dot-entry (`.obsidian`, `.trash`, `.git`, …) and asks the
 * core which paths it indexes; reads refuse symlinks and paths leaving the vault.
 */
export class NodeVault implements VaultSource {
  readonly root: string;
  readonly configDir: string;

  constructor(root: string, opts: NodeVaultOptions = {}) {
    this.root = path.resolve(root);
    this.configDir = opts.configDir ?? ".obsidian";
  }

  // Synchronous file calls on purpose: a vault is thousands of small files, and each promise
  // of node:fs costs more on the main thread than the read itself. Measured on the help vault
  // (5,882 notes, 31.6 MB): reading every note took 765–828 ms through FileHandle (open, fstat,
  // read, close), 116–152 ms with readFileSync; lstat'ing them 204–220 ms with promises, 43–51 ms
  // sync. The main thread is the core's thread too, so that time was indexing time.
  async list(shouldIndex: (path: string) => boolean): Promise<VaultListing> {
    const files: FileStat[] = [];
    const skipped: Skip[] = [];
    let ignored = 0;
    const walk = (rel: string): void => {
      let entries;
      try {
        entries = readdirSync(rel ? path.join(this.root, rel) : this.root, { withFileTypes: true });
      } catch (err) {
        if (rel === "") throw err;
        skipped.push({ path: rel, reason: `unreadable folder: ${(err as Error).message}` });
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const folders: string[] = [];
      for (const e of entries) {
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (e.name.startsWith(".") || p === this.configDir) continue;
        if (e.isSymbolicLink()) {
          if (shouldIndex(p)) skipped.push({ path: p, reason: "symbolic link (not followed)" });
          continue;
        }
        if (e.isDirectory()) folders.push(p);
        else if (!e.isFile()) continue;
        else if (!shouldIndex(p)) ignored++;
        else {
          try {
            const st = lstatSync(path.join(this.root, p));
            files.push({ path: p, size: st.size, mtime: Math.trunc(st.mtimeMs), ctime: creationTime(st) });
          } catch (err) {
            skipped.push({ path: p, reason: `unreadable: ${(err as Error).message}` });
          }
        }
      }
      for (const f of folders) walk(f);
    };
    walk("");
    return { files, skipped, ignored };
  }

  async read(rel: string): Promise<Uint8Array> {
    checkRelative(rel);
    // O_NOFOLLOW: a note replaced by a symlink after listing is not followed out of the vault
    // (Node takes numeric flags; its types only name the string ones).
    const flag = (constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)) as unknown as string;
    const buf = readFileSync(path.join(this.root, rel), { flag });
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }
}

/** Checks that `dir` exists and is a folder; returns an error message otherwise. */
export async function checkVaultDir(dir: string): Promise<string | undefined> {
  let st;
  try {
    st = await fs.stat(dir);
  } catch {
    return `vault not found: ${dir}`;
  }
  if (!st.isDirectory()) return `not a folder: ${dir} (a vault is a folder of notes)`;
  return undefined;
}

// ---- one writer per index folder ---------------------------------------------------------

/** Whether a process with this pid exists on this machine. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Who holds an index folder's writer lock (`<index dir>.lock`). */
export interface LockHolder {
  pid: number;
  host: string;
  /** What it is doing, e.g. "strata index". */
  what: string;
  /** ISO time it took the lock. */
  since: string;
}

export interface IndexLock {
  readonly file: string;
  release(): void;
}

function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(file, "utf8")) as Partial<LockHolder>;
    return Number.isInteger(h.pid) && typeof h.host === "string"
      ? { pid: h.pid!, host: h.host, what: String(h.what ?? "?"), since: String(h.since ?? "?") }
      : null;
  } catch {
    return null;
  }
}

/**
 * Takes the writer lock of the index in `indexDir`: a file beside the folder (`index.lock`,
 * created exclusively) naming this process. Two programs writing one index folder would delete
 * each other's new files as orphans, so a CLI that must write waits for none: it gets the
 * holder back and says who it is. A lock whose process is gone, or that names another machine
 * (a lock file carried over by a sync tool: its process cannot be checked from here and does not
 * write this copy of the folder), is taken over. Released on `release()` or at exit.
 */
export function acquireIndexLock(indexDir: string, what: string): { lock: IndexLock } | { heldBy: LockHolder } {
  const file = `${path.resolve(indexDir)}.lock`;
  mkdirSync(path.dirname(file), { recursive: true });
  const me: LockHolder = { pid: process.pid, host: hostname(), what, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = readHolder(file);
      if (holder && holder.host === me.host && holder.pid !== me.pid && processAlive(holder.pid)) return { heldBy: holder };
      try {
        unlinkSync(file); // stale: its process is gone, another machine's, or unreadable
      } catch {
        // another process removed it first
      }
      continue;
    }
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    const onExit = () => {
      if (readHolder(file)?.pid === me.pid) unlinkSync(file);
    };
    process.once("exit", onExit);
    return {
      lock: {
        file,
        release: () => {
          process.off("exit", onExit);
          try {
            onExit();
          } catch {
            // already gone
          }
        },
      },
    };
  }
  throw new Error(`could not take the index lock ${file}`);
}

/** "strata index (pid 123, since 2026-11-25T04:00:00.000Z)". */
export function describeHolder(h: LockHolder): string {
  return `${h.what} (pid ${h.pid}, since ${h.since})`;
}
