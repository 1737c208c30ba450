// Reconciling the index with the vault: list → plan (what changed) → read the changed notes
// in batches → update, persisting as it goes.

import type { FileStat, NoteInput, Plan, Skip, StrataCoreApi, UpdateReport, Warning } from "./api.ts";
import { prepareCode, retryCodeBlocks } from "./code-hook.ts";
import { errorMessage } from "./errors.ts";
import { persist, type IndexStore } from "./index-store.ts";
import type { VaultSource } from "./note-reads.ts";
import { yieldToEvents, type Pause } from "./pause.ts";

export interface ReconcileProgress {
  phase: "list" | "index" | "persist" | "done";
  done: number;
  total: number;
}

export interface ReconcileOptions {
  onProgress?: (p: ReconcileProgress) => void;
  /** Notes per update() call. Default 200. */
  batchNotes?: number;
  /** Bytes of note content per update() call. Default 16 MB. */
  batchBytes?: number;
  /** When given, the index is persisted (committed) at the end, every `persistEveryBytes` of
   *  input and every `persistEveryMs` of indexing. */
  store?: IndexStore;
  /** Default 64 MB. */
  persistEveryBytes?: number;
  /** Default 10 000: a long first index (a large vault, a phone) becomes searchable in steps
   *  instead of at its end; batches between two persists make one segment. */
  persistEveryMs?: number;
  /** Files per part of the plan; between parts the host's other work (searches) runs. Default 1024. */
  planChunk?: number;
  /** Awaited between the parts of the work (before the listing, between plan parts and between
   *  batches). Default {@link yieldToEvents}; the plugin's worker also waits there for the
   *  searches in flight, so a search never queues behind background indexing. */
  pause?: Pause;
  /** A bulk index (`UpdateBatch.deferCode`): code files without definitions in the index yet are
   *  indexed in line windows, at plain-text speed, and given their definitions by the code pass
   *  (code-pass.ts), which the host runs afterwards. Default false: chunked at once. */
  deferCode?: boolean;
}

/**
 * `core.plan` of a vault listing, a part at a time: on a 100k-note vault one plan() call takes
 * 0.3–0.5 s (measured in wasm), during which a worker could answer no search.
 */
export async function planInParts(core: StrataCoreApi, files: FileStat[], chunk = 1024, pause: Pause = yieldToEvents): Promise<Plan> {
  if (files.length <= chunk) return core.plan(files);
  const plan: Plan = { read: [], delete: [], unchanged: 0, skipped: [] };
  for (let i = 0; i < files.length; i += chunk) {
    const part = core.planChunk(files.slice(i, i + chunk), i === 0);
    for (const p of part.read) plan.read.push(p);
    for (const s of part.skipped) plan.skipped.push(s);
    plan.unchanged += part.unchanged;
    await pause();
  }
  plan.delete = core.planDeletes();
  return plan;
}

export interface ReconcileSummary {
  listed: number;
  ignored: number;
  added: number;
  updated: number;
  unchanged: number;
  moved: number;
  deleted: number;
  skipped: Skip[];
  warnings: Warning[];
  sections: number;
  bytesRead: number;
  bytesWritten: number;
  /** Time spent inside core.update(). */
  coreMs: number;
  tookMs: number;
}

const MB = 1024 * 1024;

/**
 * Brings the index up to date with the vault: lists it, asks the core which notes changed,
 * reads only those (in batches), and passes them to `update()`. Unreadable notes become
 * warnings. Deletes go first, and notes of the same size as a deleted one (rename
 * candidates) are read in the same first batch: the core matches a new note's content hash
 * against the notes deleted since the last flush, so a renamed note is recognised as moved
 * rather than deleted and re-added even when the index is persisted in between batches.
 */
export async function reconcile(core: StrataCoreApi, vault: VaultSource, opts: ReconcileOptions = {}): Promise<ReconcileSummary> {
  const t0 = performance.now();
  const batchNotes = opts.batchNotes ?? 200;
  const batchBytes = opts.batchBytes ?? 16 * MB;
  const persistEvery = opts.persistEveryBytes ?? 64 * MB;
  const persistEveryMs = opts.persistEveryMs ?? 10_000;
  let lastFlush = t0;
  const progress = opts.onProgress ?? (() => {});
  const pause = opts.pause ?? yieldToEvents;

  await pause();
  progress({ phase: "list", done: 0, total: 0 });
  const listing = await vault.list((p) => core.shouldIndex(p));
  const plan = await planInParts(core, listing.files, opts.planChunk, pause);

  const sum: ReconcileSummary = {
    listed: listing.files.length,
    ignored: listing.ignored,
    added: 0,
    updated: 0,
    unchanged: plan.unchanged,
    moved: 0,
    deleted: 0,
    skipped: [...listing.skipped, ...plan.skipped],
    warnings: [],
    sections: 0,
    bytesRead: 0,
    bytesWritten: 0,
    coreMs: 0,
    tookMs: 0,
  };

  // The code chunker's wasm, loaded only when code files are to be chunked now.
  const deferCode = opts.deferCode ?? false;
  const code = await prepareCode(core, plan.read, deferCode);
  if (code) sum.warnings.push(code);

  const stats = new Map(listing.files.map((f) => [f.path, f]));
  // Rename candidates: notes to read whose size equals that of a note that disappeared.
  const goneSizes = new Set<number>();
  for (const p of plan.delete) {
    const info = core.note(p);
    if (info) goneSizes.add(info.size);
  }
  const first: string[] = [];
  const rest: string[] = [];
  for (const p of plan.read) {
    const size = stats.get(p)?.size ?? -1;
    (goneSizes.has(size) ? first : rest).push(p);
  }

  const total = plan.read.length;
  let done = 0;
  let sinceFlush = 0;
  let pendingDeletes = plan.delete;

  const apply = async (upserts: NoteInput[]) => {
    if (upserts.length === 0 && pendingDeletes.length === 0) return;
    const t = performance.now();
    // Batches are staged uncommitted so that a bulk index makes one segment; the commit
    // comes with the next persist() (flush commits) or the core.commit() at the end.
    const rep: UpdateReport = core.update({ upserts, deletes: pendingDeletes, commit: false, deferCode });
    pendingDeletes = [];
    // Notes whose large fenced code blocks waited for the code chunker: again, with it.
    const again = await retryCodeBlocks(core, rep, upserts, false);
    if (again) {
      rep.warnings.push(...again.warnings);
      rep.sections += again.sections;
    }
    sum.coreMs += performance.now() - t;
    sum.added += rep.added;
    sum.updated += rep.updated;
    sum.unchanged += rep.unchanged;
    sum.moved += rep.moved;
    sum.deleted += rep.deleted;
    sum.sections += rep.sections;
    sum.skipped.push(...rep.skipped);
    sum.warnings.push(...rep.warnings);
    if (opts.store && (sinceFlush >= persistEvery || performance.now() - lastFlush >= persistEveryMs)) {
      progress({ phase: "persist", done, total });
      sum.bytesWritten += await persist(core, opts.store);
      sinceFlush = 0;
      lastFlush = performance.now();
    }
  };

  // Notes read ahead: in the plugin the reads (the UI thread, through the vault adapter) go on
  // while the worker's core indexes the batch before, so reading costs almost no wall time.
  // (The Node hosts read synchronously: see NodeVault.)
  const READ_AHEAD = 64;
  const readOne = async (path: string): Promise<Uint8Array | undefined> => {
    try {
      return await vault.read(path);
    } catch (err) {
      sum.warnings.push({ path, message: `unreadable: ${errorMessage(err)}` });
      return undefined;
    }
  };

  const runGroup = async (paths: string[], maxNotes: number, maxBytes: number) => {
    let batch: NoteInput[] = [];
    let bytes = 0;
    const inFlight: Promise<Uint8Array | undefined>[] = [];
    let next = 0;
    const fill = () => {
      while (next < paths.length && inFlight.length < READ_AHEAD) inFlight.push(readOne(paths[next++]));
    };
    fill();
    for (const path of paths) {
      const data = await inFlight.shift()!;
      fill();
      done++;
      if (!data) continue;
      const stat = stats.get(path);
      batch.push({ path, bytes: data, mtime: stat?.mtime ?? 0, ctime: stat?.ctime });
      bytes += data.byteLength;
      sum.bytesRead += data.byteLength;
      sinceFlush += data.byteLength;
      if (batch.length >= maxNotes || bytes >= maxBytes) {
        await apply(batch);
        progress({ phase: "index", done, total });
        batch = [];
        bytes = 0;
        await pause();
      }
    }
    await apply(batch);
    progress({ phase: "index", done, total });
  };

  progress({ phase: "index", done: 0, total });
  // Deletes and rename candidates in one batch (even when there are no candidates: runGroup
  // always applies its last batch), with larger limits: a renamed folder moves many notes.
  await runGroup(first, Infinity, batchBytes * 4);
  await runGroup(rest, batchNotes, batchBytes);

  if (opts.store) {
    progress({ phase: "persist", done, total });
    sum.bytesWritten += await persist(core, opts.store);
  } else {
    core.commit();
  }
  sum.tookMs = performance.now() - t0;
  progress({ phase: "done", done, total });
  return sum;
}
