//! Native cold opens of a persisted index folder, for profiling the open path:
//! `cargo run --release -p strata-core --no-default-features --example open_index -- <index dir> [runs]`.
use std::path::Path;
use std::time::Instant;

use strata_core::{CoreConfig, Engine};

mod common;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).expect("usage: open_index <index dir> [runs]"));
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    for _ in 0..runs {
        let files = common::index_files(dir);
        let t = Instant::now();
        let e = Engine::open(CoreConfig::default(), files);
        let r = e.open_report();
        println!("open {:.1} ms (rebuilt={}) {:?}", t.elapsed().as_secs_f64() * 1e3, r.rebuilt, r.timings);
    }
}
