//! How far lexical scores and rankings drift from a fresh rebuild as notes are edited one by
//! one: the lexical index keeps replaced documents in its term statistics until their segment
//! is merged (a segment is rewritten once more than `MAX_DELETED_SHARE` of it is deleted).
//! `cargo run --release -p strata-core --example bm25_drift -- <vault> <eval dir> [edits] [every] [hot] [seed]`
//!
//! Each edit appends a line to one note picked at random (seeded; with `hot` > 0, 80 % of the
//! edits go to `hot` notes, as when a few notes are worked on) and is committed and flushed
//! alone, as the plugin does for a change. Every `every` edits, each query of the eval files
//! (`*.jsonl`, field `query`) is run lexically (top 10) on the edited index and on a fresh
//! index of the same notes; printed: the deleted share, the score drift of the sections both
//! top 10s share, how many queries change their first hit (apart: a first hit tied with the
//! second) or their top-10 order, the share of the pairs of hits both top 10s hold that are in
//! the other order (tied pairs apart), the overlap of the top 10s. Then the cost of the merges
//! seen: edits that rewrote a large segment, their time and bytes written, against an ordinary
//! edit's.
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use strata_core::api::{NoteInput, SearchMode, SearchRequest, UpdateBatch};
use strata_core::{CoreConfig, Engine};

mod common;
use common::walk;

fn queries(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files.iter().filter(|f| f.extension().is_some_and(|x| x == "jsonl")) {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                if let Some(q) = v.get("query").and_then(|q| q.as_str()) {
                    out.push(q.to_string());
                }
            }
        }
    }
    out
}

fn index(files: &[(String, Vec<u8>)]) -> Engine {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    let mut chunks = files.chunks(500).peekable();
    while let Some(chunk) = chunks.next() {
        let upserts = chunk
            .iter()
            .map(|(p, b)| NoteInput { path: p.clone(), bytes: b.clone(), mtime: 0.0, ctime: None })
            .collect();
        e.update(UpdateBatch { upserts, commit: chunks.peek().is_none(), ..Default::default() }).unwrap();
    }
    e.flush().unwrap();
    e
}

fn top(e: &mut Engine, q: &str) -> Vec<(String, f32)> {
    let req = SearchRequest { query: q.into(), k: Some(10), mode: Some(SearchMode::Lexical), ..Default::default() };
    e.search(&req).unwrap().hits.into_iter().map(|h| (h.section_id, h.score)).collect()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn compare(e: &mut Engine, files: &[(String, Vec<u8>)], qs: &[String], edits: usize, deleted_share: f64) {
    let t = Instant::now();
    let mut fresh = index(files);
    let rebuild_s = t.elapsed().as_secs_f64();
    let (mut drift, mut top1, mut order, mut overlap, mut answered) = (Vec::new(), 0, 0, 0.0, 0);
    // Pairs and first hits whose fresh scores tie are ordered by where the documents sit in
    // the segments: counted apart.
    let (mut pairs, mut inverted, mut tied, mut top1_tied) = (0usize, 0usize, 0usize, 0usize);
    for q in qs {
        let a = top(e, q);
        let b = top(&mut fresh, q);
        if b.is_empty() {
            continue;
        }
        answered += 1;
        for (id, sb) in &b {
            if let Some((_, sa)) = a.iter().find(|(i, _)| i == id) {
                drift.push(((sa - sb) / sb).abs() as f64 * 100.0);
            }
        }
        let changed = a.first().map(|h| &h.0) != b.first().map(|h| &h.0);
        let tie = b.len() > 1 && (b[0].1 - b[1].1).abs() <= 1e-6 * b[0].1.abs();
        top1 += usize::from(changed && !tie);
        top1_tied += usize::from(changed && tie);
        let ids = |v: &[(String, f32)]| v.iter().map(|h| h.0.clone()).collect::<Vec<_>>();
        order += usize::from(ids(&a) != ids(&b));
        let sa: HashSet<String> = ids(&a).into_iter().collect();
        overlap += b.iter().filter(|h| sa.contains(&h.0)).count() as f64 / b.len() as f64;
        let rank_a = |id: &String| a.iter().position(|h| &h.0 == id);
        let both: Vec<(usize, f32)> = b.iter().filter_map(|h| rank_a(&h.0).map(|r| (r, h.1))).collect();
        for i in 0..both.len() {
            for j in i + 1..both.len() {
                if (both[i].1 - both[j].1).abs() <= 1e-6 * both[i].1.abs() {
                    tied += 1;
                    continue;
                }
                pairs += 1;
                inverted += usize::from(both[i].0 > both[j].0);
            }
        }
    }
    let mean = drift.iter().sum::<f64>() / drift.len().max(1) as f64;
    println!(
        "{edits:>5} edits | deleted {:>5.1} % | score drift mean {mean:.2} %, p95 {:.2} %, max {:.2} % | top-1 changed {top1}/{answered} (+{top1_tied} tied), top-10 order changed {order}/{answered}, pairs inverted {:.2} % (+{tied} tied pairs) | overlap@10 {:.3} | rebuild {rebuild_s:.1} s",
        deleted_share * 100.0,
        percentile(&mut drift.clone(), 0.95),
        percentile(&mut drift, 1.0),
        inverted as f64 * 100.0 / pairs.max(1) as f64,
        overlap / answered.max(1) as f64,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = Path::new(args.get(1).map(String::as_str).unwrap_or("../shared/vaults/obsidian-help"));
    let eval = Path::new(args.get(2).map(String::as_str).unwrap_or("../shared/eval"));
    let edits: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let every: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(250);
    let hot: usize = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut rng = Rng(args.get(6).and_then(|s| s.parse().ok()).unwrap_or(0x5eed));
    let mut files = Vec::new();
    walk(root, root, &mut files);
    files.sort();
    let qs = queries(eval);
    let t = Instant::now();
    let mut e = index(&files);
    let s = e.status();
    println!(
        "{} notes, {} sections, {} queries; indexed in {:.1} s, {} segments, {:.1} MB",
        files.len(),
        s.sections,
        qs.len(),
        t.elapsed().as_secs_f64(),
        s.segments,
        s.index_bytes as f64 / 1e6
    );
    compare(&mut e, &files, &qs, 0, 0.0);
    // Per edit: (ms, bytes written, deleted docs before, after).
    let mut costs: Vec<(f64, u64, u64, u64)> = Vec::new();
    let mut touched = HashSet::new();
    for i in 1..=edits {
        let n = if hot > 0 && rng.next() % 10 < 8 {
            (rng.next() % hot as u64) as usize * (files.len() / hot)
        } else {
            (rng.next() % files.len() as u64) as usize
        };
        touched.insert(n);
        let words = ["sync", "vault", "plugin", "note", "link", "search", "theme", "file"];
        let w = words[(rng.next() % words.len() as u64) as usize];
        files[n].1.extend_from_slice(format!("\n\nEdit {i}: more about {w}.\n").as_bytes());
        let before = e.status().deleted_docs;
        let t = Instant::now();
        let upserts =
            vec![NoteInput { path: files[n].0.clone(), bytes: files[n].1.clone(), mtime: i as f64, ctime: None }];
        e.update(UpdateBatch { upserts, ..Default::default() }).unwrap();
        let out = e.flush().unwrap();
        costs.push((t.elapsed().as_secs_f64() * 1e3, out.bytes_written, before, e.status().deleted_docs));
        if i % every == 0 {
            let s = e.status();
            let share = s.deleted_docs as f64 / (s.deleted_docs as f64 + s.sections as f64);
            compare(&mut e, &files, &qs, i, share);
            println!("      {} distinct notes edited, {} segments", touched.len(), s.segments);
        }
    }
    // A large drop of deleted documents: a large segment rewritten.
    let big: Vec<_> = costs.iter().enumerate().filter(|(_, c)| c.2 > 100 && c.3 * 2 < c.2).collect();
    let mut ms: Vec<f64> = costs.iter().map(|c| c.0).collect();
    let bytes: Vec<f64> = costs.iter().map(|c| c.1 as f64).collect();
    println!(
        "per edit (update + flush): median {:.1} ms, p95 {:.1} ms, max {:.1} ms; written median {:.0} KB, p95 {:.0} KB, mean {:.0} KB",
        percentile(&mut ms.clone(), 0.5),
        percentile(&mut ms.clone(), 0.95),
        percentile(&mut ms, 1.0),
        percentile(&mut bytes.clone(), 0.5) / 1e3,
        percentile(&mut bytes.clone(), 0.95) / 1e3,
        bytes.iter().sum::<f64>() / bytes.len() as f64 / 1e3,
    );
    for (i, c) in big {
        println!(
            "rewrite at edit {}: {:.0} ms, {:.1} MB written, deleted docs {} -> {}",
            i + 1,
            c.0,
            c.1 as f64 / 1e6,
            c.2,
            c.3
        );
    }
}
