// The code pass: code files a bulk index left in line windows (`deferCode`: searchable at
// plain-text speed) are given their definitions in steps, as embedding is. A step is the core
// naming the files it takes (codePassNeeds), the host reading them, the core chunking them and
// replacing their windows (codePassStep). The code wasm is loaded before the first step, only
// when there are files to define.

import type { CodePassProgress, StrataCoreApi, Warning } from "./api.ts";
import { codeHookInstalled, loadCodeChunker } from "./code-hook.ts";
import { stepChunks } from "./embedding/loop.ts";
import type { IndexStore } from "./index-store.ts";
import { readNoteTexts, type VaultSource } from "./note-reads.ts";
import { PersistCadence } from "./persist-cadence.ts";
import { yieldToEvents, type Pause } from "./pause.ts";

export interface CodePassOptions {
  /** Files per step at most. Default 1024. Each step commits the lexical index (so that a search
   *  sees a file's windows or its definitions, never a mix), which costs about 0.2 s in wasm: the
   *  pinned code vault's 252 files took 1.4 s in one step, 2.2 s in steps of 64. */
  maxFiles?: number;
  /** Aim for steps of about this long (ms), so that a search waiting behind a step waits little
   *  (the plugin's worker): files per step from the rate so far (see stepChunks). Default: no
   *  aim, `maxFiles` per step (the CLI). */
  stepMs?: number;
  /** Stops the pass between two steps; what was defined so far is persisted. */
  signal?: AbortSignal;
  /** Awaited between steps; default {@link yieldToEvents}. */
  pause?: Pause;
  /** Runs each step and each persist (a host whose other work updates the index passes its lock). */
  exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
  /** Persist at most this often while passing. Default 8000 ms. */
  flushEveryMs?: number;
  onProgress?: (p: CodePassProgress) => void;
}

export interface CodePassSummary {
  /** Files given their definitions by this run. */
  defined: number;
  /** Files left in line windows when the run stopped. */
  left: number;
  /** True when the signal stopped the run before it was done. */
  aborted: boolean;
  /** Why the run could not define files (the code wasm could not be loaded), else null. */
  failure: Warning | null;
  /** The chunker's warnings (syntax errors, files not parsed). */
  warnings: Warning[];
  tookMs: number;
  bytesWritten: number;
}

/**
 * Gives every file waiting for its definitions its definitions: steps until none is left, the
 * signal aborts, or a step makes no progress, persisting to `store` (when given) every
 * `flushEveryMs` and at the end. The queue is the core's (files marked pending in the index), so
 * a run interrupted resumes where its last persist left it.
 */
export async function codePassAll(
  core: StrataCoreApi,
  vault: VaultSource,
  store: IndexStore | null | undefined,
  opts: CodePassOptions = {},
): Promise<CodePassSummary> {
  const t0 = performance.now();
  const max = Math.max(1, opts.maxFiles ?? 1024);
  let stepMs = 0;
  const exclusive = opts.exclusive ?? (<T>(work: () => Promise<T>) => work());
  let progress = core.codePassProgress();
  const sum: CodePassSummary = { defined: 0, left: progress.left, aborted: false, failure: null, warnings: [], tookMs: 0, bytesWritten: 0 };
  const cadence = new PersistCadence(core, store, exclusive, opts.flushEveryMs);
  try {
    while (progress.left > 0) {
      if (opts.signal?.aborted) {
        sum.aborted = true;
        break;
      }
      // A first step of 8 files measures the rate when steps aim at a time.
      const maxFiles = opts.stepMs && sum.defined === 0 ? Math.min(8, max) : stepChunks(sum.defined / (stepMs / 1000), opts.stepMs, max);
      if (!codeHookInstalled()) {
        const needs = core.codePassNeeds(maxFiles);
        sum.failure = await loadCodeChunker(needs[0] ?? "");
        if (sum.failure) break;
      }
      progress = await exclusive(async () => {
        const needs = core.codePassNeeds(maxFiles);
        const texts = await readNoteTexts((p) => vault.read(p), needs);
        const t = performance.now();
        const p = core.codePassStep(maxFiles, texts);
        stepMs += performance.now() - t;
        return p;
      });
      sum.defined += progress.defined;
      cadence.count(progress.defined);
      sum.warnings.push(...(progress.warnings ?? []));
      opts.onProgress?.(progress);
      if (progress.defined === 0 && progress.dropped === 0) break;
      await cadence.flushIfDue();
      await (opts.pause ?? yieldToEvents)();
    }
  } finally {
    await cadence.flush();
    sum.bytesWritten = cadence.bytesWritten;
  }
  sum.left = progress.left;
  sum.tookMs = performance.now() - t0;
  return sum;
}
