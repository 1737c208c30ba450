//! Source files split into searchable chunks: every function, method, class, interface and
//! type is one, with its name, signature, doc comment, parent and lines; the lines between
//! definitions (imports, top-level statements) form module chunks. JSON and YAML files are
//! chunked by key. The types are always compiled; the parsing (`parse`) only where tree-sitter
//! runs: native builds and the code wasm (`crate/code`, built apart from the core's wasm).

mod types;

pub use types::*;
