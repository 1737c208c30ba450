//! Semantic and hybrid search through the engine, with the real model when it was
//! fetched (scripts/fetch-model.sh); each test says SKIP and returns without it.

use super::*;

fn model() -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = std::env::var("STRATA_MODEL_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2"));
    match (std::fs::read(dir.join("model.onnx")), std::fs::read(dir.join("tokenizer.json"))) {
        (Ok(m), Ok(t)) => Some((m, t)),
        _ => {
            println!("SKIP: no model in {} (run scripts/fetch-model.sh)", dir.display());
            None
        }
    }
}

fn note(path: &str, text: &str) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime: 1000.0, ctime: None }
}

fn vault() -> Vec<NoteInput> {
    vec![
        note("Cooking/Bread.md", "# Sourdough bread\n\nMix flour, water and starter. Let the dough rise overnight, then bake in a hot oven.\n"),
        note("Travel/Japan.md", "# Trip to Kyoto\n\nWe visited temples and shrines, and took the bullet train from Tokyo.\n"),
        note("Tech/Backups.md", "# Backups\n\nCopy the vault folder to an external drive every week so no note is ever lost.\n"),
        note("Health/Running.md", "# Running plan\n\nJog three times a week and stretch afterwards to avoid injuries.\n"),
        note("Tech/Sync.md", "# Sync\n\nKeep notes identical on phone and laptop with end-to-end encrypted sync.\n"),
    ]
}

fn embed_all(e: &mut Engine) -> EmbedProgress {
    let mut last = e.embed_progress();
    for _ in 0..1000 {
        last = step(e);
        if last.done == last.total {
            break;
        }
    }
    last
}

/// One embedding step as a host makes it, with the notes' bytes (the index stores no text).
/// The "disk": every indexed note whose content is one of the test's (a moved note at its new path).
fn step(e: &mut Engine) -> EmbedProgress {
    let mut contents = vault();
    contents.push(running_edit());
    let notes: Vec<NoteInput> = e
        .paths()
        .into_iter()
        .filter_map(|path| {
            let hash = e.note(&path)?.hash;
            let n = contents.iter().find(|n| crate::hash::sha256_hex(&n.bytes) == hash)?;
            Some(NoteInput { path, ..n.clone() })
        })
        .collect();
    e.embed_step(8, &super::texts(&notes)).unwrap()
}

fn running_edit() -> NoteInput {
    note("Health/Running.md", "# Running plan\n\nRun five kilometres on Sundays.\n")
}

fn ready() -> Option<Engine> {
    let (m, t) = model()?;
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    e.load_model(&m, &t, None).unwrap();
    let p = embed_all(&mut e);
    assert_eq!((p.done, p.total), (10, 10), "5 leaves and 5 lead vectors");
    Some(e)
}

fn first(e: &mut Engine, q: &str, mode: SearchMode) -> SearchResponse {
    e.search(&SearchRequest { query: q.into(), mode: Some(mode), ..Default::default() }).unwrap()
}

#[test]
fn semantic_finds_meaning_without_shared_words() {
    let Some(mut e) = ready() else { return };
    let r = first(&mut e, "how do I bake a loaf", SearchMode::Semantic);
    assert_eq!(r.hits[0].path, "Cooking/Bread.md");
    assert!(r.hits[0].vec_score > 0.2 && r.hits[0].lex_score == 0.0);
    let r = first(&mut e, "protect my files from a disk failure", SearchMode::Hybrid);
    assert_eq!(r.hits[0].path, "Tech/Backups.md", "{:?}", r.hits.iter().map(|h| &h.explain).collect::<Vec<_>>());
    assert_eq!(r.mode, SearchMode::Hybrid);
    assert!(r.weights.is_some());
    assert!(r.hits[0].explain.contains("vec #1"), "{}", r.hits[0].explain);
    assert_eq!(r.semantic_coverage, Some(1.0));
}

#[test]
fn hybrid_keeps_exact_matches_first_and_reports_strong_signal() {
    let Some(mut e) = ready() else { return };
    let r = first(&mut e, "\"bullet train\"", SearchMode::Hybrid);
    assert_eq!(r.hits[0].path, "Travel/Japan.md");
    assert_eq!(r.weights.as_ref().unwrap().reason, "exact-term query");
    let multi = e
        .search(&SearchRequest {
            query: "exercise".into(),
            queries: Some(vec!["jogging schedule".into(), "stretching".into()]),
            mode: Some(SearchMode::Hybrid),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(multi.hits[0].path, "Health/Running.md");
}

#[test]
fn rename_edit_and_reopen_never_reembed_unchanged_text() {
    let Some((m, t)) = model() else { return };
    let Some(mut e) = ready() else { return };
    let sync = vault().into_iter().find(|n| n.path == "Tech/Sync.md").unwrap();
    e.update(UpdateBatch {
        renames: vec![Rename {
            from: "Tech/Sync.md".into(),
            to: "Archive/Sync.md".into(),
            bytes: Some(sync.bytes),
            mtime: None,
            ctime: None,
        }],
        ..Default::default()
    })
    .unwrap();
    let p = step(&mut e);
    assert_eq!((p.embedded, p.done, p.total), (1, 10, 10), "a move re-embeds its lead only, no section");

    // Edit one note's only section, which opens it: that section and the note's lead are new.
    e.update(UpdateBatch { upserts: vec![running_edit()], ..Default::default() }).unwrap();
    let p = step(&mut e);
    assert_eq!(p.embedded, 2);

    // Persist, reopen: vectors come back, nothing to embed.
    let mut folder: std::collections::BTreeMap<String, Vec<u8>> = Default::default();
    let out = e.flush().unwrap();
    for w in out.writes {
        folder.insert(w.name, w.bytes);
    }
    let files: Vec<IndexFile> = folder.iter().map(|(n, b)| IndexFile { name: n.clone(), bytes: b.clone() }).collect();
    let mut e2 = Engine::open(CoreConfig::default(), files);
    assert!(!e2.open_report().rebuilt, "{:?}", e2.open_report().reason);
    // The vault's 10 texts, and the 3 the move and the edit replaced (Sync's lead, Running's lead
    // and section): shared vectors are never dropped, another device may not have the edits yet.
    assert_eq!(e2.status().vectors, 10 + 1 + 2);
    e2.load_model(&m, &t, None).unwrap();
    let p = step(&mut e2);
    assert_eq!((p.embedded, p.done), (0, 10));
    assert_eq!(first(&mut e2, "how do I bake a loaf", SearchMode::Semantic).hits[0].path, "Cooking/Bread.md");

    // Another model spec re-embeds everything.
    let other = crate::embed::EmbedderConfig { model_id: "other".into(), ..Default::default() };
    let p = e2.load_model(&m, &t, Some(other)).unwrap();
    assert_eq!(p.done, 0);
}

#[test]
fn similar_notes_by_vector() {
    let Some(mut e) = ready() else { return };
    let r =
        e.similar(&SimilarRequest { path: Some("Tech/Backups.md".into()), k: Some(4), ..Default::default() }).unwrap();
    assert_eq!(r.hits.len(), 4);
    assert!(r.hits.iter().all(|h| h.path != "Tech/Backups.md"));
    assert!(r.hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(!r.hits[0].sections.is_empty());
    assert!(e.similar(&SimilarRequest { path: Some("missing.md".into()), ..Default::default() }).is_err());
}

#[test]
fn without_a_model_hybrid_is_lexical_with_a_notice_and_semantic_is_unavailable() {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    let r = first(&mut e, "sourdough", SearchMode::Hybrid);
    assert_eq!(r.mode, SearchMode::Lexical);
    assert_eq!(r.hits[0].path, "Cooking/Bread.md");
    assert!(r.notice.as_ref().unwrap().contains("fetch-model"));
    let err = e
        .search(&SearchRequest { query: "x".into(), mode: Some(SearchMode::Semantic), ..Default::default() })
        .unwrap_err();
    assert_eq!(err.code(), "unavailable");
    assert!(e.embed_step(8, &NoteTexts::default()).is_err());
    assert!(e.load_model(b"not onnx", b"{}", None).is_err(), "a broken model is an error, not a crash");
}

#[test]
fn the_single_device_index_s_vectors_are_kept() {
    let Some((m, t)) = model() else { return };
    let Some(mut e) = ready() else { return };
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    // The index of format 15 (one device, its vectors in `vec/`), its lexical files damaged too.
    folder.rewrite_in_single_device_layout();
    folder.damage_lexical();
    let mut e2 = Engine::open(CoreConfig::default(), folder.files());
    let report = e2.open_report().clone();
    assert!(report.fresh);
    assert!(report.reason.as_deref().unwrap().contains("10 embedded chunks"), "{:?}", report.reason);
    assert_eq!(e2.status().notes, 0, "the notes are indexed again");
    e2.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    e2.load_model(&m, &t, None).unwrap();
    let p = step(&mut e2);
    assert_eq!((p.embedded, p.done, p.total), (0, 10, 10), "nothing is embedded again");
    // The kept vectors are written as a shared segment.
    let out = e2.flush().unwrap();
    assert!(out.writes.iter().any(|w| w.name.starts_with(layout::VECTORS_DIR)));
    let mut fresh = Folder::default();
    fresh.apply(&out);
    let e3 = Engine::open(CoreConfig::default(), fresh.files());
    assert!(!e3.open_report().rebuilt, "{:?}", e3.open_report().reason);
    assert_eq!(e3.status().vectors, 10);
}

#[test]
fn kept_vectors_survive_a_reopen_before_the_first_flush() {
    let Some(mut e) = ready() else { return };
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    folder.rewrite_in_single_device_layout();
    let e2 = Engine::open(CoreConfig::default(), folder.files());
    // The caller deletes the orphans it is told about, then exits without a flush.
    assert!(e2.open_report().orphans.is_empty(), "{:?}", e2.open_report().orphans);
    let e3 = Engine::open(CoreConfig::default(), folder.files());
    assert!(e3.open_report().fresh);
    assert_eq!(e3.status().vectors, 10);
}

#[test]
fn where_filters_semantic_and_hybrid_hits_by_note() {
    let Some(mut e) = ready() else { return };
    for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
        let search = |e: &mut Engine, expr: &str| -> Vec<String> {
            let filters = SearchFilters { where_: Some(expr.into()), ..Default::default() };
            let req = SearchRequest {
                query: "keep my notes safe".into(),
                mode: Some(mode),
                filters: Some(filters),
                ..Default::default()
            };
            let mut paths: Vec<String> = e.search(&req).unwrap().hits.into_iter().map(|h| h.path).collect();
            paths.sort();
            paths
        };
        assert_eq!(search(&mut e, "file.folder = tech"), ["Tech/Backups.md", "Tech/Sync.md"], "{mode:?}");
        assert_eq!(search(&mut e, "file.name = sync"), ["Tech/Sync.md"], "{mode:?}");
        let others = search(&mut e, "NOT file.folder = tech");
        assert!(!others.is_empty() && others.iter().all(|p| !p.starts_with("Tech/")), "{mode:?} {others:?}");
        assert!(search(&mut e, "status exists").is_empty(), "{mode:?}");
    }
}
