//! Search with a `where` expression: lexical searches over the tasks fixture vault with exact
//! results, the old `property` filter beside it, bad expressions, and candidates deep in the
//! ranking (the lexical side asks tantivy again for more).

use super::structured::engine;
use super::*;
use crate::error::CoreError;

fn filters(expr: &str) -> SearchFilters {
    SearchFilters { where_: Some(expr.into()), today: Some("2026-11-26".into()), ..Default::default() }
}

/// The notes of a lexical search's hits, sorted.
fn notes(e: &mut Engine, query: &str, f: SearchFilters) -> Vec<String> {
    let req = SearchRequest {
        query: query.into(),
        mode: Some(SearchMode::Lexical),
        k: Some(50),
        filters: Some(f),
        ..Default::default()
    };
    let mut paths: Vec<String> = e.search(&req).unwrap().hits.into_iter().map(|h| h.path).collect();
    paths.sort();
    paths.dedup();
    paths
}

#[test]
fn lexical_search_with_where_expressions() {
    let mut e = engine();
    let table: &[(&str, &str, &[&str])] = &[
        ("", "status = draft", &["Projects/Beta/Notes.md"]),
        ("", "priority >= 2", &["Projects/Alpha/Plan.md", "Projects/Beta/Notes.md"]),
        ("", "type = book AND rating > 3", &["Reading/Book A.md"]),
        ("", "draft exists", &["Reading/Book B.md"]),
        ("", "file.folder = reading", &["Reading/Book A.md", "Reading/Book B.md"]),
        ("", "owner = Ana AND NOT tags contains alpha", &["Projects/Beta/Notes.md"]),
        ("", "file.mtime >= today-7d", &["Daily/2026-11-25.md", "Projects/Alpha/Plan.md", "Reading/Book B.md"]),
        ("", "(status = active OR type = book) AND !draft exists", &["Projects/Alpha/Plan.md", "Reading/Book A.md"]),
        ("", "nothing exists", &[]),
        ("book", "rating > 3", &["Reading/Book A.md"]),
        ("book", "rating != 4", &["Projects/Alpha/Plan.md", "Reading/Book B.md"]),
        ("feedback", "file.tags contains project", &["Projects/Beta/Notes.md"]),
        ("spec", "status = draft", &[]),
    ];
    for (query, expr, want) in table {
        assert_eq!(notes(&mut e, query, filters(expr)), *want, "{query:?} where {expr}");
    }
    // The key=value property filter still applies, beside the expression.
    let both = SearchFilters {
        property: Some(PropertyFilter { key: "type".into(), value: "book".into() }),
        ..filters("draft exists")
    };
    assert_eq!(notes(&mut e, "", both), ["Reading/Book B.md"]);
    let prop_only = SearchFilters {
        property: Some(PropertyFilter { key: "type".into(), value: "book".into() }),
        ..Default::default()
    };
    assert_eq!(notes(&mut e, "", prop_only), ["Reading/Book A.md", "Reading/Book B.md"]);
    // A blank expression filters nothing.
    assert_eq!(notes(&mut e, "", filters("  ")).len(), 5);
}

#[test]
fn a_bad_where_expression_is_an_error_naming_its_position() {
    let mut e = engine();
    for mode in [SearchMode::Lexical, SearchMode::Hybrid, SearchMode::Semantic] {
        let req = SearchRequest {
            query: "book".into(),
            mode: Some(mode),
            filters: Some(filters("type = book AND (rating >")),
            ..Default::default()
        };
        let err = e.search(&req).unwrap_err();
        assert!(matches!(err, CoreError::BadRequest(_)) && err.message().contains("at character 25"), "{err}");
        assert!(err.message().contains("type = book AND (rating >\n"), "{err}");
    }
    let no_date = SearchFilters { where_: Some("file.mtime > today-1d".into()), ..Default::default() };
    let err =
        e.search(&SearchRequest { query: "book".into(), filters: Some(no_date), ..Default::default() }).unwrap_err();
    assert!(err.message().contains("needs the host's date"), "{err}");
}

#[test]
fn where_finds_notes_ranked_past_the_first_candidates() {
    let mut e = Engine::create(cfg()).unwrap();
    // 300 notes about boats; the only one marked keep mentions them once in a long text, so
    // it ranks last of all.
    let mut vault: Vec<NoteInput> =
        (0..300).map(|i| note(&format!("Boats/{i:03}.md"), &format!("# Boat {i}\n\nboat boat boat sails\n"))).collect();
    let filler = "words about the harbour and the weather ".repeat(40);
    vault.push(note("Boats/kept.md", &format!("---\nkeep: yes\n---\n# Harbour\n\n{filler} one boat.\n")));
    upsert(&mut e, vault);
    let req = |expr: &str| SearchRequest {
        query: "boat".into(),
        mode: Some(SearchMode::Lexical),
        k: Some(3),
        filters: Some(SearchFilters { where_: Some(expr.into()), ..Default::default() }),
        ..Default::default()
    };
    let all = e.search(&SearchRequest { k: Some(100), ..req("") }).unwrap();
    assert!(!all.hits.iter().any(|h| h.path == "Boats/kept.md"), "ranked past the first 100");
    let kept = e.search(&req("keep = yes")).unwrap();
    assert_eq!(kept.hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(), ["Boats/kept.md"]);
    let named = e.search(&req("file.name >= 297")).unwrap();
    assert_eq!(named.hits.iter().map(|h| h.path.as_str()).collect::<Vec<_>>().len(), 3);
}
