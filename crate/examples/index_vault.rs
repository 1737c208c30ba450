//! Native indexing run over a vault folder, for profiling the core without Node:
//! `cargo run --release -p strata-core --example index_vault -- <vault> [batch]`.
use std::path::Path;
use std::time::Instant;

use strata_core::api::{NoteInput, UpdateBatch};
use strata_core::{CoreConfig, Engine};

fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with('.') {
            continue;
        }
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            walk(&p, root, out);
        } else if ft.is_file() && name.ends_with(".md") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read(&p).unwrap_or_default()));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = Path::new(args.get(1).map(String::as_str).unwrap_or("../shared/vaults/obsidian-help"));
    let batch: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let mut files = Vec::new();
    walk(root, root, &mut files);
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    println!("{} notes, {:.1} MB", files.len(), bytes as f64 / 1e6);
    let mut engine = Engine::create(CoreConfig::default()).unwrap();
    let t = Instant::now();
    let n = files.len();
    let mut chunks = files.chunks(batch).peekable();
    while let Some(chunk) = chunks.next() {
        let upserts = chunk.iter().map(|(p, b)| NoteInput { path: p.clone(), bytes: b.clone(), mtime: 0.0 }).collect();
        engine.update(UpdateBatch { upserts, commit: chunks.peek().is_none(), ..Default::default() }).unwrap();
    }
    println!("update: {:.2} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let out = engine.flush().unwrap();
    println!(
        "flush: {:.2} s, {:.1} MB written in {} files",
        t.elapsed().as_secs_f64(),
        out.bytes_written as f64 / 1e6,
        out.writes.len()
    );
    if let Some(dir) = args.get(3) {
        // Write the index folder, then time a cold open + first query from it.
        for w in &out.writes {
            let p = Path::new(dir).join(&w.name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, &w.bytes).unwrap();
        }
        let t = Instant::now();
        let mut files = Vec::new();
        for sub in ["", "lex", "cat", "vec"] {
            let Ok(rd) = std::fs::read_dir(Path::new(dir).join(sub)) else { continue };
            for e in rd.flatten() {
                if e.file_type().map(|t| t.is_file()).unwrap_or(false) {
                    let name = if sub.is_empty() {
                        e.file_name().to_string_lossy().to_string()
                    } else {
                        format!("{sub}/{}", e.file_name().to_string_lossy())
                    };
                    files.push(strata_core::api::IndexFile { name, bytes: std::fs::read(e.path()).unwrap() });
                }
            }
        }
        let read = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut e2 = Engine::open(CoreConfig::default(), files);
        let open = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let query = "sync settings";
        let r = e2.search(&strata_core::api::SearchRequest { query: query.into(), ..Default::default() }).unwrap();
        let searched = t.elapsed().as_secs_f64();
        // Snippets as a host makes them: the hit notes read from the vault (the index stores no text).
        let texts: strata_core::api::NoteTexts = r
            .hits
            .iter()
            .map(|h| (h.path.clone(), std::fs::read(root.join(&h.path)).ok().map(serde_bytes::ByteBuf::from)))
            .collect();
        let hits = r
            .hits
            .iter()
            .map(|h| strata_core::api::SnippetHit { path: h.path.clone(), section_id: h.section_id.clone() })
            .collect();
        let snippets =
            e2.snippets(&strata_core::api::SnippetRequest { query: query.into(), queries: None, hits, texts }).unwrap();
        println!(
            "cold open: read {:.0} ms, open {:.0} ms, first query {:.1} ms ({} hits), + reads and snippets {:.1} ms ({} snippets), rebuilt={}",
            read * 1e3,
            open * 1e3,
            searched * 1e3,
            r.hits.len(),
            (t.elapsed().as_secs_f64() - searched) * 1e3,
            snippets.iter().flatten().count(),
            e2.open_report().rebuilt
        );
    }
    println!("{:?}, {} notes", engine.status(), n);
}
