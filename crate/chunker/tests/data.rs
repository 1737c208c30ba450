//! JSON and YAML: a chunk per top-level key, nested further only while a value exceeds the
//! budget; an oversized array is cut into line windows under its key.

mod common;

use common::{chunk_fixture, describe, named};
use strata_chunker::{chunk, ChunkKind, CodeLang};

#[test]
fn package_json_by_key() {
    let (_, f) = chunk_fixture("package.json", CodeLang::Json, 512);
    // The opening brace joins the first key, the closing one the last.
    assert_eq!(
        describe(&f),
        [
            "key name 1-2",
            "key version 3-3",
            "key scripts 4-7",
            "key dependencies 8-11",
            "key config 12-22",
            "key files 23-24"
        ]
    );
    assert_eq!(named(&f, "scripts").signature, "\"scripts\":");
    assert_eq!(f.error_regions, 0);
}

#[test]
fn oversized_json_values_are_split_further() {
    // config (about 80 tokens) and its "large" (about 75) exceed 40; "small" does not.
    let (_, f) = chunk_fixture("package.json", CodeLang::Json, 40);
    assert_eq!(
        describe(&f),
        [
            "key name 1-2",
            "key version 3-3",
            "key scripts 4-7",
            "key dependencies 8-11",
            "key config 12-22",
            "key small <config 13-15",
            "key large <config 16-21",
            "key k01 <large 17-17",
            "key k02 <large 18-18",
            "key k03 <large 19-19",
            "key k04 <large 20-20",
            "key files 23-24",
        ]
    );
}

#[test]
fn an_oversized_array_becomes_windows_under_its_key() {
    let items: Vec<String> = (0..60).map(|i| format!("    \"item number {i:02} with some words\"")).collect();
    let text = format!("{{\n  \"name\": \"x\",\n  \"list\": [\n{}\n  ]\n}}\n", items.join(",\n"));
    let f = chunk(CodeLang::Json, &text, 64);
    common::check_layout(&text, &f);
    let list = f.chunks.iter().position(|c| c.name == "list").unwrap() as u32;
    let parts: Vec<_> = f.chunks.iter().filter(|c| c.parent == Some(list)).collect();
    assert!(parts.len() >= 4, "{:?}", describe(&f));
    assert!(parts.iter().all(|c| c.kind == ChunkKind::Lines && c.name == "list"));
    // Each window is within the budget (about 7 tokens a line).
    assert!(parts.iter().all(|c| c.end_line - c.start_line < 10), "{:?}", describe(&f));
}

#[test]
fn yaml_by_key() {
    let (_, f) = chunk_fixture("config.yaml", CodeLang::Yaml, 512);
    assert_eq!(
        describe(&f),
        ["module  1-1", "key name 2-2", "key version 3-3", "key servers 5-15", "key features 17-19"]
    );
    assert_eq!(named(&f, "servers").doc, "The servers.");
    assert_eq!(named(&f, "servers").signature, "servers:");
}

#[test]
fn a_large_yaml_mapping_is_split_by_its_keys() {
    let (_, f) = chunk_fixture("config.yaml", CodeLang::Yaml, 20);
    assert_eq!(
        describe(&f),
        [
            "module  1-1",
            "key name 2-2",
            "key version 3-3",
            "key servers 5-15",
            "key alpha <servers 7-9",
            "key beta <servers 10-12",
            "key gamma <servers 13-15",
            "key features 17-19",
        ]
    );
}

#[test]
fn keys_sharing_a_line_are_one_chunk() {
    let text = "{\n  \"outer\": {\n    \"x\": \"aaaaaaaaaaaaaaaaaaaa\", \"y\": \"bbbbbbbbbbbbbbbbbbbbbbbb\",\n    \"z\": 3\n  }\n}\n";
    let f = chunk(CodeLang::Json, text, 8);
    common::check_layout(text, &f);
    assert_eq!(describe(&f), ["key outer 1-6", "key x <outer 3-3", "key z <outer 4-4"]);
}

#[test]
fn broken_and_odd_data_files() {
    for (lang, text) in [
        (CodeLang::Json, "{\n  \"a\": 1,\n  \"b\": [1, 2,\n  \"c\": {\n}\n"),
        (CodeLang::Json, "[1, 2, 3]\n"),
        (CodeLang::Json, "\"just a string\"\n"),
        (CodeLang::Yaml, "a: 1\n---\nb: 2\n"),
        (CodeLang::Yaml, "- x\n- y\n"),
        (CodeLang::Yaml, "key: [unclosed\nother: {\n"),
    ] {
        let f = chunk(lang, text, 16);
        common::check_layout(text, &f);
        assert!(!f.chunks.is_empty(), "{text:?}");
    }
    let docs = chunk(CodeLang::Yaml, "a: 1\n---\nb: 2\n", 16);
    // The `---` line (no words) joins the key before it.
    assert_eq!(describe(&docs), ["key a 1-2", "key b 3-3"]);
    let broken = chunk(CodeLang::Json, "{\n  \"a\": 1,\n  \"b\": [1, 2,\n  \"c\": {\n}\n", 16);
    assert!(broken.error_regions > 0 && broken.chunks.iter().any(|c| c.has_syntax_errors));
}
