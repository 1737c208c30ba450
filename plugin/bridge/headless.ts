// The headless VaultBackend: what the MCP bridge (and `strata mcp`) serve when Obsidian is
// not running. It loads the wasm core and the persisted index itself, brings the index up
// to date for notes changed on disk (at start and, throttled, before each call), loads the
// embedding model the plugin's setting chooses (auto without one) when present and embeds
// pending chunks in the background, and writes notes atomically (temp file + rename, never
// through a symlink), updating and persisting the index after each write.

import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";

import type { CoreConfig, NoteInfo, Outline, ReadRequest, ReadResult, SearchRequest, SearchResponse, StrataCoreApi } from "../core/api.ts";
import { requestPath, runCoreRead, type CoreRead, type CoreReadAnswer, type CoreReadRequest } from "../core/core-reads.ts";
import type { BackendStatus, ToolSettings, VaultBackend } from "../core/vault-backend.ts";
import { errorMessage } from "../core/errors.ts";
import { addSharedVectors, defaultIndexDir, openIndex, persist } from "../core/index-store.ts";
import { machineDeviceId } from "../node/device-id.ts";
import { readNote, searchWithSnippets } from "../core/note-reads.ts";
import { reconcile } from "../core/reconcile.ts";
import { codeLoadFailure, prepareCode, retryCodeBlocks } from "../core/code-hook.ts";
import { codePassAll } from "../core/code-pass.ts";
import { embedAll } from "../core/embedding/loop.ts";
import { chooseWorkers, EmbedPool } from "../core/embedding/pool.ts";
import { nodeEmbedSpawner } from "../node/pool-workers.ts";
import { forgetLoadedModels } from "../core/wasm-classes.ts";
import { availableParallelism, totalmem } from "node:os";
import { AUTO_MODEL, loadChosenModel } from "../core/models.ts";
import {
  acquireIndexLock,
  atomicWrite,
  creationTime,
  describeHolder,
  FsIndexStore,
  type IndexLock,
  loadCore,
  modelCatalog,
  modelReader,
  NodeVault,
} from "../node/host.ts";
import { vaultFirstModelReader } from "../node/model-download.ts";
import { pluginDirOf } from "./loopback-protocol.ts";
import { checkVaultPath } from "./vault-paths.ts";

/** Background embedding steps aim at this (ms): a tool call waits at most about that long. */
const EMBED_STEP_MS = 500;

export const DEFAULT_SETTINGS: ToolSettings = {
  writeToolsEnabled: false,
  sessionsFolder: "Strata/Sessions",
  memoryFolder: "Strata/Memory",
  changelogFolder: "Strata",
};

export interface HeadlessOptions {
  vaultDir: string;
  /** Default ".obsidian". */
  configDir?: string;
  /** Default <vault>/<configDir>/plugins/strata-search/index. */
  indexDir?: string;
  /** Overrides over the plugin's saved settings (data.json) and the defaults. */
  settings?: Partial<ToolSettings>;
  /** The folder holding one folder per model (`<id>/model.onnx`, `<id>/tokenizer.json`);
   *  default: each model's findModelDir(id). null = no model (lexical search only). */
  modelsDir?: string | null;
  /** "auto" or a model id; default: the plugin's "Embedding model" setting, else auto. */
  modelSetting?: string;
  /** Embed pending chunks in the background (default true). */
  embed?: boolean;
  /** Embedder worker threads (the pool; 0 = the core's own embedder, in steps); default: the
   *  plugin's "Embedding workers" setting (data.json `embedWorkers`), else Auto. */
  embedWorkers?: number;
  /** At most one disk check for changed notes per this many ms (default 2000). */
  refreshIntervalMs?: number;
  /** Diagnostics (stderr in the bridge). */
  log?: (msg: string) => void;
}

/** The plugin's saved settings (data.json in the plugin folder); {} when absent or unreadable. */
async function readPluginData(vaultDir: string, configDir: string): Promise<Record<string, unknown>> {
  try {
    const raw: unknown = JSON.parse(await fs.readFile(path.join(vaultDir, pluginDirOf(configDir), "data.json"), "utf8"));
    return raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The plugin's "Embedding model" setting (data.json `embeddingModel`), else auto. */
export async function readModelSetting(vaultDir: string, configDir: string): Promise<string> {
  const v = (await readPluginData(vaultDir, configDir)).embeddingModel;
  return typeof v === "string" && modelCatalog().isSetting(v) ? v : AUTO_MODEL;
}

/** The plugin's "Embedding workers" setting (data.json `embedWorkers`: "auto" or 1…16), else auto. */
async function readWorkersSetting(vaultDir: string, configDir: string): Promise<"auto" | number> {
  const v = (await readPluginData(vaultDir, configDir)).embedWorkers;
  return typeof v === "number" && Number.isInteger(v) && v >= 1 ? v : "auto";
}

/** The plugin's saved settings, the keys the tools use. */
export async function readPluginSettings(vaultDir: string, configDir: string): Promise<Partial<ToolSettings>> {
  const r = await readPluginData(vaultDir, configDir);
  const out: Partial<ToolSettings> = {};
  if (typeof r.writeToolsEnabled === "boolean") out.writeToolsEnabled = r.writeToolsEnabled;
  for (const k of ["sessionsFolder", "memoryFolder", "changelogFolder"] as const) {
    if (typeof r[k] === "string" && r[k].trim()) out[k] = r[k].trim().replace(/\/+$/, "");
  }
  return out;
}

/** The plugin's code settings (data.json `codeEnabled`, `codeExtensions`, `codeExcludeFolders`,
 *  `maxCodeKB`) as CoreConfig fields, so that both index the same files; the core's defaults else. */
export async function readCodeConfig(vaultDir: string, configDir: string): Promise<CoreConfig> {
  const r = await readPluginData(vaultDir, configDir);
  const out: CoreConfig = {};
  const names = (v: unknown): string[] | null => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : null);
  if (typeof r.codeEnabled === "boolean") out.codeEnabled = r.codeEnabled;
  const exts = names(r.codeExtensions);
  if (exts) out.codeExtensions = exts.map((e) => e.trim().replace(/^\./, "").toLowerCase()).filter(Boolean);
  const folders = names(r.codeExcludeFolders);
  if (folders) out.codeExcludeFolders = folders.map((f) => f.trim().replace(/^\/+|\/+$/g, "")).filter(Boolean);
  if (typeof r.maxCodeKB === "number" && Number.isInteger(r.maxCodeKB) && r.maxCodeKB >= 1) out.maxCodeBytes = r.maxCodeKB * 1024;
  return out;
}

/** The background embedding met an index abandoned to another writer: it stops, writing nothing. */
class IndexAbandoned extends Error {}

/** Runs async sections one at a time (index updates, persists, embedding steps). */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

let tmpCounter = 0;

export class HeadlessBackend implements VaultBackend {
  private readonly mutex = new Mutex();
  private lastRefresh = 0;
  private refreshCost = 0;
  private refreshing: Promise<void> | null = null;
  private lastUpdate: number | null = null;
  private embedding: Promise<void> | null = null;
  private embedAbort: AbortController | null = null;
  private pool: EmbedPool | null = null;
  private savedWorkers: "auto" | number = "auto";
  private closed = false;
  /** The plugin owns the index now: this process writes nothing more to it. */
  private abandoned = false;
  private readonly notices: string[] = [];
  private toolSettings: ToolSettings;
  /** The index folder's writer lock (see acquireIndexLock), held until close or abandon. */
  private lock: IndexLock | null = null;

  private constructor(
    readonly vaultDir: string,
    readonly configDir: string,
    private readonly core: StrataCoreApi,
    private readonly store: FsIndexStore,
    private readonly vault: NodeVault,
    private readonly opts: HeadlessOptions,
    private modelLoaded: boolean,
    settings: ToolSettings,
  ) {
    this.toolSettings = settings;
  }

  /** Opens the vault's index (creating it when absent), brings it up to date and loads the model. */
  static async open(opts: HeadlessOptions): Promise<HeadlessBackend> {
    const vaultDir = await fs.realpath(path.resolve(opts.vaultDir)).catch(() => {
      throw new Error(`vault not found: ${opts.vaultDir}`);
    });
    if (!(await fs.stat(vaultDir)).isDirectory()) throw new Error(`not a folder: ${vaultDir} (a vault is a folder of notes)`);
    const configDir = opts.configDir ?? ".obsidian";
    const store = new FsIndexStore(path.resolve(opts.indexDir ?? path.join(vaultDir, defaultIndexDir(configDir))));
    const vault = new NodeVault(vaultDir, { configDir });
    const got = acquireIndexLock(store.dir, "the Strata MCP bridge");
    if ("heldBy" in got) throw new Error(`${describeHolder(got.heldBy)} is writing it; try again when it is done`);
    let b: HeadlessBackend;
    try {
      const config = { configDir, deviceId: machineDeviceId(), ...(await readCodeConfig(vaultDir, configDir)) };
      const { core, report } = await openIndex(loadCore(), store, config);
      const settings = { ...DEFAULT_SETTINGS, ...(await readPluginSettings(vaultDir, configDir)), ...opts.settings };
      b = new HeadlessBackend(vaultDir, configDir, core, store, vault, opts, false, settings);
      b.lock = got.lock;
      b.savedWorkers = await readWorkersSetting(vaultDir, configDir);
      if (report.rebuilt) b.notices.push(`the index was unusable (${report.reason ?? "unknown reason"}) and was rebuilt`);
    } catch (err) {
      got.lock.release();
      throw err;
    }
    await b.refresh(true);
    if (opts.modelsDir !== null) {
      // After the refresh: auto chooses by the indexed notes' scripts.
      const setting = opts.modelSetting ?? (await readModelSetting(vaultDir, configDir));
      try {
        // The plugin's models folder first (where its Download puts them), then beside the bridge.
        const reader = opts.modelsDir === undefined ? vaultFirstModelReader(vaultDir, configDir) : modelReader(opts.modelsDir);
        const load = await loadChosenModel(b.core, setting, reader, modelCatalog());
        await addSharedVectors(b.core, store);
        b.modelLoaded = load.loaded !== null;
        if (load.notice) b.notices.push(load.notice);
      } catch (err) {
        b.notices.push(`semantic search is off: the embedding model could not be loaded: ${errorMessage(err)}`);
      }
    } else {
      b.notices.push("semantic search is off (no model configured); lexical search works");
    }
    b.kickEmbedding();
    b.warmQueriesLater();
    return b;
  }

  /** Builds the property columns of the queries (core.warmQueries) in the background after
   *  the open, outside it: the first `query` or `tasks` naming a property then reads them. */
  private warmQueriesLater(): void {
    const timer = setTimeout(() => {
      this.mutex
        .run(async () => {
          if (!this.closed) this.core.warmQueries();
        })
        .catch((err) => this.log(`property columns not built: ${errorMessage(err)}`));
    }, 0);
    timer.unref?.();
  }

  private log(msg: string) {
    this.opts.log?.(msg);
  }

  /** Brings the index up to date with the disk (throttled unless `force`). */
  async refresh(force = false): Promise<void> {
    if (this.closed) return;
    const interval = Math.max(this.opts.refreshIntervalMs ?? 2000, this.refreshCost * 5);
    if (!force && Date.now() - this.lastRefresh < interval) return;
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.mutex
      .run(async () => {
        const t0 = Date.now();
        const sum = await reconcile(this.core, this.vault, { store: this.store });
        // Code files another run left in line windows (an interrupted `strata index`): defined.
        const pass = await codePassAll(this.core, this.vault, this.store);
        if (pass.failure) this.log(`${pass.failure.path}: ${pass.failure.message}`);
        this.refreshCost = Date.now() - t0;
        this.toolSettings = { ...DEFAULT_SETTINGS, ...(await readPluginSettings(this.vaultDir, this.configDir)), ...this.opts.settings };
        if (sum.added + sum.updated + sum.moved + sum.deleted > 0) {
          this.lastUpdate = Date.now();
          this.log(`index updated: ${sum.added} added, ${sum.updated} updated, ${sum.moved} moved, ${sum.deleted} deleted`);
        }
      })
      .finally(() => {
        this.lastRefresh = Date.now();
        this.refreshing = null;
      });
    await this.refreshing;
    this.kickEmbedding();
  }

  /** Starts the background embedding (embedAll) when the model is loaded and chunks are pending. */
  private kickEmbedding(): void {
    if (this.closed || !this.modelLoaded || this.embedding || this.opts.embed === false) return;
    const p = this.core.embedProgress();
    if (p.done >= p.total) return;
    const ctl = new AbortController();
    this.embedAbort = ctl;
    // Short steps: a tool call waits for the step under way (see stepChunks). Each step and
    // persist runs under the mutex, between tool calls' index updates; once the index is
    // abandoned to the plugin, nothing more is written.
    const opts = {
      signal: ctl.signal,
      stepMs: EMBED_STEP_MS,
      exclusive: <T>(work: () => Promise<T>) =>
        this.mutex.run(() => {
          if (this.abandoned) throw new IndexAbandoned();
          return work();
        }),
    };
    // With the pool, tool calls wait only for the hand-outs and stores, never for a batch.
    this.pool ??= this.embedWorkers() > 0 ? new EmbedPool(nodeEmbedSpawner(), this.embedWorkers()) : null;
    if (!this.pool) forgetLoadedModels();
    this.embedding = (
      this.pool
        ? this.pool.run(this.core, this.vault, this.store, {
            ...opts,
            onWorkerFailure: (msg) => this.log(`an embedder worker failed and was restarted: ${msg}`),
          })
        : embedAll(this.core, this.vault, this.store, opts)
    )
      .then(() => undefined)
      .catch((err) => {
        if (!(err instanceof IndexAbandoned)) this.log(`embedding stopped: ${errorMessage(err)}`);
      })
      .finally(() => {
        this.embedding = null;
        this.embedAbort = null;
      });
  }

  /** Embedder worker threads: the option, else the plugin's setting, else Auto (see chooseWorkers). */
  private embedWorkers(): number {
    if (this.opts.embedWorkers !== undefined) return Math.max(0, Math.floor(this.opts.embedWorkers));
    const model = this.core.embedProgress().model;
    return chooseWorkers(this.savedWorkers, { cores: availableParallelism(), totalMemoryMB: totalmem() / 2 ** 20, model }).workers;
  }

  /** Resolves when the background embedding (if any) has finished. */
  async whenEmbedded(): Promise<void> {
    while (this.embedding) await this.embedding;
  }

  /** Stops embedding and persists what is pending. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.embedAbort?.abort();
    await this.embedding;
    this.pool?.close();
    await this.mutex.run(() => persist(this.core, this.store)).catch((err) => this.log(`persist on close failed: ${errorMessage(err)}`));
    this.core.free();
    this.lock?.release();
  }

  /** Closes without persisting (another process, the plugin, now owns the index). */
  async abandon(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abandoned = true;
    this.embedAbort?.abort();
    await this.embedding;
    this.pool?.close();
    this.lock?.release();
  }

  // ---- path safety (second line: the tools check first) ----

  /** Checks a vault-relative path and that no existing component of it is a symlink. */
  private async safePath(rel: string): Promise<string> {
    checkVaultPath(rel, this.configDir);
    const segs = rel.split("/");
    let cur = this.vaultDir;
    for (let i = 0; i < segs.length; i++) {
      cur = path.join(cur, segs[i]);
      let st;
      try {
        st = await fs.lstat(cur);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") break;
        throw err;
      }
      if (st.isSymbolicLink()) {
        throw new Error(
          `refused: ${segs.slice(0, i + 1).join("/")} is a symbolic link; Strata does not follow links (they may leave the vault)`,
        );
      }
    }
    return path.join(this.vaultDir, ...segs);
  }

  // ---- VaultBackend ----

  settings(): ToolSettings {
    return { ...this.toolSettings };
  }

  async status(): Promise<BackendStatus> {
    await this.refresh();
    const embedding = this.modelLoaded ? this.core.embedProgress() : null;
    const notices = [...this.notices];
    const code = codeLoadFailure();
    if (code) notices.push(code);
    if (embedding && embedding.done < embedding.total) notices.push(`embedding in progress: ${embedding.done}/${embedding.total}`);
    return {
      mode: "headless",
      vault: path.basename(this.vaultDir),
      configDir: this.configDir,
      index: this.core.status(),
      embedding,
      pendingNotes: 0,
      lastUpdate: this.lastUpdate,
      notices,
    };
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    await this.refresh();
    return searchWithSnippets(this.core, (p) => this.vault.read(p), req);
  }

  async read(req: ReadRequest): Promise<ReadResult> {
    await this.safePath(req.path);
    await this.refresh();
    return readNote(this.core, (p) => this.vault.read(p), req);
  }

  async coreRead<K extends CoreRead>(read: K, req: CoreReadRequest<K>): Promise<CoreReadAnswer<K>> {
    const p = requestPath(req);
    if (p) await this.safePath(p);
    await this.refresh();
    return runCoreRead(this.core, read, req);
  }

  async note(p: string): Promise<NoteInfo | null> {
    await this.safePath(p);
    await this.refresh();
    return this.core.note(p) ?? null;
  }

  async recordAccess(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.mutex.run(async () => {
      this.core.recordAccess(paths, Date.now());
      await persist(this.core, this.store);
    });
  }

  async readText(p: string): Promise<string | null> {
    const full = await this.safePath(p);
    let fh;
    try {
      fh = await fs.open(full, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      if (code === "ELOOP") throw new Error(`refused: ${p} is a symbolic link`);
      throw err;
    }
    try {
      if (!(await fh.stat()).isFile()) throw new Error(`${p} is not a file`);
      return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await fh.readFile());
    } finally {
      await fh.close();
    }
  }

  async writeText(p: string, text: string, expected?: string | null): Promise<void> {
    const full = await this.safePath(p);
    // Create missing folders one level at a time, re-checking that none is a symlink.
    const segs = p.split("/");
    let dir = this.vaultDir;
    for (const seg of segs.slice(0, -1)) {
      dir = path.join(dir, seg);
      try {
        await fs.mkdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const st = await fs.lstat(dir);
      if (st.isSymbolicLink() || !st.isDirectory()) throw new Error(`refused: ${path.relative(this.vaultDir, dir)} is not a plain folder`);
    }
    const real = await fs.realpath(dir);
    if (real !== this.vaultDir && !real.startsWith(this.vaultDir + path.sep))
      throw new Error(`refused: ${p} would be written outside the vault`);
    try {
      const st = await fs.lstat(full);
      if (!st.isFile()) throw new Error(`refused: ${p} exists and is not a regular file`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const bytes = new TextEncoder().encode(text);
    await atomicWrite(full, bytes, {
      tmp: path.join(dir, `.${path.basename(full)}.strata-tmp-${process.pid}-${++tmpCounter}`),
      mode: 0o644,
      exclusive: true,
      // The last moment before the swap: a note changed by someone else is left as it is.
      beforeRename: async () => {
        if (expected === undefined) return;
        const current = await this.readText(p).catch(() => null);
        if (current !== expected) {
          throw new Error(
            `[conflict] ${p} ${current === null ? "is gone" : expected === null ? "was created" : "changed"} since it was read: nothing written`,
          );
        }
      },
    });
    const st = await fs.lstat(full);
    const mtime = Math.trunc(st.mtimeMs);
    await this.mutex.run(async () => {
      const code = await prepareCode(this.core, [p]);
      if (code) this.log(`${code.path}: ${code.message}`);
      const upserts = [{ path: p, bytes, mtime, ctime: creationTime(st) }];
      const again = await retryCodeBlocks(this.core, this.core.update({ upserts }), upserts, true);
      for (const w of again?.warnings ?? []) this.log(`${w.path}: ${w.message}`);
      await persist(this.core, this.store);
    });
    this.lastUpdate = Date.now();
    if (this.modelLoaded) this.core.prioritize([p]);
    this.kickEmbedding();
  }

  outline(text: string): Promise<Outline> {
    return Promise.resolve(loadCore().outline(new TextEncoder().encode(text)));
  }

  async readPluginFile(name: string): Promise<string | null> {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith(".")) throw new Error(`refused: plugin file name ${JSON.stringify(name)}`);
    try {
      return await fs.readFile(path.join(this.vaultDir, pluginDirOf(this.configDir), name), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async appendPluginFile(name: string, text: string): Promise<void> {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith(".")) throw new Error(`refused: plugin file name ${JSON.stringify(name)}`);
    const dir = path.join(this.vaultDir, pluginDirOf(this.configDir));
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, name);
    const fh = await fs.open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      await fh.appendFile(text);
    } finally {
      await fh.close();
    }
  }
}
