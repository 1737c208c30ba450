//! The API's types of `similar`: the sections and notes nearest to a note or a section.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
pub struct SimilarRequest {
    pub path: Option<String>,
    pub section_id: Option<String>,
    pub k: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SimilarSection {
    pub section_id: String,
    pub heading_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub score: f32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SimilarHit {
    pub path: String,
    pub title: String,
    pub score: f32,
    pub sections: Vec<SimilarSection>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SimilarResponse {
    pub source: String,
    pub hits: Vec<SimilarHit>,
    pub took_ms: f64,
}
