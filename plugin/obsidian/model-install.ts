// The plugin's side of model downloads: Obsidian's requestUrl (desktop and mobile) and the
// vault adapter behind plugin/core/model-download.ts, one download at a time with progress,
// cancel and the error to show; the model loads once it is installed.

import { Platform, requestUrl, requireApiVersion, type DataAdapter } from "obsidian";
import {
  downloadModel,
  importModel,
  ModelDownloadError,
  releaseBaseUrl,
  type DownloadProgress,
  type Fetcher,
  type ModelFs,
  type ModelTable,
  type ReleaseInfo,
  type SourceFolder,
  type TableModel,
} from "../core/model-download.ts";
import { RELAXED_EMBEDDER_ID, STALE_RELAXED, type EmbedderBuild } from "../core/embedding/builds.ts";
import { errorMessage } from "../core/errors.ts";
import type { RelaxedEmbedder } from "./relaxed-embedder.ts";

/** The installer's id of the bridge (its folder in the plugin folder: `bridge/`). */
export const BRIDGE_ID = "bridge";

/** What a download is called in the status bar. */
export function downloadName(id: string): string {
  return id === BRIDGE_ID ? "the MCP bridge" : id === RELAXED_EMBEDDER_ID ? "the faster embedder" : id;
}

const toBuffer = (b: Uint8Array): ArrayBuffer =>
  (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b.buffer : b.slice().buffer) as ArrayBuffer;

/** ModelFs over the vault adapter (paths relative to the vault, e.g. `<configDir>/plugins/<id>/models`). */
export function adapterModelFs(adapter: DataAdapter): ModelFs {
  return {
    exists: (p) => adapter.exists(p),
    size: async (p) => {
      const st = await adapter.stat(p);
      return st?.type === "file" ? st.size : null;
    },
    read: async (p) => new Uint8Array(await adapter.readBinary(p)),
    write: (p, bytes) => adapter.writeBinary(p, toBuffer(bytes)),
    append: async (p, bytes) => {
      // appendBinary is 1.12.3's; before, the file is written again whole.
      if (requireApiVersion("1.12.3")) return adapter.appendBinary(p, toBuffer(bytes));
      const old = new Uint8Array(await adapter.readBinary(p));
      const all = new Uint8Array(old.length + bytes.length);
      all.set(old);
      all.set(bytes, old.length);
      await adapter.writeBinary(p, all.buffer);
    },
    mkdir: async (p) => {
      // Each missing folder on the way (an adapter's mkdir need not make parents).
      const parts = p.split("/");
      for (let i = 1; i <= parts.length; i++) {
        const dir = parts.slice(0, i).join("/");
        if (dir && !(await adapter.exists(dir))) await adapter.mkdir(dir);
      }
    },
    removeDir: async (p) => {
      if (await adapter.exists(p)) await adapter.rmdir(p, true);
    },
    rename: (from, to) => adapter.rename(from, to),
  };
}

/** Fetcher on requestUrl (no CORS limits, desktop and mobile). It cannot be aborted: a cancel
 *  or a timeout stops waiting for it (model-download.ts). */
export const requestUrlFetcher: Fetcher = async (url) => {
  let res;
  try {
    res = await requestUrl({ url, throw: false });
  } catch (err) {
    throw new ModelDownloadError("offline", `could not fetch ${url}: ${errorMessage(err)}`);
  }
  if (res.status >= 400)
    throw new ModelDownloadError("http", `${url} answered HTTP ${res.status}${res.status === 404 ? " (not found)" : ""}`);
  return new Uint8Array(res.arrayBuffer);
};

/** A folder to import from: a vault path (desktop and mobile) or, on desktop, an absolute path. */
export function importSource(adapter: DataAdapter, folder: string): SourceFolder {
  const trimmed = folder.trim().replace(/[\\/]+$/, "");
  const absolute = /^([a-zA-Z]:[\\/]|\/|\\\\)/.test(trimmed);
  if (absolute && !Platform.isDesktopApp) throw new ModelDownloadError("source", "on mobile, the folder must be inside the vault");
  if (absolute) {
    // Outside the vault: Node's file system, imported when needed. plugin/node/ is the Node host,
    // which the plugin otherwise never loads; this lazy import() of it runs on desktop only
    // (Platform.isDesktopApp above), where Obsidian has Node's modules, and never on mobile.
    return {
      describe: trimmed,
      read: async (name) => (await import("../node/source-folder.ts")).nodeSourceFolder(trimmed).read(name),
    };
  }
  return {
    describe: trimmed,
    read: async (name) => {
      const p = `${trimmed}/${name}`;
      return (await adapter.exists(p)) ? new Uint8Array(await adapter.readBinary(p)) : null;
    },
  };
}

export interface InstallerHost {
  adapter: DataAdapter;
  release: ReleaseInfo;
  modelsDir: string;
  /** The plugin's folder (the bridge goes to its `bridge/`). */
  pluginDir: string;
  /** The settings' download address ("" = the release's). */
  downloadUrl(): string;
  /** A model was installed: load it. */
  installed(id: string): Promise<void>;
  /** A download or import failed (not cancelled): tell the user, wherever they are. */
  failed(message: string): void;
  /** The relaxed-SIMD embedder build, downloaded with a model where the device runs it. */
  relaxed: RelaxedEmbedder;
}

/** One download (or import) at a time; the settings tab and the status bar follow `onChange`. */
export class ModelInstaller {
  /** The model being downloaded or imported, or null. */
  running: string | null = null;
  progress: DownloadProgress | null = null;
  /** The last failure's message (per model), until the next attempt. */
  readonly errors = new Map<string, string>();
  /** A part taking longer fails; undefined: by its size (model-download.ts partTimeout). Tests shorten it. */
  partTimeoutMs: number | undefined = undefined;
  private ctl: AbortController | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly host: InstallerHost) {}

  get release(): ReleaseInfo {
    return this.host.release;
  }

  get relaxed(): RelaxedEmbedder {
    return this.host.relaxed;
  }

  /** The release's entry of a model (size, license, files), if this build has one. */
  model(id: string): TableModel | undefined {
    return this.host.release.table.models.find((m) => m.id === id);
  }

  /** Where downloads come from now (null: the build has no repository and none is set). */
  baseUrl(): string | null {
    return this.host.downloadUrl().trim() || releaseBaseUrl(this.host.release);
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    // A copy: a listener may redraw the settings tab, which subscribes anew.
    for (const fn of [...this.listeners]) fn();
  }

  /** Downloads and installs `id` (and the relaxed-SIMD embedder where it is wanted and missing),
   *  then loads it. Resolves with the error message or null. */
  async download(id: string): Promise<string | null> {
    return this.fetchEntry(id, this.host.release.table, this.host.modelsDir, async () => {
      const r = this.host.relaxed;
      // Best effort: without it the built-in embedder runs, and the failure stays in `errors`.
      if (r.wanted && !(await r.installed())) await this.downloadRelaxedEmbedder();
      await this.host.installed(id);
    });
  }

  /** Downloads the relaxed-SIMD embedder build into `<plugin folder>/embedder-relaxed-simd/`; it
   *  is used from the next model load. A failure is not notified: the built-in build runs. */
  async downloadRelaxedEmbedder(): Promise<string | null> {
    const e = this.host.relaxed.entry;
    if (!e) return this.fail(RELAXED_EMBEDDER_ID, "this build's release has no relaxed-SIMD embedder");
    return this.fetchEntry(e.id, { ...this.host.release.table, models: [e] }, this.host.pluginDir, async () => undefined, {
      quiet: true,
      meanwhile: "the built-in embedder runs",
    });
  }

  /** After an update the installed relaxed-SIMD build is the previous release's (the worker ran
   *  the built-in one, its state says so): fetches this release's, used from the next start. */
  async renewRelaxedEmbedder(state: () => Promise<{ embedWorkers: { build: EmbedderBuild | null } } | null>): Promise<void> {
    const build = await state().then(
      (s) => s?.embedWorkers.build ?? null,
      () => null,
    );
    if (build?.why === STALE_RELAXED && this.host.relaxed.wanted && !this.running) await this.downloadRelaxedEmbedder();
  }

  /** The bridge's entry in the table (mcp-bridge.js and the two .wasm), if this build has one. */
  get bridge(): TableModel | undefined {
    return this.host.release.table.bridge;
  }

  /** Downloads the MCP bridge for Claude Code into `<plugin folder>/bridge/`. */
  async downloadBridge(): Promise<string | null> {
    const b = this.bridge;
    if (!b) return this.fail(BRIDGE_ID, "this build carries no bridge: install it from a release");
    return this.fetchEntry(BRIDGE_ID, { ...this.host.release.table, models: [b] }, this.host.pluginDir, async () => undefined, {
      meanwhile: "Claude Code keeps the bridge it had",
    });
  }

  private async fetchEntry(
    id: string,
    table: ModelTable,
    dir: string,
    after: () => Promise<void>,
    { quiet = false, meanwhile }: { quiet?: boolean; meanwhile?: string } = {},
  ): Promise<string | null> {
    const base = this.baseUrl();
    if (!base) return this.fail(id, "this build does not say where its release is: set a download address");
    return this.run(
      id,
      (signal) =>
        downloadModel({
          table,
          id,
          baseUrl: base,
          modelsDir: dir,
          fs: adapterModelFs(this.host.adapter),
          fetch: requestUrlFetcher,
          signal,
          partTimeoutMs: this.partTimeoutMs,
          meanwhile,
          onProgress: (p) => {
            this.progress = p;
            this.changed();
          },
        }),
      after,
      quiet,
    );
  }

  /** Installs `id` from a folder holding its files (same checks as a download), then loads it. */
  async importFrom(id: string, folder: string): Promise<string | null> {
    return this.run(
      id,
      () =>
        importModel({
          table: this.host.release.table,
          id,
          source: importSource(this.host.adapter, folder),
          modelsDir: this.host.modelsDir,
          fs: adapterModelFs(this.host.adapter),
        }),
      () => this.host.installed(id),
    );
  }

  cancel(): void {
    this.ctl?.abort();
  }

  private async run(
    id: string,
    work: (signal: AbortSignal) => Promise<unknown>,
    after: () => Promise<void>,
    quiet = false,
  ): Promise<string | null> {
    if (this.running) return this.fail(id, `${this.running} is being installed; wait for it or cancel it`);
    this.running = id;
    this.progress = null;
    this.errors.delete(id);
    this.ctl = new AbortController();
    this.changed();
    try {
      await work(this.ctl.signal);
    } catch (err) {
      this.running = null;
      this.progress = null;
      this.ctl = null;
      if (!quiet && !(err instanceof ModelDownloadError && err.kind === "cancelled")) this.host.failed(errorMessage(err));
      return this.fail(id, errorMessage(err));
    }
    this.running = null;
    this.progress = null;
    this.ctl = null;
    this.changed();
    await after();
    this.changed();
    return null;
  }

  private fail(id: string, message: string): string {
    this.errors.set(id, message);
    this.changed();
    return message;
  }
}
