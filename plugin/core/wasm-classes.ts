// The wasm modules' classes as the hosts load them (build/wasm/strata_core.js and
// strata_embedder.js), and the hook through which the core makes embedders.

import type { StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import { globalScope } from "./global-scope.ts";
import type { ModelSource } from "./embedding/pool-worker.ts";

export type { StrataCoreApi, StrataCoreStatic } from "./api.ts";

/** An embedder: the embedder wasm's class as wasm-bindgen declares it
 *  (build/wasm/strata_embedder.d.ts, from crate/embedder/src/lib.rs). */
export type StrataEmbedderApi = StrataEmbedder;

/** The embedder wasm's class itself: `new StrataEmbedder(model, tokenizer, config)` and
 *  `StrataEmbedder.forTokenIds(model, padId, config)` (a pool worker: no tokenizer). */
export type StrataEmbedderStatic = typeof StrataEmbedder;

/**
 * Lets the core make embedders (`core.loadModel`) from the embedder wasm: the core calls
 * `globalThis.__strataCreateEmbedder`. `embedder` returns the class, instantiating its wasm
 * on first use (a model load), so starting up never pays for it.
 */
export function installEmbedderHook(embedder: () => StrataEmbedderStatic): void {
  globalScope.__strataCreateEmbedder = (model: Uint8Array, tokenizer: Uint8Array, config: unknown) => {
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
