// The search worker's reads first: background work (the reconcile, the code pass, embedding) pauses
// between its parts until the searches and reads in flight have finished.

import { globalScope } from "../core/global-scope.ts";

/** Background work waits between its parts for the searches and reads in flight, at most this
 *  long per part (a read stuck on the UI thread must not stall indexing). */
const READS_FIRST_MAX_MS = 2000;

export function macrotask(): Promise<void> {
  return new Promise((resolve) => globalScope.setTimeout(resolve, 0));
}

/** The searches and reads in flight, and the background work waiting for them to finish. */
export class ReadsFirst {
  private reads = 0;
  private waiters: (() => void)[] = [];

  /** Counts `fn` as a read in flight (a search, a note read, similar notes) until it settles. */
  async reading<T>(fn: () => Promise<T>): Promise<T> {
    this.reads++;
    try {
      return await fn();
    } finally {
      if (--this.reads === 0) for (const w of this.waiters.splice(0)) w();
    }
  }

  /**
   * Where background work pauses between its parts: queued messages run first, then the searches
   * and reads in flight finish (their awaits on the UI thread's note reads would otherwise let the
   * next part in ahead of them). At start-up this answers a search typed at once before the
   * reconcile lists the vault.
   */
  async pause(): Promise<void> {
    await macrotask();
    if (this.reads === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.waiters.push(resolve)),
      new Promise<void>((resolve) => (timer = globalScope.setTimeout(resolve, READS_FIRST_MAX_MS))),
    ]);
    globalScope.clearTimeout(timer);
  }
}
