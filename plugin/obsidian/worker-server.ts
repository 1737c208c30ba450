// The search worker's server: owns the wasm core and serves WorkerApi over an Endpoint. Index
// and note I/O go back to the UI thread (HostApi) through the shared client's IndexStore and
// VaultSource, so open/persist/reconcile/embedAll are the shared client's (plugin/core/), unchanged. The
// index stores no note text: searches read their hits' notes for snippets, reads the note,
// renames the renamed note and embedding the notes a step needs, all through the host.
//
// Writes to the index are serialised (one job at a time: open, reconcile, apply, persist,
// rebuild, loadModel); background work (the code pass, then embedding) pauses for them and
// resumes after. Reads (search,
// read, similar, list, note, status) run between the jobs' awaits and never wait for them,
// except for the open of the index, which they wait for; the reconcile, the code pass and
// embedding in turn wait between their parts for the searches and reads in flight (reads-first.ts). Models are read
// from the plugin folder through the UI thread (HostApi.modelFiles), like the index.

import init, { StrataCore } from "../../build/wasm/strata_core.js";
import type { AddVectorsReport, CodePassProgress, CoreConfig, EmbedProgress, ModelInfo, FileStat, StrataCoreApi } from "../core/api.ts";
import { errorMessage } from "../core/errors.ts";
import { globalScope } from "../core/global-scope.ts";
import { prepareCode, retryCodeBlocks, setCodeLoader } from "../core/code-hook.ts";
import { codePassAll } from "../core/code-pass.ts";
import { changeBatch } from "./change-batch.ts";
import { workerCodeLoader } from "./code-loader.ts";
import { asBytes } from "../core/bytes.ts";
import { addSharedVectors, deleteOwnIndex, openIndex, persist, prefetching, type IndexStore } from "../core/index-store.ts";
import { readNote, searchWithSnippets, type VaultSource } from "../core/note-reads.ts";
import { reconcile, type ReconcileProgress, type ReconcileSummary } from "../core/reconcile.ts";
import { Embedding, embedderWasmBytes, loadEmbedderBuild, type EmbedSpawnerFactory } from "./worker-embedding.ts";
import type { EmbedderWasm } from "../core/embedding/pool-worker.ts";
import { loadChosenModel, ModelCatalog, type ModelLoad, type ReadModel } from "../core/models.ts";
import { CancelledError, Endpoint, type CallContext, type Handlers, type PortLike } from "./rpc.ts";
import { coreReadTable, runCoreRead, type CoreRead, type CoreReadAnswer, type CoreReadRequest } from "../core/core-reads.ts";
import { pluginModelHowTo } from "./settings.ts";
import { decodeBase64, decodeInlineWasm } from "./wasm-inline.ts";
import { macrotask, ReadsFirst } from "./reads-first.ts";
import type { ApplyResult, ChangeSet, WorkerState, HostApi, OpenResult, WasmLoaders, WorkerApi } from "./worker-protocol.ts";

/** Background embedding steps aim at this (ms): a search queued behind a step waits at most
 *  about that long (see stepChunks). */
const EMBED_STEP_MS = 800;

/** Vault files checked per part of the listing before other work (a search) may run. */
const LIST_CHUNK = 1024;

const PERSIST_AFTER_MS = 2000;
/** How often an open index looks for vectors other devices wrote into the folder. */
const VECTOR_WATCH_MS = 60_000;

export class WorkerServer implements Omit<Handlers<WorkerApi>, CoreRead> {
  private readonly host: Endpoint<HostApi, WorkerApi>;
  private core: StrataCoreApi | null = null;
  private config: CoreConfig = {};
  private wasmReady: Promise<void> | null = null;
  private coreMemory: WebAssembly.Memory | null = null;
  private embedderReady: Promise<void> | null = null;
  private opened: Promise<void>;
  private markOpened!: () => void;
  private jobs: Promise<unknown> = Promise.resolve();
  private jobDepth = 0;
  private embedEnabled = false;
  private embedChunks = 8;
  private embedRun: Promise<void> | null = null;
  private embedAbort: AbortController | null = null;
  private embedStalled = false;
  /** The code pass could not go on (the code wasm failed to load, a step threw) until the next job. */
  private codeStalled = false;
  private embedderWasm: EmbedderWasm | null = null;
  private readonly embedding: Embedding;
  private idleWaiters: (() => void)[] = [];
  /** The core whose property columns warmQueries() built (once per opened index). */
  private warmedCore: StrataCoreApi | null = null;
  /** Searches and reads in flight, and the background work waiting for them to finish. */
  private readonly readGate = new ReadsFirst();
  private persistTimer: ReturnType<typeof setTimeout> | null = null;
  private dirty = false;
  private readonly st: WorkerState = {
    phase: "starting",
    reconcile: null,
    embedding: null,
    embeddingActive: false,
    embedWorkers: { workers: 0, restarts: 0, fallback: null, build: null },
    pendingNotes: 0,
    lastUpdate: null,
    counters: { embedded: 0, notesRead: 0, renamesRead: 0, reindexed: 0, persists: 0, bytesWritten: 0, queryColumnsWarmed: 0 },
  };
  readonly store: IndexStore;
  readonly vault: VaultSource;

  constructor(
    port: PortLike,
    private readonly loaders: WasmLoaders | null,
    spawner?: EmbedSpawnerFactory,
  ) {
    this.embedding = new Embedding(spawner?.(() => this.embedderWasm) ?? null);
    this.opened = new Promise((resolve) => (this.markOpened = resolve));
    this.host = new Endpoint<HostApi, WorkerApi>(
      port,
      this,
      coreReadTable((read, req, ctx: CallContext) => this.coreRead(read, req, ctx)),
    );
    const host = this.host;
    this.store = {
      list: (prefix) => host.call("indexList", prefix === undefined ? {} : { prefix }),
      read: async (name) => new Uint8Array(await host.call("indexRead", { name })),
      write: async (name, bytes) => {
        // A copy whose buffer is moved to the UI thread: the caller's array stays intact, and
        // the UI thread does not pay for a structured-clone copy.
        const copy = asBytes(bytes).slice();
        await host.call("indexWrite", { name, bytes: copy }, { transfer: [copy.buffer] });
      },
      delete: (name) => host.call("indexDelete", { name }),
    };
    this.vault = {
      list: async (shouldIndex) => {
        const all = await host.call("vaultList", {});
        // In parts, letting searches through: 100k calls into the core take 0.12–0.15 s.
        const files: FileStat[] = [];
        for (let i = 0; i < all.length; i += LIST_CHUNK) {
          for (const f of all.slice(i, i + LIST_CHUNK)) if (shouldIndex(f.path)) files.push(f);
          if (i + LIST_CHUNK < all.length) await this.readGate.pause();
        }
        return { files, skipped: [], ignored: all.length - files.length };
      },
      read: async (path) => new Uint8Array(await host.call("vaultRead", { path })),
    };
    setCodeLoader(
      workerCodeLoader({
        own: loaders?.code,
        inline: () => host.call("codeWasm", {}),
        failed: (message) => host.emit("error", { message, where: "loading the code chunker" }),
      }),
    );
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Instantiates the core; answers with the models it knows (the UI thread has no core). */
  async init(arg: { wasm?: ArrayBuffer | Uint8Array; wasmBase64?: string }): Promise<{ ms: number; models: ModelInfo[] }> {
    const t0 = performance.now();
    if (!this.wasmReady) {
      this.wasmReady = (async () => {
        const bytes =
          arg.wasm ??
          (arg.wasmBase64 !== undefined ? decodeBase64(arg.wasmBase64) : undefined) ??
          (this.loaders ? await this.loaders.core() : undefined);
        if (!bytes) throw new Error("[unavailable] no wasm for the search core");
        this.coreMemory = (await init({ module_or_path: bytes })).memory;
      })();
    }
    await this.wasmReady;
    return { ms: performance.now() - t0, models: StrataCore.models() };
  }

  /** Compiles the embedder's wasm (once) and lets the core make embedders from it. */
  private loadEmbedder(): Promise<void> {
    this.embedderReady ??= (async () => {
      const own = this.loaders?.embedder;
      const builtIn = async () => (own ? own() : decodeInlineWasm(await this.host.call("embedderWasm", {})));
      const loaded = await loadEmbedderBuild(() => this.host.call("relaxedEmbedder", {}), builtIn);
      [this.embedderWasm, this.embedding.build] = [loaded.module, loaded.build]; // the module also for the pool's workers
    })();
    return this.embedderReady.catch((err) => {
      this.embedderReady = null;
      throw err;
    });
  }

  open(arg: { config: CoreConfig }): Promise<OpenResult> {
    return this.exclusive(async () => {
      const t0 = performance.now();
      if (!this.wasmReady) throw new Error("[bad-request] init() first");
      this.st.phase = "opening";
      this.config = arg.config;
      this.core?.free();
      this.core = null;
      // The index files are read (through the UI thread) while the wasm is still compiling.
      let store: IndexStore = this.store;
      let readMs: number | undefined;
      try {
        const p = await prefetching(this.store, this.config.deviceId);
        store = p.store;
        void p.settled.then(() => (readMs = performance.now() - t0));
      } catch {
        // openIndex meets the same error below and starts fresh
      }
      await this.wasmReady;
      let res: OpenResult;
      try {
        const opened = await openIndex(StrataCore, store, this.config);
        this.core = opened.core;
        res = { ...opened.report, removedOrphans: opened.removedOrphans, tookMs: 0 };
      } catch (err) {
        // The index folder could not be read at all: start empty, the reconcile rebuilds.
        this.core = StrataCore.create(this.config);
        res = {
          ...this.core.openReport(),
          rebuilt: true,
          reason: `index folder unreadable: ${errorMessage(err)}`,
          removedOrphans: [],
          tookMs: 0,
        };
      }
      this.st.phase = "idle";
      this.markOpened();
      if (this.vectorWatch === null) this.watchVectors();
      res.tookMs = performance.now() - t0;
      res.readMs = readMs;
      return res;
    });
  }

  reconcile(arg: { batchNotes?: number }): Promise<ReconcileSummary> {
    return this.exclusive(() => this.runReconcile(arg.batchNotes));
  }

  private async runReconcile(batchNotes?: number): Promise<ReconcileSummary> {
    const core = this.need();
    this.st.phase = "reconciling";
    try {
      const sum = await reconcile(core, this.vault, {
        store: this.store,
        batchNotes: batchNotes ?? 200,
        deferCode: true,
        pause: () => this.readGate.pause(),
        onProgress: (p: ReconcileProgress) => {
          this.st.reconcile = p;
          this.st.pendingNotes = Math.max(0, p.total - p.done);
          this.host.emit("reconcile", p);
        },
      });
      this.st.counters.notesRead += this.st.reconcile?.total ?? 0;
      this.st.counters.reindexed += sum.added + sum.updated;
      this.st.counters.persists++;
      this.st.counters.bytesWritten += sum.bytesWritten;
      if (sum.added + sum.updated + sum.moved + sum.deleted > 0) this.st.lastUpdate = Date.now();
      await this.warmQueries(core);
      return sum;
    } finally {
      this.st.phase = "idle";
      this.st.pendingNotes = 0;
    }
  }

  apply(cs: ChangeSet): Promise<ApplyResult> {
    return this.exclusive(async () => {
      const core = this.need();
      const { upserts, deletes, renames, warnings, renamesRead } = await changeBatch(
        core,
        cs,
        (path) => this.vault.read(path),
        // The code chunker's wasm, loaded before the first code file is indexed.
        (paths, notes) => {
          this.st.pendingNotes = notes;
          return prepareCode(core, paths, true);
        },
      );
      const rep = core.update({ upserts, deletes, renames, commit: true, deferCode: true });
      const again = await retryCodeBlocks(core, rep, upserts, true);
      if (again) rep.warnings.push(...again.warnings);
      this.st.counters.notesRead += upserts.length;
      this.st.counters.renamesRead += renamesRead;
      this.st.pendingNotes = 0;
      if (rep.added + rep.updated + rep.moved + rep.deleted > 0) {
        this.st.lastUpdate = Date.now();
        this.dirty = true;
        this.schedulePersist();
      }
      return { ...rep, warnings: [...rep.warnings, ...warnings], read: upserts.length + renamesRead };
    });
  }

  persist(): Promise<number> {
    return this.exclusive(() => this.persistNow());
  }

  private async persistNow(): Promise<number> {
    if (!this.core) return 0;
    if (this.persistTimer) globalScope.clearTimeout(this.persistTimer);
    this.persistTimer = null;
    const bytes = await persist(this.core, this.store);
    this.dirty = false;
    if (bytes > 0) {
      this.st.counters.persists++;
      this.st.counters.bytesWritten += bytes;
    }
    return bytes;
  }

  private schedulePersist(): void {
    if (this.persistTimer) globalScope.clearTimeout(this.persistTimer);
    this.persistTimer = globalScope.setTimeout(() => {
      this.persistTimer = null;
      this.persist().catch((err) => this.host.emit("error", { message: errorMessage(err), where: "persist" }));
    }, PERSIST_AFTER_MS);
  }

  rebuild(arg: { config: CoreConfig }): Promise<ReconcileSummary> {
    return this.exclusive(async () => {
      await this.wipe(arg.config);
      return this.runReconcile();
    });
  }

  clear(arg: { config: CoreConfig }): Promise<void> {
    return this.exclusive(() => this.wipe(arg.config));
  }

  /** Deletes this device's index, never another device's files nor the shared vectors, and
   *  opens what is left: an empty index with the vectors any device embedded. */
  private async wipe(config: CoreConfig): Promise<void> {
    if (this.persistTimer) globalScope.clearTimeout(this.persistTimer);
    this.persistTimer = null;
    await deleteOwnIndex(StrataCore, this.store, config);
    this.core?.free();
    this.core = null;
    this.config = config;
    this.core = (await openIndex(StrataCore, this.store, config)).core;
    this.markOpened();
    this.dirty = false;
  }

  syncVectors(): Promise<AddVectorsReport> {
    return this.exclusive(() => addSharedVectors(this.need(), this.store));
  }

  /** While the index is open: every minute, the vectors other devices wrote since (layout.rs). */
  private vectorWatch: ReturnType<typeof setTimeout> | null = null;
  private watchVectors(): void {
    this.vectorWatch = globalScope.setTimeout(() => {
      const next = () => (this.core ? this.watchVectors() : (this.vectorWatch = null));
      this.syncVectors().then(next, next);
    }, VECTOR_WATCH_MS);
  }

  loadModel(arg: { setting: string; modelsDir: string }): Promise<ModelLoad> {
    return this.exclusive(async () => {
      const core = this.need();
      const readModel: ReadModel = async (id) => {
        const files = await this.host.call("modelFiles", { modelsDir: arg.modelsDir, id });
        if (!files) return null;
        // The embedder's wasm is compiled only once there is a model to run.
        await this.loadEmbedder();
        return { model: new Uint8Array(files.model), tokenizer: new Uint8Array(files.tokenizer) };
      };
      const catalog = new ModelCatalog(StrataCore.models());
      const load = await loadChosenModel(core, arg.setting, readModel, catalog, {
        howTo: (id) => pluginModelHowTo(arg.modelsDir, id, catalog),
      });
      // A model whose vectors were not read at the open (another device's model): read them.
      await addSharedVectors(core, this.store);
      load.progress = core.embedProgress();
      this.st.embedding = load.progress;
      return load;
    });
  }

  setEmbedding(arg: { enabled: boolean; maxChunks?: number; workers?: number }): Promise<EmbedProgress | null> | EmbedProgress | null {
    this.embedEnabled = arg.enabled;
    if (arg.maxChunks) this.embedChunks = Math.max(1, arg.maxChunks);
    if (arg.workers !== undefined) this.embedding.setWorkers(arg.workers);
    if (!arg.enabled) return this.pauseEmbedding().then(() => this.core?.embedProgress() ?? null);
    this.embedStalled = false;
    this.kickEmbedding();
    return this.core?.embedProgress() ?? null;
  }

  embedIdle(): Promise<EmbedProgress | null> {
    if (!this.embedRun && this.jobDepth === 0 && (!this.embedEnabled || this.queueEmpty()) && !this.codeWaiting()) {
      return Promise.resolve(this.core?.embedProgress() ?? null);
    }
    return new Promise((resolve) => this.idleWaiters.push(() => resolve(this.core?.embedProgress() ?? null)));
  }

  async close(): Promise<void> {
    if (this.persistTimer) globalScope.clearTimeout(this.persistTimer);
    if (this.vectorWatch) globalScope.clearTimeout(this.vectorWatch);
    this.persistTimer = this.vectorWatch = null;
    this.embedEnabled = false;
    await this.exclusive(async () => {
      if (this.core && this.dirty) await this.persistNow();
      this.core?.free();
      this.core = null;
    });
    this.embedding.close();
    this.st.phase = "closed";
    this.wakeIdle();
    // After this call's answer is posted.
    globalScope.setTimeout(() => this.host.close(), 0);
  }

  // ---- reads -----------------------------------------------------------------------------

  search(req: Parameters<WorkerApi["search"]>[0], ctx: { signal: AbortSignal }) {
    return this.readGate.reading(async () => {
      await this.opened;
      // Let queued messages (a newer keystroke's cancel) arrive before the search runs.
      await macrotask();
      if (ctx.signal.aborted) throw new CancelledError();
      // The hit notes are read through the UI thread for their snippets (the index stores no
      // text); the getter reaches the current core should a rebuild replace it meanwhile.
      const res = await searchWithSnippets(
        () => this.need(),
        (path) => this.vault.read(path),
        req,
      );
      if (ctx.signal.aborted) throw new CancelledError();
      return res;
    });
  }

  read(req: Parameters<WorkerApi["read"]>[0]) {
    return this.readGate.reading(async () => {
      await this.opened;
      return readNote(
        () => this.need(),
        (path) => this.vault.read(path),
        req,
      );
    });
  }

  /** A core read (core-reads.ts: similar notes, list, tasks, query): once the index is open,
   *  after queued messages (a newer request's cancel), counted as a read in flight. */
  private coreRead<K extends CoreRead>(read: K, req: CoreReadRequest<K>, ctx: CallContext): Promise<CoreReadAnswer<K>> {
    return this.readGate.reading(async () => {
      await this.opened;
      await macrotask();
      if (ctx.signal.aborted) throw new CancelledError();
      return runCoreRead(this.need(), read, req);
    });
  }

  async note(arg: { path: string }) {
    await this.opened;
    return this.need().note(arg.path);
  }

  async outline(arg: { bytes: Uint8Array }) {
    await this.wasmReady;
    return StrataCore.outline(arg.bytes);
  }

  async recordAccess(arg: { paths: string[] }) {
    await this.opened;
    this.need().recordAccess(arg.paths, Date.now());
    this.dirty = true;
    this.schedulePersist();
  }

  async prioritize(arg: { paths: string[] }) {
    await this.opened;
    this.need().prioritize(arg.paths);
  }

  async status() {
    await this.opened;
    return this.need().status();
  }

  state(): WorkerState {
    return {
      ...this.st,
      embedding: this.core ? this.core.embedProgress() : this.st.embedding,
      embeddingActive: this.embedRun !== null,
      codePass: this.core?.codePassProgress() ?? null,
      embedWorkers: this.embedding.info(),
      counters: { ...this.st.counters },
      memory: { coreWasm: this.coreMemory?.buffer.byteLength ?? 0, embedderWasm: embedderWasmBytes() },
    };
  }

  // ---- internals -------------------------------------------------------------------------

  private need(): StrataCoreApi {
    if (!this.core) throw new Error("[unavailable] the index is not open");
    return this.core;
  }

  /** Runs `fn` after every earlier job, with background embedding paused. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.jobDepth++;
    const run = this.jobs.then(async () => {
      await this.pauseEmbedding();
      return fn();
    });
    this.jobs = run.catch(() => undefined);
    return run.finally(() => {
      this.jobDepth--;
      if (this.jobDepth === 0) {
        this.embedStalled = this.codeStalled = false;
        this.kickEmbedding();
      }
    });
  }

  private queueEmpty(): boolean {
    const p = this.core?.embedProgress();
    return !p || !p.modelLoaded || p.done >= p.total || this.embedStalled;
  }

  private async pauseEmbedding(): Promise<void> {
    this.embedAbort?.abort();
    if (this.embedRun) await this.embedRun;
  }

  /** Code files wait for their definitions (a bulk index left them in line windows). */
  private codeWaiting(): boolean {
    return !this.codeStalled && (this.core?.codePassProgress().left ?? 0) > 0;
  }

  /** The background work between jobs: the code pass first (definitions, which embedding waits
   *  for), then embedding; both stop between steps for a job and resume after it. */
  private kickEmbedding(): void {
    const code = this.codeWaiting();
    if (!(this.embedEnabled || code) || !this.core || this.embedRun || this.jobDepth > 0) {
      if (!this.embedRun && this.jobDepth === 0) this.wakeIdle();
      return;
    }
    if (!code && this.queueEmpty()) {
      this.wakeIdle();
      return;
    }
    const core = this.core;
    const ctl = new AbortController();
    this.embedAbort = ctl;
    this.embedRun = this.runCodePass(core, ctl.signal)
      .then(() =>
        !this.embedEnabled || ctl.signal.aborted || this.queueEmpty()
          ? null
          : this.embedding.run(core, this.vault, this.store, {
              signal: ctl.signal,
              maxChunks: this.embedChunks,
              stepMs: EMBED_STEP_MS,
              pause: () => this.readGate.pause(),
              onProgress: (p) => {
                this.st.embedding = p;
                this.host.emit("embed", p);
              },
              onPersist: (bytes) => {
                this.st.counters.persists++;
                this.st.counters.bytesWritten += bytes;
              },
              onWorkerFailure: (message) =>
                this.host.emit("error", { message: `an embedder worker failed and was restarted: ${message}`, where: "embedding" }),
            }),
      )
      .then((sum) => {
        if (!sum) return;
        this.st.counters.embedded += sum.embedded;
        if (!sum.aborted && sum.done < sum.total) this.embedStalled = true;
      })
      .catch((err) => {
        this.embedStalled = true;
        this.host.emit("error", { message: errorMessage(err), where: "embedding" });
      })
      .finally(() => {
        this.embedRun = null;
        this.embedAbort = null;
        if (this.core) this.host.emit("embed", this.core.embedProgress());
        if (!ctl.signal.aborted) this.kickEmbedding();
      });
  }

  /** The code pass's progress, to the status bar (`runCodePass`: in steps between searches; a failure stalls it until the next job). */
  private readonly codeShown = (p: CodePassProgress | null) => this.host.emit("codePass", p);
  private async runCodePass(core: StrataCoreApi, signal: AbortSignal): Promise<void> {
    if (!this.codeWaiting()) return;
    try {
      const pause = () => this.readGate.pause();
      const sum = await codePassAll(core, this.vault, this.store, { signal, stepMs: EMBED_STEP_MS / 2, pause, onProgress: this.codeShown });
      if (sum.failure || (!sum.aborted && sum.left > 0)) this.codeStalled = true;
      if (sum.defined > 0) this.st.lastUpdate = Date.now();
    } catch (err) {
      this.codeStalled = true;
      this.host.emit("error", { message: errorMessage(err), where: "the code pass" });
    }
    // A stalled pass is not shown as running (it resumes at the next job).
    if (this.codeStalled) this.codeShown(null);
  }

  /**
   * Builds the property columns of the queries once per opened index, after its first reconcile
   * (whose updates they would otherwise follow note by note) and after the reads in flight: the
   * first property query then reads them instead of decoding every note's frontmatter.
   */
  private async warmQueries(core: StrataCoreApi): Promise<void> {
    if (this.warmedCore === core) return;
    this.warmedCore = core;
    await this.readGate.pause();
    if (this.core === core) this.st.counters.queryColumnsWarmed += core.warmQueries();
  }

  private wakeIdle(): void {
    for (const w of this.idleWaiters.splice(0)) w();
  }
}

/** Serves WorkerApi on `port` (a worker's global scope, or a MessagePort in tests). */
export function serveWorker(port: PortLike, loaders: WasmLoaders | null, spawner?: EmbedSpawnerFactory): WorkerServer {
  return new WorkerServer(port, loaders, spawner);
}
