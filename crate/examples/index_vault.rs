//! Native indexing run over a vault folder, for profiling the core without Node:
//! `cargo run --release -p strata-core --example index_vault -- <vault> [batch]`; then the
//! structured queries' latency (tasks, property expressions) over the indexed vault.
use std::path::Path;
use std::time::Instant;

use strata_core::api::{NoteInput, UpdateBatch};
use strata_core::{CoreConfig, Engine};

mod common;
use common::walk;

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
        let upserts = chunk
            .iter()
            .map(|(p, b)| NoteInput { path: p.clone(), bytes: b.clone(), mtime: 0.0, ctime: None })
            .collect();
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
        let files = common::index_files(Path::new(dir));
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
        first_query_after_open(&e2, Path::new(dir));
    }
    println!("{:?}, {} notes", engine.status(), n);
    structured_timings(&engine);
    query_after_update_timings(&mut engine, &files);
    where_timings(&mut engine);
}

/// The first property query after an open: on `opened`, decoding the property it names; on a
/// second open of `dir`, reading the columns a warm-up built first (`Engine::warm_queries`,
/// which the hosts call when idle after the open).
fn first_query_after_open(opened: &Engine, dir: &Path) {
    let r = strata_core::api::QueryRequest { where_: Some("permalink exists".into()), ..Default::default() };
    let t = Instant::now();
    let total = opened.query(&r).unwrap().total;
    let lazy = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let warmed = Engine::open(CoreConfig::default(), common::index_files(dir));
    let open = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let built = warmed.warm_queries();
    let warm = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    warmed.query(&r).unwrap();
    let first = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "first property query after an open ({total} matches): {lazy:.1} ms; after a warm-up ({built} columns, {warm:.0} ms, open {open:.0} ms) {first:.1} ms"
    );
}

/// This thread's CPU time in ms (Linux: /proc/thread-self/schedstat), which a loaded machine
/// does not stretch as it does wall time; None elsewhere.
fn thread_cpu_ms() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e6)
}

/// The first property query after a one-note edit, which finds the properties it names
/// decoded before the edit: 15 edits of notes across the vault, each followed by the same query
/// twice (the second reads what the first left), with the edit's own time, and the first
/// query's CPU time.
fn query_after_update_timings(engine: &mut Engine, files: &[(String, Vec<u8>)]) {
    use strata_core::api::QueryRequest;
    let r = QueryRequest { where_: Some("permalink exists".into()), ..Default::default() };
    engine.query(&r).unwrap();
    let (mut edits, mut firsts, mut seconds, mut cpu) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut total = 0;
    for i in 0..15 {
        let (path, bytes) = &files[(i * 7919) % files.len()];
        let mut bytes = bytes.clone();
        bytes.extend_from_slice(format!("\n\nedited {i}\n").as_bytes());
        let t = Instant::now();
        let note = NoteInput { path: path.clone(), bytes, mtime: 1.0 + i as f64, ctime: None };
        engine.update(UpdateBatch { upserts: vec![note], commit: true, ..Default::default() }).unwrap();
        edits.push(t.elapsed().as_secs_f64() * 1e3);
        let (t, c) = (Instant::now(), thread_cpu_ms());
        total = engine.query(&r).unwrap().total;
        firsts.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(a), Some(b)) = (c, thread_cpu_ms()) {
            cpu.push(b - a);
        }
        let t = Instant::now();
        engine.query(&r).unwrap();
        seconds.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let cpu = if cpu.is_empty() { String::new() } else { format!(", first query CPU p50 {:.2} ms", median(cpu)) };
    println!(
        "query after a one-note edit ({total} matches): edit p50 {:.2} ms, first query p50 {:.2} ms (max {:.2}), next query p50 {:.2} ms{cpu}",
        median(edits),
        median(firsts.clone()),
        firsts.iter().cloned().fold(0.0, f64::max),
        median(seconds)
    );
}

/// Lexical searches with a `where` filter: each 50 times, the first run, p50 and p95. The last
/// expression matches no note, the worst case: every candidate is checked, tantivy asked again
/// until it has no more.
fn where_timings(engine: &mut Engine) {
    use strata_core::api::{SearchFilters, SearchMode, SearchRequest};
    for expr in
        ["", "permalink exists", "file.folder contains en", "aliases exists AND file.size > 1000", "nothing exists"]
    {
        let req = SearchRequest {
            query: "sync settings".into(),
            mode: Some(SearchMode::Lexical),
            k: Some(30),
            filters: Some(SearchFilters { where_: Some(expr.into()), ..Default::default() }),
            ..Default::default()
        };
        let mut times = Vec::new();
        let mut hits = 0;
        for _ in 0..50 {
            let t = Instant::now();
            hits = engine.search(&req).unwrap().hits.len();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let first = times[0];
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "search where {expr:?}: {hits} hits, first {first:.2} ms, p50 {:.2} ms, p95 {:.2} ms",
            at(0.5),
            at(0.95)
        );
    }
}

/// The structured queries' latency over the indexed vault: each request 50 times, the first
/// run, p50 and p95.
fn structured_timings(engine: &Engine) {
    use strata_core::api::{DateRange, QueryRequest, TaskGroupBy, TaskSort, TaskWhen, TasksRequest};
    let today = Some("2026-11-26".to_string());
    let tasks = |r: TasksRequest| TasksRequest { today: today.clone(), ..r };
    let requests: Vec<(&str, TasksRequest)> = vec![
        ("tasks: every task", tasks(TasksRequest::default())),
        (
            "tasks: open, by due",
            tasks(TasksRequest { status: Some(vec!["open".into()]), sort: Some(TaskSort::Due), ..Default::default() }),
        ),
        ("tasks: overdue", tasks(TasksRequest { when: Some(TaskWhen::Overdue), ..Default::default() })),
        (
            "tasks: text, grouped by note",
            tasks(TasksRequest { text: Some("task".into()), group_by: Some(TaskGroupBy::Note), ..Default::default() }),
        ),
        (
            "tasks: due range + where",
            tasks(TasksRequest {
                due: Some(DateRange { after: Some("2020-01-01".into()), ..Default::default() }),
                where_: Some("file.folder contains en".into()),
                ..Default::default()
            }),
        ),
    ];
    let p = |mut v: Vec<f64>, q: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * q).round() as usize]
    };
    // The first run decodes the properties the request names; the next ones read them.
    let line = |what: &str, total: usize, times: Vec<f64>| {
        let first = times[0];
        println!(
            "{what}: {total} matches, first {first:.2} ms, p50 {:.2} ms, p95 {:.2} ms",
            p(times.clone(), 0.5),
            p(times, 0.95)
        );
    };
    for (what, r) in requests {
        let mut times = Vec::new();
        let mut total = 0;
        for _ in 0..50 {
            let t = Instant::now();
            total = engine.tasks(&r).unwrap().total;
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        line(what, total, times);
    }
    for (what, expr, sort) in [
        ("query: one property", "permalink exists", None),
        (
            "query: mixed, sorted",
            "(aliases exists OR file.tags contains plugin) AND file.size > 1000",
            Some("-file.size"),
        ),
        ("query: every note by title", "file.name != zzz", Some("file.title")),
    ] {
        let r = QueryRequest {
            where_: Some(expr.into()),
            sort: sort.map(Into::into),
            today: today.clone(),
            ..Default::default()
        };
        let mut times = Vec::new();
        let mut total = 0;
        for _ in 0..50 {
            let t = Instant::now();
            total = engine.query(&r).unwrap().total;
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        line(what, total, times);
    }
}
