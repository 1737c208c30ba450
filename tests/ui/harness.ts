// The UI harness page's script (bundled by tests/ui/run.ts, `obsidian` aliased to the fake):
// the real plugin — its real inlined Web Worker and wasm, its real sidebar view and modal —
// on a fake app whose adapter reaches a real temporary vault folder through the test server.

import { App, Modal, Notice, setDevice, setPlatform } from "../obsidian-fake/index.ts";
import StrataPlugin from "../../plugin/obsidian/main.ts";
import { VIEW_TYPE } from "../../plugin/obsidian/sidebar.ts";
import { HttpAdapter } from "../obsidian-fake/http-adapter.ts";
import type { ReleaseInfo } from "../../plugin/core/model-download.ts";
import { embedderRun, ortRun } from "./embed-bench-page.ts";

const PLUGIN_DIR = ".obsidian/plugins/strata-search";

type FakeApp = App;

let app: FakeApp | null = null;
let plugin: StrataPlugin | null = null;
const longTasks: { start: number; duration: number }[] = [];

try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
} catch {
  // no Long Tasks API: the bench says so
}

/**
 * The device the page plays: the desktop (the default: Obsidian's desktop app, whose Node modules
 * the harness does not have either) or a phone (Platform.isMobile, no Node modules: every
 * `require` the bundle attempts is recorded and throws, as it would in the mobile app). Each device
 * has its own local storage (device id and device settings).
 */
export type Profile = "desktop" | "phone";
const requireAttempts: string[] = [];

function useProfile(profile: Profile, device?: string, deviceMemoryGB?: number): void {
  setPlatform(profile);
  setDevice(device ?? profile);
  requireAttempts.length = 0;
  // What the web view says of the device's memory: Chromium's own on the desktop; on a phone, what
  // Android's WebView would say (a value), or nothing (iOS's WKWebView has no deviceMemory).
  if (profile === "phone") Object.defineProperty(navigator, "deviceMemory", { configurable: true, get: () => deviceMemoryGB });
  else delete (navigator as { deviceMemory?: number }).deviceMemory;
  // esbuild's bundle reaches Node's modules through a global `require` (its `__require`).
  (window as unknown as { require: (id: string) => never }).require = (id: string) => {
    requireAttempts.push(id);
    throw new Error(`Cannot find module '${id}' (no Node modules in the ${profile} profile)`);
  };
}

/** The memory the page and its search worker use now: wasm memories, JS heaps (bytes). */
async function memoryNow(p: StrataPlugin): Promise<{ coreWasm: number; embedderWasm: number; pageHeap: number | null }> {
  const st = await p.worker!.call("state", {});
  const heap = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? null;
  return { coreWasm: st.memory?.coreWasm ?? 0, embedderWasm: st.memory?.embedderWasm ?? 0, pageHeap: heap };
}

function need(): { app: FakeApp; plugin: StrataPlugin } {
  if (!app || !plugin) throw new Error("harness: load() first");
  return { app, plugin };
}

const harness = {
  /** Opens the vault in a fake app and loads the plugin (layout ready at once). Returns ms spent in onload. */
  async load(
    opts: { settings?: object; wait?: boolean; release?: ReleaseInfo; profile?: Profile; device?: string; deviceMemoryGB?: number } = {},
  ): Promise<{ onloadMs: number; t0: number }> {
    useProfile(opts.profile ?? "desktop", opts.device, opts.deviceMemoryGB);
    const adapter = new HttpAdapter(location.origin, "vault");
    // The release Download fetches from (the test server's), instead of the one compiled in.
    if (opts.release) StrataPlugin.release = () => opts.release!;
    if (opts.settings) {
      if (!(await adapter.exists(PLUGIN_DIR))) await adapter.mkdir(PLUGIN_DIR);
      await adapter.write(`${PLUGIN_DIR}/data.json`, JSON.stringify(opts.settings));
    }
    app = await App.create(adapter);
    const manifest = await (await fetch("/manifest.json")).json();
    document.getElementById("status-bar")!.appendChild((app as unknown as { statusBar: HTMLElement }).statusBar);
    plugin = new StrataPlugin(app as never, { ...manifest, dir: PLUGIN_DIR });
    const t0 = performance.now();
    (plugin as unknown as { _loaded: boolean })._loaded = true;
    await plugin.onload();
    app.workspace.setLayoutReady();
    const onloadMs = performance.now() - t0;
    if (opts.wait !== false) await plugin.indexed;
    return { onloadMs, t0 };
  },

  /** Plugin load → first search answered (the persisted index's fast path); with `waitIndexed`, the
   *  search waits for the start-up reconcile (a device without an index of its own builds it). */
  async loadAndSearch(
    query: string,
    settings?: object,
    profile: Profile = "desktop",
    waitIndexed = false,
  ): Promise<{
    totalMs: number;
    onloadMs: number;
    hits: number;
    mode: string;
    openMs: number | null;
    indexedMs: number | null;
    timings: unknown;
  }> {
    useProfile(profile);
    const adapter = new HttpAdapter(location.origin, "vault");
    if (settings) await adapter.write(`${PLUGIN_DIR}/data.json`, JSON.stringify(settings));
    app = await App.create(adapter);
    const manifest = await (await fetch("/manifest.json")).json();
    plugin = new StrataPlugin(app as never, { ...manifest, dir: PLUGIN_DIR });
    const t0 = performance.now();
    (plugin as unknown as { _loaded: boolean })._loaded = true;
    await plugin.onload();
    app.workspace.setLayoutReady();
    const onloadMs = performance.now() - t0;
    if (waitIndexed) await plugin.indexed;
    const indexedMs = waitIndexed ? performance.now() - t0 : null;
    const resp = await plugin.search({ query, k: 10, mode: "hybrid" });
    const totalMs = performance.now() - t0;
    return {
      totalMs,
      onloadMs,
      indexedMs,
      hits: resp.hits.length,
      mode: resp.mode,
      openMs: plugin.openResult?.tookMs ?? null,
      timings: plugin.startTimings,
    };
  },

  /** The harness's own I/O floor: every file of the index folder read through the adapter at once. */
  async readIndexFolder(): Promise<{ ms: number; bytes: number; files: number }> {
    const adapter = new HttpAdapter(location.origin, "vault");
    const names: string[] = [];
    const walk = async (d: string) => {
      const l = await adapter.list(d);
      names.push(...l.files);
      for (const f of l.folders) await walk(f);
    };
    await walk(`${PLUGIN_DIR}/index`);
    const t0 = performance.now();
    const sizes = await Promise.all(names.map(async (n) => (await adapter.readBinary(n)).byteLength));
    return { ms: performance.now() - t0, bytes: sizes.reduce((a, b) => a + b, 0), files: names.length };
  },

  async waitIndexed() {
    const { plugin } = need();
    await plugin.indexed;
    const s = plugin.lastReconcile;
    return s
      ? { added: s.added, unchanged: s.unchanged, tookMs: s.tookMs, listed: s.listed, now: performance.now(), timings: plugin.startTimings }
      : null;
  },

  async embedIdle() {
    return need().plugin.worker!.call("embedIdle", {});
  },

  /**
   * Waits for the plugin's embedding to finish, polling its progress every 100 ms (when the
   * first vectors were stored); with `queries`, searching (hybrid) at each poll as a user typing
   * meanwhile, and timing the searches.
   */
  async embedWhileSearching(queries: string[] | null) {
    const { plugin } = need();
    // The model loads after the lexical index; embedding starts when it has.
    for (const until = performance.now() + 120_000; !plugin.embedProgress;) {
      if (performance.now() > until) throw new Error(`embedding did not start (model ${plugin.modelState})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const t0 = performance.now();
    const done0 = plugin.embedProgress.done;
    let idle = false;
    const idleP = plugin.worker!.call("embedIdle", {}).then((p) => ((idle = true), p));
    const searchMs: number[] = [];
    let firstAt: number | null = null;
    let firstDone = 0;
    for (let i = 0; !idle; i++) {
      const t = performance.now();
      if (queries) {
        await plugin.search({ query: queries[i % queries.length], k: 10, mode: "hybrid" });
        searchMs.push(performance.now() - t);
      }
      const done = plugin.embedProgress?.done ?? 0;
      if (firstAt === null && done > done0) [firstAt, firstDone] = [performance.now() - t0, done];
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - t))));
    }
    const p = await idleP;
    return { startedAt: t0, ms: performance.now() - t0, total: p?.total ?? 0, done0, firstAt, firstDone, searchMs };
  },
  ortRun,
  embedderRun,

  modelState: () => need().plugin.modelState,
  /** A search as the sidebar makes it: its mode, hit paths and notice. */
  async search(query: string, mode: "hybrid" | "semantic" | "lexical" = "hybrid") {
    const r = await need().plugin.search({ query, k: 10, mode });
    return { mode: r.mode, paths: r.hits.map((h) => h.path), notice: r.notice ?? null };
  },
  statusLines: () => need().plugin.statusLines(),
  /** The search worker's counters (embedded, notes read, …). */
  async counters() {
    return (await need().plugin.worker!.call("state", {})).counters;
  },
  memory: () => memoryNow(need().plugin),
  /** The Node modules the bundle tried to load since the profile was set. */
  requireAttempts: () => [...requireAttempts],
  /** Loads a Node module the way the plugin's desktop paths do (node-probe.ts): what the trap recorded. */
  async probeRequire(): Promise<string[]> {
    useProfile("phone");
    await import("./node-probe.ts").then((m) => m.platform()).catch(() => undefined);
    return [...requireAttempts];
  },
  clearNotices: () => void ((Notice as unknown as { log: string[] }).log.length = 0),
  /** The search worker's embedder workers (nested Web Workers) of the last embedding run. */
  async embedWorkers() {
    return (await need().plugin.worker!.call("state", {})).embedWorkers;
  },
  downloading: () => need().plugin.installer.running,
  downloadError: (id: string) => need().plugin.installer.errors.get(id) ?? null,

  /** Shows the plugin's settings tab over the page (harness.html has a few of Obsidian's settings styles). */
  openSettings(): void {
    const { app } = need();
    let host = document.getElementById("settings");
    if (!host) {
      host = document.body.createDiv({ attr: { id: "settings" } });
    }
    const tab = app.settingTabs[0];
    host.empty();
    host.appendChild(tab.containerEl);
    app.openSettingTab(tab);
  },
  embedProgress: () => need().plugin.embedProgress,

  async openSidebar(): Promise<void> {
    const { app, plugin } = need();
    await plugin.activateView();
    const leaf = app.workspace.getLeavesOfType(VIEW_TYPE)[0];
    const host = document.getElementById("right-sidebar")!;
    host.empty();
    host.appendChild(leaf.view.containerEl);
  },

  sidebarSettled: async () => {
    const { app } = need();
    const view = app.workspace.getLeavesOfType(VIEW_TYPE)[0]?.view as unknown as { settled: Promise<void>; similarSettled: Promise<void> };
    await view.settled;
    await view.similarSettled;
  },

  modalSettled: async () => {
    await (Modal as unknown as { current: { settled?: Promise<void> } | null }).current?.settled;
  },

  runCommand: (id: string) => need().app.runCommand(`strata-search:${id}`),

  async openNote(path: string): Promise<void> {
    const { app } = need();
    const file = app.vault.getFileByPath(path);
    if (!file) throw new Error(`no note ${path}`);
    await app.workspace.getLeaf(false).openFile(file);
  },

  opened: () => need().app.workspace.opened,
  notices: () => [...(Notice as unknown as { log: string[] }).log],
  statusText: () => need().plugin.statusBar?.text() ?? "",

  async unload(): Promise<void> {
    const { plugin } = need();
    plugin.unload();
    await plugin.shutdown();
    document.getElementById("right-sidebar")!.empty();
    document.getElementById("status-bar")!.empty();
  },

  longTasks: () => [...longTasks],
  clearLongTasks: () => {
    longTasks.length = 0;
  },
};

(window as unknown as { harness: typeof harness }).harness = harness;
document.body.dataset.ready = "1";
