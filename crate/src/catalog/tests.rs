//! The catalog's files: bases and deltas, what they hold, when a base is written.

use super::*;

fn entry(path: &str, hash: &str) -> NoteEntry {
    NoteEntry {
        path: path.into(),
        hash: hash.into(),
        size: 1,
        mtime: 1.0,
        ctime: None,
        title: path.into(),
        frontmatter: "{}".into(),
        aliases: vec![],
        tags: vec![],
        links: PackedLinks::default(),
        sections: vec![],
        line_count: 1,
        body_start_line: 1,
        lead_key: None,
        lead_end_line: 0,
        script: ScriptCounts::default(),
        lang: String::new(),
        tasks: vec![],
        code_pending: false,
    }
}

#[test]
fn base_then_small_deltas_round_trip() {
    let mut c = Catalog::default();
    for i in 0..100 {
        c.insert(entry(&format!("n{i}.md"), "h"));
    }
    let base = c.take_write(false).unwrap().unwrap();
    assert!(base.is_base);
    c.remove("n1.md");
    c.insert(entry("n2.md", "h2"));
    let delta = c.take_write(false).unwrap().unwrap();
    assert!(!delta.is_base);
    assert!(delta.bytes.len() * 20 < base.bytes.len());
    assert!(c.take_write(false).unwrap().is_none());
    let loaded = Catalog::load(&[&base.bytes, &delta.bytes]).unwrap();
    assert_eq!(loaded.len(), 99);
    assert_eq!(loaded.get("n2.md").unwrap().hash, "h2");
    assert!(loaded.get("n1.md").is_none());
}

#[test]
fn files_written_from_borrowed_entries_are_the_owned_encoding() {
    let mut c = Catalog::default();
    for i in 0..50 {
        let mut e = entry(&format!("n{i}.md"), &format!("h{i}"));
        e.tags = vec![format!("t{i}")];
        e.frontmatter = format!("{{\"n\":{i}}}");
        c.insert(e);
    }
    c.record_access("n3.md", 5.0);
    let owned = |c: &Catalog, base: bool, paths: &[String]| {
        let upserts = paths.iter().filter_map(|p| c.get(p).cloned()).collect();
        let removes = paths.iter().filter(|p| c.get(p).is_none()).cloned().collect();
        let access = paths.iter().filter_map(|p| c.access(p).map(|a| (p.clone(), a))).collect();
        postcard::to_allocvec(&CatalogFile { base, upserts, removes, access }).unwrap()
    };
    let all: Vec<String> = c.paths().cloned().collect();
    let base = c.take_write(false).unwrap().unwrap();
    assert!(base.is_base && base.bytes == owned(&c, true, &all));
    c.remove("n1.md");
    c.insert(entry("n2.md", "changed"));
    let delta = c.take_write(false).unwrap().unwrap();
    assert!(!delta.is_base && delta.bytes == owned(&c, false, &["n1.md".into(), "n2.md".into()]));
}

#[test]
fn usage_persists_in_deltas_moves_with_renames_and_drops_with_the_note() {
    let mut c = Catalog::default();
    for p in ["a.md", "b.md", "c.md"] {
        c.insert(entry(p, "h"));
    }
    assert!(c.record_access("a.md", 10.0));
    assert!(!c.record_access("missing.md", 10.0), "only indexed notes have usage");
    let base = c.take_write(false).unwrap().unwrap();
    assert!(c.take_write(false).unwrap().is_none());
    c.record_access("a.md", 20.0);
    c.record_access("b.md", 30.0);
    let d1 = c.take_write(false).unwrap().unwrap();
    assert!(!d1.is_base, "a retrieval writes a small delta");
    // b.md is renamed to b2.md, c.md gets usage and is then deleted.
    let usage = c.access("b.md");
    let e = c.remove("b.md").unwrap();
    c.insert(NoteEntry { path: "b2.md".into(), ..e });
    c.move_access("b.md", "b2.md", usage);
    c.record_access("c.md", 40.0);
    c.remove("c.md");
    let d2 = c.take_write(false).unwrap().unwrap();
    let loaded = Catalog::load(&[&base.bytes, &d1.bytes, &d2.bytes]).unwrap();
    assert_eq!(loaded.access("a.md"), Some(AccessInfo { count: 2, last: 20.0 }));
    assert_eq!(loaded.access("b2.md"), Some(AccessInfo { count: 1, last: 30.0 }));
    assert_eq!(loaded.access("b.md"), None);
    assert_eq!(loaded.access("c.md"), None);
}

#[test]
fn links_and_hashes_round_trip_through_a_base() {
    let links = vec![
        Link { target: "Other".into(), heading: Some("Part".into()), alias: Some("the other".into()), embed: false },
        Link { target: "img.png".into(), heading: None, alias: None, embed: true },
    ];
    let mut c = Catalog::default();
    let mut e = entry("a.md", "h");
    e.links = PackedLinks::pack(&links);
    e.lead_key = Some([7; 32]);
    c.insert(e);
    c.insert(entry("b.md", "h"));
    let base = c.take_write(false).unwrap().unwrap();
    let loaded = Catalog::load(&[&base.bytes]).unwrap();
    let a = loaded.get("a.md").unwrap();
    assert_eq!(a.links.unpack(), links);
    assert_eq!(a.lead_key, Some([7; 32]));
    assert!(loaded.get("b.md").unwrap().links.unpack().is_empty());
}

#[test]
fn languages_follow_inserts_replacements_removals_and_loads() {
    let mut c = Catalog::default();
    let with = |p: &str, lang: &str| NoteEntry { lang: lang.into(), ..entry(p, "h") };
    c.insert(with("a.md", "de"));
    c.insert(with("b.md", "de en"));
    c.insert(with("c.md", "ru"));
    let codes = |c: &Catalog| c.languages().iter().map(|(l, s)| (crate::language::code(*l), *s)).collect::<Vec<_>>();
    assert_eq!(codes(&c), vec![("de", 0.5), ("en", 0.25), ("ru", 0.25)]);
    c.insert(with("a.md", "ru"));
    c.remove("b.md");
    assert_eq!(codes(&c), vec![("ru", 1.0)]);
    let w = c.take_write(true).unwrap().unwrap();
    assert_eq!(codes(&Catalog::load(&[&w.bytes]).unwrap()), vec![("ru", 1.0)]);
}

#[test]
fn corrupt_catalog_is_an_error() {
    assert!(Catalog::load(&[b"\xff\xff\xff garbage"]).is_err());
    let mut c = Catalog::default();
    c.insert(entry("a.md", "h"));
    let _ = c.take_write(false).unwrap();
    c.insert(entry("b.md", "h"));
    let delta = c.take_write(false).unwrap().unwrap();
    assert!(Catalog::load(&[&delta.bytes]).is_err(), "delta without base");
}

#[test]
fn a_growing_catalog_is_written_in_deltas_until_a_quarter_of_its_entries_is_dead() {
    let mut c = Catalog::default();
    let batch = |c: &mut Catalog, prefix: &str, hash: &str| {
        for i in 0..100 {
            c.insert(entry(&format!("{prefix}{i}.md"), hash));
        }
    };
    batch(&mut c, "a", "h");
    let mut files = vec![c.take_write(false).unwrap().unwrap()];
    assert!(files[0].is_base);
    // A vault ten times as large again, persisted as it grows: each delta replaces nothing.
    for round in 0..10 {
        batch(&mut c, &format!("b{round}-"), "h");
        files.push(c.take_write(false).unwrap().unwrap());
        assert!(!files.last().unwrap().is_base, "round {round}: no base of every note again");
    }
    // Edits replace entries written before (a note edited twice between writes counts once; a
    // removal counts): 300 dead of 1,100 live stay deltas.
    batch(&mut c, "a", "edited");
    batch(&mut c, "a", "edited again");
    files.push(c.take_write(false).unwrap().unwrap());
    batch(&mut c, "b0-", "edited");
    files.push(c.take_write(false).unwrap().unwrap());
    for i in 0..100 {
        c.remove(&format!("b1-{i}.md"));
    }
    c.insert(entry("new.md", "h"));
    files.push(c.take_write(false).unwrap().unwrap());
    assert!(files.iter().skip(1).all(|f| !f.is_base));
    // A catalog loaded from those files counts the same dead entries: 100 more is past a quarter.
    let bytes: Vec<&[u8]> = files.iter().map(|f| f.bytes.as_slice()).collect();
    let mut loaded = Catalog::load(&bytes).unwrap();
    assert_eq!(loaded.len(), 1001);
    for c in [&mut c, &mut loaded] {
        batch(c, "b2-", "edited");
        assert!(c.take_write(false).unwrap().unwrap().is_base);
        batch(c, "b3-", "edited");
        assert!(!c.take_write(false).unwrap().unwrap().is_base, "a base leaves no dead entry");
    }
}
