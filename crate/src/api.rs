//! Request and response types of the engine API. They cross the wasm boundary as
//! plain JS objects (serde-wasm-bindgen, camelCase) and mirror `plugin/core/api.ts`.

use serde::{Deserialize, Serialize};

pub use crate::snippet::Snippet;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexFile {
    pub name: String,
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenReport {
    pub fresh: bool,
    pub rebuilt: bool,
    pub reason: Option<String>,
    pub generation: u64,
    pub notes: usize,
    pub orphans: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStat {
    pub path: String,
    pub size: u64,
    pub mtime: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skip {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub read: Vec<String>,
    pub delete: Vec<String>,
    pub unchanged: usize,
    pub skipped: Vec<Skip>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoteInput {
    pub path: String,
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
    #[serde(default)]
    pub mtime: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rename {
    pub from: String,
    pub to: String,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateBatch {
    #[serde(default)]
    pub upserts: Vec<NoteInput>,
    #[serde(default)]
    pub deletes: Vec<String>,
    #[serde(default)]
    pub renames: Vec<Rename>,
    /// Make the batch searchable now (default). A bulk index passes false for all but
    /// the last batch, so the batches share one segment.
    #[serde(default = "yes")]
    pub commit: bool,
}

impl Default for UpdateBatch {
    fn default() -> Self {
        UpdateBatch {
            upserts: Vec::new(),
            deletes: Vec::new(),
            renames: Vec::new(),
            commit: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushOutput {
    pub writes: Vec<IndexFile>,
    pub deletes: Vec<String>,
    pub bytes_written: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyFilter {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchFilters {
    pub folder: Option<String>,
    pub tag: Option<String>,
    pub property: Option<PropertyFilter>,
    pub min_depth: Option<u8>,
    pub max_depth: Option<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    #[default]
    Lexical,
    Semantic,
    Hybrid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DepthOrder {
    #[default]
    Relevance,
    Shallow,
    Deep,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
    #[serde(default)]
    pub snippets: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub section_id: String,
    pub parent_id: Option<String>,
    pub path: String,
    pub title: String,
    pub heading_path: String,
    pub depth: u8,
    pub start_line: u32,
    pub end_line: u32,
    pub score: f32,
    pub lex_score: f32,
    pub snippet: Option<Snippet>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResponse {
    pub hits: Vec<Hit>,
    pub mode: SearchMode,
    pub took_ms: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadRequest {
    pub path: String,
    pub section_id: Option<String>,
    pub heading: Option<String>,
    pub start_line: Option<u32>,
    pub max_lines: Option<u32>,
    pub max_chars: Option<usize>,
    #[serde(default)]
    pub parent: bool,
    #[serde(default)]
    pub whole: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResult {
    pub path: String,
    pub title: String,
    pub content_hash: String,
    pub section_id: Option<String>,
    pub heading_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
    pub truncated: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
pub struct NoteInfo {
    pub path: String,
    pub hash: String,
    pub size: u64,
    pub mtime: f64,
    pub title: String,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub links: Vec<crate::markdown::Link>,
    pub frontmatter: serde_json::Value,
    pub sections: Vec<SectionInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub notes: usize,
    pub sections: usize,
    pub segments: usize,
    pub deleted_docs: u64,
    pub index_bytes: u64,
    pub generation: u64,
    pub format_version: u32,
}
