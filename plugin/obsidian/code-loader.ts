// The search worker's way to the code chunker's wasm (see plugin/core/code-hook.ts): its own
// loader where it has one (tests read build/wasm), else the bundle's inlined copy (gzip + base64)
// asked of the UI thread, decoded and instantiated only when code files are to be indexed.

import type { ChunkCode, CodeLoader } from "../core/code-hook.ts";
import { errorMessage } from "../core/errors.ts";
import { decodeInlineWasm } from "./wasm-inline.ts";

export interface CodeWasmSource {
  /** The .wasm bytes where the worker has them itself. */
  own?: () => Promise<ArrayBuffer | Uint8Array> | ArrayBuffer | Uint8Array;
  /** The inlined copy (gzip + base64), from the UI thread (HostApi.codeWasm). */
  inline: () => Promise<string>;
  /** Tells the user why code files are indexed as plain line windows (once: a failed load is not retried). */
  failed: (message: string) => void;
}

export function workerCodeLoader(src: CodeWasmSource): CodeLoader {
  return async (): Promise<ChunkCode> => {
    try {
      const bytes = src.own ? await src.own() : await decodeInlineWasm(await src.inline());
      const code = await import("../../build/wasm/strata_chunker.js");
      await code.default({ module_or_path: bytes });
      return code.chunkCode;
    } catch (err) {
      src.failed(`${errorMessage(err)}. Notes are indexed as usual; code files as plain line windows`);
      throw err;
    }
  };
}
