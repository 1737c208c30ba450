// The wasm modules' classes as the hosts load them (build/wasm/strata_core.js and
// strata_embedder.js), and the hook through which the core makes embedders.

import type { CoreConfig, IndexFile, ModelInfo, Outline, StrataCoreApi } from "./api.ts";
import type { ModelSource } from "./embedding/pool-worker.ts";

/** The wasm class's static functions, as `wasm-bindgen` exports them. */
export interface StrataCoreStatic {
  create(config: CoreConfig): StrataCoreApi;
  open(config: CoreConfig, files: IndexFile[]): StrataCoreApi;
  /** The embedding models the core knows, the default first. */
  models(): ModelInfo[];
  /** A note's headings and frontmatter, from the parse indexing and `read` use. */
  outline(bytes: Uint8Array): Outline;
}

/** An embedder (build/wasm/strata_embedder.js's StrataEmbedder). */
export interface StrataEmbedderApi {
  embed(texts: string[], query: boolean): Float32Array;
  /** Passages' token ids as the model is fed them, each row preceded by its length. */
  passageIds(texts: string[]): Uint32Array;
  /** Vectors of rows laid out as passageIds lays them out. */
  embedIds(flat: Uint32Array): Float32Array;
  padId(): number;
}

/** The embedder wasm's class, as wasm-bindgen exports it (build/wasm/strata_embedder.js). */
export interface StrataEmbedderStatic {
  new (model: Uint8Array, tokenizer: Uint8Array, config: unknown): StrataEmbedderApi;
  /** The model alone, embedding token ids (a pool worker: no tokenizer, ~234 MiB less with multilingual-e5-small). */
  forTokenIds(model: Uint8Array, padId: number, config: unknown): StrataEmbedderApi;
}

/**
 * Lets the core make embedders (`core.loadModel`) from the embedder wasm: the core calls
 * `globalThis.__strataCreateEmbedder`. `embedder` returns the class, instantiating its wasm
 * on first use (a model load), so starting up never pays for it.
 */
export function installEmbedderHook(embedder: () => StrataEmbedderStatic): void {
  (globalThis as Record<string, unknown>).__strataCreateEmbedder = (model: Uint8Array, tokenizer: Uint8Array, config: unknown) => {
    const Embedder = embedder();
    const made = new Embedder(model, tokenizer, config);
    const id = (config as { model_id?: unknown } | null)?.model_id;
    if (typeof id === "string") loaded.set(id, { id, model, config, padId: made.padId(), passageIds: (texts) => made.passageIds(texts) });
    return made;
  };
}

/** The models the core made embedders from in this thread, by id: what a pool's workers load,
 *  and this thread's tokenizer, which makes the token ids they embed. */
const loaded = new Map<string, ModelSource>();

/** Lets go of the recorded models' bytes (a host that runs no pool: mobile, one thread), so
 *  that the model is not kept twice (~190 MB for multilingual-e5-small). */
export function forgetLoadedModels(): void {
  loaded.clear();
}

/** The bytes and config the core's embedder for `id` was made from, and its tokenizer (null: not loaded here). */
export function loadedModel(id: string): ModelSource | null {
  return loaded.get(id) ?? null;
}
