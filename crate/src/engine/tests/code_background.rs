//! Code searchable at plain-text speed: a bulk index (`defer_code`) indexes a code file without
//! definitions in line windows, searchable at once, and the code pass replaces them with its
//! definitions in steps; a file with definitions is chunked at once when it changes; files
//! deleted or changed mid-pass, a restart, a missing chunker; embedding waits for definitions.

use super::handout::WordHash;
use super::*;
use crate::code_sections::tests::CHUNKER_OFF;
use crate::vectors::VectorIndex;

fn file(path: &str, text: &str, mtime: f64) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime, ctime: None }
}

fn bulk(e: &mut Engine, upserts: Vec<NoteInput>, deletes: Vec<String>) -> UpdateReport {
    e.update(UpdateBatch { upserts, deletes, defer_code: true, ..Default::default() }).unwrap()
}

const AUTH_PY: &str = r#"import os


class SessionRedirectMixin:
    """Follows redirects for a session."""

    def rebuild_auth(self, prepared_request, response):
        """Strips the Authorization header when a redirect leaves the original host."""
        return prepared_request


def validate_user_token(token: str) -> bool:
    """Checks that a bearer token has not expired."""
    return bool(token)
"#;

const UTIL_RS: &str = r#"/// Parses a duration such as `5m` into seconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    text.strip_suffix('m')?.parse::<u64>().ok().map(|m| m * 60)
}

pub struct Throttle {
    pub per_second: u32,
}
"#;

fn vault() -> Vec<NoteInput> {
    vec![
        file("src/auth.py", AUTH_PY, 1000.0),
        file("src/util.rs", UTIL_RS, 2000.0),
        file("Notes.md", "# Notes\n\nHow the session tokens are checked.\n", 3000.0),
    ]
}

fn names(e: &Engine, path: &str) -> Vec<String> {
    let n = e.catalog.get(path).unwrap();
    n.sections.iter().filter_map(|s| s.code.as_ref()).map(|c| c.name.clone()).filter(|n| !n.is_empty()).collect()
}

fn kinds(e: &Engine, path: &str) -> Vec<&'static str> {
    let n = e.catalog.get(path).unwrap();
    n.sections.iter().filter_map(|s| s.code.as_ref()).map(|c| c.kind().name()).collect()
}

fn lexical(e: &mut Engine, q: &str) -> Vec<Hit> {
    let req = SearchRequest { query: q.into(), k: Some(10), mode: Some(SearchMode::Lexical), ..Default::default() };
    e.search(&req).unwrap().hits
}

/// Steps of `max` files until the pass has none left, with the texts of `notes`.
fn pass_all(e: &mut Engine, notes: &[NoteInput], max: usize) -> usize {
    let mut steps = 0;
    while e.code_pass_progress().left > 0 {
        let needs = e.code_pass_needs(max);
        let given: Vec<NoteInput> = notes.iter().filter(|n| needs.contains(&n.path)).cloned().collect();
        e.code_pass_step(max, &texts(&given)).unwrap();
        steps += 1;
        assert!(steps < 100, "the pass ends");
    }
    steps
}

#[test]
fn a_bulk_index_makes_code_searchable_in_line_windows_and_the_pass_brings_the_definitions() {
    let mut e = Engine::create(cfg()).unwrap();
    let r = bulk(&mut e, vault(), vec![]);
    assert_eq!((r.added, r.warnings.len()), (3, 0), "{r:?}");
    // Searchable at once by a word of the code, in windows: no definitions yet.
    assert!(e.catalog.get("src/auth.py").unwrap().code_pending);
    assert!(kinds(&e, "src/auth.py").iter().all(|k| *k == "lines"), "{:?}", kinds(&e, "src/auth.py"));
    let hits = lexical(&mut e, "bearer token expired");
    assert_eq!(hits.first().map(|h| h.path.as_str()), Some("src/auth.py"));
    assert!(hits[0].code.as_ref().is_some_and(|c| c.kind == "lines"), "{:?}", hits[0].code);
    assert!(!e.catalog.get("Notes.md").unwrap().code_pending);
    assert_eq!(e.code_pass_progress().left, 2);

    // The pass, a file a step, the most recently modified first.
    assert_eq!(e.code_pass_needs(1), ["src/util.rs"]);
    let p = e.code_pass_step(1, &texts(&vault())).unwrap();
    assert_eq!((p.defined, p.left, p.done, p.dropped), (1, 1, 1, 0), "{p:?}");
    assert!(names(&e, "src/util.rs").contains(&"parse_duration".to_string()));
    assert!(e.catalog.get("src/auth.py").unwrap().code_pending, "the other file waits, searchable");
    assert_eq!(lexical(&mut e, "bearer token expired").first().map(|h| h.path.as_str()), Some("src/auth.py"));
    pass_all(&mut e, &vault(), 8);
    assert!(!e.catalog.get("src/auth.py").unwrap().code_pending);
    assert!(names(&e, "src/auth.py").contains(&"rebuild_auth".to_string()), "{:?}", names(&e, "src/auth.py"));
    let hits = lexical(&mut e, "validate_user_token");
    assert_eq!(hits[0].code.as_ref().map(|c| c.name.as_str()), Some("validate_user_token"));
    // No window is left in the lexical index: each hit is a section of the catalog.
    for h in lexical(&mut e, "token") {
        let (path, order) = parse_section_id(&h.section_id).unwrap();
        assert!(e.catalog.get(path).unwrap().section(order).is_some(), "{h:?}");
        assert_ne!(h.code.as_ref().map(|c| c.kind.as_str()), Some("lines"), "{h:?}");
    }
    assert_eq!(e.code_pass_progress().left, 0);
}

#[test]
fn a_file_with_definitions_is_chunked_at_once_when_it_changes_and_when_it_moves() {
    let mut e = Engine::create(cfg()).unwrap();
    bulk(&mut e, vault(), vec![]);
    pass_all(&mut e, &vault(), 8);
    let edited = AUTH_PY.replace("validate_user_token", "check_session_token");
    bulk(&mut e, vec![file("src/auth.py", &edited, 4000.0)], vec![]);
    let n = e.catalog.get("src/auth.py").unwrap();
    assert!(!n.code_pending);
    assert!(names(&e, "src/auth.py").contains(&"check_session_token".to_string()));
    assert_eq!(e.code_pass_progress().left, 0);
    // Moved (same bytes) and moved with an edit: still definitions.
    let moved = e
        .update(UpdateBatch {
            renames: vec![
                rename("src/auth.py", "lib/auth.py", edited.as_bytes()),
                rename("src/util.rs", "lib/util.rs", format!("{UTIL_RS}\npub fn extra() {{}}\n").as_bytes()),
            ],
            defer_code: true,
            ..Default::default()
        })
        .unwrap();
    assert!(moved.moved == 1, "{moved:?}");
    assert!(names(&e, "lib/auth.py").contains(&"check_session_token".to_string()));
    assert!(names(&e, "lib/util.rs").contains(&"extra".to_string()));
    assert_eq!(e.code_pass_progress().left, 0);
    // Moved as a reconcile sees it: deleted, and listed under another path with the same bytes.
    let r = bulk(&mut e, vec![file("moved/auth.py", &edited, 4500.0)], vec!["lib/auth.py".into()]);
    assert_eq!(r.moved, 1, "{r:?}");
    assert!(!e.catalog.get("moved/auth.py").unwrap().code_pending);
    assert!(names(&e, "moved/auth.py").contains(&"check_session_token".to_string()));
    // A file the chunker cannot be reached for falls back to windows, pending, and says so.
    CHUNKER_OFF.set(true);
    let r = bulk(&mut e, vec![file("moved/auth.py", AUTH_PY, 5000.0)], vec![]);
    CHUNKER_OFF.set(false);
    assert!(r.warnings.iter().any(|w| w.message.contains("chunker unavailable")), "{r:?}");
    assert!(e.catalog.get("moved/auth.py").unwrap().code_pending);
    pass_all(&mut e, &[file("moved/auth.py", AUTH_PY, 5000.0)], 8);
    assert!(names(&e, "moved/auth.py").contains(&"validate_user_token".to_string()));
}

#[test]
fn files_deleted_changed_or_unreadable_mid_pass_leave_no_stale_sections() {
    let mut e = Engine::create(cfg()).unwrap();
    bulk(&mut e, vault(), vec![]);
    assert_eq!(e.code_pass_needs(8).len(), 2);
    // Before the step: one file deleted, the other edited (and indexed again, in windows).
    let edited = UTIL_RS.replace("parse_duration", "parse_interval");
    bulk(&mut e, vec![file("src/util.rs", &edited, 5000.0)], vec!["src/auth.py".into()]);
    // The host read the old texts for the files it was asked for.
    let p = e.code_pass_step(8, &texts(&vault())).unwrap();
    assert_eq!((p.defined, p.dropped, p.left), (0, 0, 1), "{p:?}");
    assert!(e.catalog.get("src/auth.py").is_none());
    assert!(lexical(&mut e, "rebuild_auth").is_empty(), "the deleted file left nothing");
    // The edited file is queued again and defined from its new text.
    let now = vec![file("src/util.rs", &edited, 5000.0)];
    pass_all(&mut e, &now, 8);
    assert_eq!(lexical(&mut e, "parse_interval")[0].code.as_ref().unwrap().name, "parse_interval");
    assert!(lexical(&mut e, "parse_duration").is_empty(), "no stale section");

    // Changed on disk but not indexed again yet (or unreadable): dropped for the session, so the
    // loop ends; its next update queues it again.
    bulk(&mut e, vec![file("src/new.py", "def fresh_helper():\n    return 1\n", 6000.0)], vec![]);
    e.code_pass_needs(8);
    let p = e.code_pass_step(8, &texts(&[file("src/new.py", "def other():\n    pass\n", 6000.0)])).unwrap();
    assert_eq!((p.defined, p.dropped, p.left), (0, 1, 0), "{p:?}");
    assert!(e.catalog.get("src/new.py").unwrap().code_pending, "still searchable in windows");
    assert_eq!(lexical(&mut e, "fresh_helper")[0].path, "src/new.py");
    let newer = file("src/new.py", "def fresh_helper():\n    return 2\n", 7000.0);
    bulk(&mut e, vec![newer.clone()], vec![]);
    assert_eq!(e.code_pass_progress().left, 1);
    e.code_pass_needs(8);
    assert_eq!(e.code_pass_step(8, &NoteTexts::default()).unwrap().dropped, 1, "unreadable: dropped");
    bulk(&mut e, vec![NoteInput { mtime: 8000.0, ..newer.clone() }], vec![]);
    assert_eq!(e.code_pass_progress().left, 0, "unchanged bytes: not indexed again, still dropped");
    bulk(&mut e, vec![file("src/new.py", "def fresh_helper():\n    return 3\n", 9000.0)], vec![]);
    pass_all(&mut e, &[file("src/new.py", "def fresh_helper():\n    return 3\n", 9000.0)], 8);
    assert_eq!(names(&e, "src/new.py"), ["fresh_helper"]);
}

#[test]
fn without_the_chunker_a_step_changes_nothing_and_says_so() {
    let mut e = Engine::create(cfg()).unwrap();
    bulk(&mut e, vault(), vec![]);
    let before = e.catalog.get("src/util.rs").unwrap().clone();
    e.code_pass_needs(8);
    CHUNKER_OFF.set(true);
    let err = e.code_pass_step(8, &texts(&vault())).unwrap_err();
    CHUNKER_OFF.set(false);
    assert_eq!(err.code(), "unavailable", "{err}");
    assert_eq!(e.catalog.get("src/util.rs").unwrap(), &before);
    assert_eq!(e.code_pass_progress().left, 2, "the files stay taken for the next step");
    assert_eq!(e.code_pass_needs(8).len(), 2);
    pass_all(&mut e, &vault(), 8);
    assert!(names(&e, "src/util.rs").contains(&"Throttle".to_string()));
}

#[test]
fn a_restart_resumes_the_pass() {
    let mut e = Engine::create(cfg()).unwrap();
    bulk(&mut e, vault(), vec![]);
    e.code_pass_needs(1);
    e.code_pass_step(1, &texts(&vault())).unwrap();
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    let mut e2 = Engine::open(cfg(), folder.files());
    assert!(!e2.open_report().fresh && !e2.open_report().rebuilt, "{:?}", e2.open_report());
    assert_eq!(e2.code_pass_progress().left, 1, "the pass goes on where it was");
    assert!(names(&e2, "src/util.rs").contains(&"parse_duration".to_string()));
    assert_eq!(lexical(&mut e2, "bearer token expired")[0].path, "src/auth.py");
    pass_all(&mut e2, &vault(), 8);
    folder.apply(&e2.flush().unwrap());
    let mut e3 = Engine::open(cfg(), folder.files());
    assert_eq!(e3.code_pass_progress().left, 0);
    assert_eq!(lexical(&mut e3, "validate_user_token")[0].code.as_ref().unwrap().name, "validate_user_token");
}

#[test]
fn embedding_waits_for_the_definitions_and_coverage_counts_them_as_to_come() {
    let mut e = Engine::create(cfg()).unwrap();
    bulk(&mut e, vault(), vec![]);
    e.use_embedder(WordHash::boxed("hash")).unwrap();
    let window_keys: Vec<[u8; 32]> = ["src/auth.py", "src/util.rs"]
        .iter()
        .flat_map(|p| e.catalog.get(p).unwrap().sections.iter().filter_map(|s| s.embed_key).collect::<Vec<_>>())
        .collect();
    assert!(!window_keys.is_empty());
    // Only the note is queued; the code files count as to come in the coverage.
    let p = e.embed_progress();
    assert_eq!(p.total, e.catalog.get("Notes.md").unwrap().vector_keys().count());
    loop {
        let needs = e.embed_needs(4).unwrap();
        assert!(needs.iter().all(|p| p == "Notes.md"), "{needs:?}");
        if e.embed_step(4, &texts(&vault())).unwrap().embedded == 0 {
            break;
        }
    }
    let p = e.embed_progress();
    assert_eq!(p.done, p.total);
    let coverage = e.semantic.coverage(&e.catalog);
    assert!(coverage < 0.5, "the code files' vectors are to come: {coverage}");
    pass_all(&mut e, &vault(), 8);
    let p = e.embed_progress();
    assert!(p.total > p.done, "the definitions are queued: {p:?}");
    while e.embed_progress().done < e.embed_progress().total {
        e.embed_needs(16).unwrap();
        e.embed_step(16, &texts(&vault())).unwrap();
    }
    assert_eq!(e.semantic.coverage(&e.catalog), 1.0);
    let vectors = e.semantic.vectors().unwrap();
    let defined: Vec<[u8; 32]> = e.catalog.entries().flat_map(|n| n.vector_keys().map(|(_, k)| k)).collect();
    assert!(defined.iter().all(|k| vectors.contains(k)));
    assert!(window_keys.iter().all(|k| !vectors.contains(k) || defined.contains(k)), "no window was embedded");
    assert_eq!(vectors.len(), defined.iter().collect::<std::collections::HashSet<_>>().len());
}

#[test]
fn the_host_loads_the_chunker_only_for_files_chunked_at_once() {
    let mut e = Engine::create(cfg()).unwrap();
    let paths = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    assert!(!e.code_chunker_wanted(&paths(&["Notes.md", "a/b.md"]), false), "no code");
    assert!(e.code_chunker_wanted(&paths(&["src/auth.py"]), false), "chunked at once");
    assert!(!e.code_chunker_wanted(&paths(&["src/auth.py"]), true), "a bulk index defers it");
    bulk(&mut e, vault(), vec![]);
    assert!(!e.code_chunker_wanted(&paths(&["src/auth.py"]), true), "pending: deferred again");
    pass_all(&mut e, &vault(), 8);
    assert!(e.code_chunker_wanted(&paths(&["src/auth.py"]), true), "it has definitions");
    assert!(!e.code_chunker_wanted(&paths(&["node_modules/x/index.js"]), false), "not indexed");
}
