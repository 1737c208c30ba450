// The embedding pool's workers (plugin/core/embedding/pool.ts) in Node (the CLI, the headless
// bridge, the bench): worker_threads running this module (or the bundle it is in: the bundles'
// entries start nothing in a worker), each instantiating the embedder wasm module it is sent
// (compiled once per process).

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

import { initSync, StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import {
  connectEmbedWorker,
  serveEmbedWorker,
  type EmbedWorker,
  type FromWorker,
  type ModelSource,
  type ToWorker,
} from "../core/embedding/pool-worker.ts";
import type { SpawnEmbedWorker } from "../core/embedding/pool.ts";
import { embedderModule } from "./host.ts";

const MARK = "strata-embed-worker";

/** Whether this thread is one of the pool's workers (a bundle's entry then starts nothing else). */
export function isEmbedWorkerThread(): boolean {
  return !isMainThread && (workerData as { role?: unknown } | null)?.role === MARK;
}

if (isEmbedWorkerThread() && parentPort) {
  const port = parentPort;
  serveEmbedWorker(
    {
      post: (msg, transfer) => port.postMessage(msg, transfer),
      onMessage: (handler) => port.on("message", (m: ToWorker) => handler(m)),
    },
    (wasm) => ({ Embedder: StrataEmbedder, memory: initSync({ module: wasm }).memory }),
  );
}

/** tsx's ESM API (from source only): its `import` export, beside the `require` one resolved here. */
function tsxApi(): string {
  return pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
}

/**
 * Starts workers with worker_threads. `script`: the file a worker runs, by default this module
 * (from source: this .ts file, run with the parent's --import tsx; bundled: the bundle).
 */
export function nodeEmbedSpawner(script: URL | string = new URL(import.meta.url), data: Record<string, unknown> = {}): SpawnEmbedWorker {
  return (model: ModelSource): Promise<EmbedWorker> => {
    const w = String(script).endsWith(".ts")
      ? // From source: Node 20 does not apply --import tsx to a worker's own entry, so the worker
        // registers tsx itself before it imports the script.
        new Worker(`import(${JSON.stringify(tsxApi())}).then((t) => { t.register(); return import(${JSON.stringify(String(script))}); })`, {
          eval: true,
          workerData: { ...data, role: MARK },
        })
      : new Worker(script, { workerData: { ...data, role: MARK } });
    return connectEmbedWorker(
      {
        post: (msg) => w.postMessage(msg),
        onMessage: (handler) => w.on("message", (m: FromWorker) => handler(m)),
        onLost: (handler) => {
          w.on("error", (err) => handler(err.message));
          w.on("exit", (code) => handler(`exit code ${code}`));
        },
        terminate: () => void w.terminate(),
      },
      embedderModule(),
      model,
    ).catch((err: unknown) => {
      void w.terminate();
      throw err;
    });
  };
}
