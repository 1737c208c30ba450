//! Request and response types of the engine API. They cross the wasm boundary as
//! plain JS objects (serde-wasm-bindgen, camelCase) and mirror `plugin/core/api.ts`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use crate::snippet::Snippet;

mod code_pass;
mod definition;
mod read;
mod similar;
mod structured;
pub use code_pass::*;
pub use definition::*;
pub use read::*;
pub use similar::*;
pub use structured::*;

/// The current bytes of notes by path, read by the host: the index does not store note text
/// (the host has the notes on disk). `None` (JS `null`): the host could not read the note.
/// The core decodes them as it decodes `NoteInput::bytes`, and compares their SHA-256 with
/// the catalog's to know whether the note changed since it was indexed.
pub type NoteTexts = HashMap<String, Option<serde_bytes::ByteBuf>>;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IndexFile {
    pub name: String,
    #[serde(with = "serde_bytes")]
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenReport {
    pub fresh: bool,
    pub rebuilt: bool,
    /// Why the index was rebuilt (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reason: Option<String>,
    pub generation: u64,
    pub notes: usize,
    pub orphans: Vec<String>,
    /// Where the open spent its time (ms), for the bench and the status view.
    pub timings: OpenTimings,
    /// Vectors added from the shared segments (`layout`), whichever device embedded them.
    pub shared_vectors: usize,
    /// Files that cannot be used yet and are left alone, each with the reason (a vector
    /// segment still arriving, or damaged).
    pub ignored: Vec<String>,
    /// A newer version of Strata (this format version) indexed the vault on this device too:
    /// its folder is left alone; update Strata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub newer_format: Option<u32>,
}

/// What [`crate::engine::Engine::add_vectors`] did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AddVectorsReport {
    /// Vectors added (texts no vector of this device's had yet).
    pub added: usize,
    /// Segments that cannot be used yet, each with the reason (left alone).
    pub ignored: Vec<String>,
    /// Vectors of the active model now.
    pub vectors: usize,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenTimings {
    /// Manifest choice and the checksum of every file.
    pub verify_ms: f64,
    pub lexical_ms: f64,
    pub catalog_ms: f64,
    pub vectors_ms: f64,
    pub total_ms: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileStat {
    pub path: String,
    pub size: u64,
    pub mtime: f64,
    /// The file's creation time (ms since the epoch), when the host knows it: not used by the
    /// plan, passed on with the note's bytes (`NoteInput::ctime`).
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub ctime: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Skip {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Plan {
    pub read: Vec<String>,
    pub delete: Vec<String>,
    pub unchanged: usize,
    pub skipped: Vec<Skip>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NoteInput {
    pub path: String,
    #[serde(with = "serde_bytes")]
    #[cfg_attr(test, ts(type = "Uint8Array"))]
    pub bytes: Vec<u8>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub mtime: f64,
    /// The file's creation time (ms since the epoch), when the host knows it (`file.ctime` of
    /// the property expressions). None keeps the one indexed for the path, if any.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub ctime: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct Rename {
    pub from: String,
    pub to: String,
    /// The note's current bytes, read by the host at `to` (the index does not store note
    /// text). Their SHA-256 equal to the indexed note's: a move (nothing re-embedded);
    /// otherwise `from` is deleted and `to` indexed from these bytes. Without them the
    /// rename is skipped, with the reason in the report.
    #[serde(default, with = "serde_bytes")]
    #[cfg_attr(test, ts(type = "Uint8Array", optional))]
    pub bytes: Option<Vec<u8>>,
    /// The note's modification time at `to` (default: the indexed one).
    #[serde(default)]
    pub mtime: Option<f64>,
    /// The note's creation time at `to` (default: the indexed one).
    #[serde(default)]
    pub ctime: Option<f64>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct UpdateBatch {
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub upserts: Vec<NoteInput>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub deletes: Vec<String>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub renames: Vec<Rename>,
    /// Make the batch searchable now (default). A bulk index passes false for all but
    /// the last batch, so the batches share one segment.
    #[serde(default = "yes")]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub commit: bool,
    /// A bulk index: a code file without definitions in the index yet is indexed in line
    /// windows (plain-text speed), its definitions left to the background pass
    /// (`codePassStep`); a file with definitions is chunked at once either way.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub defer_code: bool,
}

impl Default for UpdateBatch {
    fn default() -> Self {
        UpdateBatch { upserts: Vec::new(), deletes: Vec::new(), renames: Vec::new(), commit: true, defer_code: false }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Warning {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct UpdateReport {
    pub added: usize,
    pub updated: usize,
    pub unchanged: usize,
    pub moved: usize,
    pub deleted: usize,
    pub skipped: Vec<Skip>,
    pub warnings: Vec<Warning>,
    pub sections: usize,
    pub took_ms: f64,
    /// Notes whose large fenced code blocks stayed whole because the code chunker was not
    /// loaded: the host loads it and passes these notes again (their blocks are then chunked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub code_chunker_needed: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FlushOutput {
    pub writes: Vec<IndexFile>,
    pub deletes: Vec<String>,
    pub bytes_written: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PropertyFilter {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct SearchFilters {
    pub folder: Option<String>,
    pub tag: Option<String>,
    pub property: Option<PropertyFilter>,
    pub min_depth: Option<u8>,
    pub max_depth: Option<u8>,
    /// Code languages, comma-separated ("python,go", "py"); also `lang:python` in the query.
    pub lang: Option<String>,
    /// Code chunk kinds, comma-separated ("function,method"). Also `kind:class` in the query.
    pub kind: Option<String>,
    /// A property expression the hit's note must match (the language of `query`:
    /// `status = draft AND file.mtime >= today-7d`).
    #[serde(rename = "where")]
    #[cfg_attr(test, ts(rename = "where"))]
    pub where_: Option<String>,
    /// For `where`'s relative dates: the host's date (`YYYY-MM-DD`), now (ms since the epoch)
    /// and offset from UTC in minutes, as in `QueryRequest`.
    pub today: Option<String>,
    pub now: Option<f64>,
    pub utc_offset_minutes: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum SearchMode {
    Lexical,
    Semantic,
    /// The default: falls back to lexical (with a notice) while no model is loaded.
    #[default]
    Hybrid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum DepthOrder {
    #[default]
    Relevance,
    Shallow,
    Deep,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct SearchRequest {
    pub query: String,
    #[serde(default)]
    pub mode: Option<SearchMode>,
    #[serde(default)]
    pub k: Option<usize>,
    #[serde(default)]
    pub filters: Option<SearchFilters>,
    #[serde(default)]
    pub depth_order: Option<DepthOrder>,
    /// Further query strings (a model's expansions), fused by RRF with the original
    /// (`query`, weight 2; expansions weight 1). Hybrid and semantic modes.
    #[serde(default)]
    pub queries: Option<Vec<String>>,
    /// Fusion method for hybrid mode (default RRF).
    #[serde(default)]
    pub fusion: Option<crate::fusion::FusionMethod>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Hit {
    pub section_id: String,
    pub parent_id: Option<String>,
    pub path: String,
    pub title: String,
    pub heading_path: String,
    pub depth: u8,
    pub start_line: u32,
    pub end_line: u32,
    /// The ranking score (equal to `finalScore`).
    pub score: f32,
    pub final_score: f32,
    /// Raw BM25 of the note's best lexical section (0 when only the vector side found it).
    pub lex_score: f32,
    /// BM25 divided by the query's best BM25.
    pub lex_norm: f32,
    /// Cosine similarity of the best vector match (0 in lexical mode).
    pub vec_score: f32,
    pub vec_norm: f32,
    /// The fused score before note-level aggregation (0 in lexical mode).
    pub rrf_score: f32,
    /// How the score was made, for the score breakdown on hover.
    pub explain: String,
    /// The folder context the note inherits (see [`crate::engine::Engine::folder_context`]).
    pub context: Option<String>,
    /// A code section's definition (absent for notes).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub code: Option<CodeInfo>,
    /// A weaker match (hybrid mode): its best section holds little of the query's words, or none,
    /// and its vector score is near the query's background similarity (`fusion::is_weak`).
    /// Listed after the matches.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub weak: bool,
    /// The note's languages as the catalog records them ("de"; "en de" for a note in two;
    /// absent when none was detected: a source file, a note too short to tell).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub lang: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FusionWeights {
    pub lex: f32,
    pub vec: f32,
    pub reason: String,
    pub method: crate::fusion::FusionMethod,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SearchResponse {
    pub hits: Vec<Hit>,
    /// The mode that answered (hybrid falls back to lexical without a model).
    pub mode: SearchMode,
    pub took_ms: f64,
    /// The best lexical hit is clearly ahead: query expansion can be skipped.
    pub strong_signal: bool,
    pub weights: Option<FusionWeights>,
    /// Something the user should know (no model; embedding still in progress).
    pub notice: Option<String>,
    /// Share of sections embedded so far (hybrid and semantic modes).
    pub semantic_coverage: Option<f32>,
}

/// A hit to make a snippet for: a search hit (its other fields are ignored).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnippetHit {
    pub path: String,
    pub section_id: String,
}

/// Snippets for search hits, from the notes' current bytes (`Engine::snippets`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct SnippetRequest {
    /// The search's query: its terms are highlighted.
    pub query: String,
    /// The search's further query strings: when `query` is empty the first of them is
    /// highlighted, as hybrid and semantic search rank by it first.
    #[serde(default)]
    pub queries: Option<Vec<String>>,
    pub hits: Vec<SnippetHit>,
    /// The hit notes' bytes; a hit whose note is missing here gets no snippet.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "NoteTexts"))]
    pub texts: NoteTexts,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SectionInfo {
    pub id: String,
    pub parent_id: Option<String>,
    pub order: u32,
    pub depth: u8,
    pub heading_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub tokens: u32,
    pub hash: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NoteInfo {
    pub path: String,
    pub hash: String,
    pub size: u64,
    pub mtime: f64,
    pub title: String,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub links: Vec<crate::markdown::Link>,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub frontmatter: serde_json::Value,
    pub sections: Vec<SectionInfo>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct ListRequest {
    pub folder: Option<String>,
    pub tag: Option<String>,
    pub property: Option<PropertyFilter>,
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub sort: ListSort,
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub offset: usize,
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ListSort {
    #[default]
    Path,
    Mtime,
}

/// Retrieval usage of a note, kept in the catalog (never in the note).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AccessInfo {
    pub count: u32,
    pub last: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ListEntry {
    pub path: String,
    pub title: String,
    pub tags: Vec<String>,
    pub mtime: f64,
    pub size: u64,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub frontmatter: serde_json::Value,
    pub access: Option<AccessInfo>,
    pub context: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ListResponse {
    pub total: usize,
    pub entries: Vec<ListEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Status {
    pub vectors: usize,
    pub model: Option<String>,
    pub model_loaded: bool,
    /// A model switch under way: the old model's vectors answer queries meanwhile.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub switching: Option<Switch>,
    pub notes: usize,
    pub sections: usize,
    pub segments: usize,
    pub deleted_docs: u64,
    pub index_bytes: u64,
    pub generation: u64,
    pub format_version: u32,
}

/// Chunks handed out to be embedded elsewhere (`embedTake`): the host's embedder workers embed
/// `items[i].text` as passages (the model's passage prefix is theirs to add, as in `embedStep`)
/// and hand the vectors back with `embedPut`, in the items' order, keyed by `items[i].key`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EmbedBatch {
    /// The model the vectors must be made with, and their dimension.
    pub model: String,
    pub dimension: usize,
    pub items: Vec<EmbedItem>,
    /// Chunks taken off the queue without being handed out (their note's text was not
    /// supplied, or changed since it was indexed), as `EmbedProgress::dropped`.
    pub dropped: usize,
}

/// One chunk to embed: its key (the SHA-256 of its text, hex) and its text.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EmbedItem {
    pub key: String,
    pub text: String,
}

/// What embedding has done and has left (`embedStep`, `embedProgress`, `loadModel`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EmbedProgress {
    /// Texts with a vector (leaf sections and note titles).
    pub done: usize,
    /// Texts to embed in the index (distinct leaf sections and note titles).
    pub total: usize,
    /// Embedded by this call.
    pub embedded: usize,
    /// Chunks this call took off the queue without embedding them: their note's text was not
    /// supplied, or changed since the note was indexed (its next update queues them again).
    pub dropped: usize,
    /// Chunks per second over this session's embedding work.
    pub rate: f64,
    /// Seconds left at that rate (null until a rate is known).
    pub eta_seconds: Option<f64>,
    pub model: Option<String>,
    pub model_loaded: bool,
    /// A model switch under way (the old vectors answer queries meanwhile).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub switching: Option<Switch>,
}

/// The model switch under way, for status and progress.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ModelSwitch"))]
pub struct Switch {
    /// The model whose vectors answer queries until the new one has embedded everything.
    pub from: String,
    pub to: String,
    /// Whether the host has loaded `from` (queries need it: see `use_previous_embedder`).
    pub from_loaded: bool,
}
