// Persisting a run's work as it goes: every `flushEveryMs` (default 8 s) and at the end. The
// embedding runs (loop and pool) and the code pass share it.

import type { StrataCoreApi } from "./api.ts";
import { persist, type IndexStore } from "./index-store.ts";

export class PersistCadence {
  /** Bytes written by the persists so far. */
  bytesWritten = 0;
  private lastFlush = performance.now();
  private unflushed = 0;

  constructor(
    private readonly core: StrataCoreApi,
    private readonly store: IndexStore | null | undefined,
    private readonly exclusive: <T>(work: () => Promise<T>) => Promise<T>,
    private readonly flushEveryMs = 8000,
    private readonly onPersist?: (bytes: number) => void,
  ) {}

  /** Counts `n` changes (chunks embedded, files defined) made since the last persist. */
  count(n: number): void {
    this.unflushed += n;
  }

  /** Persists when `flushEveryMs` have passed since the last persist. */
  async flushIfDue(): Promise<void> {
    if (performance.now() - this.lastFlush >= this.flushEveryMs) await this.flush();
  }

  /** Persists what changed since the last persist (nothing without a store). */
  async flush(): Promise<void> {
    const store = this.store;
    if (!store || this.unflushed === 0) return;
    const bytes = await this.exclusive(() => persist(this.core, store));
    this.bytesWritten += bytes;
    this.unflushed = 0;
    this.lastFlush = performance.now();
    this.onPersist?.(bytes);
  }
}
