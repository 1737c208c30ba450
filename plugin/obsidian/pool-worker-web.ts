// The pool's embedder workers in the plugin: Web Workers started from the search worker itself
// (nested dedicated workers, which Chromium and so Electron support), each running the
// embed-worker bundle that main.js carries as text (pool-worker-entry.ts) with the embedder
// wasm module the search worker has already compiled (posted: the workers share its code). Imported by worker-entry.ts only (the bundle).

import SOURCE from "strata:embed-worker";
import type { SpawnEmbedWorker } from "../core/embedding/pool.ts";
import { connectEmbedWorker, type EmbedderWasm, type FromWorker } from "../core/embedding/pool-worker.ts";

/** Starts embedder workers as nested Web Workers, or null where there is no `Worker`. */
export function webEmbedSpawner(wasm: () => EmbedderWasm | null): SpawnEmbedWorker | null {
  if (typeof Worker === "undefined" || typeof Blob === "undefined" || typeof URL.createObjectURL !== "function") return null;
  let url: string | null = null;
  return (model) => {
    const bytes = wasm();
    if (!bytes) return Promise.reject(new Error("[unavailable] the embedder wasm is not loaded"));
    url ??= URL.createObjectURL(new Blob([SOURCE], { type: "text/javascript" }));
    const w = new Worker(url, { name: "strata-embedder" });
    return connectEmbedWorker(
      {
        post: (msg) => w.postMessage(msg),
        onMessage: (handler) => w.addEventListener("message", (e: MessageEvent<FromWorker>) => handler(e.data)),
        onLost: (handler) => w.addEventListener("error", (e: ErrorEvent) => handler(e.message || "the worker failed")),
        terminate: () => w.terminate(),
      },
      bytes,
      model,
    ).catch((err: unknown) => {
      w.terminate();
      throw err;
    });
  };
}
