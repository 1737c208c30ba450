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

export interface CoreConfig {
  /** Obsidian's config folder, excluded from indexing. Default ".obsidian". */
  configDir?: string;
  /** Extensions that are indexed (without dot). Default ["md"]. */
  extensions?: string[];
  /** Vault-relative folders that are excluded (prefix match on whole segments). */
  excludeFolders?: string[];
  /** Section split budget in estimated tokens. Default 512. */
  chunkBudget?: number;
  /** Minimum estimated tokens for a section to stand alone. Default 100. */
  chunkMin?: number;
  /** Notes larger than this are skipped with a warning. Default 8 MB. */
  maxNoteBytes?: number;
}

/** One file of the index folder: `name` is relative to the index folder ("lex/abc.idx"). */
export interface IndexFile {
  name: string;
  bytes: Uint8Array;
}

export interface OpenReport {
  /** True when there was no index: the caller must index the whole vault. */
  fresh: boolean;
  /** True when an index existed but was corrupt/partial/foreign-version and was discarded. */
  rebuilt: boolean;
  /** Human-readable reason when rebuilt. */
  reason?: string;
  generation: number;
  notes: number;
  /** Files in the index folder that no manifest references (leftovers of a crash, sync
   *  conflict copies): the caller may delete them. */
  orphans: string[];
  /** Where opening the persisted index spent its time (ms); zeros for a fresh index. */
  timings: { verifyMs: number; lexicalMs: number; catalogMs: number; vectorsMs: number; totalMs: number };
}

export interface FileStat {
  path: string; // vault-relative, "/" separated
  size: number; // bytes
  mtime: number; // ms since epoch
}

export interface Skip {
  path: string;
  reason: string;
}

export interface Plan {
  /** Paths whose content must be read and passed to update(). */
  read: string[];
  /** Paths in the index that are no longer in the listing. */
  delete: string[];
  /** Listed paths whose size and mtime match the catalog. */
  unchanged: number;
  /** Listed paths that are not indexed (excluded, wrong extension, too large, hostile path). */
  skipped: Skip[];
}

export interface NoteInput {
  path: string;
  bytes: Uint8Array; // raw file bytes; the core decodes UTF-8 lossily
  mtime: number;
}

/** Current bytes of notes by path, read by the caller (null: the note could not be read). */
export type NoteTexts = Record<string, Uint8Array | null>;

export interface Rename {
  from: string;
  to: string;
  /** The note's current bytes, read at `to` (the index does not store note text). The same
   *  content as indexed: a move (no section re-embedded); other content: `from` is deleted and
   *  `to` indexed from these bytes. Without them the rename is skipped (a reason in `skipped`);
   *  into an excluded folder they are not needed (the note leaves the index). */
  bytes?: Uint8Array;
  /** Modification time at `to` (default: the indexed one). */
  mtime?: number;
}

export interface UpdateBatch {
  upserts?: NoteInput[];
  deletes?: string[];
  renames?: Rename[];
  /** Make the batch searchable now (default true). A bulk index passes false for all but the
   *  last batch (or calls commit()/flush() at the end), so the batches share one segment. */
  commit?: boolean;
}

export interface Warning {
  path: string;
  message: string;
}

export interface UpdateReport {
  added: number;
  updated: number;
  unchanged: number; // same content hash: nothing re-indexed
  moved: number; // same content at a new path (rename): no section re-embedded
  deleted: number;
  skipped: Skip[];
  warnings: Warning[];
  sections: number; // sections written to the lexical index
  tookMs: number;
}

export interface FlushOutput {
  /** Write these in order; the last one is the manifest and must be written last. */
  writes: IndexFile[];
  /** Delete these only after every write succeeded. */
  deletes: string[];
  bytesWritten: number;
}

export interface SearchFilters {
  folder?: string; // folder prefix, e.g. "Plugins" or "Plugins/Core"
  tag?: string; // with or without "#", nested tags match their children: "a" matches "a/b"
  property?: { key: string; value: string }; // frontmatter property equals value
  minDepth?: number; // 0 = whole note, 1..3 = heading levels
  maxDepth?: number;
}

export type SearchMode = "lexical" | "semantic" | "hybrid";

export interface SearchRequest {
  query: string;
  mode?: SearchMode; // default "hybrid" (answers lexically, with a notice, while no model is loaded)
  k?: number; // default 10, max 200
  filters?: SearchFilters;
  /** Tie-break/sort preference: "relevance" (default), "shallow" (overview first), "deep". */
  depthOrder?: "relevance" | "shallow" | "deep";
  /** Highlighted snippets, default true. Read by the shared client's `searchWithSnippets`, which
   *  reads the hit notes and calls `snippets()`: the core's `search` never makes them (the index
   *  does not store note text). false: no note is read. */
  snippets?: boolean;
  /** Further query strings (a model's expansions), fused by RRF with `query`
   *  (original weight 2, expansions 1). Hybrid and semantic modes. */
  queries?: string[];
  /** Fusion method for hybrid mode. Default "rrf". */
  fusion?: "rrf" | "linear";
}

export interface Snippet {
  text: string;
  /** [start, end) offsets into `text`, in JavaScript string (UTF-16) units. */
  highlights: [number, number][];
}

export interface Hit {
  sectionId: string;
  parentId: string | null;
  path: string;
  title: string;
  headingPath: string; // "Search Pipeline > Stage 5: RRF", "" for the whole note
  depth: number;
  startLine: number; // 1-based, inclusive
  endLine: number;
  /** The ranking score (= finalScore). */
  score: number;
  finalScore: number;
  /** Raw BM25 of the note's best lexical section (0 when only vectors found it). */
  lexScore: number;
  /** BM25 / the query's best BM25. */
  lexNorm: number;
  /** Cosine similarity of the best vector match (0 in lexical mode). */
  vecScore: number;
  vecNorm: number;
  /** Fused score before note-level aggregation (0 in lexical mode). */
  rrfScore: number;
  /** How the score was made (for the score breakdown on hover). */
  explain: string;
  /** Attached by `searchWithSnippets` (from `snippets()`); absent in the core's own answer. */
  snippet?: Snippet | null;
  /** The folder context inherited by this note: the `context` frontmatter property of the
   *  folder notes above it ("Projects/Projects.md" or "Projects.md" for "Projects/"), nearest
   *  first, joined by "\n". Null when none. */
  context?: string | null;
}

export interface FusionWeights {
  lex: number;
  vec: number;
  reason: string;
  method: "rrf" | "linear";
}

export interface SearchResponse {
  hits: Hit[];
  /** The mode that answered: hybrid answers "lexical" while no model is loaded. */
  mode: SearchMode;
  tookMs: number;
  /** The best lexical hit is clearly ahead: clients may skip query expansion. */
  strongSignal: boolean;
  weights: FusionWeights | null;
  /** Something to tell the user (no model: how to enable semantic search; embedding
   *  still in progress). */
  notice: string | null;
  /** Share of sections embedded so far (hybrid/semantic). */
  semanticCoverage: number | null;
}

/** Hybrid/semantic results are one hit per note (its best section). */

/** Snippets for search hits (`snippets()`), from the hit notes' current bytes. */
export interface SnippetRequest {
  /** The search's query (its terms are highlighted) and expansions (when `query` is empty,
   *  the first of them is, as hybrid and semantic search rank by it). */
  query: string;
  queries?: string[];
  hits: { path: string; sectionId: string }[];
  /** The hit notes' bytes; a hit whose note is absent or null here gets a null snippet. */
  texts: NoteTexts;
}

export interface ModelConfig {
  model_id: string;
  dimension: number;
  max_tokens: number;
  pooling: "mean" | "cls";
  query_prefix: string;
  passage_prefix: string;
  batch_size: number;
  /** Trained on many languages (an English-only model gives CJK queries little weight in fusion). */
  multilingual: boolean;
  normalize: boolean;
  shape_mode: "symbolic" | "concrete";
  max_plans: number;
}

export interface EmbedProgress {
  /** Texts with a vector: leaf sections and note titles ("folders > title"; a rename
   *  re-embeds only that title text, never a section). */
  done: number;
  total: number;
  /** Embedded by this call. */
  embedded: number;
  /** Taken off the queue by this call without being embedded: the note's text was not passed to
   *  embedStep, or changed since the note was indexed (its next update queues them again). */
  dropped: number;
  /** Chunks per second in this session. */
  rate: number;
  etaSeconds: number | null;
  model: string | null;
  modelLoaded: boolean;
  /** A model switch under way (see ModelSwitch). */
  switching?: ModelSwitch;
}

/**
 * A model switch under way: `to` (the model loaded last) embeds everything again in a new
 * vector space while the vectors of `from` keep answering queries — when the host loaded
 * `from` too (`loadPreviousModel`; `fromLoaded`). When `to` has embedded everything the old
 * space is dropped: `switching` disappears and the next persist deletes its files.
 */
export interface ModelSwitch {
  from: string;
  to: string;
  fromLoaded: boolean;
}

/** The embedding model a setting ("auto" or a model id) chooses for the vault (`chooseModel`). */
export interface ModelChoice {
  /** The model to load. */
  model: string;
  /** The setting it comes from. */
  setting: string;
  /** Share of the vault's text not in Latin script (CJK characters count three). */
  nonLatinShare: number;
  /** Why, in words ("auto: 47% of the vault's text is not in Latin script"). */
  reason: string;
}

export interface SimilarRequest {
  path?: string;
  sectionId?: string;
  k?: number;
}

export interface SimilarHit {
  path: string;
  title: string;
  score: number;
  sections: { sectionId: string; headingPath: string; startLine: number; endLine: number; score: number }[];
}

export interface SimilarResponse {
  source: string;
  hits: SimilarHit[];
  tookMs: number;
}

export interface ReadRequest {
  path: string;
  sectionId?: string;
  heading?: string; // heading text or heading path ("A > B")
  startLine?: number;
  maxLines?: number;
  maxChars?: number;
  parent?: boolean; // widen to the parent section
  whole?: boolean; // widen to the whole note
  /** The note's current bytes (required: the index does not store note text; the shared
   *  client's `readNote` reads them). A note edited since it was indexed is answered from these
   *  bytes' own sections (a section id names the section with the same heading path), so lines
   *  and `contentHash` are the note's as it is now. */
  bytes?: Uint8Array;
}

export interface ReadResult {
  path: string;
  title: string;
  contentHash: string;
  sectionId: string | null;
  headingPath: string;
  startLine: number;
  endLine: number;
  text: string;
  truncated: boolean;
}

export interface SectionInfo {
  id: string;
  parentId: string | null;
  order: number;
  depth: number;
  headingPath: string;
  startLine: number;
  endLine: number;
  tokens: number;
  hash: string;
}

export interface NoteInfo {
  path: string;
  hash: string;
  size: number;
  mtime: number;
  title: string;
  aliases: string[];
  tags: string[];
  links: { target: string; heading?: string; alias?: string; embed: boolean }[];
  frontmatter: Record<string, unknown>;
  sections: SectionInfo[];
}

export interface Status {
  vectors: number;
  model: string | null;
  modelLoaded: boolean;
  /** A model switch under way (the old model's vectors answer queries meanwhile). */
  switching?: ModelSwitch;
  notes: number;
  sections: number;
  segments: number;
  deletedDocs: number;
  indexBytes: number;
  generation: number;
  formatVersion: number;
}

export interface ListRequest {
  folder?: string; // folder prefix on whole segments
  tag?: string; // nested tags match their children
  property?: { key: string; value: string };
  /** "path" (default) or "mtime" (newest first). */
  sort?: "path" | "mtime";
  offset?: number;
  limit?: number; // default 100, max 1000
}

export interface AccessInfo {
  /** Times the note was returned by a retrieval that called recordAccess(). */
  count: number;
  /** ms since epoch of the last such retrieval. */
  last: number;
}

export interface ListEntry {
  path: string;
  title: string;
  tags: string[];
  mtime: number;
  size: number;
  frontmatter: Record<string, unknown>;
  access: AccessInfo | null;
  context: string | null;
}

export interface ListResponse {
  /** Notes matching the filters (before offset/limit). */
  total: number;
  entries: ListEntry[];
}

/** A model the core knows by id (`StrataCore.models()`, crate/src/embed/models.rs). */
export interface ModelInfo {
  /** The id for loadModel/chooseModel, and the name of its folder (`models/<id>/`). */
  id: string;
  /** The model loaded when nothing else is asked for (exactly one). */
  default: boolean;
  dimension: number;
  maxTokens: number;
  pooling: "mean" | "cls";
  queryPrefix: string;
  passagePrefix: string;
  multilingual: boolean;
  /** The languages it serves, in words. */
  languages: string;
  description: string;
  /** SPDX identifier. */
  license: string;
  /** Where the repository's script takes its files from. */
  source: string;
  /** The repository's script that puts its files in `models/<id>/`. */
  fetchScript: string;
  files: { name: string; what: string }[];
}

/** A note's outline (`StrataCore.outline(bytes)`, crate/src/outline.rs): the parse indexing and
 *  `read` use. Lines are 1-based and inclusive. */
export interface Outline {
  /** Lines of the note (a final line break does not open another line). */
  lineCount: number;
  /** The line of the frontmatter's closing fence; null without frontmatter. */
  frontmatterEnd: number | null;
  /** The first line after the frontmatter (1 without). */
  bodyStartLine: number;
  /** Headings in document order (none in code blocks or frontmatter). */
  headings: OutlineHeading[];
}

export interface OutlineHeading {
  /** 1..6 (a setext heading: 1 with ===, 2 with ---). */
  level: number;
  /** As rendered: markup and closing #s removed, trimmed. */
  text: string;
  line: number;
  /** Last line of its section, subsections included. */
  endLine: number;
  /** Heading texts from the top level down to this one. */
  path: string[];
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
  embedProgress(): EmbedProgress;
  /** Moves notes to the front of the embedding queue (opened/edited notes). */
  prioritize(paths: string[]): void;
  similar(req: SimilarRequest): SimilarResponse;
  /** Notes by folder/tag/property, with their usage. */
  list(req: ListRequest): ListResponse;
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
