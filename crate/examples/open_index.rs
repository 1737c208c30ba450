//! Native cold opens of a persisted index folder, for profiling the open path:
//! `cargo run --release -p strata-core --no-default-features --example open_index -- <index dir> [runs]`.
use std::path::Path;
use std::time::Instant;

use strata_core::api::IndexFile;
use strata_core::{CoreConfig, Engine};

fn read_dir(dir: &Path) -> Vec<IndexFile> {
    let mut files = Vec::new();
    for sub in ["", "lex", "cat", "vec"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else { continue };
        for e in rd.flatten() {
            if e.file_type().map(|t| t.is_file()).unwrap_or(false) {
                let leaf = e.file_name().to_string_lossy().to_string();
                let name = if sub.is_empty() { leaf } else { format!("{sub}/{leaf}") };
                files.push(IndexFile { name, bytes: std::fs::read(e.path()).unwrap() });
            }
        }
    }
    files
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).expect("usage: open_index <index dir> [runs]"));
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    for _ in 0..runs {
        let files = read_dir(dir);
        let t = Instant::now();
        let e = Engine::open(CoreConfig::default(), files);
        let r = e.open_report();
        println!("open {:.1} ms (rebuilt={}) {:?}", t.elapsed().as_secs_f64() * 1e3, r.rebuilt, r.timings);
    }
}
