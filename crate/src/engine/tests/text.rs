//! The index stores no note text: the host supplies the notes' current bytes where the core
//! needs them (snippets, read, renames, the embedding queue), and the core checks them
//! against the catalog's content hash. Model-free: the hashed-words embedder of the switch
//! tests stands in for a model.

use super::switch::WordHash;
use super::*;
use crate::markdown;
use crate::ranking::LEAD_WEIGHT;
use crate::sections::{build_sections, SplitConfig};

fn note(path: &str, text: &str) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime: 1000.0, ctime: None }
}

/// Words enough for a section of its own (the chunker splits a note over ~512 tokens).
fn filler(word: &str) -> String {
    (0..150).map(|i| format!("{word}{i}")).collect::<Vec<_>>().join(" ")
}

/// A note split into sections: an intro, then one section per (heading, first line).
fn split_note(intro: &str, sections: &[(&str, &str)]) -> String {
    let mut t = format!("# Sourdough\n\n{intro}\n\n");
    for (h, line) in sections {
        t.push_str(&format!("## {h}\n\n{line}\n{}\n\n", filler(&h.to_lowercase())));
    }
    t
}

fn bread() -> String {
    split_note(
        "About bread.",
        &[
            ("Starter", "Feed the starter flour and water daily."),
            ("Baking", "Bake the dough in a hot oven with steam."),
        ],
    )
}

fn vault() -> Vec<NoteInput> {
    vec![
        note("Cooking/Bread.md", &bread()),
        note("Travel/Kyoto.md", "# Kyoto\n\nTemples, shrines and the bullet train from Tokyo.\n"),
        note("Tech/Backups.md", "# Backups\n\nCopy the vault folder to an external drive weekly.\n"),
        note("中文/茶.md", "# 乌龙茶\n\n乌龙茶的水温和冲泡时间。\n"),
    ]
}

fn engine_with(notes: &[NoteInput]) -> Engine {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: notes.to_vec(), ..Default::default() }).unwrap();
    e
}

fn hits(e: &mut Engine, q: &str) -> Vec<Hit> {
    e.search(&SearchRequest { query: q.into(), k: Some(10), mode: Some(SearchMode::Lexical), ..Default::default() })
        .unwrap()
        .hits
}

fn rename(from: &str, to: &str, bytes: Option<&[u8]>) -> Rename {
    Rename { from: from.into(), to: to.into(), bytes: bytes.map(|b| b.to_vec()), mtime: None, ctime: None }
}

/// Embeds everything as a host does (`embedAll` in plugin/core/client.ts): the notes each
/// step needs, read from `disk` (a path missing there is unreadable), then the step; stops
/// when the queue is empty or a step makes no progress. Returns (steps, chunks embedded).
fn embed_from(e: &mut Engine, disk: &[NoteInput]) -> (usize, usize) {
    let (mut steps, mut embedded) = (0, 0);
    let mut p = e.embed_progress();
    while p.done < p.total {
        let need = e.embed_needs(2).unwrap();
        let supplied: NoteTexts = need
            .iter()
            .map(|path| {
                (
                    path.clone(),
                    disk.iter().find(|n| &n.path == path).map(|n| serde_bytes::ByteBuf::from(n.bytes.clone())),
                )
            })
            .collect();
        p = e.embed_step(2, &supplied).unwrap();
        steps += 1;
        embedded += p.embedded;
        assert!(steps < 100, "the loop must end");
        if p.embedded + p.dropped == 0 {
            break;
        }
    }
    (steps, embedded)
}

fn with_model(e: &mut Engine) {
    e.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
}

#[test]
fn the_index_holds_no_note_text() {
    // A generated vault: 200 notes of distinct words, 3 sections each.
    let notes: Vec<NoteInput> = (0..200)
        .map(|i| {
            let mut t = format!("# Note {i}\n\n");
            for h in ["Alpha", "Beta", "Gamma"] {
                t.push_str(&format!("## {h} {i}\n\n"));
                for w in 0..80 {
                    t.push_str(&format!("word{i}x{w}{h} "));
                }
                t.push_str("\n\n");
            }
            note(&format!("n/{i}.md"), &t)
        })
        .collect();
    let text_bytes: usize = notes.iter().map(|n| n.bytes.len()).sum();
    let mut e = engine_with(&notes);
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    // The docstore files (`.store`) hold nothing but empty documents.
    let store_bytes: usize = folder.0.iter().filter(|(n, _)| n.ends_with(".store")).map(|(_, b)| b.len()).sum();
    assert!(store_bytes * 100 < text_bytes, "docstore {store_bytes} B for {text_bytes} B of notes");
    let lex_bytes: usize = folder.0.iter().filter(|(n, _)| n.starts_with(store::LEX_DIR)).map(|(_, b)| b.len()).sum();
    assert!(lex_bytes < text_bytes, "lexical index {lex_bytes} B, notes {text_bytes} B");
    assert!(!e.lex.searcher().schema().fields().any(|(_, f)| f.is_stored()));
    // Reopened, it still searches; a snippet needs the note's bytes from the host.
    let mut e = Engine::open(CoreConfig::default(), folder.files());
    let found = hits(&mut e, "word7x3beta");
    assert_eq!(found[0].path, "n/7.md");
    assert_eq!(snippets(&e, "word7x3beta", &found[..1], &[]), vec![None]);
    let s = snippets(&e, "word7x3beta", &found[..1], &notes)[0].clone().unwrap();
    let (a, b) = s.highlights[0];
    assert_eq!(
        s.text.encode_utf16().skip(a as usize).take((b - a) as usize).collect::<Vec<_>>(),
        "word7x3Beta".encode_utf16().collect::<Vec<_>>()
    );
}

#[test]
fn snippets_from_supplied_texts_highlight_terms() {
    let notes = vault();
    let mut e = engine_with(&notes);
    for (q, path, term) in [
        ("steam oven", "Cooking/Bread.md", "oven"),
        ("乌龙茶", "中文/茶.md", "乌龙"),
        ("bullet train", "Travel/Kyoto.md", "train"),
    ] {
        let found = hits(&mut e, q);
        assert_eq!(found[0].path, path);
        let s = snippets(&e, q, &found, &notes)[0].clone().expect("a snippet");
        let u: Vec<u16> = s.text.encode_utf16().collect();
        let marked: Vec<String> = s
            .highlights
            .iter()
            .map(|&(a, b)| String::from_utf16(&u[a as usize..b as usize]).unwrap().to_lowercase())
            .collect();
        assert!(
            marked.iter().any(|m| m.contains(term) || term.contains(m.as_str())),
            "{q}: {marked:?} in {:?}",
            s.text
        );
    }
    // An empty query with expansions highlights the first expansion (what hybrid ranks by).
    let found = hits(&mut e, "external drive");
    let hit = SnippetHit { path: found[0].path.clone(), section_id: found[0].section_id.clone() };
    let req = SnippetRequest {
        query: " ".into(),
        queries: Some(vec!["".into(), "drive".into()]),
        hits: vec![hit.clone()],
        texts: texts(&notes),
    };
    assert!(!e.snippets(&req).unwrap()[0].as_ref().unwrap().highlights.is_empty());
    // A hit whose note is unreadable, or whose section id is not its path's: no snippet.
    let unreadable: NoteTexts = [(hit.path.clone(), None)].into_iter().collect();
    let bad = SnippetHit { path: "Travel/Kyoto.md".into(), section_id: hit.section_id.clone() };
    let req = SnippetRequest { query: "drive".into(), queries: None, hits: vec![hit, bad], texts: unreadable };
    assert_eq!(e.snippets(&req).unwrap(), vec![None, None]);
}

#[test]
fn a_snippet_of_a_note_edited_since_indexing_comes_from_its_current_text() {
    let notes = vault();
    let mut e = engine_with(&notes);
    let found = hits(&mut e, "steam");
    assert!(found[0].heading_path.ends_with("Baking"), "{:?}", found[0]);
    // On disk the note has changed (not yet re-indexed): lines added above the hit section,
    // and the section's own text changed.
    let edited = split_note(
        "About bread.\nKeep it at room temperature.\nDiscard half first.",
        &[
            ("Starter", "Feed the starter flour and water daily."),
            ("Baking", "Bake at 250 degrees with steam and a lid."),
        ],
    );
    let s = snippets(&e, "steam", &found[..1], &[note("Cooking/Bread.md", &edited)])[0].clone().unwrap();
    assert!(s.text.contains("250 degrees with steam"), "{:?}", s.text);
    assert!(
        !s.text.contains("Discard") && !s.text.contains("starter0"),
        "the section's lines in the current text: {:?}",
        s.text
    );
    // The heading is gone: the whole note stands for it.
    let gone = note("Cooking/Bread.md", "# Sourdough\n\nNo more baking here, steam or not.\n");
    let s = snippets(&e, "steam", &found[..1], &[gone])[0].clone().unwrap();
    assert!(s.text.contains("steam or not"), "{:?}", s.text);
}

#[test]
fn read_with_a_stale_text_answers_from_the_current_text() {
    let notes = vault();
    let mut e = engine_with(&notes);
    let hit = hits(&mut e, "steam").remove(0);
    let indexed_hash = e.note(&hit.path).unwrap().hash;
    let edited = split_note(
        "About bread.\nA new intro line.\nAnother one.",
        &[
            ("Starter", "Feed the starter flour and water daily."),
            ("Baking", "Bake with steam, then cool on a rack."),
            ("Storage", "A linen bag."),
        ],
    );
    let read = |req: ReadRequest| e.read(&ReadRequest { bytes: Some(edited.as_bytes().to_vec()), ..req });

    let r =
        read(ReadRequest { path: hit.path.clone(), section_id: Some(hit.section_id.clone()), ..Default::default() })
            .unwrap();
    assert!(r.text.starts_with("## Baking\n\nBake with steam, then cool on a rack.\nbaking0 "), "{:?}", r.text);
    assert!(!r.text.contains("Storage"));
    assert_eq!(r.start_line, hit.start_line + 2, "the section's lines now, not the index's");
    assert_eq!(r.section_id.as_deref(), Some(hit.section_id.as_str()), "ids stay the index's");
    assert_eq!(r.content_hash, crate::hash::sha256_hex(edited.as_bytes()));
    assert_ne!(r.content_hash, indexed_hash);
    let whole = read(ReadRequest { path: hit.path.clone(), whole: true, ..Default::default() }).unwrap();
    assert_eq!(whole.text, edited.trim_end());
    let lines =
        read(ReadRequest { path: hit.path.clone(), start_line: Some(4), max_lines: Some(1), ..Default::default() })
            .unwrap();
    assert_eq!(lines.text, "A new intro line.");
    // A heading added since indexing is read by heading; it has no section id in the index.
    let storage =
        read(ReadRequest { path: hit.path.clone(), heading: Some("Storage".into()), ..Default::default() }).unwrap();
    assert!(storage.text.starts_with("## Storage\n\nA linen bag."), "{:?}", storage.text);
    assert_eq!(storage.section_id, None);
    // A section whose heading is gone says so.
    let gone = e
        .read(&ReadRequest {
            path: hit.path.clone(),
            section_id: Some(hit.section_id.clone()),
            bytes: Some(b"# Sourdough\n\nOnly this.\n".to_vec()),
            ..Default::default()
        })
        .unwrap_err();
    assert!(gone.message().contains("no longer in"), "{gone}");
    // The indexed version answers from the index's sections, as before.
    let same = e
        .read(&ReadRequest {
            path: hit.path.clone(),
            section_id: Some(hit.section_id.clone()),
            bytes: Some(notes[0].bytes.clone()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        (same.start_line, same.end_line, same.content_hash.as_str()),
        (hit.start_line, hit.end_line, indexed_hash.as_str())
    );
}

#[test]
fn a_rename_with_the_same_bytes_moves_without_re_embedding() {
    let notes = vault();
    let mut e = engine_with(&notes);
    with_model(&mut e);
    embed_from(&mut e, &notes);
    let before = e.embed_progress();
    assert_eq!(before.done, before.total);
    let vectors = e.status().vectors;
    let r = e
        .update(UpdateBatch {
            renames: vec![rename("Cooking/Bread.md", "Baking/Bread.md", Some(&notes[0].bytes))],
            ..Default::default()
        })
        .unwrap();
    assert_eq!((r.moved, r.added, r.deleted, r.updated), (1, 0, 0, 0));
    assert_eq!(hits(&mut e, "steam")[0].path, "Baking/Bread.md");
    assert!(e.note("Cooking/Bread.md").is_none());
    // Only the lead vector ("Baking > Sourdough", then the note's opening lines) is new.
    let p = e.embed_progress();
    assert_eq!(p.total - p.done, 1, "{p:?}");
    assert_eq!(e.embed_needs(8).unwrap(), vec!["Baking/Bread.md".to_string()]);
    let moved = vec![note("Baking/Bread.md", std::str::from_utf8(&notes[0].bytes).unwrap())];
    let p = e.embed_step(8, &texts(&moved)).unwrap();
    assert_eq!((p.embedded, p.dropped, p.done, p.total), (1, 0, p.total, p.total));
    e.flush().unwrap();
    // The old lead vector stays with the shared vectors (another device may not have seen the
    // rename yet); it no longer answers queries.
    assert_eq!(e.status().vectors, vectors + 1, "every section's vector stayed");
}

#[test]
fn a_rename_with_other_bytes_re_indexes_and_one_without_bytes_is_skipped() {
    let notes = vault();
    let mut e = engine_with(&notes);
    with_model(&mut e);
    embed_from(&mut e, &notes);
    // Renamed and edited before the event was applied: a delete and an upsert.
    let edited = "# Kyoto\n\nTemples, shrines and the bullet train from Tokyo.\n\n## Food\n\nMatcha and yuba.\n";
    let r = e
        .update(UpdateBatch {
            renames: vec![rename("Travel/Kyoto.md", "Japan/Kyoto.md", Some(edited.as_bytes()))],
            ..Default::default()
        })
        .unwrap();
    assert_eq!((r.moved, r.added, r.deleted), (0, 1, 1), "{r:?}");
    let found = hits(&mut e, "yuba");
    assert_eq!(found[0].path, "Japan/Kyoto.md", "{found:?}");
    assert!(e.note("Travel/Kyoto.md").is_none());
    assert_eq!(e.embed_needs(8).unwrap(), vec!["Japan/Kyoto.md".to_string()], "its changed sections need its text");
    let disk = vec![note("Japan/Kyoto.md", edited)];
    let p = e.embed_step(8, &texts(&disk)).unwrap();
    assert!(p.embedded >= 2 && p.done == p.total, "{p:?}");

    // No bytes: nothing changes, and the report says why.
    let r = e
        .update(UpdateBatch {
            renames: vec![rename("Tech/Backups.md", "Archive/Backups.md", None)],
            ..Default::default()
        })
        .unwrap();
    assert_eq!((r.moved, r.deleted, r.added), (0, 0, 0));
    assert!(r.skipped[0].reason.contains("bytes"), "{:?}", r.skipped);
    assert!(e.note("Tech/Backups.md").is_some());
    // Into an excluded folder: no bytes needed, the note leaves the index.
    let r = e
        .update(UpdateBatch {
            renames: vec![rename("Tech/Backups.md", ".trash/Backups.md", None)],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(r.deleted, 1);
    assert!(e.note("Tech/Backups.md").is_none());
}

#[test]
fn embedding_drops_chunks_whose_text_is_missing_or_stale_and_ends() {
    let notes = vault();
    let mut e = engine_with(&notes);
    with_model(&mut e);
    // On "disk": Bread.md was edited since it was indexed, Kyoto.md is unreadable.
    let mut disk = notes.clone();
    disk[0] = note("Cooking/Bread.md", "# Sourdough\n\nRewritten.\n");
    disk.remove(1);
    let chunks = |e: &Engine, p: &str| e.catalog.get(p).unwrap().vector_keys().count();
    let (bread, kyoto) = (chunks(&e, "Cooking/Bread.md"), chunks(&e, "Travel/Kyoto.md"));
    assert!(bread >= 3, "split: a lead and 2+ leaves");
    let all: usize = notes.iter().map(|n| chunks(&e, &n.path)).sum();
    let (steps, embedded) = embed_from(&mut e, &disk);
    let p = e.embed_progress();
    assert_eq!(p.done, p.total, "the dropped chunks are off this session's queue: {p:?}");
    // The readable, unchanged notes' leads and leaves.
    assert_eq!(embedded, all - bread - kyoto, "{steps} steps");
    assert_eq!(e.status().vectors, embedded);
    // The notes' next update queues their chunks again.
    e.update(UpdateBatch { upserts: vec![disk[0].clone(), notes[1].clone()], ..Default::default() }).unwrap();
    let p = e.embed_progress();
    assert!(p.done < p.total);
    let (_, more) = embed_from(&mut e, &[disk[0].clone(), notes[1].clone()]);
    let p = e.embed_progress();
    assert_eq!(p.done, p.total);
    assert_eq!(more, chunks(&e, "Cooking/Bread.md") + kyoto, "the edited note's lead and leaves, and Kyoto's");
}

#[test]
fn chunks_taken_for_a_step_survive_a_queue_rebuild_while_the_host_reads() {
    let notes = vault();
    let mut e = engine_with(&notes);
    with_model(&mut e);
    let need = e.embed_needs(3).unwrap();
    assert!(!need.is_empty());
    // While the host reads `need`: another note is opened (prioritized), the queue rebuilt.
    let other = notes.iter().map(|n| n.path.clone()).find(|p| !need.contains(p)).unwrap();
    e.prioritize(&[other]);
    let supplied: Vec<NoteInput> = notes.iter().filter(|n| need.contains(&n.path)).cloned().collect();
    let p = e.embed_step(3, &texts(&supplied)).unwrap();
    assert_eq!((p.embedded, p.dropped), (3, 0), "{p:?}");
    let (_, rest) = embed_from(&mut e, &notes);
    let all: usize = notes.iter().map(|n| e.catalog.get(&n.path).unwrap().vector_keys().count()).sum();
    assert_eq!(3 + rest, all, "every chunk once");
    let p = e.embed_progress();
    assert_eq!(p.done, p.total);
}

#[test]
fn a_format_upgrade_rebuilds_the_device_s_index_and_keeps_the_vectors() {
    let notes = vault();
    let mut e = engine_with(&notes);
    with_model(&mut e);
    embed_from(&mut e, &notes);
    let vectors = e.status().vectors;
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    // This device's folder as an older Strata wrote it: that version's own folder, which this
    // one does not read (and deletes: `layout::plan_open`), and the shared vectors.
    folder.set_format_version(store::FORMAT_VERSION - 1);
    let names: Vec<String> = folder.0.keys().cloned().collect();
    let plan = layout::plan_open(layout::DEFAULT_DEVICE, &names);
    assert!(!plan.obsolete.is_empty() && plan.obsolete.iter().all(|n| !plan.read.contains(n)), "{plan:?}");
    let mut e2 = Engine::open(CoreConfig::default(), folder.files());
    let report = e2.open_report().clone();
    assert!(report.fresh, "{report:?}");
    assert_eq!(report.shared_vectors, vectors, "the shared vectors, of the model the space file names");
    e2.update(UpdateBatch { upserts: notes.clone(), ..Default::default() }).unwrap();
    with_model(&mut e2);
    let p = e2.embed_progress();
    assert_eq!((p.done, p.total), (vectors, vectors), "nothing is embedded again");
    assert!(e2.embed_needs(8).unwrap().is_empty());
    for o in &plan.obsolete {
        folder.0.remove(o);
    }
    let out = e2.flush().unwrap();
    assert!(!out.writes.iter().any(|w| w.name.starts_with(layout::VECTORS_DIR)), "no vector is written again");
    folder.apply(&out);
    let e3 = Engine::open(CoreConfig::default(), folder.files());
    assert!(!e3.open_report().rebuilt, "{:?}", e3.open_report().reason);
    assert_eq!((e3.status().vectors, e3.status().format_version), (vectors, store::FORMAT_VERSION));
}

#[test]
fn section_hashes_are_those_of_the_indexed_text_after_an_upsert_and_a_rename() {
    // Clean; a BOM (removed); three invalid bytes that decode to one replacement character
    // of the same length (so only the lossy flag tells the text from the bytes).
    let cases: [&[u8]; 3] = [b"# T\n\nab cd\n\n", b"\xEF\xBB\xBF# T\n\nab cd\n", b"# T\n\nab\xF0\x90\x80cd\n"];
    let cfg = CoreConfig::default();
    let split = SplitConfig { budget: cfg.chunk_budget, min: cfg.chunk_min };
    for bytes in cases {
        let text = markdown::decode(bytes).text;
        let parsed = markdown::parse("a.md", &text);
        let want: Vec<[u8; 32]> =
            build_sections(&text, &parsed.headings, parsed.line_count, parsed.body_start_line, split)
                .iter()
                .map(|s| s.hash)
                .collect();
        let hashes =
            |e: &Engine, p: &str| e.catalog.get(p).unwrap().sections.iter().map(|s| s.hash).collect::<Vec<_>>();
        let mut e = engine_with(&[NoteInput { path: "a.md".into(), bytes: bytes.to_vec(), mtime: 1.0, ctime: None }]);
        assert_eq!(hashes(&e, "a.md"), want, "{bytes:?}");
        let r =
            e.update(UpdateBatch { renames: vec![rename("a.md", "b.md", Some(bytes))], ..Default::default() }).unwrap();
        assert_eq!(r.moved, 1);
        assert_eq!(hashes(&e, "b.md"), want, "{bytes:?} after a rename");
    }
}

#[test]
fn a_notes_vector_score_weighs_its_lead_with_its_best_section() {
    // The lead says what the note is about; its sections (split by the budget) do not.
    let filler = "plain words about nothing much at all ".repeat(20);
    let aliases =
        format!("An alias gives a note a second name.\n\n## Syntax\n\n{filler}\n\n## Properties\n\n{filler} name\n");
    let notes = vec![
        note("Aliases.md", &aliases),
        note(
            "Links.md",
            "Links join notes.\n\n## Rename\n\nA second name here, a note there, an alias elsewhere, a link.\n",
        ),
    ];
    let mut e = Engine::create(CoreConfig { chunk_budget: 60, chunk_min: 10, ..CoreConfig::default() }).unwrap();
    e.update(UpdateBatch { upserts: notes.clone(), ..Default::default() }).unwrap();
    with_model(&mut e);
    embed_from(&mut e, &notes);
    let texts = e.embed_texts("Aliases.md", &notes[0].bytes).unwrap();
    assert_eq!(texts[0], "Aliases\n\nAn alias gives a note a second name.", "the lead vector's text");
    assert!(texts.len() >= 3, "a lead and 2+ leaves: {texts:?}");

    let q = "note second name alias";
    let r = e
        .search(&SearchRequest { query: q.into(), k: Some(10), mode: Some(SearchMode::Semantic), ..Default::default() })
        .unwrap();
    assert_eq!(r.hits[0].path, "Aliases.md", "{:?}", r.hits);
    // The score: 0.6 × the lead's cosine + 0.4 × the best section's, from the embedder itself.
    let mut m = WordHash::boxed("model-a", 1);
    let qv = m.embed_query(q).unwrap();
    let vs = m.embed_passages(&texts.iter().map(|t| t.as_str()).collect::<Vec<_>>()).unwrap();
    let cos: Vec<f32> = vs.iter().map(|v| v.iter().zip(&qv).map(|(a, b)| a * b).sum()).collect();
    let best = cos[1..].iter().copied().fold(f32::MIN, f32::max);
    let want = LEAD_WEIGHT * cos[0] + (1.0 - LEAD_WEIGHT) * best;
    assert!((r.hits[0].vec_score - want).abs() < 0.01, "{} vs {want}", r.hits[0].vec_score);
    assert!(cos[0] > best, "the lead carries this note");
    // Not the indexed bytes: refused.
    assert!(e.embed_texts("Aliases.md", b"other").is_err());
}
