//! A tree-sitter parser per language, with a guard on the work a parse may take: hostile or
//! pathological input gives up (the chunker then falls back to line windows) instead of hanging.
//! There is no clock in wasm32-unknown-unknown, so the guard counts the parser's progress
//! callbacks (one per ~100 parse operations) against a limit proportional to the text's length.

use std::cell::RefCell;
use std::ops::ControlFlow;

use tree_sitter::{Language, ParseOptions, ParseState, Parser, Tree};

use crate::CodeLang;

/// Texts longer than this are not parsed (line windows instead): the core skips files over
/// about 1 MB anyway, and a tree of a larger text costs tens of bytes per byte.
pub const MAX_PARSE_BYTES: usize = 8 << 20;
/// Progress callbacks allowed: a base plus one per this many bytes of text. Real sources take
/// one per ~135 bytes on average and one per 42 at worst (3,395 files of `node_modules`,
/// `crate/` and `plugin/`, the worst a minified bundle), so this leaves a tenfold margin and
/// stops a pathological parse of a 1 MB text after about 25 million operations (seconds).
const PROGRESS_BASE: u64 = 10_000;
const BYTES_PER_PROGRESS: u64 = 4;

pub(crate) fn language(lang: CodeLang) -> Language {
    match lang {
        CodeLang::Python => tree_sitter_python::LANGUAGE.into(),
        CodeLang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        CodeLang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        CodeLang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        CodeLang::Go => tree_sitter_go::LANGUAGE.into(),
        CodeLang::Rust => tree_sitter_rust::LANGUAGE.into(),
        CodeLang::Java => tree_sitter_java::LANGUAGE.into(),
        CodeLang::C => tree_sitter_c::LANGUAGE.into(),
        CodeLang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        CodeLang::Json => tree_sitter_json::LANGUAGE.into(),
        CodeLang::Yaml => tree_sitter_yaml::LANGUAGE.into(),
    }
}

thread_local! {
    /// One parser per language, made on first use (setting a language is not free).
    static PARSERS: RefCell<Vec<Option<Parser>>> = RefCell::new((0..CodeLang::ALL.len()).map(|_| None).collect());
}

/// The syntax tree of `text`, or None when it is too long, the parser gave up (the work guard)
/// or the grammar could not be loaded.
pub(crate) fn parse(lang: CodeLang, text: &str) -> Option<Tree> {
    if text.len() > MAX_PARSE_BYTES || !scanner_safe(lang, text) {
        return None;
    }
    parse_within(lang, text, PROGRESS_BASE + text.len() as u64 / BYTES_PER_PROGRESS)
}

/// The parse, given up after `limit` progress callbacks.
fn parse_within(lang: CodeLang, text: &str, limit: u64) -> Option<Tree> {
    PARSERS.with(|parsers| {
        let mut parsers = parsers.try_borrow_mut().ok()?;
        let slot = &mut parsers[lang.id() as usize];
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&language(lang)).ok()?;
            *slot = Some(p);
        }
        let parser = slot.as_mut()?;
        parser.reset();
        let mut calls = 0u64;
        let mut guard = |_: &ParseState| {
            calls += 1;
            if calls > limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = text.as_bytes();
        let mut read = |at: usize, _| bytes.get(at..).unwrap_or(&[]);
        let tree = parser.parse_with_options(&mut read, None, Some(ParseOptions::new().progress_callback(&mut guard)));
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

/// Python's and YAML's external scanners keep a stack of indentation levels and write it to a
/// 1024-byte buffer with a bounds check that lets the last entry run 1 (Python) or 2 (YAML)
/// bytes past it: tree-sitter then fails the assertion `ts_parser__external_scanner_serialize:
/// Assertion 'length <= 1024' failed` (an abort) in a build with assertions, and writes past the
/// buffer without them. A level needs a deeper indentation than the one it is in, so a text
/// whose lines are all indented less than these columns (a tab counting 8; YAML's `- ` and `? `
/// count as indentation) never holds that many levels: tree-sitter-python serializes 2 bytes a
/// level after at most 257, tree-sitter-yaml 4 bytes a level after 10.
const PYTHON_MAX_INDENT: usize = 380;
const YAML_MAX_INDENT: usize = 240;

fn scanner_safe(lang: CodeLang, text: &str) -> bool {
    let (max, prefix): (usize, &[u8]) = match lang {
        CodeLang::Python => (PYTHON_MAX_INDENT, b" \t\x0c"),
        CodeLang::Yaml => (YAML_MAX_INDENT, b" \t-?:"),
        _ => return true,
    };
    text.split('\n').all(|line| {
        let mut columns = 0;
        for b in line.bytes() {
            if !prefix.contains(&b) {
                break;
            }
            columns += if b == b'\t' { 8 } else { 1 };
            if columns >= max {
                return false;
            }
        }
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_over_its_work_limit_gives_up_and_the_parser_recovers() {
        let text = "def f(x):\n    return [x + i for i in range(10)]\n".repeat(2000);
        assert!(parse_within(CodeLang::Python, &text, 5).is_none());
        let tree = parse(CodeLang::Python, &text).expect("parsed within the default limit");
        assert!(!tree.root_node().has_error());
        assert_eq!(tree.root_node().named_child_count(), 2000);
    }

    #[test]
    fn deep_indentation_is_not_parsed() {
        let deep: String = (0..300).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        assert!(!scanner_safe(CodeLang::Yaml, &deep));
        assert!(parse(CodeLang::Yaml, &deep).is_none());
        assert!(scanner_safe(CodeLang::Yaml, "a:\n  - b: 1\n"));
        assert!(scanner_safe(CodeLang::Rust, &deep));
        let python: String = (0..400).map(|i| format!("{}if x:\n", "\t".repeat(i / 8))).collect();
        assert!(!scanner_safe(CodeLang::Python, &python));
    }
}
