// The Obsidian plugin: starts the search worker after the layout is ready, opens the persisted
// index (fast path), reconciles with the vault in the background, feeds it debounced vault
// events, then loads the embedding model (model-loader.ts), which embeds in the background.
// The UI thread only moves bytes and renders; every core call happens in the worker.

import { Notice, Platform, Plugin, requireApiVersion, TFile, TFolder, type TAbstractFile, type WorkspaceLeaf } from "obsidian";
import type {
  EmbedProgress,
  ModelInfo,
  SearchRequest,
  SearchResponse,
  SimilarResponse,
  Status,
  TasksRequest,
  TasksResponse,
} from "../core/api.ts";
import { errorMessage } from "../core/errors.ts";
import { defaultIndexDir } from "../core/index-store.ts";
import type { ReconcileSummary } from "../core/reconcile.ts";
import { AUTO_MODEL, ModelCatalog, type ModelLoad } from "../core/models.ts";
import { formatBytes, type ReleaseInfo } from "../core/model-download.ts";
import { bundledRelease } from "../core/release.ts";
import { downloadName, ModelInstaller } from "./model-install.ts";
import { markPresence, startBridge } from "./bridge-endpoint.ts";
import type { BridgeHandle, BridgeHost, ModelState, SearchHost, SettingsHost, ToolHost } from "./host.ts";
import { ObsidianBackend } from "./tool-backend.ts";
import { ChangeQueue } from "./events.ts";
import { HostIO } from "./host-io.ts";
import { ModelLoader } from "./model-loader.ts";
import { RelaxedEmbedder } from "./relaxed-embedder.ts";
import type { ApplyResult, ChangeSet, WorkerState, HostApi, OpenResult, WorkerApi } from "./worker-protocol.ts";
import { Endpoint, type PortLike } from "./rpc.ts";
import { SearchModal, SimilarModal } from "./search-modal.ts";
import { StrataSettingTab } from "./settings-tab.ts";
import { TasksModal } from "./tasks-modal.ts";
import { deviceConfig, vaultSettings, withDeviceSettings } from "./device-id.ts";
import { listedExtensions, newToken, sanitizeSettings, type StrataSettings } from "./settings.ts";
import { fmt, StatusBar, statusLines } from "./status.ts";
import { StrataView, VECTORS_CHANGED, VIEW_TYPE } from "./sidebar.ts";

/** Where the worker runs: a Web Worker in Obsidian, a MessageChannel in Node tests. */
export interface Transport {
  port: PortLike;
  terminate(): void;
}
export type TransportFactory = () => Transport;

export default class StrataPlugin extends Plugin implements SearchHost, SettingsHost, BridgeHost, ToolHost {
  /** Set by the bundle's entry (main.ts: the inlined Web Worker) or by tests. */
  static spawn: TransportFactory | null = null;
  /** The core's wasm, base64 (main.ts sets it from the bundle), posted with `init`; without
   *  it the worker loads the core itself (tests). */
  static coreWasm: (() => string) | null = null;
  /** The embedder's and the code chunker's wasm, gzip + base64 (main.ts sets them from the bundle). */
  static embedderWasm: (() => string) | null = null;
  static codeWasm: (() => string) | null = null;
  /** This build's release: version, repository, model table (compiled in; tests set their own). */
  static release: () => ReleaseInfo = bundledRelease;

  declare settings: StrataSettings;
  worker: Endpoint<WorkerApi, HostApi> | null = null;
  host!: HostIO;
  statusBar: StatusBar | null = null;
  queue: ChangeQueue | null = null;
  openResult: OpenResult | null = null;
  lastReconcile: ReconcileSummary | null = null;
  /** The embedding model: loading it, its state, the memory budget (model-loader.ts). */
  readonly model = new ModelLoader(this);
  /** Start-up timings (ms): worker start → wasm ready (wall; inside the worker), index open (wall; in the core). */
  startTimings: { workerMs: number; wasmInitMs: number; openMs: number; readMs: number | null; coreOpenMs: number | null } | null = null;
  bridge: BridgeHandle | null = null;
  bridgeError: string | null = null;
  /** Messages the user was shown (Notices) this session, newest last. */
  readonly notices: string[] = [];
  /** Resolves when the index is open (searches can be answered). */
  ready!: Promise<void>;
  /** Resolves when the start-up work (open, reconcile, model load) is done. */
  indexed!: Promise<void>;
  private markReady!: () => void;
  private transport: Transport | null = null;
  private stopped = false;
  /** The worker's last embedding progress (its events; the settings tab shows a switch's). */
  embedProgress: EmbedProgress | null = null;
  readonly backend = new ObsidianBackend(this);
  /** Model downloads and imports (the settings tab starts them). */
  installer!: ModelInstaller;

  get indexDir(): string {
    return defaultIndexDir(this.app.vault.configDir);
  }

  get pluginDir(): string {
    return this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`;
  }

  /** The folder of the embedding models: `<modelsDir>/<id>/{model.onnx,tokenizer.json}`. */
  get modelsDir(): string {
    return `${this.pluginDir}/models`;
  }

  get modelState(): ModelState {
    return this.model.state;
  }
  get modelError(): string | null {
    return this.model.error;
  }
  /** What the last model load chose and did (the settings tab shows it). */
  get modelLoad(): ModelLoad | null {
    return this.model.load;
  }
  get missingModel(): string | null {
    return this.model.missingModel;
  }
  /** The embedder workers the setting gives on this device for the loaded model, and why. */
  get embedWorkers(): { workers: number; reason: string } {
    return this.model.embedWorkers;
  }

  get semanticEnabled(): boolean {
    return this.settings.semantic ?? !Platform.isMobile;
  }

  override async onload(): Promise<void> {
    this.stopped = false;
    this.stopping = null;
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.indexed = this.ready.then(() => undefined);
    this.settings = sanitizeSettings(withDeviceSettings(await this.loadData(), this.app));
    this.host = new HostIO({
      app: this.app,
      indexDir: this.indexDir,
      extensions: () => [...listedExtensions(this.settings)],
      embedderWasm: () => StrataPlugin.embedderWasm?.() ?? null,
      relaxedEmbedder: () => this.installer.relaxed.read(),
      codeWasm: () => StrataPlugin.codeWasm?.() ?? null,
    });

    this.registerView(VIEW_TYPE, (leaf: WorkspaceLeaf) => new StrataView(leaf, this));
    const item = this.addStatusBarItem();
    this.statusBar = new StatusBar(item);
    this.statusBar.setIdle("Strata: starting…");
    this.installer = new ModelInstaller({
      adapter: this.app.vault.adapter,
      release: StrataPlugin.release(),
      modelsDir: this.modelsDir,
      pluginDir: this.pluginDir,
      downloadUrl: () => this.settings.modelDownloadUrl,
      installed: (id) => this.model.installed(id),
      failed: (message) => this.notify(`Strata: ${message}`),
      relaxed: new RelaxedEmbedder(this.app.vault.adapter, this.pluginDir, StrataPlugin.release()),
    });
    this.installer.onChange(() => {
      const p = this.installer.progress;
      const text = !this.installer.running
        ? null
        : p?.phase === "install"
          ? `Strata: checking ${p.model}…`
          : `Strata: downloading ${downloadName(this.installer.running)} ${p ? `${formatBytes(p.doneBytes)} / ${formatBytes(p.totalBytes)}` : "…"}`;
      this.statusBar?.setDownload(text);
    });
    this.registerDomEvent(item, "click", () => void this.showStatus());
    // After the installer: Obsidian 1.13 reads the tab's settings (for its search) when it is added.
    this.addSettingTab(new StrataSettingTab(this.app, this));

    this.addCommand({ id: "search-vault", name: "Search vault", callback: () => new SearchModal(this.app, this).open() });
    this.addCommand({ id: "open-search-sidebar", name: "Open search sidebar", callback: () => void this.activateView() });
    this.addCommand({
      id: "similar-notes",
      name: "Find notes similar to the current note",
      checkCallback: (checking: boolean) => {
        const file = this.app.workspace.getActiveFile();
        if (!file || file.extension !== "md") return false;
        if (!checking) new SimilarModal(this.app, this, file.path).open();
        return true;
      },
    });
    this.addCommand({ id: "show-open-tasks", name: "Show open tasks", callback: () => new TasksModal(this.app, this).open() });
    this.addCommand({ id: "rebuild-index", name: "Rebuild index", callback: () => void this.rebuild() });
    this.addCommand({ id: "show-index-status", name: "Show index status", callback: () => void this.showStatus() });

    this.boot();
    this.app.workspace.onLayoutReady(() => {
      this.indexed = this.start();
      this.indexed.catch(() => undefined);
    });
  }

  override onunload(): void {
    void this.shutdown();
  }

  /** Stops everything: events, the bridge, the worker (after it persisted). Idempotent. */
  shutdown(): Promise<void> {
    if (!this.stopping) this.stopping = this.stop();
    return this.stopping;
  }

  private stopping: Promise<void> | null = null;

  private async stop(): Promise<void> {
    this.stopped = true;
    this.installer?.cancel();
    this.queue?.close();
    this.statusBar?.destroy();
    const bridge = this.bridge;
    this.bridge = null;
    await bridge?.close().catch(() => undefined);
    const worker = this.worker;
    const transport = this.transport;
    this.worker = null;
    this.transport = null;
    if (worker) {
      try {
        await this.queue?.flush();
        await worker.call("close", {});
      } catch {
        // the worker already stopped
      }
      worker.close();
    }
    transport?.terminate();
  }

  // ---- start-up --------------------------------------------------------------------------

  /**
   * Starts the worker during onload: the wasm compiles off the main thread while Obsidian
   * restores its layout. Costs the UI thread a Blob URL and a Worker object.
   */
  private boot(): void {
    const spawn = StrataPlugin.spawn;
    if (!spawn) throw new Error("Strata: no worker transport");
    this.transport = spawn();
    const worker = new Endpoint<WorkerApi, HostApi>(this.transport.port, this.host);
    this.worker = worker;
    worker.on("reconcile", (p) => this.statusBar?.setReconcile(p as never));
    worker.on("codePass", (p) => this.statusBar?.setCodePass(p as never));
    worker.on("embed", (p) => {
      const before = this.embedProgress;
      this.embedProgress = p as EmbedProgress;
      this.statusBar?.setEmbed(this.embedProgress);
      // Embedding caught up (a first run, a switch, an edited note's chunks): similar notes change.
      if (before && before.done < before.total && this.embedProgress.done >= this.embedProgress.total) this.vectorsChanged();
    });
    worker.on("error", (e) => {
      const { message, where } = e as { message: string; where: string };
      this.notify(`Strata: ${where} failed: ${message}`);
    });
    this.bootT0 = performance.now();
    const wasmBase64 = StrataPlugin.coreWasm?.();
    this.initCall = worker.call("init", wasmBase64 === undefined ? {} : { wasmBase64 });
    this.initCall.catch(() => undefined);
  }

  private bootT0 = 0;
  private initCall: Promise<{ ms: number; models: ModelInfo[] }> | null = null;
  /** The embedding models the core knows (from the worker's init); null until then. */
  models: ModelCatalog | null = null;

  private async start(): Promise<void> {
    const worker = this.worker;
    if (!worker || !this.initCall) throw new Error("Strata: the worker did not start");
    try {
      // Sent at once: the worker reads the index files while its wasm compiles.
      const t1 = performance.now();
      const opening = worker.call("open", { config: deviceConfig(this.settings, this.app) });
      opening.catch(() => undefined);
      const init = await this.initCall;
      const t2 = performance.now();
      this.models = new ModelCatalog(init.models);
      // data.json may name a model this core does not know: auto chooses then.
      if (!this.models.isSetting(this.settings.embeddingModel)) this.settings.embeddingModel = AUTO_MODEL;
      const open = await opening;
      this.startTimings = {
        workerMs: t2 - this.bootT0,
        wasmInitMs: init.ms,
        openMs: performance.now() - t1,
        readMs: open.readMs ?? null,
        coreOpenMs: open.timings?.totalMs ?? null,
      };
      this.openResult = open;
      if (open.rebuilt)
        this.notify(`Strata: the search index could not be used and is being rebuilt (${open.reason ?? "unknown reason"}).`);
    } catch (err) {
      this.notify(`Strata: the search engine failed to start: ${errorMessage(err)}`);
      this.statusBar?.setIdle("Strata: failed");
      throw err;
    }
    this.markReady();
    this.statusBar?.setIdle(`Strata: ${fmt(this.openResult?.notes ?? 0)} notes`);
    this.registerVaultEvents();
    void this.restartBridge();

    // Background: bring the index up to date, then semantic indexing.
    await this.reconcileNow();
    await this.queue?.flush();
    await this.loadModel();
  }

  async reconcileNow(): Promise<ReconcileSummary | null> {
    const worker = this.worker;
    if (!worker) return null;
    try {
      const sum = await worker.call("reconcile", { batchNotes: Platform.isMobile ? 50 : 200 });
      this.lastReconcile = sum;
      this.statusBar?.setReconcile(null);
      await this.refreshIdleText();
      return sum;
    } catch (err) {
      this.statusBar?.setReconcile(null);
      if (!this.stopped) this.notify(`Strata: indexing failed: ${errorMessage(err)}`);
      return null;
    }
  }

  private registerVaultEvents(): void {
    const queue = new ChangeQueue((cs) => this.applyChanges(cs), 500);
    this.queue = queue;
    const stat = (f: TFile) => ({ path: f.path, size: f.stat.size, mtime: f.stat.mtime, ctime: f.stat.ctime });
    const wanted = (f: TAbstractFile): f is TFile => f instanceof TFile && listedExtensions(this.settings).has(f.extension.toLowerCase());
    const { vault } = this.app;
    this.registerEvent(vault.on("create", (f) => wanted(f) && queue.upsert(stat(f))));
    this.registerEvent(vault.on("modify", (f) => wanted(f) && queue.upsert(stat(f))));
    this.registerEvent(
      vault.on("delete", (f) => {
        if (f instanceof TFolder) return; // its notes get their own events; the reconcile catches the rest
        queue.remove(f.path);
      }),
    );
    this.registerEvent(
      vault.on("rename", (f, oldPath) => {
        if (!(f instanceof TFile)) return; // a folder's notes get their own rename events
        if (wanted(f)) queue.rename(oldPath, f.path, stat(f));
        else queue.remove(oldPath); // renamed to an extension that is not indexed
      }),
    );
    this.registerEvent(
      this.app.workspace.on("file-open", (f) => {
        if (f && this.worker) void this.worker.call("prioritize", { paths: [f.path] }).catch(() => undefined);
      }),
    );
  }

  /** Applies a change set in the worker (searchable when it resolves). */
  async applyChanges(cs: ChangeSet): Promise<ApplyResult | null> {
    await this.ready;
    if (!this.worker) return null;
    const res = await this.worker.call("apply", cs);
    void this.refreshIdleText();
    return res;
  }

  /** Loads the embedding model the setting chooses and embeds in the background when enabled. */
  loadModel(): Promise<void> {
    return this.model.loadModel();
  }

  setEmbedWorkers(setting: "auto" | number): Promise<void> {
    return this.model.setEmbedWorkers(setting);
  }

  setEmbeddingModel(setting: string): Promise<void> {
    return this.model.setEmbeddingModel(setting);
  }

  /** Tells the views that similar notes may have changed (a model loaded, embedding caught up). */
  vectorsChanged(): void {
    this.app.workspace.trigger(VECTORS_CHANGED);
  }

  // ---- actions ---------------------------------------------------------------------------

  async search(req: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    await this.ready;
    if (!this.worker) throw new Error("[unavailable] Strata is not running");
    if ((req.mode ?? "hybrid") !== "lexical" && this.modelState === "off") await this.model.loadForQueries();
    try {
      return this.model.explain(await this.worker.call("search", { fusion: this.settings.fusion, ...req }, { signal }));
    } catch (err) {
      throw this.model.explainError(err);
    }
  }

  async similar(path: string, k: number, signal?: AbortSignal): Promise<SimilarResponse> {
    await this.ready;
    if (!this.worker) throw new Error("[unavailable] Strata is not running");
    return this.worker.call("similar", { path, k }, { signal });
  }

  async tasks(req: TasksRequest): Promise<TasksResponse> {
    await this.ready;
    if (!this.worker) throw new Error("[unavailable] Strata is not running");
    return this.worker.call("tasks", req);
  }

  async indexStatus(): Promise<Status | null> {
    await this.ready;
    return this.worker ? this.worker.call("status", {}) : null;
  }

  async workerState(): Promise<WorkerState | null> {
    return this.worker ? this.worker.call("state", {}) : null;
  }

  /** Deletes the index and indexes the vault again (settings changes, the Rebuild command). */
  async rebuild(): Promise<void> {
    await this.ready;
    const worker = this.worker;
    if (!worker) return;
    this.host.forgetFolders();
    new Notice("Strata: rebuilding the index…");
    try {
      this.lastReconcile = await worker.call("rebuild", { config: deviceConfig(this.settings, this.app) });
      this.statusBar?.setReconcile(null);
      await this.refreshIdleText();
      new Notice(`Strata: index rebuilt (${fmt(this.lastReconcile.added)} notes).`);
      // The rebuilt index is a new core: the model is loaded into it again.
      if (this.modelState === "loaded") await this.loadModel();
    } catch (err) {
      this.statusBar?.setReconcile(null);
      this.notify(`Strata: rebuilding failed: ${errorMessage(err)}`);
    }
  }

  /** Deletes the index files; the index stays empty until "Rebuild index" or the next start. */
  async clearIndex(): Promise<void> {
    await this.ready;
    if (!this.worker) return;
    this.host.forgetFolders();
    await this.worker.call("clear", { config: deviceConfig(this.settings, this.app) });
    await this.refreshIdleText();
    new Notice("Strata: index cleared. The rebuild index command indexes the vault again.");
  }

  /** Settings that change the index (folders, extensions, chunk budget, code): reopen and reconcile. */
  async reindexForSettings(): Promise<void> {
    await this.ready;
    const worker = this.worker;
    if (!worker) return;
    const open = await worker.call("open", { config: deviceConfig(this.settings, this.app) });
    this.openResult = open;
    await this.reconcileNow();
    if (this.modelState === "loaded") await this.loadModel();
  }

  async showStatus(): Promise<void> {
    const lines = await this.statusLines();
    new Notice(lines.join("\n"), 10000);
  }

  statusLines(): Promise<string[]> {
    return statusLines(this);
  }

  async activateView(): Promise<void> {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(VIEW_TYPE)[0];
    if (!leaf) {
      const right = workspace.getRightLeaf(false);
      if (!right) return;
      leaf = right;
      await leaf.setViewState({ type: VIEW_TYPE, active: true });
    }
    // revealLeaf also expands a collapsed sidebar; before 1.7.2 it is not in the API.
    if (requireApiVersion("1.7.2")) await workspace.revealLeaf(leaf);
    else workspace.setActiveLeaf(leaf, { focus: true });
  }

  /** Saves one after another: two writes of data.json at once could interleave their bytes. */
  private saving: Promise<void> = Promise.resolve();
  saveSettings(): Promise<void> {
    const data = vaultSettings(this.settings, this.app);
    return (this.saving = this.saving.catch(() => undefined).then(() => this.saveData(data)));
  }

  // ---- bridge (desktop) ------------------------------------------------------------------

  async restartBridge(): Promise<void> {
    const old = this.bridge;
    this.bridge = null;
    await old?.close().catch(() => undefined);
    this.bridgeError = null;
    if (this.stopped) return;
    if (!this.settings.bridgeEnabled) {
      if (Platform.isDesktopApp) this.bridge = await markPresence(this).catch(() => null);
      return;
    }
    if (!Platform.isDesktopApp) {
      this.bridgeError = "the MCP bridge needs Obsidian on a desktop";
      return;
    }
    if (!this.settings.bridgeToken) {
      this.settings.bridgeToken = newToken();
      await this.saveSettings();
    }
    try {
      this.bridge = await startBridge(this, this.settings.bridgeToken, this.settings.bridgePort);
    } catch (err) {
      this.bridgeError = errorMessage(err);
      this.notify(`Strata: the MCP bridge could not start: ${this.bridgeError}`);
    }
  }

  async regenerateToken(): Promise<void> {
    this.settings.bridgeToken = newToken();
    await this.saveSettings();
    if (this.settings.bridgeEnabled) await this.restartBridge();
  }

  // ---- helpers ---------------------------------------------------------------------------

  /** A Notice for something the user needs to know (recorded; identical messages not repeated). */
  notify(message: string): void {
    if (this.notices[this.notices.length - 1] === message) return;
    this.notices.push(message);
    new Notice(message, 8000);
  }

  private async refreshIdleText(): Promise<void> {
    const st = await this.indexStatus().catch(() => null);
    if (st) this.statusBar?.setIdle(`Strata: ${fmt(st.notes)} notes`);
  }
}
