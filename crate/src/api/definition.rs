//! The API's type of a code definition: what a code section's hit or read says of its definition.

use serde::{Deserialize, Serialize};

/// What a code section is: a definition's language, kind, name and signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CodeInfo {
    /// "python", "typescript", "rust", …
    pub lang: String,
    /// "function", "method", "class", "interface", "type", "enum", "constant", "impl", "key",
    /// "module" or "lines".
    pub kind: String,
    pub name: String,
    pub signature: String,
    /// The section's lines hold a syntax error (indexed as plain lines there).
    pub syntax_errors: bool,
}

impl CodeInfo {
    pub fn of(code: &crate::sections::SectionCode) -> CodeInfo {
        CodeInfo {
            lang: code.lang().name().to_string(),
            kind: code.kind().name().to_string(),
            name: code.name.clone(),
            signature: code.signature.clone(),
            syntax_errors: code.syntax_errors,
        }
    }
}
