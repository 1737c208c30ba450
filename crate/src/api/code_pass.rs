//! The API's types of the code pass: the background work that replaces the line windows of code
//! files indexed by a bulk index (`UpdateBatch::defer_code`) with their definitions.

use serde::{Deserialize, Serialize};

use super::Warning;

/// What the code pass has done and has left (`codePassStep`, `codePassProgress`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CodePassProgress {
    /// Code files still in line windows that the pass will chunk in this session.
    pub left: usize,
    /// Files given their definitions by this call.
    pub defined: usize,
    /// Files this call took without chunking them: their text was not supplied, or changed since
    /// the file was indexed (its next update indexes it again).
    pub dropped: usize,
    /// Files given their definitions in this session.
    pub done: usize,
    /// What the chunker said about the files of this call (syntax errors, files not parsed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub warnings: Vec<Warning>,
}
