//! The API's types of `read`: a note's section, lines or definition, as the note is now.

use serde::{Deserialize, Serialize};

use super::CodeInfo;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct ReadRequest {
    pub path: String,
    pub section_id: Option<String>,
    pub heading: Option<String>,
    pub start_line: Option<u32>,
    pub max_lines: Option<u32>,
    pub max_chars: Option<usize>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub parent: bool,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub whole: bool,
    /// A source file's definition by name ("A.b", "A::b", "b"), with context lines and imports.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub symbol: Option<String>,
    /// The note's current bytes, read by the host (the index does not store note text).
    /// When the note changed since it was indexed, the answer comes from these bytes'
    /// sections, not the index's, so lines and content are never stale.
    #[serde(default, with = "serde_bytes")]
    #[cfg_attr(test, ts(type = "Uint8Array", optional))]
    pub bytes: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
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
    /// The definition read (by `symbol` or the section id of a code section).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub code: Option<CodeInfo>,
    /// The file's import lines, when read by `symbol`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub imports: Option<String>,
    /// The note's languages as the catalog records them ("de"; "en de" for a note in two;
    /// absent when none was detected: a source file, a note too short to tell).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub lang: String,
}
