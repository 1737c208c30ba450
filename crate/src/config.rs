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
    /// Index source files (Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, JSON, YAML)
    /// as definitions ([`crate::code_sections`]).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub code_enabled: bool,
    /// Extensions indexed as code when `code_enabled` (without the dot).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub code_extensions: Vec<String>,
    /// Folders whose code files are skipped (any segment of the path: `node_modules`
    /// anywhere). Notes inside them are still indexed.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub code_exclude_folders: Vec<String>,
    /// Code files larger than this are skipped with a warning.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub max_code_bytes: u64,
    /// Chunk code by its syntax (tree-sitter); `false`: each code file is one section (the
    /// baseline that `strata eval` compares with).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub code_syntax: bool,
    /// This device's id (`layout`): it names the device's own folder of the index, where only
    /// it writes. Random, kept per device outside synced settings; not part of the fingerprint.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    pub device_id: String,
}

/// The device id a host that names none gets (`CoreConfig::device_id`, `layout`).
pub const DEFAULT_DEVICE: &str = "local";

/// Folders whose code files are skipped by default: dependencies, build output, environments.
pub const DEFAULT_CODE_EXCLUDE: &[&str] =
    &["node_modules", "target", "dist", "build", ".venv", "vendor", "__pycache__"];

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            config_dir: ".obsidian".into(),
            extensions: vec!["md".into()],
            exclude_folders: Vec::new(),
            chunk_budget: crate::ranking::SECTION_BUDGET,
            chunk_min: crate::ranking::SECTION_MIN,
            max_note_bytes: 8 * 1024 * 1024,
            code_enabled: true,
            code_extensions: strata_chunker::DEFAULT_EXTENSIONS.iter().map(|e| e.to_string()).collect(),
            code_exclude_folders: DEFAULT_CODE_EXCLUDE.iter().map(|e| e.to_string()).collect(),
            max_code_bytes: 1024 * 1024,
            code_syntax: true,
            device_id: DEFAULT_DEVICE.into(),
        }
    }
}

impl CoreConfig {
    /// The part of the configuration that changes index content. Stored in the manifest.
    pub fn fingerprint(&self) -> String {
        let code = if self.code_syntax { "" } else { ";code=lines" };
        format!("budget={};min={}{code}", self.chunk_budget, self.chunk_min)
    }
}
