// The search worker's entry (bundled as an IIFE and inlined into main.js as text): serves the
// engine on the worker's global scope, with the core's .wasm decoded from the bundle (plain base64: see wasm-inline.ts). The
// embedder's .wasm (tract, 4× the core) is not in this script: the engine asks the UI thread
// for it when a model is loaded.

import WASM from "strata:wasm";
import { serveEngine } from "./engine.ts";
import type { PortLike } from "./rpc.ts";
import { decodeBase64 } from "./wasm-inline.ts";

serveEngine(self as unknown as PortLike, { core: () => decodeBase64(WASM) });
