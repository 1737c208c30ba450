//! Engine configuration. The fields that change what is indexed are part of the
//! index manifest: opening an index built with other values rebuilds it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CoreConfig {
    /// Obsidian's config folder (excluded from indexing).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub config_dir: String,
    /// Indexed file extensions, without the dot.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub extensions: Vec<String>,
    /// Vault-relative folders excluded from indexing.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub exclude_folders: Vec<String>,
    /// Split a section while it exceeds this many estimated tokens.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub chunk_budget: usize,
    /// Sections smaller than this are merged into a neighbour.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub chunk_min: usize,
    /// Notes larger than this are skipped with a warning (never read whole into the index).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub max_note_bytes: u64,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            config_dir: ".obsidian".into(),
            extensions: vec!["md".into()],
            exclude_folders: Vec::new(),
            chunk_budget: crate::ranking::SECTION_BUDGET,
            chunk_min: crate::ranking::SECTION_MIN,
            max_note_bytes: 8 * 1024 * 1024,
        }
    }
}

impl CoreConfig {
    /// The part of the configuration that changes index content. Stored in the manifest.
    pub fn fingerprint(&self) -> String {
        format!("budget={};min={}", self.chunk_budget, self.chunk_min)
    }
}
