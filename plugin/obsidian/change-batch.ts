// A vault change set (debounced vault events, events.ts) as the core's update batch: the notes
// read once each, renames checked against what the index holds, unreadable notes dropped with a
// warning. The worker applies the batch (worker-server.ts `apply`).

import type { NoteInput, Rename, StrataCoreApi, Warning } from "../core/api.ts";
import { errorMessage } from "../core/errors.ts";
import type { ChangeSet } from "./worker-protocol.ts";

export interface ChangeBatch {
  upserts: NoteInput[];
  deletes: string[];
  renames: Rename[];
  warnings: Warning[];
  /** Renames whose bytes were read at their new path. */
  renamesRead: number;
}

/** Reads what a change set needs. `prepare` runs once the paths to index are known, before the
 *  notes are read (the code chunker's wasm is loaded there), with the number of notes to read;
 *  its warning joins the batch's. */
export async function changeBatch(
  core: Pick<StrataCoreApi, "note" | "shouldIndex">,
  cs: ChangeSet,
  readFile: (path: string) => Promise<Uint8Array>,
  prepare: (paths: string[], notes: number) => Promise<Warning | null>,
): Promise<ChangeBatch> {
  const renames: Rename[] = [];
  const deletes = [...cs.deleted];
  const changed = new Map(cs.changed.map((f) => [f.path, f]));
  const warnings: Warning[] = [];
  // Each note read once: a renamed note whose content changed too is also in `changed`.
  const reads = new Map<string, Promise<Uint8Array>>();
  const read = (path: string) => {
    let p = reads.get(path);
    if (!p) reads.set(path, (p = readFile(path)));
    return p;
  };
  let renamesRead = 0;
  await Promise.all(
    cs.renames.map(async (r) => {
      // A rename of a note the index does not hold (new, or a newly indexed extension) is a create.
      if (!core.note(r.from)) {
        if (!changed.has(r.to)) changed.set(r.to, { path: r.to, size: 0, mtime: r.mtime ?? Date.now(), ctime: r.ctime });
        return;
      }
      // Out of the indexed set (an excluded folder, another extension): the core drops it.
      if (!core.shouldIndex(r.to)) return void renames.push({ from: r.from, to: r.to });
      // The index stores no note text: the core checks the bytes at the new path against the
      // note's content hash (the same: a move, nothing re-embedded; else re-indexed).
      try {
        const times = { ...(r.mtime ? { mtime: r.mtime } : {}), ...(r.ctime ? { ctime: r.ctime } : {}) };
        renames.push({ from: r.from, to: r.to, bytes: await read(r.to), ...times });
        renamesRead++;
      } catch (err) {
        // Gone or unreadable at its new path: it leaves the index, like an unreadable upsert.
        deletes.push(r.from);
        warnings.push({ path: r.to, message: `unreadable: ${errorMessage(err)}` });
      }
    }),
  );
  // A renamed file's definitions are known under its old path.
  const prepared = await prepare([...changed.keys(), ...renames.flatMap((r) => [r.from, r.to])], changed.size);
  if (prepared) warnings.push(prepared);
  const upserts: NoteInput[] = [];
  await Promise.all(
    [...changed.values()]
      .filter((f) => core.shouldIndex(f.path))
      .map(async (f) => {
        try {
          upserts.push({ path: f.path, bytes: await read(f.path), mtime: f.mtime, ctime: f.ctime });
        } catch (err) {
          warnings.push({ path: f.path, message: `unreadable: ${errorMessage(err)}` });
        }
      }),
  );
  return { upserts, deletes, renames, warnings, renamesRead };
}
