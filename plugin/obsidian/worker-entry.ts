// The search worker's entry (bundled as an IIFE and inlined into main.js as text): serves the
// engine on the worker's global scope, with the core's .wasm decoded from the bundle.

import WASM from "strata:wasm";
import { serveEngine } from "./engine.ts";
import type { PortLike } from "./rpc.ts";

/** base64 → bytes → gunzip (DecompressionStream: Chromium 80+, Safari 16.4+). */
async function loadWasm(): Promise<ArrayBuffer> {
  const bin = atob(WASM);
  const gz = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) gz[i] = bin.charCodeAt(i);
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}

serveEngine(self as unknown as PortLike, loadWasm);
