// An embedder worker of the plugin's pool (bundled as an IIFE and inlined into main.js as text,
// started by pool-worker-web.ts): serves the pool's protocol (plugin/core/embedding/pool-worker.ts) with
// the embedder wasm it is sent.

import { initSync, StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import { serveEmbedWorker, type ToWorker } from "../core/embedding/pool-worker.ts";

const scope = self as unknown as {
  postMessage(msg: unknown, transfer?: Transferable[]): void;
  addEventListener(type: "message", handler: (e: MessageEvent<ToWorker>) => void): void;
};

serveEmbedWorker(
  {
    post: (msg, transfer) => scope.postMessage(msg, transfer ?? []),
    onMessage: (handler) => scope.addEventListener("message", (e) => handler(e.data)),
  },
  (wasm) => ({ Embedder: StrataEmbedder, memory: initSync({ module: wasm }).memory }),
);
