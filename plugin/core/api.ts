// The contract between the TypeScript side (plugin, CLI, bridge) and the wasm core
// (crate/src/wasm.rs, class `StrataCore`). Every structured value crosses the boundary
// through serde-wasm-bindgen as a plain object with these camelCase fields.
//
// Data flows one way: vault files → StrataCore.update → (flush → index folder) and
// StrataCore.search/read → UI, CLI, bridge. The core never touches the file system: the
// caller lists and reads notes, and writes the files `flush()` returns, in order. The index
// does not store note text: where the core needs it (snippets, read, renames, embedding) the
// caller passes the notes' current bytes, and the core checks them against its content hash
// (the shared client's searchWithSnippets, readNote and embedAll do the reading).
//
// The types that cross the boundary are generated from the Rust types (./generated/api.ts,
// kept current by a test in crate/src/typescript.rs); this file re-exports them and adds what
// is not the core's: the client's snippet options and the wasm class's interface.

import type {
  EmbedBatch,
  EmbedProgress,
  FileStat,
  FlushOutput,
  Hit as CoreHit,
  ListRequest,
  ListResponse,
  ModelChoice,
  ModelConfig,
  NoteInfo,
  NoteTexts,
  OpenReport,
  Plan,
  ReadRequest,
  ReadResult,
  SearchRequest as CoreSearchRequest,
  SearchResponse as CoreSearchResponse,
  SimilarRequest,
  SimilarResponse,
  Snippet,
  SnippetRequest,
  Status,
  QueryRequest,
  QueryResponse,
  TasksRequest,
  TasksResponse,
  UpdateBatch,
  UpdateReport,
} from "./generated/api.ts";

export type {
  AccessInfo,
  CodeInfo,
  CoreConfig,
  DepthOrder,
  EmbedBatch,
  EmbedItem,
  EmbedProgress,
  FileStat,
  FlushOutput,
  FusionMethod,
  FusionWeights,
  IndexFile,
  Link,
  ListEntry,
  ListRequest,
  ListResponse,
  ListSort,
  ModelChoice,
  ModelConfig,
  ModelFile,
  ModelInfo,
  ModelSwitch,
  NoteInfo,
  NoteInput,
  NoteTexts,
  OpenReport,
  OpenTimings,
  Outline,
  OutlineHeading,
  OutlineLink,
  Plan,
  Pooling,
  Priority,
  PropertyFilter,
  QueryHit,
  QueryRequest,
  QueryResponse,
  ReadRequest,
  ReadResult,
  Rename,
  SearchFilters,
  SearchMode,
  SectionInfo,
  ShapeMode,
  SimilarHit,
  SimilarRequest,
  SimilarResponse,
  SimilarSection,
  Skip,
  Snippet,
  SnippetHit,
  SnippetRequest,
  Status,
  StatusKind,
  DateRange,
  TaskGroup,
  TaskGroupBy,
  TaskHit,
  TaskSort,
  TasksRequest,
  TasksResponse,
  TaskWhen,
  UpdateBatch,
  UpdateReport,
  Warning,
} from "./generated/api.ts";

/** A search as the shared client takes it: the core's request, and whether to attach snippets. */
export interface SearchRequest extends CoreSearchRequest {
  /** Highlighted snippets, default true. Read by the shared client's `searchWithSnippets`, which
   *  reads the hit notes and calls `snippets()`: the core's `search` never makes them (the index
   *  does not store note text). false: no note is read. */
  snippets?: boolean;
}

/** A search hit: the core's, with the snippet the shared client attaches. */
export interface Hit extends CoreHit {
  /** Attached by `searchWithSnippets` (from `snippets()`); absent in the core's own answer. */
  snippet?: Snippet | null;
}

/** A search's answer, its hits as the shared client returns them. Hybrid/semantic results are
 *  one hit per note (its best section). */
export interface SearchResponse extends Omit<CoreSearchResponse, "hits"> {
  hits: Hit[];
}

/** The wasm class, as wasm-bindgen exports it. */
export interface StrataCoreApi {
  openReport(): OpenReport;
  shouldIndex(path: string): boolean;
  plan(listing: FileStat[]): Plan;
  /** `plan` a part of the listing at a time (`first` starts a new plan; `delete` stays empty). */
  planChunk(listing: FileStat[], first: boolean): Plan;
  /** After the last `planChunk`: the notes no part listed (to delete). */
  planDeletes(): string[];
  update(batch: UpdateBatch): UpdateReport;
  /** Makes staged (commit: false) changes searchable. flush() commits too. */
  commit(): void;
  flush(): FlushOutput;
  /** Ranks; hits carry no snippet (see `snippets`). */
  search(req: SearchRequest): SearchResponse;
  /** A snippet (or null) per hit, in order: the hit section's best fragment with the query's
   *  terms highlighted, from the notes' bytes in `req.texts`. */
  snippets(req: SnippetRequest): (Snippet | null)[];
  /** `req.bytes`: the note's current bytes. */
  read(req: ReadRequest): ReadResult;
  note(path: string): NoteInfo | null;
  /** The texts the core embeds for an indexed note: its lead vector's (folders, title and
   *  the note's opening lines), then each leaf section's, from the note's bytes (the indexed
   *  version, else "[bad-request] …"). For benchmarks running another engine on them. */
  embedTexts(path: string, bytes: Uint8Array): string[];
  paths(): string[];
  status(): Status;
  /** Loads the model vectors are made with, from bytes (ONNX + tokenizer.json; they do not
   *  enter the core's memory). `config`: a known model id ("multilingual-e5-small"), a spec,
   *  or nothing (all-MiniLM-L6-v2). A model whose spec differs from the index's vectors
   *  starts a switch (`switching`): a new vector space fills in the background. */
  loadModel(model: Uint8Array, tokenizer: Uint8Array, config?: string | Partial<ModelConfig> | null): EmbedProgress;
  /** During a switch only, and only for the model switched from ("[bad-request] …" else):
   *  its vectors then keep answering queries until the new model has embedded everything. */
  loadPreviousModel(model: Uint8Array, tokenizer: Uint8Array, config: string | Partial<ModelConfig>): EmbedProgress;
  /** The model for a setting, "auto" or a model id (an unknown one throws "[bad-request] …").
   *  auto reads the indexed notes' scripts: call it after indexing. */
  chooseModel(setting: string): ModelChoice;
  /** Takes up to maxChunks pending chunks (recent notes first) for the next embedStep and
   *  returns the paths of the notes whose bytes it needs. */
  embedNeeds(maxChunks: number): string[];
  /** Embeds the chunks embedNeeds took (without that call, up to maxChunks pending ones) from
   *  `texts`, the needed notes' bytes; a chunk whose note is missing there or changed since it
   *  was indexed is dropped (`dropped`). Call in a loop (`embedAll`); cancel by not calling
   *  again. Vectors persist with flush(). */
  embedStep(maxChunks: number, texts: NoteTexts): EmbedProgress;
  /** embedStep's first half, for vectors made elsewhere (embedder workers): hands out the chunks
   *  embedNeeds took (at most maxChunks) with their keys and exact passage texts (the worker's
   *  embedder adds the model's passage prefix). They stay in flight (pending in the progress,
   *  never handed out twice) until embedPut or embedRelease. */
  embedTake(maxChunks: number, texts: NoteTexts): EmbedBatch;
  /** Stores vectors for chunks embedTake handed out: keys[i] gets vectors[i·dim … (i+1)·dim),
   *  made with `model` (another model, a wrong length or a value that is not finite throws
   *  "[bad-request] …"). Keys not in flight (unknown, released, stored already) are skipped and
   *  counted in `dropped`; `embedded` counts the vectors stored. Vectors persist with flush(). */
  embedPut(model: string, keys: string[], vectors: Float32Array): EmbedProgress;
  /** Returns the chunks in flight to the queue (a cancelled or failed run of the workers). */
  embedRelease(): EmbedProgress;
  embedProgress(): EmbedProgress;
  /** Moves notes to the front of the embedding queue (opened/edited notes). */
  prioritize(paths: string[]): void;
  similar(req: SimilarRequest): SimilarResponse;
  /** Notes by folder/tag/property, with their usage. */
  list(req: ListRequest): ListResponse;
  /** Tasks of the indexed notes by status, place, tag, text, note properties, dates and
   *  priority; sorted, grouped and counted. Bad filters throw "[bad-request] …". */
  tasks(req: TasksRequest): TasksResponse;
  /** Notes whose properties match an expression (`status = draft AND file.mtime >= today-7d`),
   *  sorted and paged; a bad expression throws "[bad-request] …" naming its position. */
  query(req: QueryRequest): QueryResponse;
  /** Decodes the most common note properties into the columns query()/tasks() read, so the
   *  first property query after an open is fast: for a host to call when idle after opening,
   *  never on the way to the first search. Returns how many property columns it built. */
  warmQueries(): number;
  /** Counts a retrieval of these notes (usage count, last access) in the catalog, not in
   *  the notes. Persisted by the next flush(). `now` in ms since epoch. Returns how many
   *  of the paths were indexed notes. */
  recordAccess(paths: string[], now: number): number;
  free(): void;
}
// Constructors: `StrataCore.create(config)` (empty index) and
// `StrataCore.open(config, files: IndexFile[])` (never throws on a bad index: it starts
// fresh and says why in openReport()). Errors from other methods are thrown as JS Error
// whose message starts with a code in brackets: "[bad-request] ...", "[unavailable] ...".
