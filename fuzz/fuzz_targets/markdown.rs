//! The Markdown parser and the section builder on arbitrary bytes (invalid UTF-8, deep
//! nesting, enormous lines, frontmatter edge cases), then the same bytes as a note through
//! the engine: parsed, split, indexed, read back and searched. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_core::api::{NoteInput, ReadRequest, SearchRequest, UpdateBatch};
use strata_core::sections::{build_sections_with, SplitConfig};
use strata_core::{markdown, CoreConfig, Engine};

fuzz_target!(|data: &[u8]| {
    let decoded = markdown::decode(data);
    let parsed = markdown::parse("fuzz/note.md", &decoded.text);
    let cfg = CoreConfig::default();
    let sections = build_sections_with(
        &decoded.text,
        &parsed.headings,
        parsed.line_count,
        parsed.body_start_line,
        SplitConfig { budget: cfg.chunk_budget, min: cfg.chunk_min },
        None,
    );
    for s in &sections {
        assert!(s.start_line <= s.end_line, "section lines {}..{}", s.start_line, s.end_line);
    }
    let mut e = Engine::create(cfg).unwrap();
    let note = NoteInput { path: "fuzz/note.md".into(), bytes: data.to_vec(), mtime: 0.0, ctime: None };
    e.update(UpdateBatch { upserts: vec![note], ..Default::default() }).unwrap();
    if let Some(info) = e.note("fuzz/note.md") {
        let read = ReadRequest { path: info.path.clone(), bytes: Some(data.to_vec()), ..Default::default() };
        let _ = e.read(&read);
        let title = info.title.clone();
        let _ = e.search(&SearchRequest { query: title, ..Default::default() }).unwrap();
    }
});
