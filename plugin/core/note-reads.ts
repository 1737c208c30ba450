// Note text: the host reads it, the core uses it. The index stores no note text, so snippets,
// reads and embedding pass the notes' current bytes to the core; a VaultSource is how a host
// lists and reads its vault (the plugin through app.vault, the CLI and the bridge on disk).

import type { FileStat, NoteTexts, ReadRequest, ReadResult, SearchRequest, SearchResponse, Skip, StrataCoreApi } from "./api.ts";
import { asBytes } from "./bytes.ts";
import { errorMessage } from "./errors.ts";

/** What a vault lists: candidate notes (already filtered by `shouldIndex`) and what it skipped. */
export interface VaultListing {
  files: FileStat[];
  /** Entries not indexed for a reason worth telling (symlinks, unreadable folders). */
  skipped: Skip[];
  /** Files the core does not index (other extensions, excluded folders): not reported one by one. */
  ignored: number;
}

export interface VaultSource {
  list(shouldIndex: (path: string) => boolean): Promise<VaultListing>;
  read(path: string): Promise<Uint8Array>;
}

/** Reads a note's bytes by vault-relative path (a VaultSource's `read`). */
export type ReadNote = (path: string) => Promise<Uint8Array>;

/** The core, or a getter for it: a host whose core can be replaced while a note is read (the
 *  plugin's worker rebuilds) passes the getter, so the second call goes to the current core. */
export type CoreRef = StrataCoreApi | (() => StrataCoreApi);

function coreOf(core: CoreRef): StrataCoreApi {
  return typeof core === "function" ? core() : core;
}

/** Reads `paths` (each once, in parallel); a note that cannot be read is null (the core then
 *  leaves it out: no snippet, its chunks dropped), never an error. */
export async function readNoteTexts(read: ReadNote, paths: Iterable<string>): Promise<NoteTexts> {
  const unique = [...new Set(paths)];
  const bytes = await Promise.all(unique.map((p) => read(p).then(asBytes, () => null)));
  const texts: NoteTexts = {};
  unique.forEach((p, i) => (texts[p] = bytes[i]));
  return texts;
}

/**
 * `core.search`, then the hits' snippets: the hit notes are read through `read` (the index does
 * not store note text) and `core.snippets` highlights the query's terms in them. Every host
 * that shows snippets searches through this (the plugin's worker, the CLI, the bridge);
 * `req.snippets === false` reads nothing. The response's `tookMs` includes the reads.
 */
export async function searchWithSnippets(core: CoreRef, read: ReadNote, req: SearchRequest): Promise<SearchResponse> {
  const t0 = performance.now();
  // The core's search never makes snippets (it holds no note text): they are added here.
  const res: SearchResponse = coreOf(core).search(req);
  if (req.snippets === false || res.hits.length === 0) return res;
  const texts = await readNoteTexts(
    read,
    res.hits.map((h) => h.path),
  );
  const snippets = coreOf(core).snippets({
    query: req.query,
    // Hybrid and semantic rank by the expansions too; lexical search ignores them.
    queries: res.mode === "lexical" ? undefined : req.queries,
    hits: res.hits.map((h) => ({ path: h.path, sectionId: h.sectionId })),
    texts,
  });
  res.hits.forEach((h, i) => (h.snippet = snippets[i] ?? null));
  res.tookMs = Math.max(res.tookMs, performance.now() - t0);
  return res;
}

/**
 * `core.read` with the note's current bytes, read through `read`: a note edited since it was
 * indexed is answered from its current text. A note that cannot be read is an error:
 * "[bad-request] not in the index: …" when the index does not hold it either, else
 * "[bad-request] cannot read …".
 */
export async function readNote(core: CoreRef, read: ReadNote, req: ReadRequest): Promise<ReadResult> {
  let bytes: Uint8Array;
  try {
    bytes = asBytes(await read(req.path));
  } catch (err) {
    if (!coreOf(core).note(req.path)) throw new Error(`[bad-request] not in the index: ${req.path}`);
    throw new Error(`[bad-request] cannot read ${req.path}: ${errorMessage(err)}`);
  }
  return coreOf(core).read({ ...req, bytes });
}
