//! Writes a frozen index fixture of this build's persisted format (tests/fixtures/formats):
//! the fixture vault indexed and embedded with the tiny fixture embedder, flushed once.
//! `cargo run -p strata-core --no-default-features --example make_format_fixture -- \
//!    tests/fixtures/vault tests/fixtures/formats/v<N>`
//! Run it when the format version changes, to freeze the new version beside the old ones.

use std::collections::HashMap;
use std::path::Path;

use strata_core::api::{NoteInput, NoteTexts, UpdateBatch};
use strata_core::{CoreConfig, Engine};

#[path = "../tests/common/fixture_embedder.rs"]
mod fixture_embedder;

fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("vault folder").flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read(&p).unwrap()));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (vault, out_dir) = match (args.get(1), args.get(2)) {
        (Some(v), Some(o)) => (Path::new(v), Path::new(o)),
        _ => panic!("usage: make_format_fixture <vault> <out dir>"),
    };
    let mut notes = Vec::new();
    walk(vault, vault, &mut notes);
    let mut engine = Engine::create(CoreConfig::default()).unwrap();
    let upserts = notes
        .iter()
        .map(|(p, b)| NoteInput {
            path: p.clone(),
            bytes: b.clone(),
            mtime: 1_700_000_000_000.0,
            ctime: Some(1_600_000_000_000.0),
        })
        .collect();
    engine.update(UpdateBatch { upserts, ..Default::default() }).unwrap();
    engine.use_embedder(Box::new(fixture_embedder::FixtureEmbedder::new())).unwrap();
    let bytes: HashMap<&str, &[u8]> = notes.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
    loop {
        let needs = engine.embed_needs(64).unwrap();
        let texts: NoteTexts = needs
            .iter()
            .map(|p| (p.clone(), bytes.get(p.as_str()).map(|b| serde_bytes::ByteBuf::from(b.to_vec()))))
            .collect();
        let p = engine.embed_step(64, &texts).unwrap();
        if p.embedded == 0 && p.dropped == 0 {
            assert_eq!(p.done, p.total, "everything embedded");
            break;
        }
    }
    let out = engine.flush().unwrap();
    std::fs::create_dir_all(out_dir).unwrap();
    for w in &out.writes {
        let p = out_dir.join(&w.name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, &w.bytes).unwrap();
    }
    let s = engine.status();
    println!(
        "format {}: {} notes, {} sections, {} vectors, {} files, {} bytes -> {}",
        s.format_version,
        s.notes,
        s.sections,
        s.vectors,
        out.writes.len(),
        out.bytes_written,
        out_dir.display()
    );
}
