//! Source files split into searchable chunks: every function, method, class, interface and
//! type is one, with its name, signature, doc comment, parent and lines; the lines between
//! definitions (imports, top-level statements) form module chunks. JSON and YAML files are
//! chunked by key. The types are always compiled; the parsing (`parse`) only where tree-sitter
//! runs: native builds and the code wasm (`crate/chunker`, built apart from the core's wasm).

mod types;

pub use types::*;

#[cfg(feature = "parse")]
mod chunker;
#[cfg(feature = "parse")]
mod data;
#[cfg(feature = "parse")]
mod lang;
#[cfg(feature = "parse")]
mod literals;
#[cfg(feature = "parse")]
mod parse;
#[cfg(feature = "parse")]
mod source;
#[cfg(feature = "parse")]
mod text;
#[cfg(all(feature = "bindings", target_arch = "wasm32"))]
mod wasm;

#[cfg(feature = "parse")]
pub use parse::MAX_PARSE_BYTES;

/// `text` (a whole file or a fenced block) as chunks of about `budget_tokens` at most (the
/// core's section budget; tokens estimated as one per four non-whitespace bytes). Never fails:
/// a text the grammar cannot handle, longer than [`MAX_PARSE_BYTES`], or that makes the parser
/// give up is cut into line windows (`fallback`). An empty or all-blank text has no chunks.
/// A definition can exceed the budget only where it cannot be cut (a single long line, a
/// signature, a definition at the deepest level). Module chunks, error windows and the parts of
/// an oversized definition (which repeat its signature) have no signature line of their own:
/// their `signature_end_line` is `start_line - 1`. Lines holding only brackets or punctuation
/// between top-level chunks (a `});`, JSON's braces, YAML's `---`) join the chunk before them.
#[cfg(feature = "parse")]
pub fn chunk(lang: CodeLang, text: &str, budget_tokens: usize) -> CodeFile {
    let lines = text::Lines::new(text);
    let budget = budget_tokens.max(1);
    if lines.trim(0, lines.len().saturating_sub(1)).is_none() {
        return CodeFile {
            lang,
            chunks: Vec::new(),
            error_regions: 0,
            fallback: false,
            imports: None,
            literals: Vec::new(),
        };
    }
    match lang {
        CodeLang::Json | CodeLang::Yaml => data::chunk(lang, &lines, budget),
        _ => source::chunk(lang, &lines, budget),
    }
}
