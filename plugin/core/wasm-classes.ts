// The wasm modules' classes as the hosts load them (build/wasm/strata_core.js and
// strata_embedder.js), and the hook through which the core makes embedders.

import type { CoreConfig, IndexFile, StrataCoreApi } from "./api.ts";

/** The wasm class's constructors, as `wasm-bindgen` exports them. */
export interface StrataCoreStatic {
  create(config: CoreConfig): StrataCoreApi;
  open(config: CoreConfig, files: IndexFile[]): StrataCoreApi;
  /** The vector index benchmark (crate/src/vector_bench.rs) in this wasm build. */
  benchVectors(sizes: Uint32Array | number[], dim: number): VectorBenchRow[];
}

/** One size of `benchVectors`: the int8 scan's query latency and recall@10 against exact f32. */
export interface VectorBenchRow {
  n: number;
  dim: number;
  queries: number;
  queryP50Ms: number;
  queryP95Ms: number;
  queryMeanMs: number;
  usPerVector: number;
  recallNear: number;
  recallRandom: number;
  insertMs: number;
  memoryBytes: number;
  snapshotBytes: number;
  snapshotWriteMs: number;
  snapshotLoadMs: number;
}

/** The embedder wasm's class, as wasm-bindgen exports it (build/wasm/strata_embedder.js). */
export interface StrataEmbedderStatic {
  new (model: Uint8Array, tokenizer: Uint8Array, config: unknown): { embed(texts: string[], query: boolean): Float32Array };
}

/**
 * Lets the core make embedders (`core.loadModel`) from the embedder wasm: the core calls
 * `globalThis.__strataCreateEmbedder`. `embedder` returns the class, instantiating its wasm
 * on first use (a model load), so starting up never pays for it.
 */
export function installEmbedderHook(embedder: () => StrataEmbedderStatic): void {
  (globalThis as Record<string, unknown>).__strataCreateEmbedder = (model: Uint8Array, tokenizer: Uint8Array, config: unknown) => {
    const Embedder = embedder();
    return new Embedder(model, tokenizer, config);
  };
}
