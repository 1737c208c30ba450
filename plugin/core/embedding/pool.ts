// A pool of embedder workers: N workers, each with its own embedder wasm and its own copy of the
// model (embedding/pool-worker.ts), fed from the core's embedding queue. The core's thread hands batches
// out (embedNeeds → the notes are read → embedTake), a worker embeds them, and the core stores
// the vectors as they come back (embedPut); the core's own embedder stays free for queries, so a
// search during indexing never waits behind a batch. The same code runs in every host: the
// plugin's worker (Web Workers), the CLI and the headless bridge (worker_threads); a host only
// says how to start a worker (`SpawnEmbedWorker`).
//
// Cancel, progress, persistence and resume behave as embedAll's (embedding/loop.ts): the queue is the
// core's, chunks in flight are pending until their vectors are stored, a cancelled or failed run
// returns them to the queue (embedRelease), and what was stored is persisted every
// `flushEveryMs` and at the end. A worker that dies or throws is replaced and its batch redone;
// a batch that fails `maxAttempts` times ends the run with an error that says why.

import type { EmbedBatch, StrataCoreApi } from "../api.ts";
import { EmbedRun, exclusiveOf, stepChunks, type EmbedOptions, type EmbedSummary } from "./loop.ts";
import type { EmbedWorker, ModelSource } from "./pool-worker.ts";
import { errorMessage } from "../errors.ts";
import type { IndexStore } from "../index-store.ts";
import { readNoteTexts, type VaultSource } from "../note-reads.ts";
import { loadedModel } from "../wasm-classes.ts";

/** Starts one worker with `model` loaded; rejects when it cannot. */
export type SpawnEmbedWorker = (model: ModelSource) => Promise<EmbedWorker>;

export interface PoolOptions extends EmbedOptions {
  /** Tries per batch (a worker that died or threw is replaced before each retry). Default 3. */
  maxAttempts?: number;
  /** Called when a worker failed and is being replaced (for a notice or a log line). */
  onWorkerFailure?: (message: string, attempt: number) => void;
}

/** Process memory (MB) per model, measured in Node 20 on the fixture vault (docs/benchmarks.md):
 *  `core`, the core's thread with the model loaded (its embedder answers queries); `worker`, the
 *  peak that each embedder worker adds (its wasm memory: 156 MB with all-MiniLM-L6-v2, 376 MB
 *  with multilingual-e5-small — the model without a tokenizer, in the wasm module the process
 *  compiled once — plus the model's bytes and the JS engine's share). */
export const MODEL_MEMORY_MB: Record<string, { core: number; worker: number }> = {
  "all-MiniLM-L6-v2": { core: 350, worker: 210 },
  "multilingual-e5-small": { core: 800, worker: 590 },
};
/** What Strata may take in all: a quarter of the machine's memory, at most 2 GB (8 GB desktop). */
export const MEMORY_BUDGET_MB = 2048;
export const MAX_WORKERS = 16;

export interface WorkerChoice {
  workers: number;
  /** Why that many, for the settings tab and the CLI. */
  reason: string;
}

/**
 * Workers for a setting ("auto" or 1…16): auto is min(cores − 1, what fits the memory budget
 * beside the core), at least 1; always 1 on mobile. The budget is MEMORY_BUDGET_MB, or a quarter
 * of `totalMemoryMB` when that is less.
 */
export function chooseWorkers(
  setting: number | "auto",
  env: { cores: number; totalMemoryMB?: number; mobile?: boolean; model?: string | null },
): WorkerChoice {
  if (env.mobile) return { workers: 1, reason: "1 on mobile" };
  if (setting !== "auto") {
    const n = Math.max(1, Math.min(MAX_WORKERS, Math.floor(setting)));
    return { workers: n, reason: `set to ${n}` };
  }
  const mem = MODEL_MEMORY_MB[env.model ?? ""] ?? MODEL_MEMORY_MB["multilingual-e5-small"];
  const budget = Math.min(MEMORY_BUDGET_MB, env.totalMemoryMB ? env.totalMemoryMB / 4 : Infinity);
  const byMemory = Math.max(1, Math.floor((budget - mem.core) / mem.worker));
  const byCores = Math.max(1, env.cores - 1);
  const workers = Math.min(byCores, byMemory, MAX_WORKERS);
  const model = env.model ?? "the larger model";
  return {
    workers,
    reason:
      `${workers}: ${env.cores} cores − 1 = ${byCores}; (${Math.round(budget)} MB budget − ${mem.core} MB for the search core) / ` +
      `${mem.worker} MB per worker with ${model} = ${byMemory}`,
  };
}

/** N embedder workers, started with the first run (and again for another model), kept between
 *  runs; `close()` ends them. */
export class EmbedPool {
  private workers: (EmbedWorker | null)[] = [];
  private modelId: string | null = null;
  /** Workers replaced so far (for status and tests). */
  restarts = 0;

  constructor(
    private readonly spawn: SpawnEmbedWorker,
    readonly size: number,
  ) {}

  /** The workers' wasm memory (bytes), as each last reported it. */
  wasmBytes(): number[] {
    return this.workers.map((w) => w?.wasmBytes() ?? 0);
  }

  close(): void {
    for (const w of this.workers) w?.terminate();
    this.workers = [];
    this.modelId = null;
  }

  private async worker(i: number, model: ModelSource): Promise<EmbedWorker> {
    if (this.modelId !== model.id) {
      this.close();
      this.modelId = model.id;
      this.workers = new Array<EmbedWorker | null>(this.size).fill(null);
    }
    let w = this.workers[i];
    if (!w) {
      w = await this.spawn(model);
      if (this.modelId !== model.id) {
        w.terminate();
        throw new Error("[unavailable] the pool was closed");
      }
      this.workers[i] = w;
    }
    return w;
  }

  private replace(i: number): void {
    this.workers[i]?.terminate();
    this.workers[i] = null;
    this.restarts++;
  }

  /**
   * Embeds every pending chunk with the pool's workers (see the file's comment), until the queue
   * is empty, `opts.signal` aborts (batches in flight are finished and stored first) or a batch
   * fails `maxAttempts` times (thrown, after what was stored is persisted). The model must be
   * loaded in the core (`core.loadModel`), in this thread: the workers load the same bytes.
   */
  async run(core: StrataCoreApi, vault: VaultSource, store: IndexStore | null | undefined, opts: PoolOptions = {}): Promise<EmbedSummary> {
    const maxChunks = Math.max(1, opts.maxChunks ?? 16);
    const maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    const report = opts.onProgress ?? (() => {});
    const exclusive = exclusiveOf(opts);
    let progress = core.embedProgress();
    if (!progress.modelLoaded || !progress.model) throw new Error("[unavailable] no embedding model is loaded: call loadModel() first");
    const model = loadedModel(progress.model);
    if (!model) throw new Error(`[unavailable] ${progress.model} was not loaded in this thread: the pool's workers need its bytes`);
    const run = new EmbedRun(core, store, opts, progress);
    const sum = run.sum;
    report(progress);
    // Chunks per second of one worker (for the batch size), measured as batches come back.
    let workerChunks = 0;
    let workerMs = 0;
    let exhausted = false;
    let failure: Error | null = null;
    // Batches are handed out one at a time (the note reads are async), each to one lane.
    let chain: Promise<unknown> = Promise.resolve();
    const takeOne = async (): Promise<EmbedBatch | null> => {
      while (!exhausted && !failure && !opts.signal?.aborted) {
        const n = stepChunks(workerChunks / (workerMs / 1000), opts.stepMs, maxChunks);
        const batch = await exclusive(async () => {
          const needs = core.embedNeeds(n);
          const texts = needs.length ? await readNoteTexts((p) => vault.read(p), needs) : {};
          return core.embedTake(n, texts);
        });
        if (batch.items.length > 0) return batch;
        if (batch.dropped === 0) exhausted = true; // nothing left to hand out
      }
      return null;
    };
    const take = (): Promise<EmbedBatch | null> => {
      const next = chain.then(takeOne);
      chain = next.catch(() => undefined);
      return next;
    };
    // Each lane takes its next batch while its worker embeds the current one, so the worker
    // does not wait for the note reads and the hand-out between batches. A batch taken and
    // never embedded (a failure, an abort) goes back with embedRelease below.
    const lane = async (i: number) => {
      let next = take();
      for (;;) {
        const batch = await next;
        if (!batch) return;
        next = take();
        next.catch(() => undefined); // awaited at the top of the loop, unless this lane stops first
        const texts = batch.items.map((it) => it.text);
        let vectors: Float32Array | null = null;
        for (let attempt = 1; !vectors; attempt++) {
          const t = performance.now();
          try {
            const w = await this.worker(i, model);
            vectors = await w.embed(texts);
            workerMs += performance.now() - t;
            workerChunks += texts.length;
          } catch (err) {
            this.replace(i);
            const msg = errorMessage(err);
            if (attempt >= maxAttempts || failure) {
              failure ??= new Error(
                `[internal] embedding failed ${attempt} times on a batch of ${texts.length} chunks (${batch.items[0]?.key.slice(0, 12)}…): ${msg}`,
              );
              return;
            }
            opts.onWorkerFailure?.(msg, attempt);
          }
        }
        const p = await exclusive(async () =>
          core.embedPut(
            batch.model,
            batch.items.map((it) => it.key),
            vectors,
          ),
        );
        progress = p;
        run.stored(p.embedded);
        report(p);
        await run.flushIfDue();
        await opts.pause?.();
      }
    };
    const tEmbed = performance.now();
    try {
      const lanes = await Promise.allSettled(Array.from({ length: this.size }, (_, i) => lane(i)));
      for (const l of lanes) if (l.status === "rejected") failure ??= l.reason instanceof Error ? l.reason : new Error(String(l.reason));
      sum.embedMs = performance.now() - tEmbed;
      if (failure) throw failure;
    } finally {
      // Chunks handed out and not stored (a failure, an abort between take and put) go back.
      progress = await exclusive(async () => core.embedRelease()).catch(() => progress);
      await run.flush();
    }
    sum.aborted = Boolean(opts.signal?.aborted) && progress.done < progress.total;
    report(progress);
    return run.finish(progress);
  }
}
