//! The TypeScript declarations of the types that cross the wasm boundary, generated from the
//! Rust types (ts-rs, which reads their serde attributes) into plugin/core/generated/api.ts.
//! The derives exist in test builds only, so the shipped wasm carries none of this.
//!
//! The test fails when the committed file differs from what the types say; to rewrite it:
//! `STRATA_WRITE_TYPES=1 cargo test -p strata-core --no-default-features typescript`.

use std::path::PathBuf;

use ts_rs::{Config, TS};

use crate::api::*;
use crate::config::CoreConfig;
use crate::embed::choice::ModelChoice;
use crate::embed::models::{ModelFile, ModelInfo};
use crate::embed::{EmbedderConfig, Pooling, ShapeMode};
use crate::fusion::FusionMethod;
use crate::markdown::Link;
use crate::outline::{Outline, OutlineHeading, OutlineLink};

const HEADER: &str = "// Generated from the Rust types of crate/src (api.rs and the types it uses) by
// crate/src/typescript.rs: do not edit. Rewrite it with
//   STRATA_WRITE_TYPES=1 cargo test -p strata-core --no-default-features typescript
// plugin/core/api.ts re-exports these with what cannot be generated (the wasm class).

/** Current bytes of notes by path, read by the caller (null: the note could not be read). */
export type NoteTexts = Record<string, Uint8Array | null>;
";

/// One declaration: its doc comment, then `export type …`.
fn declaration<T: TS + ?Sized + 'static>(cfg: &Config) -> String {
    let docs = T::docs().map(|d| format!("{}\n", d.trim_end())).unwrap_or_default();
    format!("\n{docs}export {}\n", T::decl(cfg))
}

fn generated() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(HEADER);
    macro_rules! decls {
        ($($t:ty),* $(,)?) => { $( out.push_str(&declaration::<$t>(&cfg)); )* };
    }
    decls!(
        CoreConfig,
        IndexFile,
        OpenReport,
        OpenTimings,
        crate::layout::OpenPlan,
        AddVectorsReport,
        FileStat,
        Skip,
        Plan,
        NoteInput,
        Rename,
        UpdateBatch,
        Warning,
        UpdateReport,
        CodePassProgress,
        FlushOutput,
        PropertyFilter,
        SearchFilters,
        CodeInfo,
        SearchMode,
        DepthOrder,
        FusionMethod,
        SearchRequest,
        Snippet,
        Hit,
        FusionWeights,
        SearchResponse,
        SnippetHit,
        SnippetRequest,
        SimilarRequest,
        SimilarSection,
        SimilarHit,
        SimilarResponse,
        ReadRequest,
        ReadResult,
        SectionInfo,
        Link,
        NoteInfo,
        ListRequest,
        ListSort,
        AccessInfo,
        ListEntry,
        ListResponse,
        Status,
        Pooling,
        ShapeMode,
        EmbedderConfig,
        EmbedProgress,
        EmbedBatch,
        EmbedItem,
        Switch,
        ModelChoice,
        ModelInfo,
        ModelFile,
        Outline,
        OutlineHeading,
        OutlineLink,
        Priority,
        StatusKind,
        DateRange,
        TaskWhen,
        TaskSort,
        TaskGroupBy,
        TasksRequest,
        TaskHit,
        TaskGroup,
        TasksResponse,
        QueryRequest,
        QueryHit,
        QueryResponse,
    );
    out
}

#[test]
fn typescript_declarations_are_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../plugin/core/generated/api.ts");
    let want = generated();
    if std::env::var("STRATA_WRITE_TYPES").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is stale: the Rust API types changed. Rewrite it with\n  STRATA_WRITE_TYPES=1 cargo test -p strata-core --no-default-features typescript",
        path.display()
    );
}
