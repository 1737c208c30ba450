// One embedder worker of the pool (embedding/pool.ts): its own instance of the embedder wasm and its
// own copy of the model, embedding the passages it is sent as token ids: the host's thread
// tokenizes (ModelSource.passageIds), so a worker loads no tokenizer (multilingual-e5-small's
// alone is ~234 MiB). The protocol is the same in every host (the plugin's Web Workers, Node's
// worker_threads for the CLI and the bridge):
//   → { type: "init", wasm, model, padId, config }       ← { type: "ready", wasmBytes }
//     (`wasm`: the embedder's compiled WebAssembly.Module where the host can post one, so the
//     workers share its machine code; its bytes otherwise)
//   → { type: "embed", id, ids }                         ← { type: "vectors", id, vectors, wasmBytes }
//     (`ids`: each passage's token count, then its ids)
//                                                        ← { type: "error", id, message }
// A worker that throws on a batch answers with an error; one that dies is seen by its host's
// exit/error event (connectEmbedWorker's `lost`).

/** The model a pool's workers load: the bytes and the config the core's own embedder was made
 *  with (wasm-classes.ts records them), and that embedder's tokenizer, which makes the ids the
 *  workers embed: a worker's vectors are the core's, bit for bit. */
export interface ModelSource {
  id: string;
  model: Uint8Array;
  config: unknown;
  padId: number;
  /** Passages' token ids, each row preceded by its length (StrataEmbedder.passageIds). */
  passageIds(texts: string[]): Uint32Array;
}

/** The embedder wasm as a worker is sent it: compiled, or its bytes. */
export type EmbedderWasm = WebAssembly.Module | Uint8Array | ArrayBuffer;

export type ToWorker =
  { type: "init"; wasm: EmbedderWasm; model: Uint8Array; padId: number; config: unknown } | { type: "embed"; id: number; ids: Uint32Array };

export type FromWorker =
  | { type: "ready"; wasmBytes: number }
  | { type: "vectors"; id: number; vectors: Float32Array; wasmBytes: number }
  | { type: "error"; id: number; message: string };

/** The worker's side of a message port (a Web Worker's `self`, Node's `parentPort`). */
export interface WorkerSide {
  post(msg: FromWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: ToWorker) => void): void;
}

/** What a worker uses of the embedder wasm's class (StrataEmbedder): the model alone, embedding
 *  token ids (no tokenizer, ~234 MiB less with multilingual-e5-small). */
export interface TokenIdEmbedderClass {
  forTokenIds(model: Uint8Array, padId: number, config: unknown): { embedIds(flat: Uint32Array): Float32Array };
}

/** Instantiates the embedder wasm from its bytes: its class and its memory. */
export type InitEmbedder = (wasm: EmbedderWasm) => { Embedder: TokenIdEmbedderClass; memory: WebAssembly.Memory };

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Serves the protocol above in a worker. Messages are handled one at a time, in order. */
export function serveEmbedWorker(side: WorkerSide, init: InitEmbedder): void {
  let embedder: ReturnType<TokenIdEmbedderClass["forTokenIds"]> | null = null;
  let memory: WebAssembly.Memory | null = null;
  side.onMessage((msg) => {
    if (msg.type === "init") {
      try {
        const inst = init(msg.wasm);
        memory = inst.memory;
        embedder = inst.Embedder.forTokenIds(msg.model, msg.padId, msg.config);
        side.post({ type: "ready", wasmBytes: memory.buffer.byteLength });
      } catch (err) {
        side.post({ type: "error", id: -1, message: message(err) });
      }
      return;
    }
    if (!embedder) {
      side.post({ type: "error", id: msg.id, message: "[unavailable] the embedder worker has no model" });
      return;
    }
    try {
      const vectors = embedder.embedIds(msg.ids);
      side.post({ type: "vectors", id: msg.id, vectors, wasmBytes: memory?.buffer.byteLength ?? 0 }, [vectors.buffer as ArrayBuffer]);
    } catch (err) {
      side.post({ type: "error", id: msg.id, message: message(err) });
    }
  });
}

/** What the pool sees of a worker: a batch's vectors, or a rejection when it fails or dies. */
export interface EmbedWorker {
  embed(texts: string[]): Promise<Float32Array>;
  /** Bytes of the worker's wasm memory at its last answer. */
  wasmBytes(): number;
  terminate(): void;
}

/** The host's side of a started worker (a Web Worker, a worker_threads Worker). */
export interface HostSide {
  post(msg: ToWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: FromWorker) => void): void;
  /** Called once if the worker dies (an exit, an uncaught error). */
  onLost(handler: (why: string) => void): void;
  terminate(): void;
}

/** Starts the worker's model (`init`) and resolves once it answers; rejects if it fails or dies. */
export function connectEmbedWorker(host: HostSide, wasm: EmbedderWasm, model: ModelSource): Promise<EmbedWorker> {
  let next = 0;
  let wasmBytes = 0;
  let lost: string | null = null;
  const waiting = new Map<number, { resolve: (v: Float32Array) => void; reject: (e: Error) => void }>();
  let ready: { resolve: () => void; reject: (e: Error) => void } | null = null;
  host.onMessage((msg) => {
    if (msg.type === "ready") {
      wasmBytes = msg.wasmBytes;
      ready?.resolve();
      return;
    }
    if (msg.type === "error" && msg.id === -1) {
      ready?.reject(new Error(msg.message));
      return;
    }
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.type === "vectors") {
      wasmBytes = msg.wasmBytes;
      w.resolve(msg.vectors);
    } else {
      w.reject(new Error(msg.message));
    }
  });
  host.onLost((why) => {
    lost = why;
    const err = new Error(`[internal] the embedder worker stopped: ${why}`);
    ready?.reject(err);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  });
  const worker: EmbedWorker = {
    embed(texts) {
      if (lost !== null) return Promise.reject(new Error(`[internal] the embedder worker stopped: ${lost}`));
      const id = next++;
      let ids: Uint32Array;
      try {
        ids = model.passageIds(texts);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        host.post({ type: "embed", id, ids }, [ids.buffer as ArrayBuffer]);
      });
    },
    wasmBytes: () => wasmBytes,
    terminate: () => {
      lost ??= "terminated";
      host.terminate();
    },
  };
  return new Promise<EmbedWorker>((resolve, reject) => {
    ready = { resolve: () => resolve(worker), reject };
    host.post({ type: "init", wasm, model: model.model, padId: model.padId, config: model.config });
  });
}
