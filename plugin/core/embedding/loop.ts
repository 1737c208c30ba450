// The embedding loop: steps over the core's embedding queue until it is empty, persisting as it
// goes. A step is the seam (`embedStepFrom`): the core names the notes its next chunks need
// (embedNeeds), the host reads them, the core embeds them (embedStep); the loop around it
// sizes the steps, persists, reports progress and stops on a signal.

import type { EmbedProgress, StrataCoreApi } from "../api.ts";
import type { IndexStore } from "../index-store.ts";
import { readNoteTexts, type VaultSource } from "../note-reads.ts";
import { PersistCadence } from "../persist-cadence.ts";
import { yieldToEvents, type Pause } from "../pause.ts";

export interface EmbedOptions {
  /** Called after every embedStep() (and once before the first) with the core's progress. */
  onProgress?: (p: EmbedProgress) => void;
  /** Stops the loop between two steps; what was embedded so far is persisted. */
  signal?: AbortSignal;
  /** Chunks per embedStep() call at most. Default 16 (two model batches). */
  maxChunks?: number;
  /** Aim for steps of about this long (ms): fewer chunks per step with a slower model, so
   *  that a search waiting behind a step waits little (the plugin's worker, the bridge).
   *  Default: no aim, `maxChunks` per step (the CLI). */
  stepMs?: number;
  /** Persist at most this often while embedding, so a crash loses little work. Default 8000 ms. */
  flushEveryMs?: number;
  /** Called after each persist (bytes written). */
  onPersist?: (bytes: number) => void;
  /** Awaited between steps; default {@link yieldToEvents} (see ReconcileOptions.pause). */
  pause?: Pause;
  /** Runs each step and each persist, which change the index: a host whose other work updates
   *  the index between steps (the headless bridge's tool calls) passes its lock here. A throw
   *  (the host lost the index to another writer) ends the run without writing. Default: runs them. */
  exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Chunks for the next embedStep(): as many as take about `stepMs` at `rate` chunks/s (at least
 * one, at most `max`), or `max` without a time aim. Measured in wasm: a chunk takes ~0.3 s with
 * all-MiniLM-L6-v2 and ~0.7 s with multilingual-e5-small, so 8 chunks would hold a search
 * behind a step for 2.5–6 s; smaller batches cost tract little.
 */
export function stepChunks(rate: number, stepMs: number | undefined, max: number): number {
  if (!stepMs) return max;
  if (!(rate > 0)) return Math.min(2, max); // no measure yet: a small first step
  return Math.max(1, Math.min(max, Math.floor((rate * stepMs) / 1000)));
}

export interface EmbedSummary {
  /** Chunks embedded by this run. */
  embedded: number;
  /** Chunks with a vector / chunks in the index, when the run stopped. */
  done: number;
  total: number;
  /** True when the signal stopped the run before the queue was empty. */
  aborted: boolean;
  /** Time spent inside embedStep(). */
  embedMs: number;
  tookMs: number;
  bytesWritten: number;
}

/**
 * Embeds every pending chunk: steps (`embedStepFrom`: the core names the notes a step needs,
 * they are read through `vault`, the core embeds) in a loop until the queue is empty or
 * `signal` aborts, persisting to `store` (when given) every `flushEveryMs` and at the end.
 * The queue is derived by the core from the index (leaves without a vector), so a run that
 * was interrupted, crashed or cancelled resumes where its last persist left it: calling
 * this again is all it takes. A note that cannot be read, or changed since it was indexed,
 * has its chunks dropped for this run (its next update queues them again), so the loop ends.
 * The model must be loaded (`core.loadModel`).
 */
export async function embedAll(
  core: StrataCoreApi,
  vault: VaultSource,
  store: IndexStore | null | undefined,
  opts: EmbedOptions = {},
): Promise<EmbedSummary> {
  const maxChunks = Math.max(1, opts.maxChunks ?? 16);
  const report = opts.onProgress ?? (() => {});
  const exclusive = exclusiveOf(opts);
  let progress = core.embedProgress();
  if (!progress.modelLoaded) throw new Error("[unavailable] no embedding model is loaded: call loadModel() first");
  const run = new EmbedRun(core, store, opts, progress);
  const sum = run.sum;
  report(progress);
  try {
    while (progress.done < progress.total) {
      if (opts.signal?.aborted) {
        sum.aborted = true;
        break;
      }
      const n = stepChunks(sum.embedded / (sum.embedMs / 1000) || progress.rate, opts.stepMs, maxChunks);
      const step = await exclusive(() => timedStep(core, vault, n));
      progress = step.progress;
      sum.embedMs += step.embedMs;
      run.stored(progress.embedded);
      report(progress);
      // A step that neither embedded nor dropped a chunk took none: the queue is empty.
      if (progress.embedded === 0 && !progress.dropped) break;
      await run.flushIfDue();
      await (opts.pause ?? yieldToEvents)();
    }
  } finally {
    // Persist what was embedded even when a step threw: it is valid work.
    await run.flush();
  }
  return run.finish(progress);
}

/** The `exclusive` of `opts`, or one that just runs the work. */
export function exclusiveOf(opts: EmbedOptions): <T>(work: () => Promise<T>) => Promise<T> {
  return opts.exclusive ?? (<T>(work: () => Promise<T>) => work());
}

/**
 * What an embedding run keeps between its steps, for embedAll and the pool alike: the summary,
 * the chunks stored since the last persist, and persisting every `flushEveryMs` and at the end.
 */
export class EmbedRun {
  readonly sum: EmbedSummary;
  private readonly t0 = performance.now();
  private readonly cadence: PersistCadence;

  constructor(core: StrataCoreApi, store: IndexStore | null | undefined, opts: EmbedOptions, start: EmbedProgress) {
    this.sum = { embedded: 0, done: start.done, total: start.total, aborted: false, embedMs: 0, tookMs: 0, bytesWritten: 0 };
    this.cadence = new PersistCadence(core, store, exclusiveOf(opts), opts.flushEveryMs, opts.onPersist);
  }

  /** Counts `n` chunks stored by a step. */
  stored(n: number): void {
    this.sum.embedded += n;
    this.cadence.count(n);
  }

  /** Persists when `flushEveryMs` (default 8000) have passed since the last persist. */
  async flushIfDue(): Promise<void> {
    await this.cadence.flushIfDue();
    this.sum.bytesWritten = this.cadence.bytesWritten;
  }

  /** Persists what was stored since the last persist (nothing without a store). */
  async flush(): Promise<void> {
    await this.cadence.flush();
    this.sum.bytesWritten = this.cadence.bytesWritten;
  }

  /** The summary, with the queue's state at the end. */
  finish(progress: EmbedProgress): EmbedSummary {
    this.sum.done = progress.done;
    this.sum.total = progress.total;
    this.sum.tookMs = performance.now() - this.t0;
    return this.sum;
  }
}

/**
 * One embedding step, the seam between the loop and what embeds: the core takes up to
 * `maxChunks` pending chunks and names the notes they come from (embedNeeds), those notes are
 * read through `vault`, and the core embeds the chunks from them (embedStep).
 */
export async function embedStepFrom(core: StrataCoreApi, vault: VaultSource, maxChunks: number): Promise<EmbedProgress> {
  return (await timedStep(core, vault, maxChunks)).progress;
}

/** A step, and the time spent embedding in it (the reads left out). */
async function timedStep(
  core: StrataCoreApi,
  vault: VaultSource,
  maxChunks: number,
): Promise<{ progress: EmbedProgress; embedMs: number }> {
  const needs = core.embedNeeds(maxChunks);
  const texts = needs.length ? await readNoteTexts((p) => vault.read(p), needs) : {};
  const t = performance.now();
  const progress = core.embedStep(maxChunks, texts);
  return { progress, embedMs: performance.now() - t };
}
