// The search worker's embedding: the pool of embedder workers (plugin/core/embedding/pool.ts) when
// the host can start workers (pool-worker-web.ts: nested Web Workers) and the setting asks for
// them, else the core's own embedder in steps, as before (embedAll).

import initEmbedder, { StrataEmbedder } from "../../build/wasm/strata_embedder.js";
import type { StrataCoreApi } from "../core/api.ts";
import { pickEmbedderWasm, type EmbedderBuild, type RelaxedEmbedderFile } from "../core/embedding/builds.ts";
import { embedAll, type EmbedOptions, type EmbedSummary } from "../core/embedding/loop.ts";
import { EmbedPool, type SpawnEmbedWorker } from "../core/embedding/pool.ts";
import type { EmbedderWasm } from "../core/embedding/pool-worker.ts";
import type { IndexStore } from "../core/index-store.ts";
import type { VaultSource } from "../core/note-reads.ts";
import { forgetLoadedModels, installEmbedderHook } from "../core/wasm-classes.ts";

/**
 * Compiles the embedder's wasm once and lets the core make embedders from it: this worker's
 * embedder and the pool's workers (posted the module) share its machine code.
 */
export async function compileEmbedder(bytes: Uint8Array | ArrayBuffer): Promise<WebAssembly.Module> {
  const module = await WebAssembly.compile(bytes as BufferSource);
  embedderMemory = (await initEmbedder({ module_or_path: module })).memory;
  installEmbedderHook(() => StrataEmbedder);
  return module;
}

let embedderMemory: WebAssembly.Memory | null = null;

/** The bytes of this thread's embedder wasm memory (0 before a model was loaded). */
export function embedderWasmBytes(): number {
  return embedderMemory?.buffer.byteLength ?? 0;
}

/**
 * Compiles the embedder build to run (embedding/builds.ts): the installed relaxed-SIMD one where it
 * checks out, validates and starts, else the built-in one, saying why.
 */
export async function loadEmbedderBuild(
  relaxed: () => Promise<RelaxedEmbedderFile | null>,
  builtIn: () => Promise<ArrayBuffer | Uint8Array>,
): Promise<{ module: WebAssembly.Module; build: EmbedderBuild }> {
  const pick = await pickEmbedderWasm(relaxed, builtIn);
  try {
    return { module: await compileEmbedder(pick.bytes), build: pick.build };
  } catch (err) {
    if (pick.build.build === "simd128") throw err;
    const why = `the relaxed-SIMD build did not start (${err instanceof Error ? err.message : String(err)})`;
    return { module: await compileEmbedder(await builtIn()), build: { build: "simd128", why } };
  }
}

/** How the search worker starts embedder workers (given the embedder wasm once it is loaded), if it can. */
export type EmbedSpawnerFactory = (wasm: () => EmbedderWasm | null) => SpawnEmbedWorker | null;

/**
 * The search worker's embedding: the pool when it has `workers` ≥ 1 and a way to start them,
 * else the core's own embedder (embedAll). The pool is kept between runs (its workers keep
 * their model) and ended by `close()`.
 */
export class Embedding {
  private pool: EmbedPool | null = null;
  private workers = 0;
  /** Why the last run did not use the pool (null: it did). */
  fallback: string | null = null;
  /** The embedder build loaded (null: none yet). */
  build: EmbedderBuild | null = null;

  constructor(private readonly spawn: SpawnEmbedWorker | null) {}

  /** Embedder workers for the next runs (0: the core's own embedder, as on mobile). */
  setWorkers(n: number): void {
    const next = this.spawn ? Math.max(0, Math.floor(n)) : 0;
    if (next !== this.workers) {
      this.pool?.close();
      this.pool = null;
      this.workers = next;
    }
    if (next === 0) forgetLoadedModels();
  }

  /** Worker threads in use (0: the core embeds) and how often one was replaced. */
  info(): { workers: number; restarts: number; fallback: string | null; build: EmbedderBuild | null } {
    return { workers: this.pool ? this.workers : 0, restarts: this.pool?.restarts ?? 0, fallback: this.fallback, build: this.build };
  }

  run(
    core: StrataCoreApi,
    vault: VaultSource,
    store: IndexStore,
    opts: EmbedOptions & { onWorkerFailure?: (msg: string) => void },
  ): Promise<EmbedSummary> {
    if (!this.spawn || this.workers < 1) {
      this.fallback = this.spawn ? "set to the core's embedder" : "this host cannot start workers";
      return embedAll(core, vault, store, opts);
    }
    this.fallback = null;
    this.pool ??= new EmbedPool(this.spawn, this.workers);
    return this.pool.run(core, vault, store, opts);
  }

  close(): void {
    this.pool?.close();
    this.pool = null;
  }
}
