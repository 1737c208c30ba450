//! Strata's search core.
//!
//! Data flows one way, and the modules depend on each other only in this direction
//! (`scripts/check-modules.py` fails on an import cycle):
//! Markdown bytes → [`markdown`] (frontmatter, headings, links, tags; [`outline`]) →
//! [`sections`] (depth-split sections) → [`lexical`] (tantivy BM25 with the [`analyzer`]) and
//! [`vectors`] (the int8 scan, fed by [`embed`] through [`semantic`]) → [`fusion`] → [`engine`]
//! (update, search, read) → [`wasm`] (the JS API) → plugin, CLI, bridge. [`catalog`] keeps one
//! entry per note; [`store`] owns the persisted format: immutable files plus a small manifest
//! that is swapped last, so a crash leaves the old or the new index. [`ranking`] holds every
//! constant that shapes a ranking; [`api`] the types that cross the wasm boundary.
//!
//! The core never touches the file system: callers list and read notes and write the
//! files that [`engine::Engine::flush`] returns.

// Leaves: configuration, errors, clocks, text utilities.
pub mod clock;
pub mod config;
pub mod dates;
pub mod error;
pub mod expr;
pub mod hash;
pub mod paths;
pub mod ranking;
pub mod token_estimate;
// Markdown → sections.
pub mod analyzer;
pub mod code_sections;
pub mod language;
pub mod markdown;
pub mod outline;
pub mod sections;
pub mod snippet;
pub mod tasks;
// The boundary's types, the note catalog and the persisted format.
pub mod api;
pub mod catalog;
pub mod layout;
pub mod store;
// Lexical and vector retrieval, fusion.
pub mod embed;
pub mod fusion;
pub mod lexical;
pub mod semantic;
pub mod vectors;
// The engine and its bindings.
pub mod engine;

#[cfg(all(target_arch = "wasm32", feature = "bindings"))]
pub mod wasm;

// The TypeScript declarations of the API types (a test that keeps them current).
#[cfg(test)]
mod typescript;

pub use config::CoreConfig;
pub use engine::Engine;
pub use error::{CoreError, Result};
