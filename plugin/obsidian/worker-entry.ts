// The search worker's entry (bundled as an IIFE and inlined into main.js as text): serves the
// WorkerApi (worker-server.ts) on the worker's global scope. Neither .wasm is in this script: the core's comes with
// the UI thread's `init` call (plain base64: see wasm-inline.ts), the embedder's (tract, 4× the
// core) when a model is loaded (HostApi.embedderWasm). The UI thread turns this script into a
// Blob, which costs it ~5 ms a MB in Chromium (measured: a 13.8 MB string 56–88 ms; with the
// core's base64 in it, onload was one 58–75 ms task), while posting a string costs ~1 ms a MB.

import { serveWorker } from "./worker-server.ts";
import type { PortLike } from "./rpc.ts";
import { webEmbedSpawner } from "./pool-worker-web.ts";

serveWorker(self as unknown as PortLike, null, webEmbedSpawner);
