//! Heap of a full index and of an open, natively, as the hosts run them (`strata index`, the
//! plugin's reconcile): batches of 200 notes uncommitted, the index persisted every 64 MB of
//! input and every 10 s, and at the end; then, in a second process, the open of that folder and
//! a search. Prints the live and peak heap of each phase (a counting allocator: exact bytes
//! asked for, whatever the allocator keeps) and the process's peak RSS.
//! `cargo run --release -p strata-core --example index_memory -- index <vault> <index dir>`,
//! then `... -- open <index dir>`.
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use strata_core::api::{NoteInput, UpdateBatch};
use strata_core::{CoreConfig, Engine};

mod common;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        // Counted as the allocator does it at worst: the new block, then the old one freed.
        let q = System.realloc(p, l, size);
        if !q.is_null() {
            let now = LIVE.fetch_add(size, Relaxed) + size;
            PEAK.fetch_max(now, Relaxed);
            LIVE.fetch_sub(l.size(), Relaxed);
        }
        q
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MB: f64 = (1 << 20) as f64;

fn hwm_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1024.0
}

/// Prints the phase's peak and what stays live after it, and starts the next phase's peak.
fn phase(what: &str, t: Instant) {
    println!(
        "{what}: {:.1} s, heap live {:.0} MB, phase peak {:.0} MB, process peak RSS {:.0} MB",
        t.elapsed().as_secs_f64(),
        LIVE.load(Relaxed) as f64 / MB,
        PEAK.load(Relaxed) as f64 / MB,
        hwm_mb()
    );
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

fn persist(engine: &mut Engine, dir: &Path) -> u64 {
    let out = engine.flush().unwrap();
    for w in &out.writes {
        let p = dir.join(&w.name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, &w.bytes).unwrap();
    }
    for d in &out.deletes {
        let _ = std::fs::remove_file(dir.join(d));
    }
    out.bytes_written
}

fn index(root: &Path, dir: &Path) {
    let mut paths = Vec::new();
    common::paths_with(root, root, &|name| name.ends_with(".md"), &mut paths);
    paths.sort();
    let mut engine = Engine::create(CoreConfig::default()).unwrap();
    let t = Instant::now();
    let (mut since_bytes, mut last) = (0usize, Instant::now());
    let mut flushes = 0;
    for chunk in paths.chunks(200) {
        let upserts: Vec<NoteInput> = chunk
            .iter()
            .map(|p| NoteInput {
                path: p.clone(),
                bytes: std::fs::read(root.join(p)).unwrap(),
                mtime: 0.0,
                ctime: None,
            })
            .collect();
        since_bytes += upserts.iter().map(|n| n.bytes.len()).sum::<usize>();
        engine.update(UpdateBatch { upserts, commit: false, ..Default::default() }).unwrap();
        if since_bytes >= 64 << 20 || last.elapsed().as_secs_f64() >= 10.0 {
            let written = persist(&mut engine, dir);
            flushes += 1;
            phase(&format!("persist {flushes} ({:.0} MB written)", written as f64 / MB), t);
            since_bytes = 0;
            last = Instant::now();
        }
    }
    let written = persist(&mut engine, dir);
    phase(&format!("last persist ({:.0} MB written), {} notes", written as f64 / MB, paths.len()), t);
}

fn open(dir: &Path) {
    let files = common::index_files(dir);
    let t = Instant::now();
    phase("files read", t);
    let mut engine = Engine::open(CoreConfig::default(), files);
    phase(&format!("open ({} notes, rebuilt={})", engine.status().notes, engine.open_report().rebuilt), t);
    let req = strata_core::api::SearchRequest { query: "sync settings".into(), ..Default::default() };
    let hits = engine.search(&req).unwrap().hits.len();
    phase(&format!("first search ({hits} hits)"), t);
    let built = engine.warm_queries();
    phase(&format!("warm queries ({built} columns)"), t);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match (args.get(1).map(String::as_str), args.get(2), args.get(3)) {
        (Some("index"), Some(vault), Some(dir)) => index(Path::new(vault), Path::new(dir)),
        (Some("open"), Some(dir), _) => open(Path::new(dir)),
        _ => eprintln!("usage: index_memory index <vault> <index dir> | open <index dir>"),
    }
}
