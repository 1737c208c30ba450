// Vault events → debounced, coalesced change sets for the worker. A burst of events (a sync
// pulling 300 notes, a folder rename, autosave while typing) becomes one apply() after the
// vault has been quiet for `delayMs` (at most `maxWaitMs` after the first event). A rename
// stays a rename (the core moves the note: no re-embedding of its sections).

import type { FileStat } from "../core/api.ts";
import type { ChangeSet } from "./worker-protocol.ts";

export class ChangeQueue {
  private changed = new Map<string, FileStat>();
  private deleted = new Set<string>();
  private renames: { from: string; to: string; mtime?: number; ctime?: number }[] = [];
  private timer: number | null = null;
  private firstAt = 0;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly apply: (cs: ChangeSet) => Promise<unknown>,
    private readonly delayMs = 500,
    private readonly maxWaitMs = 5000,
    private readonly onError: (err: unknown) => void = (err) => console.error("strata: applying vault changes failed", err),
  ) {}

  /** Notes waiting for the next apply. */
  get size(): number {
    return this.changed.size + this.deleted.size + this.renames.length;
  }

  upsert(stat: FileStat): void {
    this.deleted.delete(stat.path);
    this.changed.set(stat.path, stat);
    this.schedule();
  }

  remove(path: string): void {
    this.changed.delete(path);
    const i = this.renames.findIndex((r) => r.to === path);
    if (i >= 0) {
      // Renamed, then deleted: the original goes.
      const [r] = this.renames.splice(i, 1);
      this.deleted.add(r.from);
    } else this.deleted.add(path);
    this.schedule();
  }

  rename(from: string, to: string, stat: FileStat): void {
    if (from === to) return;
    this.deleted.delete(to);
    const pendingContent = this.changed.get(from);
    if (pendingContent) {
      this.changed.delete(from);
      this.changed.set(to, { ...stat, path: to });
    }
    const chained = this.renames.find((r) => r.to === from);
    if (chained) {
      chained.to = to;
      chained.mtime = stat.mtime;
      chained.ctime = stat.ctime;
      if (chained.from === to) this.renames.splice(this.renames.indexOf(chained), 1);
    } else this.renames.push({ from, to, mtime: stat.mtime, ctime: stat.ctime });
    this.schedule();
  }

  /** Applies what is pending now (and waits for an apply in flight). */
  flush(): Promise<void> {
    if (this.timer) window.clearTimeout(this.timer);
    this.timer = null;
    const cs = this.take();
    if (cs) {
      this.running = this.running
        .then(() => this.apply(cs))
        .then(
          () => undefined,
          (err) => this.onError(err),
        );
    }
    return this.running;
  }

  /** Stops scheduling; pending changes are dropped (the next start's reconcile finds them). */
  close(): void {
    this.closed = true;
    if (this.timer) window.clearTimeout(this.timer);
    this.timer = null;
  }

  private take(): ChangeSet | null {
    if (this.size === 0) return null;
    const cs: ChangeSet = { changed: [...this.changed.values()], deleted: [...this.deleted], renames: this.renames };
    this.changed = new Map();
    this.deleted = new Set();
    this.renames = [];
    this.firstAt = 0;
    return cs;
  }

  private schedule(): void {
    if (this.closed) return;
    const now = Date.now();
    if (!this.firstAt) this.firstAt = now;
    if (this.timer) window.clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.delayMs, this.firstAt + this.maxWaitMs - now));
    this.timer = window.setTimeout(() => void this.flush(), wait);
  }
}
