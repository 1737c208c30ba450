// Generated from the Rust types of crate/src (api.rs and the types it uses) by
// crate/src/typescript.rs: do not edit. Rewrite it with
//   STRATA_WRITE_TYPES=1 cargo test -p strata-core --no-default-features typescript
// plugin/core/api.ts re-exports these with what cannot be generated (the wasm class).

/** Current bytes of notes by path, read by the caller (null: the note could not be read). */
export type NoteTexts = Record<string, Uint8Array | null>;

export type CoreConfig = { 
/**
 * Obsidian's config folder (excluded from indexing).
 */
configDir?: string, 
/**
 * Indexed file extensions, without the dot.
 */
extensions?: Array<string>, 
/**
 * Vault-relative folders excluded from indexing.
 */
excludeFolders?: Array<string>, 
/**
 * Split a section while it exceeds this many estimated tokens.
 */
chunkBudget?: number, 
/**
 * Sections smaller than this are merged into a neighbour.
 */
chunkMin?: number, 
/**
 * Notes larger than this are skipped with a warning (never read whole into the index).
 */
maxNoteBytes?: number, 
/**
 * Index source files (Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, JSON, YAML)
 * as definitions ([`crate::code_sections`]).
 */
codeEnabled?: boolean, 
/**
 * Extensions indexed as code when `code_enabled` (without the dot).
 */
codeExtensions?: Array<string>, 
/**
 * Folders whose code files are skipped (any segment of the path: `node_modules`
 * anywhere). Notes inside them are still indexed.
 */
codeExcludeFolders?: Array<string>, 
/**
 * Code files larger than this are skipped with a warning.
 */
maxCodeBytes?: number, 
/**
 * Chunk code by its syntax (tree-sitter); `false`: each code file is one section (the
 * baseline that `strata eval` compares with).
 */
codeSyntax?: boolean, 
/**
 * This device's id (`layout`): it names the device's own folder of the index, where only
 * it writes. Random, kept per device outside synced settings; not part of the fingerprint.
 */
deviceId?: string, };

export type IndexFile = { name: string, bytes: Uint8Array, };

export type OpenReport = { fresh: boolean, rebuilt: boolean, 
/**
 * Why the index was rebuilt (absent otherwise).
 */
reason?: string, generation: number, notes: number, orphans: Array<string>, 
/**
 * Where the open spent its time (ms), for the bench and the status view.
 */
timings: OpenTimings, 
/**
 * Vectors added from the shared segments (`layout`), whichever device embedded them.
 */
sharedVectors: number, 
/**
 * Files that cannot be used yet and are left alone, each with the reason (a vector
 * segment still arriving, or damaged).
 */
ignored: Array<string>, 
/**
 * A newer version of Strata (this format version) indexed the vault on this device too:
 * its folder is left alone; update Strata.
 */
newerFormat?: number, };

export type OpenTimings = { 
/**
 * Manifest choice and the checksum of every file.
 */
verifyMs: number, lexicalMs: number, catalogMs: number, vectorsMs: number, totalMs: number, };

/**
 * The files a device reads at open, and those it deletes, from a listing of the folder.
 */
export type OpenPlan = { 
/**
 * Its own folder's files, the spec files of the shared vectors, and, when it has no index
 * of its own yet, the shared vector segments (to choose the model with the most vectors)
 * and the single-device layout's manifests and vector files (to adopt their vectors).
 */
read: Array<string>, 
/**
 * The shared vector segments, when the device has an index of its own: not read for the
 * open. After it, the host reads those of the device's models only
 * (`Engine::wanted_vector_files` with these names, then `Engine::add_vectors`): a device
 * never holds the vectors of a model it does not use.
 */
vectors: Array<string>, 
/**
 * The files to delete at open: those Strata wrote in its own folders of older format
 * versions (it cannot read them), and the temporary files of writes a hard kill interrupted
 * in its own folder.
 */
obsolete: Array<string>, 
/**
 * The files Strata wrote in its own folder of this version but its manifests: what deleting
 * its index removes. The manifests stay, for they list the shared segments this device wrote
 * (only it may merge and delete them); the open after that keeps the list and starts a fresh
 * index, whose flushes overwrite them.
 */
own: Array<string>, 
/**
 * A newer format version of Strata indexed the vault on this device: the highest.
 */
newerFormat?: number, };

/**
 * What [`crate::engine::Engine::add_vectors`] did.
 */
export type AddVectorsReport = { 
/**
 * Vectors added (texts no vector of this device's had yet).
 */
added: number, 
/**
 * Segments that cannot be used yet, each with the reason (left alone).
 */
ignored: Array<string>, 
/**
 * Vectors of the active model now.
 */
vectors: number, };

export type FileStat = { path: string, size: number, mtime: number, 
/**
 * The file's creation time (ms since the epoch), when the host knows it: not used by the
 * plan, passed on with the note's bytes (`NoteInput::ctime`).
 */
ctime?: number, };

export type Skip = { path: string, reason: string, };

export type Plan = { read: Array<string>, delete: Array<string>, unchanged: number, skipped: Array<Skip>, };

export type NoteInput = { path: string, bytes: Uint8Array, mtime?: number, 
/**
 * The file's creation time (ms since the epoch), when the host knows it (`file.ctime` of
 * the property expressions). None keeps the one indexed for the path, if any.
 */
ctime?: number, };

export type Rename = { from: string, to: string, 
/**
 * The note's current bytes, read by the host at `to` (the index does not store note
 * text). Their SHA-256 equal to the indexed note's: a move (nothing re-embedded);
 * otherwise `from` is deleted and `to` indexed from these bytes. Without them the
 * rename is skipped, with the reason in the report.
 */
bytes?: Uint8Array, 
/**
 * The note's modification time at `to` (default: the indexed one).
 */
mtime?: number, 
/**
 * The note's creation time at `to` (default: the indexed one).
 */
ctime?: number, };

export type UpdateBatch = { upserts?: Array<NoteInput>, deletes?: Array<string>, renames?: Array<Rename>, 
/**
 * Make the batch searchable now (default). A bulk index passes false for all but
 * the last batch, so the batches share one segment.
 */
commit?: boolean, 
/**
 * A bulk index: a code file without definitions in the index yet is indexed in line
 * windows (plain-text speed), its definitions left to the background pass
 * (`codePassStep`); a file with definitions is chunked at once either way.
 */
deferCode?: boolean, };

export type Warning = { path: string, message: string, };

export type UpdateReport = { added: number, updated: number, unchanged: number, moved: number, deleted: number, skipped: Array<Skip>, warnings: Array<Warning>, sections: number, tookMs: number, 
/**
 * Notes whose large fenced code blocks stayed whole because the code chunker was not
 * loaded: the host loads it and passes these notes again (their blocks are then chunked).
 */
codeChunkerNeeded?: Array<string>, };

/**
 * What the code pass has done and has left (`codePassStep`, `codePassProgress`).
 */
export type CodePassProgress = { 
/**
 * Code files still in line windows that the pass will chunk in this session.
 */
left: number, 
/**
 * Files given their definitions by this call.
 */
defined: number, 
/**
 * Files this call took without chunking them: their text was not supplied, or changed since
 * the file was indexed (its next update indexes it again).
 */
dropped: number, 
/**
 * Files given their definitions in this session.
 */
done: number, 
/**
 * What the chunker said about the files of this call (syntax errors, files not parsed).
 */
warnings?: Array<Warning>, };

export type FlushOutput = { writes: Array<IndexFile>, deletes: Array<string>, bytesWritten: number, };

export type PropertyFilter = { key: string, value: string, };

export type SearchFilters = { folder?: string, tag?: string, property?: PropertyFilter, minDepth?: number, maxDepth?: number, 
/**
 * Code languages, comma-separated ("python,go", "py"); also `lang:python` in the query.
 */
lang?: string, 
/**
 * Code chunk kinds, comma-separated ("function,method"). Also `kind:class` in the query.
 */
kind?: string, 
/**
 * A property expression the hit's note must match (the language of `query`:
 * `status = draft AND file.mtime >= today-7d`).
 */
where?: string, 
/**
 * For `where`'s relative dates: the host's date (`YYYY-MM-DD`), now (ms since the epoch)
 * and offset from UTC in minutes, as in `QueryRequest`.
 */
today?: string, now?: number, utcOffsetMinutes?: number, };

/**
 * What a code section is: a definition's language, kind, name and signature.
 */
export type CodeInfo = { 
/**
 * "python", "typescript", "rust", …
 */
lang: string, 
/**
 * "function", "method", "class", "interface", "type", "enum", "constant", "impl", "key",
 * "module" or "lines".
 */
kind: string, name: string, signature: string, 
/**
 * The section's lines hold a syntax error (indexed as plain lines there).
 */
syntaxErrors: boolean, };

export type SearchMode = "lexical" | "semantic" | "hybrid";

export type DepthOrder = "relevance" | "shallow" | "deep";

export type FusionMethod = "rrf" | "linear";

export type SearchRequest = { query: string, mode?: SearchMode, k?: number, filters?: SearchFilters, depthOrder?: DepthOrder, 
/**
 * Further query strings (a model's expansions), fused by RRF with the original
 * (`query`, weight 2; expansions weight 1). Hybrid and semantic modes.
 */
queries?: Array<string>, 
/**
 * Fusion method for hybrid mode (default RRF).
 */
fusion?: FusionMethod, };

export type Snippet = { text: string, 
/**
 * [start, end) in UTF-16 code units of `text`.
 */
highlights: Array<[number, number]>, };

export type Hit = { sectionId: string, parentId: string | null, path: string, title: string, headingPath: string, depth: number, startLine: number, endLine: number, 
/**
 * The ranking score (equal to `finalScore`).
 */
score: number, finalScore: number, 
/**
 * Raw BM25 of the note's best lexical section (0 when only the vector side found it).
 */
lexScore: number, 
/**
 * BM25 divided by the query's best BM25.
 */
lexNorm: number, 
/**
 * Cosine similarity of the best vector match (0 in lexical mode).
 */
vecScore: number, vecNorm: number, 
/**
 * The fused score before note-level aggregation (0 in lexical mode).
 */
rrfScore: number, 
/**
 * How the score was made, for the score breakdown on hover.
 */
explain: string, 
/**
 * The folder context the note inherits (see [`crate::engine::Engine::folder_context`]).
 */
context: string | null, 
/**
 * A code section's definition (absent for notes).
 */
code?: CodeInfo, 
/**
 * A weaker match (hybrid mode): its best section holds little of the query's words, or none,
 * and its vector score is near the query's background similarity (`fusion::is_weak`).
 * Listed after the matches.
 */
weak?: boolean, 
/**
 * The note's languages as the catalog records them ("de"; "en de" for a note in two;
 * absent when none was detected: a source file, a note too short to tell).
 */
lang?: string, };

export type FusionWeights = { lex: number, vec: number, reason: string, method: FusionMethod, };

export type SearchResponse = { hits: Array<Hit>, 
/**
 * The mode that answered (hybrid falls back to lexical without a model).
 */
mode: SearchMode, tookMs: number, 
/**
 * The best lexical hit is clearly ahead: query expansion can be skipped.
 */
strongSignal: boolean, weights: FusionWeights | null, 
/**
 * Something the user should know (no model; embedding still in progress).
 */
notice: string | null, 
/**
 * Share of sections embedded so far (hybrid and semantic modes).
 */
semanticCoverage: number | null, };

/**
 * A hit to make a snippet for: a search hit (its other fields are ignored).
 */
export type SnippetHit = { path: string, sectionId: string, };

/**
 * Snippets for search hits, from the notes' current bytes (`Engine::snippets`).
 */
export type SnippetRequest = { 
/**
 * The search's query: its terms are highlighted.
 */
query: string, 
/**
 * The search's further query strings: when `query` is empty the first of them is
 * highlighted, as hybrid and semantic search rank by it first.
 */
queries?: Array<string>, hits: Array<SnippetHit>, 
/**
 * The hit notes' bytes; a hit whose note is missing here gets no snippet.
 */
texts: NoteTexts, };

export type SimilarRequest = { path?: string, sectionId?: string, k?: number, };

export type SimilarSection = { sectionId: string, headingPath: string, startLine: number, endLine: number, score: number, };

export type SimilarHit = { path: string, title: string, score: number, sections: Array<SimilarSection>, };

export type SimilarResponse = { source: string, hits: Array<SimilarHit>, tookMs: number, };

export type ReadRequest = { path: string, sectionId?: string, heading?: string, startLine?: number, maxLines?: number, maxChars?: number, parent?: boolean, whole?: boolean, 
/**
 * A source file's definition by name ("A.b", "A::b", "b"), with context lines and imports.
 */
symbol?: string, 
/**
 * The note's current bytes, read by the host (the index does not store note text).
 * When the note changed since it was indexed, the answer comes from these bytes'
 * sections, not the index's, so lines and content are never stale.
 */
bytes?: Uint8Array, };

export type ReadResult = { path: string, title: string, contentHash: string, sectionId: string | null, headingPath: string, startLine: number, endLine: number, text: string, truncated: boolean, 
/**
 * The definition read (by `symbol` or the section id of a code section).
 */
code?: CodeInfo, 
/**
 * The file's import lines, when read by `symbol`.
 */
imports?: string, 
/**
 * The note's languages as the catalog records them ("de"; "en de" for a note in two;
 * absent when none was detected: a source file, a note too short to tell).
 */
lang?: string, };

export type SectionInfo = { id: string, parentId: string | null, order: number, depth: number, headingPath: string, startLine: number, endLine: number, tokens: number, hash: string, };

export type Link = { target: string, heading: string | null, alias: string | null, embed: boolean, };

export type NoteInfo = { path: string, hash: string, size: number, mtime: number, title: string, aliases: Array<string>, tags: Array<string>, links: Array<Link>, frontmatter: Record<string, unknown>, sections: Array<SectionInfo>, };

export type ListRequest = { folder?: string, tag?: string, property?: PropertyFilter, sort?: ListSort, offset?: number, limit?: number, };

export type ListSort = "path" | "mtime";

/**
 * Retrieval usage of a note, kept in the catalog (never in the note).
 */
export type AccessInfo = { count: number, last: number, };

export type ListEntry = { path: string, title: string, tags: Array<string>, mtime: number, size: number, frontmatter: Record<string, unknown>, access: AccessInfo | null, context: string | null, };

export type ListResponse = { total: number, entries: Array<ListEntry>, };

export type Status = { vectors: number, model: string | null, modelLoaded: boolean, 
/**
 * A model switch under way: the old model's vectors answer queries meanwhile.
 */
switching?: ModelSwitch, notes: number, sections: number, segments: number, deletedDocs: number, indexBytes: number, generation: number, formatVersion: number, };

/**
 * How token states become one vector.
 */
export type Pooling = "mean" | "cls";

/**
 * How tract runs the model.
 *
 * Measured on all-MiniLM-L6-v2 int8 (best of 6–8 interleaved runs, one
 * batch; concrete time / symbolic time):
 *
 * | batch × tokens | native x86_64 | wasm32 + simd128 (Node 20) |
 * |----------------|---------------|----------------------------|
 * | 8 × 224        | 0.68 (758 vs 1114 ms) | 0.85 (3445 vs 4053 ms) |
 * | 8 × 64         | 0.57          | 0.92                       |
 * | 1 × 16 (query) | 0.91          | 1.38 (slower)              |
 *
 * Each concrete shape also costs ~0.2–0.4 s to optimize and ~50 MB while
 * its plan is cached (wasm memory peaked at 191 MB symbolic, 353 MB
 * concrete). Hence the default: `Symbolic` on wasm32 (8–15 % is not worth
 * the memory, and queries get slower), `Concrete` natively (1.5×).
 */
export type ShapeMode = "symbolic" | "concrete";

/**
 * Embedding configuration. It is recorded in the index manifest: changing
 * the model id, dimension, pooling or a prefix means re-embedding.
 */
export type ModelConfig = { 
/**
 * Stable model identifier, e.g. "all-MiniLM-L6-v2".
 */
model_id: string, 
/**
 * Output dimension; checked against the model's output.
 */
dimension: number, 
/**
 * Maximum sequence length in tokens, special tokens included.
 */
max_tokens: number, pooling: Pooling, 
/**
 * Prepended to queries (e.g. "query: " for E5); may be empty.
 */
query_prefix: string, 
/**
 * Prepended to passages (e.g. "passage: " for E5); may be empty.
 */
passage_prefix: string, 
/**
 * Texts per model run. 1 in wasm: measured with tract in wasm (Node 20, 32 chunks of
 * the Obsidian Help vault, sorted by length and padded per batch), one text per run is
 * the fastest and the leanest: multilingual-e5-small 514 ms per chunk at 1, 550 at 2,
 * 573 at 4, 711 at 8 (wasm memory 468 vs 609 MB); all-MiniLM-L6-v2 270 ms at 2, 316 at
 * 8. Natively (concrete shapes) batches of 8 pay.
 */
batch_size: number, 
/**
 * The model was trained on many languages. An English-only model (the default)
 * gives CJK queries little weight in hybrid fusion.
 */
multilingual: boolean, 
/**
 * L2-normalise the vectors (so a dot product is a cosine).
 */
normalize: boolean, shape_mode: ShapeMode, 
/**
 * Concrete mode: how many optimized plans to keep (each ~50 MB).
 */
max_plans: number, };

/**
 * What embedding has done and has left (`embedStep`, `embedProgress`, `loadModel`).
 */
export type EmbedProgress = { 
/**
 * Texts with a vector (leaf sections and note titles).
 */
done: number, 
/**
 * Texts to embed in the index (distinct leaf sections and note titles).
 */
total: number, 
/**
 * Embedded by this call.
 */
embedded: number, 
/**
 * Chunks this call took off the queue without embedding them: their note's text was not
 * supplied, or changed since the note was indexed (its next update queues them again).
 */
dropped: number, 
/**
 * Chunks per second over this session's embedding work.
 */
rate: number, 
/**
 * Seconds left at that rate (null until a rate is known).
 */
etaSeconds: number | null, model: string | null, modelLoaded: boolean, 
/**
 * A model switch under way (the old vectors answer queries meanwhile).
 */
switching?: ModelSwitch, };

/**
 * Chunks handed out to be embedded elsewhere (`embedTake`): the host's embedder workers embed
 * `items[i].text` as passages (the model's passage prefix is theirs to add, as in `embedStep`)
 * and hand the vectors back with `embedPut`, in the items' order, keyed by `items[i].key`.
 */
export type EmbedBatch = { 
/**
 * The model the vectors must be made with, and their dimension.
 */
model: string, dimension: number, items: Array<EmbedItem>, 
/**
 * Chunks taken off the queue without being handed out (their note's text was not
 * supplied, or changed since it was indexed), as `EmbedProgress::dropped`.
 */
dropped: number, };

/**
 * One chunk to embed: its key (the SHA-256 of its text, hex) and its text.
 */
export type EmbedItem = { key: string, text: string, };

/**
 * The model switch under way, for status and progress.
 */
export type ModelSwitch = { 
/**
 * The model whose vectors answer queries until the new one has embedded everything.
 */
from: string, to: string, 
/**
 * Whether the host has loaded `from` (queries need it: see `use_previous_embedder`).
 */
fromLoaded: boolean, };

/**
 * The outcome of choosing a model for a vault.
 */
export type ModelChoice = { 
/**
 * The model to load.
 */
model: string, 
/**
 * The setting it comes from (`auto` or a model id).
 */
setting: string, 
/**
 * The share of the vault's text that is not English (another script, or a note in another
 * language).
 */
nonEnglishShare: number, 
/**
 * Why, in words (for the CLI, the settings tab and the status).
 */
reason: string, };

/**
 * A model Strata knows by id (`StrataCore.models()`).
 */
export type ModelInfo = { 
/**
 * The id a host passes to `loadModel` and `chooseModel`, and the name of its folder.
 */
id: string, 
/**
 * The model loaded when nothing else is asked for.
 */
default: boolean, 
/**
 * Output dimension.
 */
dimension: number, 
/**
 * Longest input in tokens, special tokens included (a longer text is cut).
 */
maxTokens: number, pooling: Pooling, 
/**
 * Prepended to queries and to passages before they are embedded (may be empty).
 */
queryPrefix: string, passagePrefix: string, 
/**
 * Trained on many languages (`auto` picks it for a vault with much non-Latin text).
 */
multilingual: boolean, 
/**
 * The languages it serves, in words.
 */
languages: string, 
/**
 * What it is and what it is for, in a sentence.
 */
description: string, 
/**
 * SPDX identifier of the model's license.
 */
license: string, 
/**
 * Where the repository's script takes its files from.
 */
source: string, 
/**
 * The repository's script that puts its files in `models/<id>/`.
 */
fetchScript: string, 
/**
 * The files a host reads to load it.
 */
files: Array<ModelFile>, };

/**
 * One file of a model.
 */
export type ModelFile = { 
/**
 * File name in the model's folder.
 */
name: string, 
/**
 * What the file holds.
 */
what: string, };

/**
 * A note's structure (see the module documentation).
 */
export type Outline = { 
/**
 * Lines of the note (a final line break does not open another line).
 */
lineCount: number, 
/**
 * The line of the frontmatter's closing fence (`---` or `...`); null without frontmatter.
 */
frontmatterEnd: number | null, 
/**
 * The first line after the frontmatter (1 without frontmatter).
 */
bodyStartLine: number, 
/**
 * Headings in document order (none inside code blocks or the frontmatter).
 */
headings: Array<OutlineHeading>, 
/**
 * Links above the first heading.
 */
linksBefore: Array<OutlineLink>, };

/**
 * One heading of an [`Outline`].
 */
export type OutlineHeading = { 
/**
 * 1 to 6 (`#` to `######`; a setext heading is 1 with `===`, 2 with `---`).
 */
level: number, 
/**
 * The heading's text as it renders (markup and closing `#`s removed, trimmed).
 */
text: string, 
/**
 * The heading's first line.
 */
line: number, 
/**
 * The last line of its section, subsections included: the line before the next heading of
 * the same or a higher level, else the note's last line.
 */
endLine: number, 
/**
 * Heading texts from the top level down to this one (its own text last).
 */
path: Array<string>, 
/**
 * The links of its own lines (from the heading to the next heading of any level).
 */
links: Array<OutlineLink>, };

/**
 * A link (wikilink, embed, or Markdown link to a vault file) of an [`Outline`], at its line.
 */
export type OutlineLink = { target: string, 
/**
 * The heading the link points to (`[[Note#Heading]]`).
 */
heading: string | null, alias: string | null, embed: boolean, line: number, };

/**
 * A task's priority, ordered: `Lowest` < … < `Normal` (none given) < … < `Highest`.
 */
export type Priority = "lowest" | "low" | "normal" | "medium" | "high" | "highest";

/**
 * The kinds of status a character stands for (the Tasks plugin's defaults).
 */
export type StatusKind = "todo" | "in-progress" | "done" | "cancelled" | "deferred" | "question" | "important" | "other";

/**
 * A date range on one of a task's dates. Each bound is an ISO date or `today`, `yesterday`,
 * `tomorrow` (relative to the request's `today`).
 */
export type DateRange = { 
/**
 * Strictly before.
 */
before?: string, 
/**
 * Strictly after.
 */
after?: string, on?: string, };

/**
 * Tasks by the time they are due, relative to `today`: open tasks due before today
 * (`overdue`), due or scheduled today (`today`), due or scheduled in today's week, Monday
 * to Sunday (`this-week`).
 */
export type TaskWhen = "overdue" | "today" | "this-week";

export type TaskSort = "path" | "due" | "priority";

export type TaskGroupBy = "status" | "folder" | "note" | "tag";

export type TasksRequest = { 
/**
 * Any of: a status kind (`todo`, `in-progress`, `done`, `cancelled`, `deferred`,
 * `question`, `important`, `other`), `open` (neither done nor cancelled), `closed`, or the
 * status character itself (`/` or `[/]`).
 */
status?: Array<string>, 
/**
 * Notes in this folder (and below).
 */
folder?: string, 
/**
 * One note.
 */
path?: string, 
/**
 * A tag in the task (`#a` also matches `#a/b`); for its note's tags, `where` with
 * `file.tags contains a`.
 */
tag?: string, 
/**
 * Words the task's text contains (case-insensitive).
 */
text?: string, 
/**
 * A property expression its note must match (`status = active AND priority > 1`).
 */
where?: string, due?: DateRange, scheduled?: DateRange, done?: DateRange, when?: TaskWhen, 
/**
 * A priority (`high`), or a bound (`>=medium`, `<normal`).
 */
priority?: string, 
/**
 * The host's date (`YYYY-MM-DD`), for `when` and relative dates. Required by them.
 */
today?: string, sort?: TaskSort, groupBy?: TaskGroupBy, 
/**
 * Tasks returned (default 100, at most 1000); `total` and the groups count them all.
 */
limit?: number, };

export type TaskHit = { path: string, 
/**
 * 1-based line of the task's item.
 */
line: number, 
/**
 * The character between the brackets, as written.
 */
status: string, kind: StatusKind, text: string, 
/**
 * The headings above the task ("A > B").
 */
heading: string, tags: Array<string>, 
/**
 * The line of the task whose item holds this one.
 */
parentLine?: number, priority: Priority, due?: string, scheduled?: string, start?: string, done?: string, created?: string, cancelled?: string, };

export type TaskGroup = { 
/**
 * The status kind, folder, note path or tag ("" for no folder or no tag).
 */
key: string, 
/**
 * Matching tasks in the group (all of them, whatever the limit).
 */
count: number, 
/**
 * The group's tasks, in the request's order, while the limit lasts.
 */
tasks: Array<TaskHit>, };

export type TasksResponse = { 
/**
 * Matching tasks, whatever the limit.
 */
total: number, 
/**
 * Without `groupBy`: the tasks, up to the limit. With it: empty (see `groups`).
 */
tasks: Array<TaskHit>, 
/**
 * With `groupBy`: the groups by key (statuses in the order of their kinds); the limit
 * fills them in that order.
 */
groups: Array<TaskGroup>, 
/**
 * Matching tasks by status kind (over all of them).
 */
byStatus: Array<[StatusKind, number]>, tookMs: number, };

export type QueryRequest = { 
/**
 * The property expression (`status = draft AND file.mtime >= today-7d`); empty: every
 * note.
 */
where?: string, 
/**
 * Fields to sort by, comma-separated, each optionally followed by `asc`/`desc` or prefixed
 * with `-` for descending (`-file.mtime, title`). Default: by path.
 */
sort?: string, limit?: number, offset?: number, 
/**
 * The host's date (`YYYY-MM-DD`), for `today`/`now` in the expression.
 */
today?: string, 
/**
 * Now, in ms since the epoch, for `now` (default: midnight of `today`).
 */
now?: number, 
/**
 * The host's offset from UTC in minutes (UTC+2: 120), for dates without a zone.
 */
utcOffsetMinutes?: number, };

export type QueryHit = { path: string, title: string, mtime: number, 
/**
 * The values of the fields the expression and the sort name (null: missing).
 */
fields: Record<string, unknown>, };

export type QueryResponse = { 
/**
 * Matching notes, whatever the limit.
 */
total: number, notes: Array<QueryHit>, tookMs: number, };
