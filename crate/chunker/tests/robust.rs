//! Nothing the chunker is given makes it panic or hang: garbage, huge, deeply nested, empty
//! texts; a definition over the budget is split at its inner blocks; every fixture keeps the
//! layout invariants at every budget.

mod common;

use std::time::Instant;

use common::{check_layout, chunk_fixture, describe, lang_of};
use strata_chunker::{chunk, ChunkKind, CodeLang, MAX_PARSE_BYTES};

const FIXTURES: &[&str] = &[
    "sample.py",
    "sample.js",
    "sample.ts",
    "sample.go",
    "sample.rs",
    "Sample.java",
    "sample.c",
    "sample.cpp",
    "package.json",
    "config.yaml",
];

#[test]
fn every_fixture_keeps_the_layout_at_every_budget() {
    for name in FIXTURES {
        for budget in [1, 5, 20, 64, 512, 100_000] {
            // chunk_fixture checks the coverage and nesting invariants.
            let (text, f) = chunk_fixture(name, lang_of(name), budget);
            let depth = |mut i: usize| {
                let mut d = 1;
                while let Some(p) = f.chunks[i].parent {
                    i = p as usize;
                    d += 1;
                }
                d
            };
            assert!((0..f.chunks.len()).all(|i| depth(i) <= 3), "{name} at {budget}: {:?}", describe(&f));
            let encoded = f.encode();
            assert_eq!(strata_chunker::CodeFile::decode(&encoded).unwrap(), f);
            assert!(!text.is_empty());
        }
    }
}

#[test]
fn an_oversized_definition_is_split_at_its_inner_blocks() {
    let block = |name: &str| {
        format!("    if {name} {{\n        let a = compute_something_long({name});\n        let b = compute_other_thing(a, {name});\n        total += a + b;\n    }}\n")
    };
    let text = format!(
        "/// Sums.\nfn total(x: u32) -> u32 {{\n    let mut total = 0;\n{}{}{}    total\n}}\n",
        block("first"),
        block("second"),
        block("third")
    );
    let f = chunk(CodeLang::Rust, &text, 40);
    check_layout(&text, &f);
    assert_eq!(
        describe(&f),
        ["function total 1-20", "lines total <total 3-8", "lines total <total 9-13", "lines total <total 14-20"]
    );
    let parts = &f.chunks[1..];
    assert!(parts.iter().all(|c| c.signature == "fn total(x: u32) -> u32" && c.kind == ChunkKind::Lines));
    assert_eq!(f.chunks[0].signature_end_line, 2);
    assert_eq!(f.chunks[0].doc, "Sums.");
}

#[test]
fn garbage_gives_line_windows() {
    let bytes: Vec<u8> = (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    for lang in strata_chunker::CodeLang::ALL {
        let f = chunk(lang, &text, 128);
        check_layout(&text, &f);
        assert!(!f.chunks.is_empty(), "{lang:?}");
        if lang != CodeLang::Yaml {
            // (YAML reads nearly anything as a scalar.)
            assert!(f.fallback || f.error_regions > 0, "{lang:?}: {:?}", describe(&f));
        }
        if f.fallback {
            assert!(f.chunks.iter().all(|c| c.kind == ChunkKind::Lines), "{lang:?}");
        }
    }
}

#[test]
fn empty_and_blank_texts_have_no_chunks() {
    for lang in CodeLang::ALL {
        for text in ["", "\n\n", "   \n\t\n"] {
            let f = chunk(lang, text, 512);
            assert!(f.chunks.is_empty() && !f.fallback && f.error_regions == 0, "{lang:?} {text:?}");
        }
        let one = chunk(lang, "x", 512);
        check_layout("x", &one);
    }
}

#[test]
fn deep_nesting_does_not_exhaust_the_stack() {
    let n = 50_000;
    let cases = [
        (CodeLang::Json, "[".repeat(n)),
        (CodeLang::Python, format!("x = {}1{}\n", "(".repeat(n), ")".repeat(n))),
        (CodeLang::JavaScript, format!("function f() {{ {} }}\n", "{".repeat(n))),
        (CodeLang::C, format!("int f() {{ {} }}\n", "if (1) {".repeat(n / 10))),
        (CodeLang::Yaml, (0..2000).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect()),
    ];
    for (lang, text) in cases {
        let f = chunk(lang, &text, 512);
        check_layout(&text, &f);
    }
}

#[test]
fn a_five_megabyte_file_finishes() {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 5 << 20 {
        text += &format!(
            "class Widget{i}:\n    \"\"\"Widget number {i}.\"\"\"\n\n    def render(self, ctx):\n        return ctx.draw({i}, self.size * {i})\n\n\ndef helper_{i}(a, b):\n    return a + b * {i}\n\n\n"
        );
        i += 1;
    }
    let t = Instant::now();
    let f = chunk(CodeLang::Python, &text, 512);
    eprintln!("5 MB of Python: {} chunks in {:?}", f.chunks.len(), t.elapsed());
    check_layout(&text, &f);
    assert!(!f.fallback);
    assert_eq!(f.chunks.iter().filter(|c| c.kind == ChunkKind::Method).count(), i);
}

#[test]
fn texts_over_the_parse_limit_are_windows() {
    let line = "let value = compute(1, 2, 3); // some words\n";
    let text = line.repeat(MAX_PARSE_BYTES / line.len() + 10);
    let t = Instant::now();
    let f = chunk(CodeLang::Rust, &text, 512);
    eprintln!("{} MB over the limit: {} windows in {:?}", text.len() >> 20, f.chunks.len(), t.elapsed());
    assert!(f.fallback && f.chunks.iter().all(|c| c.kind == ChunkKind::Lines));
    check_layout(&text, &f);
    // 50 MB in one line: one window, no panic.
    let long = "x".repeat(50 << 20);
    let f = chunk(CodeLang::JavaScript, &long, 512);
    assert_eq!(describe(&f), ["lines  1-1"]);
}

#[test]
fn minified_code_is_one_chunk_per_line() {
    let text = "function a(){return 1}function b(){return 2}var c=function(){return 3};\nfunction d(){}\n";
    let f = chunk(CodeLang::JavaScript, text, 512);
    check_layout(text, &f);
    assert_eq!(describe(&f), ["function a 1-1", "function d 2-2"]);
}

#[test]
fn bundled_code_is_not_parsed() {
    // A bundle: most bytes on lines of thousands of characters.
    let line: String = (0..200).map(|i| format!("function f{i}(a){{return a+{i}}}")).collect();
    let text = format!("/*! bundle v1 */\n{line}\n{line}\n");
    let f = chunk(CodeLang::JavaScript, &text, 512);
    check_layout(&text, &f);
    assert!(f.fallback && f.chunks.iter().all(|c| c.kind == ChunkKind::Lines), "{:?}", describe(&f));
    // One long line in an ordinary file (a data URL) does not make it a bundle.
    let ordinary = format!(
        "const icon = \"data:image/png;base64,{}\";\n{}",
        "A".repeat(2000),
        "function g() {\n  return 1;\n}\n".repeat(100)
    );
    let f = chunk(CodeLang::JavaScript, &ordinary, 512);
    assert!(!f.fallback && describe(&f).iter().any(|d| d.starts_with("function g")), "{:?}", describe(&f));
}

#[test]
fn mutated_fixtures_keep_the_layout() {
    // Deterministic mutations (cut, duplicate, insert brackets or quotes) of every fixture.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    for name in FIXTURES {
        let text = common::fixture(name);
        for _ in 0..400 {
            let mut t = text.clone().into_bytes();
            for _ in 0..1 + next(4) {
                let at = next(t.len());
                match next(4) {
                    0 => {
                        let len = next(40).min(t.len() - at);
                        t.drain(at..at + len);
                    }
                    1 => {
                        let piece: Vec<u8> = t[at..(at + next(200)).min(t.len())].to_vec();
                        t.splice(at..at, piece);
                    }
                    2 => t.insert(at, b"{}()[]\"'`:\n\t#/*"[next(15)]),
                    _ => t.splice(at..at, b"\n\n    ".iter().copied()).for_each(drop),
                }
            }
            let t = String::from_utf8_lossy(&t).into_owned();
            for budget in [8, 512] {
                let f = chunk(lang_of(name), &t, budget);
                check_layout(&t, &f);
            }
        }
    }
}
