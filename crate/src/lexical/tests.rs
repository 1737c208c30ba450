//! The commit layer: add, delete, merge, export and reopen give the same results as
//! before, with no thread anywhere.

use super::*;
use crate::lexical::search::LexQuery;
use tantivy::TantivyDocument;

fn doc<'a>(path: &'a str, body: &'a str) -> SectionDoc<'a> {
    SectionDoc {
        code: None,
        path,
        order: 0,
        depth: 0,
        folders: &[],
        titles: &[],
        aliases: &[],
        headings: "",
        tags: &[],
        props: &[],
        body,
        stem: crate::language::Stem::ENGLISH,
    }
}

fn paths(lex: &Lexical, q: &str) -> Vec<String> {
    let mut v: Vec<String> = lex
        .search(&LexQuery { text: q.into(), limit: 100, ..Default::default() })
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.path)
        .collect();
    v.sort();
    v
}

fn export(lex: &Lexical) -> (String, Vec<(String, Vec<u8>)>) {
    let files = lex.files().iter().map(|p| (p.to_string_lossy().to_string(), lex.read_file(p).unwrap())).collect();
    (lex.meta_json().unwrap(), files)
}

#[test]
fn add_commit_search_delete() {
    let mut lex = Lexical::create().unwrap();
    lex.add_note("a.md", vec![doc("a.md", "alpha beta")]).unwrap();
    lex.add_note("b.md", vec![doc("b.md", "beta gamma")]).unwrap();
    assert!(paths(&lex, "beta").is_empty(), "nothing visible before commit");
    assert!(lex.commit().unwrap());
    assert_eq!(paths(&lex, "beta"), vec!["a.md", "b.md"]);
    lex.delete_note("a.md").unwrap();
    lex.commit().unwrap();
    assert_eq!(paths(&lex, "beta"), vec!["b.md"]);
    assert_eq!(lex.num_docs(), 1);
}

#[test]
fn no_field_is_stored() {
    // Note text is the host's (it has the notes on disk): the docstore stays empty.
    let mut lex = Lexical::create().unwrap();
    assert!(lex.index.schema().fields().all(|(_, entry)| !entry.is_stored()));
    lex.add_note("a.md", vec![doc("a.md", "alpha beta gamma delta")]).unwrap();
    lex.commit().unwrap();
    let searcher = lex.searcher();
    let top = searcher
        .search(&tantivy::query::AllQuery, &tantivy::collector::TopDocs::with_limit(1).order_by_score())
        .unwrap();
    let stored: TantivyDocument = searcher.doc(top[0].1).unwrap();
    assert_eq!(stored.field_values().count(), 0, "nothing in the docstore");
}

#[test]
fn replace_within_one_uncommitted_batch() {
    let mut lex = Lexical::create().unwrap();
    lex.add_note("a.md", vec![doc("a.md", "old words")]).unwrap();
    lex.delete_note("a.md").unwrap();
    lex.add_note("a.md", vec![doc("a.md", "new words")]).unwrap();
    lex.commit().unwrap();
    assert!(paths(&lex, "old").is_empty());
    assert_eq!(paths(&lex, "new"), vec!["a.md"]);
    assert_eq!(lex.num_docs(), 1);
}

#[test]
fn many_commits_merge_and_survive_export() {
    let mut lex = Lexical::create().unwrap();
    let bodies: Vec<String> = (0..40).map(|i| format!("common word{i}")).collect();
    for (i, b) in bodies.iter().enumerate() {
        let p = format!("n{i}.md");
        lex.add_note(&p, vec![doc(&p, b)]).unwrap();
        lex.commit().unwrap();
    }
    assert!(lex.segment_count() < 10, "tiered merges keep segments few: {}", lex.segment_count());
    // Delete most notes: segments with a large deleted share are rewritten.
    for i in 0..30 {
        lex.delete_note(&format!("n{i}.md")).unwrap();
    }
    lex.commit().unwrap();
    assert_eq!(paths(&lex, "common").len(), 10);
    let (meta, files) = export(&lex);
    // Merges wrote their segments among the index's files and left nothing else behind.
    assert_eq!(lex.bytes(), files.iter().map(|(_, b)| b.len() as u64).sum::<u64>());
    let reopened = Lexical::open(&meta, files).unwrap();
    assert_eq!(reopened.bytes(), lex.bytes(), "an open moves the files in");
    assert_eq!(paths(&reopened, "common"), paths(&lex, "common"));
    assert_eq!(paths(&reopened, "word35"), vec!["n35.md"]);
    assert!(lex.deleted_docs() * 4 <= lex.num_docs() + lex.deleted_docs());
}

#[test]
fn reopened_index_accepts_more_commits() {
    let mut lex = Lexical::create().unwrap();
    lex.add_note("a.md", vec![doc("a.md", "first")]).unwrap();
    lex.commit().unwrap();
    let (meta, files) = export(&lex);
    let mut lex = Lexical::open(&meta, files).unwrap();
    lex.delete_note("a.md").unwrap();
    lex.add_note("b.md", vec![doc("b.md", "second")]).unwrap();
    lex.commit().unwrap();
    assert!(paths(&lex, "first").is_empty());
    assert_eq!(paths(&lex, "second"), vec!["b.md"]);
}

#[test]
fn damaged_segment_file_is_detected_on_open() {
    let mut lex = Lexical::create().unwrap();
    lex.add_note("a.md", vec![doc("a.md", "alpha")]).unwrap();
    lex.commit().unwrap();
    let (meta, mut files) = export(&lex);
    for (_, bytes) in files.iter_mut() {
        bytes.truncate(bytes.len() / 3);
    }
    assert!(Lexical::open(&meta, files).is_err());
}

#[test]
fn lenient_queries_never_error() {
    let mut lex = Lexical::create().unwrap();
    lex.add_note("a.md", vec![doc("a.md", "hello world")]).unwrap();
    lex.commit().unwrap();
    for q in ["\"hello", "hello)", "title:", "AND OR", "((", "-", "body:\"unterminated", "*"] {
        let _ = lex.search(&LexQuery { text: q.into(), limit: 10, ..Default::default() }).unwrap();
    }
    assert_eq!(paths(&lex, "\"hello world\""), vec!["a.md"]);
    assert!(paths(&lex, "\"world hello\"").is_empty());
}

#[test]
fn coverage_is_the_share_of_the_query_a_section_holds() {
    let mut lex = Lexical::create().unwrap();
    lex.add_note("mirror.md", vec![doc("mirror.md", "grinding a telescope mirror by hand")]).unwrap();
    lex.add_note("lotion.md", vec![doc("lotion.md", "a hand lotion recipe")]).unwrap();
    for i in 0..20 {
        let path = format!("n{i}.md");
        lex.add_note(&path, vec![doc(&path, "washing each hand before cooking")]).unwrap();
    }
    lex.commit().unwrap();
    let shares = |q: &str| -> std::collections::HashMap<String, f32> {
        let hits = lex.search(&LexQuery { text: q.into(), limit: 100, ..Default::default() }).unwrap().hits;
        let addrs: Vec<_> = hits.iter().map(|h| h.addr).collect();
        let shares = lex.coverage(q, &[], &addrs).unwrap();
        hits.into_iter().map(|h| h.path).zip(shares).collect()
    };
    let s = shares("grinding a telescope mirror by hand");
    assert!((s["mirror.md"] - 1.0).abs() < 1e-6, "every word: {s:?}");
    assert!(s["lotion.md"] < 0.1, "a common word only: {s:?}");
    assert!(s["lotion.md"] > 0.0);
    // A word no section has counts against every section.
    let s = shares("grinding telescope mirror zeppelin");
    assert!(s["mirror.md"] > 0.5 && s["mirror.md"] < 0.9, "{s:?}");
    // An excluded word is not the query's to hold.
    let s = shares("telescope mirror -lotion");
    assert!((s["mirror.md"] - 1.0).abs() < 1e-6, "{s:?}");
    // No term at all: nothing to miss.
    let mirror = lex.search(&LexQuery { text: "telescope".into(), limit: 1, ..Default::default() }).unwrap().hits;
    assert_eq!(lex.coverage("?! …", &[], &[mirror[0].addr]).unwrap(), vec![1.0]);
}
