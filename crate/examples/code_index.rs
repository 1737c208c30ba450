//! The cost of chunking code by its syntax: a folder of source files (and notes) indexed with
//! syntax-aware chunks, in line windows first (a bulk index, `defer_code`) and then given their
//! definitions by the code pass (steps of 64 files), as plain text (the Markdown path, what a code
//! extension added to the note extensions gets) and as one section per file, alternated, medians
//! of the update + commit time (and, for the bulk index, of the time until every definition is
//! indexed); then the chunker's time per file (p50/p95/max) and what it made.
//! `cargo run --release -p strata-core --example code_index -- <folder> [rounds]`
use std::path::Path;
use std::time::Instant;

use strata_core::api::{NoteInput, NoteTexts, UpdateBatch};
use strata_core::{CoreConfig, Engine};

mod common;
use common::walk_with;

/// Indexes `files` in batches of 200; with `defer`, as a bulk index followed by the code pass.
/// Returns the time until searchable, until every definition is indexed, the sections written
/// and the files skipped.
fn index(files: &[(String, Vec<u8>)], config: &CoreConfig, defer: bool) -> (f64, f64, usize, usize) {
    let mut engine = Engine::create(config.clone()).unwrap();
    let t = Instant::now();
    let (mut sections, mut skipped) = (0, 0);
    let mut batches = files.chunks(200).peekable();
    while let Some(batch) = batches.next() {
        let upserts = batch
            .iter()
            .map(|(p, b)| NoteInput { path: p.clone(), bytes: b.clone(), mtime: 0.0, ctime: None })
            .collect();
        let commit = batches.peek().is_none();
        let r = engine.update(UpdateBatch { upserts, commit, defer_code: defer, ..Default::default() }).unwrap();
        sections += r.sections;
        skipped += r.skipped.len();
    }
    let searchable = t.elapsed().as_secs_f64();
    while defer && engine.code_pass_progress().left > 0 {
        let needs = engine.code_pass_needs(64);
        let texts: NoteTexts = files
            .iter()
            .filter(|(p, _)| needs.contains(p))
            .map(|(p, b)| (p.clone(), Some(serde_bytes::ByteBuf::from(b.clone()))))
            .collect();
        engine.code_pass_step(64, &texts).unwrap();
    }
    (searchable, t.elapsed().as_secs_f64(), sections, skipped)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = Path::new(args.get(1).expect("usage: code_index <folder> [rounds]"));
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let config = CoreConfig::default();
    let wanted = |name: &str| {
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        ext == "md" || config.code_extensions.iter().any(|e| e == ext)
    };
    let mut files = Vec::new();
    walk_with(root, root, &wanted, &mut files);
    // The files the default settings index (dependency and build folders skipped), the same set
    // in every mode.
    files.retain(|(p, _)| strata_core::paths::should_index(p, &config));
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    println!("{} files, {:.1} MB", files.len(), bytes as f64 / 1e6);
    let mut plain = config.clone();
    plain.code_enabled = false;
    plain.extensions.extend(config.code_extensions.iter().cloned());
    let modes = [
        ("syntax chunks", config.clone(), false),
        ("line windows, then the code pass", config.clone(), true),
        ("plain text (Markdown path)", plain, false),
        ("one section per file", CoreConfig { code_syntax: false, ..config.clone() }, false),
    ];
    let mut times = vec![Vec::new(); modes.len()];
    let mut defined = vec![Vec::new(); modes.len()];
    let mut counts = vec![(0, 0); modes.len()];
    for _ in 0..rounds.max(1) {
        if rounds == 0 {
            break;
        }
        for (m, (_, c, defer)) in modes.iter().enumerate() {
            let (t, all, n, s) = index(&files, c, *defer);
            times[m].push(t);
            defined[m].push(all);
            counts[m] = (n, s);
        }
    }
    let base = if rounds == 0 { 0.0 } else { median(&mut times[0].clone()) };
    let plain_t = if rounds == 0 { 0.0 } else { median(&mut times[2].clone()) };
    for (m, (name, _, defer)) in modes.iter().enumerate().filter(|_| rounds > 0) {
        let t = median(&mut times[m]);
        let all =
            if *defer { format!(", every definition at {:.2} s", median(&mut defined[m])) } else { String::new() };
        println!(
            "{name}: median {t:.2} s{all} ({} sections, {} skipped); syntax chunks {:+.1} % over it; {:.2}× plain text",
            counts[m].0,
            counts[m].1,
            (base / t - 1.0) * 100.0,
            t / plain_t
        );
    }
    // The chunker alone, per file.
    let mut times = Vec::new();
    let mut slow = Vec::new();
    let (mut chunks, mut errors, mut fallback) = (0, 0, 0);
    for (path, bytes) in &files {
        let Some(lang) = strata_core::paths::code_language(path, &config) else { continue };
        let text = String::from_utf8_lossy(bytes);
        let t = Instant::now();
        let f = strata_chunker::chunk(lang, &text, config.chunk_budget);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let longest = text.lines().map(str::len).max().unwrap_or(0);
        slow.push((t.elapsed().as_secs_f64() * 1e3, path.clone(), text.len(), longest));
        chunks += f.chunks.len();
        errors += usize::from(f.error_regions > 0);
        fallback += usize::from(f.fallback);
    }
    let n = times.len();
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((n as f64 * p) as usize).min(n - 1)];
    println!(
        "chunker: {n} code files, per file p50 {:.2} ms, p95 {:.2} ms, max {:.1} ms, total {:.2} s; {chunks} chunks, {errors} files with syntax errors, {fallback} in line windows",
        pct(0.5),
        pct(0.95),
        times[n - 1],
        times.iter().sum::<f64>() / 1e3
    );
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = slow.iter().map(|s| s.0).sum();
    let long_lines: f64 = slow.iter().filter(|s| s.3 > 1000).map(|s| s.0).sum();
    println!(
        "files with a line over 1,000 bytes: {} of {n}, {:.0} % of the chunker's time",
        slow.iter().filter(|s| s.3 > 1000).count(),
        long_lines / total * 100.0
    );
    for (ms, path, size, longest) in slow.iter().take(5) {
        println!("  {ms:.1} ms  {path}  {size} bytes, longest line {longest}");
    }
}
