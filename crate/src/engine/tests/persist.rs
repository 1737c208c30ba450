//! Engine tests: persistence (reopen, small writes, a simulated crash at every write step,
//! corrupt or foreign index files) and bad input.

use super::*;

#[test]
fn persist_reopen_identical_results() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    let mut reopened = Engine::open(cfg(), folder.files());
    let rep = reopened.open_report();
    assert!(!rep.fresh && !rep.rebuilt, "{:?}", rep.reason);
    assert_eq!(rep.notes, 5);
    for q in ["encryption", "同步", "検索", "find", "Alice"] {
        let a: Vec<_> = search(&mut e, q).iter().map(|h| (h.section_id.clone(), h.score)).collect();
        let b: Vec<_> = search(&mut reopened, q).iter().map(|h| (h.section_id.clone(), h.score)).collect();
        assert_eq!(a, b, "{q}");
    }
    // Nothing changed: nothing to write.
    assert!(reopened.flush().unwrap().writes.is_empty());
}

#[test]
fn one_note_edit_writes_little() {
    let mut e = Engine::create(cfg()).unwrap();
    let many: Vec<NoteInput> = (0..300)
        .map(|i| note(&format!("n/{i}.md"), &long_note(&format!("Note {i}"), &[("A", "alpha"), ("B", "beta")])))
        .collect();
    upsert(&mut e, many);
    let mut folder = Folder::default();
    let full = e.flush().unwrap();
    folder.apply(&full);
    upsert(&mut e, vec![note("n/7.md", "# Note 7\n\nrewritten with zebra\n")]);
    let edit = e.flush().unwrap();
    folder.apply(&edit);
    assert!(
        edit.bytes_written * 20 < full.bytes_written,
        "edit wrote {} bytes, full index {}",
        edit.bytes_written,
        full.bytes_written
    );
    let mut reopened = Engine::open(cfg(), folder.files());
    assert_eq!(top_path(&mut reopened, "zebra").as_deref(), Some("n/7.md"));
    assert_eq!(reopened.status().notes, 300);
}

/// Crash at every write step of a flush (with the write in progress torn): reopening
/// must give the old state or the new one, never an error or a mix.
#[test]
fn crash_at_every_write_step_leaves_old_or_new_state() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());
    // A few generations so both manifest slots are in use.
    upsert(&mut e, vec![note("x1.md", "# X1\n\nkiwi\n")]);
    folder.apply(&e.flush().unwrap());
    let old = folder.clone();

    upsert(
        &mut e,
        vec![note("x2.md", "# X2\n\nmango\n"), note("Guides/Search.md", "# Search\n\nreplaced by papaya\n")],
    );
    let out = e.flush().unwrap();
    assert!(out.writes.len() >= 3);
    for step in 0..=out.writes.len() {
        for torn in [false, true] {
            let mut f = old.clone();
            for w in &out.writes[..step] {
                f.0.insert(w.name.clone(), w.bytes.clone());
            }
            if torn {
                let Some(w) = out.writes.get(step) else { continue };
                f.0.insert(w.name.clone(), w.bytes[..w.bytes.len() / 2].to_vec());
            }
            let mut e2 = Engine::open(cfg(), f.files());
            let rep = e2.open_report();
            assert!(!rep.rebuilt, "step {step} torn {torn}: {:?}", rep.reason);
            let new_state = top_path(&mut e2, "mango").is_some();
            if new_state {
                assert_eq!(top_path(&mut e2, "papaya").as_deref(), Some("Guides/Search.md"));
                assert_eq!(step, out.writes.len(), "new state only once the manifest is whole");
            } else {
                assert!(top_path(&mut e2, "papaya").is_none(), "step {step}: mixed state");
                assert_eq!(top_path(&mut e2, "pane").as_deref(), Some("Guides/Search.md"));
                assert_eq!(top_path(&mut e2, "kiwi").as_deref(), Some("x1.md"));
            }
        }
    }
    // Deletes happen after the manifest: the older slot's files are still there.
    let mut f = old.clone();
    f.apply(&out);
    let mut e3 = Engine::open(cfg(), f.files());
    assert_eq!(top_path(&mut e3, "mango").as_deref(), Some("x2.md"));
}

#[test]
fn corrupt_foreign_or_other_settings_index_is_rebuilt_with_reason() {
    let mut e = Engine::create(cfg()).unwrap();
    upsert(&mut e, sample());
    let mut folder = Folder::default();
    folder.apply(&e.flush().unwrap());

    let mut damaged = folder.clone();
    for (name, bytes) in damaged.0.iter_mut() {
        if name.starts_with(&Folder::own("lex/")) {
            bytes[0] ^= 0xff;
        }
    }
    let e2 = Engine::open(cfg(), damaged.files());
    assert!(e2.open_report().rebuilt);
    assert!(e2.open_report().reason.as_ref().unwrap().contains("checksum"));
    assert_eq!(e2.status().notes, 0);
    assert!(!e2.open_report().orphans.is_empty());

    let mut garbage = Folder::default();
    garbage.0.insert(Folder::own("manifest-a.json"), b"{not json".to_vec());
    assert!(Engine::open(cfg(), garbage.files()).open_report().rebuilt);

    let other = CoreConfig { chunk_budget: 256, ..cfg() };
    let e3 = Engine::open(other, folder.files());
    assert!(e3.open_report().rebuilt);
    assert!(e3.open_report().reason.as_ref().unwrap().contains("settings"));

    let fresh = Engine::open(cfg(), vec![]);
    assert!(fresh.open_report().fresh && !fresh.open_report().rebuilt);
}

#[test]
fn bad_inputs_are_skipped_or_warned_never_fatal() {
    let mut e = Engine::create(CoreConfig { max_note_bytes: 1_000_000, ..cfg() });
    let e = e.as_mut().unwrap();
    let big = vec![b'a'; 2_000_000];
    let r = e
        .update(UpdateBatch {
            upserts: vec![
                NoteInput {
                    path: "bad-utf8.md".into(),
                    bytes: b"valid \xff\xfe invalid kumquat".to_vec(),
                    mtime: 0.0,
                    ctime: None,
                },
                note("broken-fm.md", "---\ntitle: [oops\n---\nbody with lychee\n"),
                NoteInput { path: "huge.md".into(), bytes: big, mtime: 0.0, ctime: None },
                NoteInput {
                    path: "binary.md".into(),
                    bytes: vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2],
                    mtime: 0.0,
                    ctime: None,
                },
                note("empty.md", ""),
                note("image.png", "not markdown"),
                note(".obsidian/workspace.md", "hidden"),
                note("../outside.md", "escape"),
                note("/abs.md", "abs"),
            ],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(r.added, 3, "bad-utf8, broken-fm, empty");
    let skipped: Vec<&str> = r.skipped.iter().map(|s| s.path.as_str()).collect();
    for p in ["huge.md", "binary.md", "image.png", ".obsidian/workspace.md", "../outside.md", "/abs.md"] {
        assert!(skipped.contains(&p), "{p} not skipped: {skipped:?}");
    }
    assert!(r.warnings.iter().any(|w| w.path == "bad-utf8.md"));
    assert!(r.warnings.iter().any(|w| w.path == "broken-fm.md" && w.message.contains("YAML")));
    assert_eq!(top_path(e, "kumquat").as_deref(), Some("bad-utf8.md"));
    assert_eq!(top_path(e, "lychee").as_deref(), Some("broken-fm.md"));
    let plan = e.plan(&[
        FileStat { path: "huge.md".into(), size: 50_000_000, mtime: 0.0, ctime: None },
        FileStat { path: "empty.md".into(), size: 0, mtime: 1000.0, ctime: None },
    ]);
    assert_eq!(plan.skipped.len(), 1);
    assert_eq!(plan.unchanged, 1);
    assert_eq!(plan.delete.len(), 2);
}
