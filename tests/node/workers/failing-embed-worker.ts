// An embedder worker that fails on purpose, for the pool's tests (embed-pool.test.ts): the real
// worker (serveEmbedWorker with the real embedder wasm), except that it dies on a batch —
// `exit` ends the thread (process.exit in a worker), `throw` throws out of the message handler.

import { parentPort, workerData } from "node:worker_threads";

import { initSync, StrataEmbedder } from "../../../build/wasm/strata_embedder.js";
import { serveEmbedWorker, type ToWorker } from "../../../plugin/core/embedding/pool-worker.ts";

const how = (workerData as { fail: "exit" | "throw" }).fail;
const port = parentPort!;
serveEmbedWorker(
  {
    post: (msg, transfer) => port.postMessage(msg, transfer),
    onMessage: (handler) =>
      port.on("message", (m: ToWorker) => {
        if (m.type === "embed") {
          if (how === "exit") process.exit(3);
          throw new Error("a simulated crash in the embedder worker");
        }
        handler(m);
      }),
  },
  (wasm) => ({ Embedder: StrataEmbedder, memory: initSync({ module: wasm }).memory }),
);
