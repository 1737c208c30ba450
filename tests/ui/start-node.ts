// The plugin's start-up with Obsidian desktop's kind of I/O, for the bench (`run.ts --bench`
// runs it in a fresh process per measurement):
//
//   node --import tsx tests/ui/start-node.ts <vault> start   plugin load → first search on the
//                                                            vault's persisted index
//   node --import tsx tests/ui/start-node.ts <vault> index   a full index: the main thread's
//                                                            stalls over 50 ms, and the latency
//                                                            of a search sent every 100 ms
//
// Obsidian desktop's vault adapter reads and writes with Node's fs inside the renderer, and the
// plugin's worker is a Web Worker. Here the plugin runs on Node's main thread over the fake app's
// FsAdapter (Node's fs, as Obsidian's adapter), and the worker is a worker thread running the
// very worker bundle that main.js inlines (core wasm decoded from gzip + base64 inside it). The
// Chromium harness reaches the vault over HTTP instead, whose reads cost about 1 ms per 100 KB
// on this machine, several times Node's fs.

import { register } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";

import { build } from "esbuild";

import { inlinePlugin } from "../../esbuild.config.mjs";
import { percentile } from "../../plugin/cli/metrics.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PLUGIN_DIR = ".obsidian/plugins/strata-search";
const [vault, what = "start"] = process.argv.slice(2);
if (!vault) throw new Error("usage: start-node.ts <vault> start|index");

register("../obsidian-fake/loader.mjs", import.meta.url);
const { App } = await import("../obsidian-fake/index.ts");
const { FsAdapter } = await import("../obsidian-fake/fs-adapter.ts");
const StrataPlugin = (await import("../../plugin/obsidian/plugin.ts")).default;
const manifest = JSON.parse(await (await import("node:fs/promises")).readFile(path.join(ROOT, "manifest.json"), "utf8"));

// The worker bundle and the core's base64: the very texts that main.js inlines
// (esbuild.config.mjs's "strata:worker" and "strata:wasm"; main.ts posts the latter with init).
process.chdir(ROOT);
const bundled = await build({
  stdin: {
    contents: 'import W from "strata:worker"; import C from "strata:wasm"; globalThis.__strataWorker = W; globalThis.__strataCore = C;',
    resolveDir: ROOT,
  },
  bundle: true,
  format: "iife",
  write: false,
  logLevel: "warning",
  plugins: [inlinePlugin()],
});
new Function(bundled.outputFiles[0].text)();
const WORKER_TEXT = (globalThis as unknown as { __strataWorker: string }).__strataWorker;
const CORE_WASM = (globalThis as unknown as { __strataCore: string }).__strataCore;
StrataPlugin.coreWasm = () => CORE_WASM;

// A worker thread dressed as a Web Worker: `self`, `postMessage` and `onmessage` on a port.
const SHIM = `
const { workerData } = require("node:worker_threads");
const port = workerData.port;
globalThis.self = globalThis;
globalThis.postMessage = (m, t) => port.postMessage(m, t);
port.onmessage = (ev) => globalThis.onmessage && globalThis.onmessage({ data: ev.data });
(0, eval)(workerData.text);
`;

StrataPlugin.spawn = () => {
  const ch = new MessageChannel();
  const worker = new Worker(SHIM, { eval: true, workerData: { port: ch.port2, text: WORKER_TEXT }, transferList: [ch.port2] });
  return {
    port: ch.port1 as never,
    terminate: () => {
      void worker.terminate();
      ch.port1.close();
    },
  };
};

// Main-thread stalls: a 5 ms timer's lateness (the Node counterpart of the browser's long tasks).
const stalls: number[] = [];
let last = performance.now();
const probe = setInterval(() => {
  const now = performance.now();
  if (now - last - 5 > 50) stalls.push(Math.round(now - last - 5));
  last = now;
}, 5);

const app = await App.create(new FsAdapter(vault));
const plugin = new StrataPlugin(app as never, { ...manifest, dir: PLUGIN_DIR });
const t0 = performance.now();
(plugin as unknown as { _loaded: boolean })._loaded = true;
await plugin.onload();
app.workspace.setLayoutReady();
const onloadMs = performance.now() - t0;
let out: Record<string, unknown>;
if (what === "start") {
  let readyMs = 0;
  void (plugin as unknown as { ready: Promise<void> }).ready.then(() => (readyMs = performance.now() - t0));
  const resp = await plugin.search({ query: "sync settings", k: 10, mode: "hybrid" });
  const totalMs = performance.now() - t0;
  const t2 = performance.now();
  await plugin.search({ query: "daily notes", k: 10, mode: "hybrid" });
  out = {
    readyMs,
    secondSearchMs: performance.now() - t2,
    totalMs,
    onloadMs,
    hits: resp.hits.length,
    timings: plugin.startTimings,
    core: plugin.openResult?.timings,
  };
} else {
  // Searches typed while the index is built: one every 100 ms until it is done.
  const latencies: number[] = [];
  let done = false;
  const queries = ["sync settings", "daily notes", "graph view", "templates", "canvas", "同步", "プラグイン"];
  const typing = (async () => {
    for (let i = 0; !done; i++) {
      const t = performance.now();
      await plugin.search({ query: queries[i % queries.length], k: 10, mode: "hybrid" }).catch(() => undefined);
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await plugin.indexed;
  const indexMs = performance.now() - t0;
  done = true;
  await typing;
  const s = plugin.lastReconcile;
  out = {
    indexMs,
    added: s?.added,
    listed: s?.listed,
    stallsOver50: stalls.length,
    longestStall: Math.max(0, ...stalls),
    searches: latencies.length,
    searchP50: Math.round(percentile(latencies, 50)),
    searchP95: Math.round(percentile(latencies, 95)),
    searchMax: Math.round(Math.max(0, ...latencies)),
  };
}
clearInterval(probe);
plugin.unload();
await plugin.shutdown();
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
