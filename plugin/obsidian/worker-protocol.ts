// The typed protocol between the UI thread (plugin) and the search worker (worker-server.ts).
// WorkerApi: what the UI thread asks of the worker. HostApi: the file I/O the worker asks of
// the UI thread (the index folder and the notes, through app.vault's adapter).

import type {
  AddVectorsReport,
  CodePassProgress,
  CoreConfig,
  EmbedProgress,
  FileStat,
  ModelInfo,
  NoteInfo,
  OpenReport,
  Outline,
  ReadRequest,
  ReadResult,
  SearchRequest,
  SearchResponse,
  Status,
  UpdateReport,
} from "../core/api.ts";
import type { CoreReadFns } from "../core/core-reads.ts";
import type { EmbedderBuild, RelaxedEmbedderFile } from "../core/embedding/builds.ts";
import type { ReconcileProgress, ReconcileSummary } from "../core/reconcile.ts";
import type { ModelLoad } from "../core/models.ts";

export interface OpenResult extends OpenReport {
  /** Orphans (crash leftovers, sync-conflict copies) deleted from the index folder. */
  removedOrphans: string[];
  tookMs: number;
  /** Reading the index files through the UI thread (wall, overlapping the wasm's compile). */
  readMs?: number;
}

/** Vault changes collected from events (debounced): the worker reads `changed`, and each
 *  renamed note at its new path, through the host. */
export interface ChangeSet {
  changed: FileStat[];
  deleted: string[];
  /** `mtime`, `ctime`: the note's at `to`, when the event carried them. */
  renames: { from: string; to: string; mtime?: number; ctime?: number }[];
}

export interface ApplyResult extends UpdateReport {
  /** Notes read through the host for this change set (upserts and renamed notes). */
  read: number;
}

export interface WorkerCounters {
  /** Chunks embedded by this worker since it started (all runs). */
  embedded: number;
  /** Notes passed to core.update() as upserts (reconcile + events). */
  notesRead: number;
  /** Renamed notes read at their new path for the core's content check (events). */
  renamesRead: number;
  /** Notes the reconcile re-indexed (added + updated). */
  reindexed: number;
  /** Persists and bytes written since start. */
  persists: number;
  bytesWritten: number;
  /** Property columns built for the queries after a reconcile (core.warmQueries()). */
  queryColumnsWarmed: number;
}

export interface WorkerState {
  phase: "starting" | "opening" | "reconciling" | "idle" | "closed";
  reconcile: ReconcileProgress | null;
  embedding: EmbedProgress | null;
  embeddingActive: boolean;
  /** The code pass: code files left in line windows until their definitions are indexed. */
  codePass?: CodePassProgress | null;
  /** Embedder workers of the last embedding run (0: the core's own embedder), restarts, and the embedder build loaded. */
  embedWorkers: { workers: number; restarts: number; fallback: string | null; build: EmbedderBuild | null };
  pendingNotes: number;
  lastUpdate: number | null;
  counters: WorkerCounters;
  /** The wasm memories in this worker (bytes): the search core's, and the embedder's once a model loaded (0 before). */
  memory?: { coreWasm: number; embedderWasm: number };
}

/** What the UI thread asks of the worker: the core's reads (core-reads.ts: similar, list, tasks,
 *  query), each served as the core answers it, and the worker's own methods below. */
export type WorkerApi = CoreReadFns & WorkerMethods;

type WorkerMethods = {
  /** Instantiates the wasm core: its bytes, or its base64 (main.js's inlined copy), or
   *  neither when the worker has a loader of its own. */
  init(arg: { wasm?: ArrayBuffer | Uint8Array; wasmBase64?: string }): { ms: number; models: ModelInfo[] };
  /** Opens the persisted index (the fast path); a bad index starts fresh and says why. */
  open(arg: { config: CoreConfig }): OpenResult;
  /** Brings the index up to date with the vault, in batches; persists at the end. */
  reconcile(arg: { batchNotes?: number }): ReconcileSummary;
  /** Applies debounced vault events (a rename is a move). Searchable when it resolves. */
  apply(arg: ChangeSet): ApplyResult;
  /** Writes the index now (staged deltas). Returns bytes written. */
  persist(arg: Record<string, never>): number;
  /** Deletes this device's index files and indexes the vault again (the shared vectors stay). */
  rebuild(arg: { config: CoreConfig }): ReconcileSummary;
  /** Deletes this device's index files and leaves an index with the shared vectors only (until
   *  the next reconcile). */
  clear(arg: { config: CoreConfig }): void;
  /** Adds the vectors other devices wrote into the index folder since the last look. */
  syncVectors(arg: Record<string, never>): AddVectorsReport;
  /** Loads the embedding model `setting` chooses for the indexed vault, from `modelsDir`/<id>/
   *  (read through the host), and during a switch the model switched from too. */
  loadModel(arg: { setting: string; modelsDir: string }): ModelLoad;
  /** Turns background embedding on (runs whenever chunks lack vectors) or off. */
  /** `workers`: embedder workers (0: the core's own embedder); see worker-embedding.ts. */
  setEmbedding(arg: { enabled: boolean; maxChunks?: number; workers?: number }): EmbedProgress | null;
  /** Resolves when the embedding queue is empty or embedding is off (for tests, the bench). */
  embedIdle(arg: Record<string, never>): EmbedProgress | null;
  search(arg: SearchRequest): SearchResponse;
  read(arg: ReadRequest): ReadResult;
  note(arg: { path: string }): NoteInfo | null;
  /** A note's outline from the core's Markdown parse (StrataCore.outline). */
  outline(arg: { bytes: Uint8Array }): Outline;
  recordAccess(arg: { paths: string[] }): void;
  prioritize(arg: { paths: string[] }): void;
  status(arg: Record<string, never>): Status;
  state(arg: Record<string, never>): WorkerState;
  /** Stops embedding, persists, frees the core. */
  close(arg: Record<string, never>): void;
};

export type HostApi = {
  /** Index folder (names relative to it). */
  indexList(arg: { prefix?: string }): string[];
  indexRead(arg: { name: string }): ArrayBuffer;
  indexWrite(arg: { name: string; bytes: Uint8Array }): void;
  indexDelete(arg: { name: string }): void;
  /** The vault's files with an indexed extension (the worker filters with shouldIndex). */
  vaultList(arg: Record<string, never>): FileStat[];
  vaultRead(arg: { path: string }): ArrayBuffer;
  /** The embedder's wasm (gzip + base64), asked for when a model is loaded: it stays out of
   *  the worker's own script, which parses faster without it. */
  embedderWasm(arg: Record<string, never>): string;
  /** The relaxed-SIMD embedder build the plugin installed (with its table's SHA-256), or null:
   *  asked for with embedderWasm, used where it checks out (core/embedding/builds.ts). */
  relaxedEmbedder(arg: Record<string, never>): RelaxedEmbedderFile | null;
  /** The code chunker's wasm (gzip + base64), asked for when code files are to be indexed. */
  codeWasm(arg: Record<string, never>): string;
  /** A model's two files from the plugin folder (`<modelsDir>/<id>/`), null when absent. */
  modelFiles(arg: { modelsDir: string; id: string }): { model: ArrayBuffer; tokenizer: ArrayBuffer } | null;
};

/** Events the worker emits. */
export interface WorkerEvents {
  reconcile: ReconcileProgress;
  embed: EmbedProgress;
  /** An error the user may need to know about (persist failed, embedding stopped). */
  error: { message: string; where: string };
}

/** Loads the wasm bytes where the worker has them itself (tests read build/wasm; main.js posts its base64 with init). */
export type WasmLoader = () => Promise<ArrayBuffer | Uint8Array> | ArrayBuffer | Uint8Array;

/** The core's, the embedder's and the code chunker's wasm. The embedder (4× the core) is loaded
 *  with a model only, the code chunker when code files are to be indexed; without a loader for
 *  them, the server asks the UI thread (HostApi.embedderWasm, HostApi.codeWasm). */
export interface WasmLoaders {
  core: WasmLoader;
  embedder?: WasmLoader;
  code?: WasmLoader;
}
