//! Chunks source files and prints the per-file time: count, p50, p95, max, total bytes and
//! chunks per file. Files are listed on stdin (one path a line) or given as arguments; the
//! language comes from the extension. `--show` prints each file's chunks instead.
//!
//!   find crate -name '*.rs' | cargo run --release -p strata-chunker --example chunk_files
//!   cargo run -p strata-chunker --example chunk_files -- --show crate/chunker/src/lib.rs

use std::io::BufRead;
use std::time::Instant;

use strata_chunker::{chunk, CodeLang};

const BUDGET: usize = 512;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--show");
    args.retain(|a| a != "--show");
    if args.is_empty() {
        args = std::io::stdin().lock().lines().map_while(Result::ok).filter(|l| !l.is_empty()).collect();
    }
    let mut times = Vec::new();
    let (mut bytes, mut chunks, mut fallbacks, mut errors) = (0usize, 0usize, 0usize, 0usize);
    for path in &args {
        let ext = path.rsplit('.').next().unwrap_or("");
        let Some(lang) = CodeLang::from_extension(ext) else { continue };
        let Ok(raw) = std::fs::read(path) else { continue };
        let text = String::from_utf8_lossy(&raw);
        let t = Instant::now();
        let file = chunk(lang, &text, BUDGET);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        bytes += raw.len();
        chunks += file.chunks.len();
        fallbacks += file.fallback as usize;
        errors += (file.error_regions > 0) as usize;
        if show {
            println!(
                "{path}: {} chunks, {} error regions, fallback {}, imports {:?}",
                file.chunks.len(),
                file.error_regions,
                file.fallback,
                file.imports
            );
            for (i, c) in file.chunks.iter().enumerate() {
                let mut depth = 0;
                let mut p = c.parent;
                while let Some(q) = p {
                    depth += 1;
                    p = file.chunks[q as usize].parent;
                }
                println!(
                    "{:>3} {}{} {:?} [{}-{}] sig_end {}{}{} {:?}{}",
                    i,
                    "  ".repeat(depth),
                    c.kind.name(),
                    c.name,
                    c.start_line,
                    c.end_line,
                    c.signature_end_line,
                    if c.container.is_empty() { String::new() } else { format!(" in {}", c.container) },
                    if c.has_syntax_errors { " ERR" } else { "" },
                    c.signature,
                    if c.doc.is_empty() {
                        String::new()
                    } else {
                        format!(" doc {:?}", c.doc.lines().next().unwrap_or(""))
                    },
                );
            }
        }
    }
    if times.is_empty() {
        eprintln!("no files of a known language");
        return;
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
    println!(
        "{} files, {:.1} MB: p50 {:.3} ms, p95 {:.3} ms, max {:.1} ms, total {:.0} ms; {:.1} chunks per file; {} with syntax errors, {} fallbacks",
        times.len(),
        bytes as f64 / 1e6,
        q(0.5),
        q(0.95),
        sorted[sorted.len() - 1],
        times.iter().sum::<f64>(),
        chunks as f64 / times.len() as f64,
        errors,
        fallbacks
    );
}
