//! Strata's search core.
//!
//! Data flows one way:
//! Markdown bytes → [`markdown`] (frontmatter, headings, links, tags) → [`sections`]
//! (depth-split sections) → [`lexical`] (tantivy BM25 with the [`cjk`] tokenizer) and
//! the [`catalog`] → [`engine`] (update, search, read) → [`wasm`] (the JS API) → plugin,
//! CLI, bridge. [`store`] turns the engine's state into immutable files plus a small
//! manifest that is swapped last, so a crash leaves the old or the new index.
//!
//! The core never touches the file system: callers list and read notes and write the
//! files that [`engine::Engine::flush`] returns.

pub mod api;
pub mod catalog;
pub mod clock;
pub mod cjk;
pub mod config;
pub mod embed;
pub mod engine;
pub mod fusion;
pub mod error;
pub mod hash;
pub mod lexical;
pub mod markdown;
pub mod outline;
pub mod paths;
pub mod semantic;
pub mod sections;
pub mod snippet;
pub mod store;
pub mod tokens;
pub mod vector_bench;
pub mod vectors;

#[cfg(all(target_arch = "wasm32", feature = "bindings"))]
pub mod wasm;

pub use config::CoreConfig;
pub use engine::Engine;
pub use error::{CoreError, Result};
