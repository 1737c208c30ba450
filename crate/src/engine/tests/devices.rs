//! One vault on several devices: each writes its own folder, the vectors are shared, and no
//! device deletes or rewrites what another wrote, whatever order sync delivers files in.
//! (tests/node/sync.test.ts runs the same through the CLI with a sync process in between.)

use super::switch::{vault, WordHash};
use super::*;

fn cfg_of(device: &str) -> CoreConfig {
    CoreConfig { device_id: device.into(), ..CoreConfig::default() }
}

/// Embeds every pending chunk with the engine's model; returns how many it embedded.
fn embed_all(e: &mut Engine, notes: &[NoteInput]) -> usize {
    let mut n = 0;
    loop {
        let need = e.embed_needs(4).unwrap();
        let p = e.embed_step(4, &texts(&notes.iter().filter(|v| need.contains(&v.path)).cloned().collect::<Vec<_>>()));
        let p = p.unwrap();
        n += p.embedded;
        if p.done >= p.total {
            return n;
        }
    }
}

/// A device: its engine over the files of `folder` it would read (`layout::plan_open`).
fn open(device: &str, folder: &Folder) -> Engine {
    let names: Vec<String> = folder.0.keys().cloned().collect();
    let plan = layout::plan_open(device, &names);
    let files = plan.read.iter().map(|n| IndexFile { name: n.clone(), bytes: folder.0[n].clone() }).collect();
    Engine::open(cfg_of(device), files)
}

fn desktop_with_vectors(folder: &mut Folder) -> Engine {
    let mut desk = Engine::create(cfg_of("desk")).unwrap();
    desk.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    desk.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
    assert_eq!(embed_all(&mut desk, &vault()), 6);
    folder.apply(&desk.flush().unwrap());
    desk
}

#[test]
fn a_device_that_receives_the_index_before_its_manifests_deletes_nothing() {
    let mut folder = Folder::default();
    let mut desk = desktop_with_vectors(&mut folder);
    // The phone has every file but the desktop's manifests (sync delivers in any order).
    let mut partial = folder.clone();
    partial.0.retain(|n, _| !n.ends_with("manifest-a.json") && !n.ends_with("manifest-b.json"));
    let mut phone = open("phone", &partial);
    assert!(phone.open_report().orphans.is_empty(), "{:?}", phone.open_report().orphans);
    assert_eq!(phone.open_report().shared_vectors, 6, "the desktop's vectors are used at once");
    phone.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    let out = phone.flush().unwrap();
    let phone_dir = layout::device_dir("phone");
    assert!(out.writes.iter().all(|w| w.name.starts_with(&phone_dir)), "the phone writes only its own folder");
    assert!(out.deletes.iter().all(|d| d.starts_with(&phone_dir)), "{:?}", out.deletes);
    // Nothing to embed on the phone: the desktop embedded every text.
    phone.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
    assert!(phone.embed_needs(8).unwrap().is_empty());
    partial.apply(&out);
    // The desktop, with the phone's files around (and its own manifests back), keeps its vectors.
    partial.0.extend(folder.0.clone());
    let mut desk2 = open("desk", &partial);
    assert!(!desk2.open_report().fresh && desk2.open_report().orphans.is_empty());
    desk2.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
    assert!(desk2.embed_needs(8).unwrap().is_empty(), "nothing is embedded again");
    assert_eq!(desk2.status().vectors, desk.status().vectors);
    let _ = desk.flush();
}

#[test]
fn two_devices_writing_at_once_never_delete_each_other_s_files() {
    let mut folder = Folder::default();
    let mut desk = desktop_with_vectors(&mut folder);
    let mut phone = open("phone", &folder);
    phone.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    folder.apply(&phone.flush().unwrap());
    // Many rounds of edits on both; each flush applied to the shared folder.
    for round in 0..6 {
        let edit = |who: &str| NoteInput {
            path: format!("{who}.md"),
            bytes: format!("# {who} {round}\n\nround {round} words from {who}\n").into_bytes(),
            mtime: 2000.0 + round as f64,
            ctime: None,
        };
        let mut notes = vault();
        notes.push(edit("desk"));
        desk.update(UpdateBatch { upserts: vec![edit("desk")], ..Default::default() }).unwrap();
        embed_all(&mut desk, &notes);
        let before: Vec<String> =
            folder.0.keys().filter(|n| !n.starts_with(&layout::device_dir("desk"))).cloned().collect();
        let out = desk.flush().unwrap();
        assert!(out.deletes.iter().all(|d| d.starts_with(&layout::device_dir("desk"))), "{:?}", out.deletes);
        folder.apply(&out);
        assert!(before.iter().all(|n| folder.0.contains_key(n)), "the desktop kept every file not its own");
        phone.update(UpdateBatch { upserts: vec![edit("phone")], ..Default::default() }).unwrap();
        let out = phone.flush().unwrap();
        assert!(out.deletes.iter().all(|d| d.starts_with(&layout::device_dir("phone"))), "{:?}", out.deletes);
        folder.apply(&out);
    }
    // Each reopens its own state from the shared folder.
    for device in ["desk", "phone"] {
        let e = open(device, &folder);
        assert!(!e.open_report().fresh && !e.open_report().rebuilt, "{device}: {:?}", e.open_report());
        assert!(e.paths().contains(&format!("{device}.md")));
    }
}

#[test]
fn vectors_another_device_embedded_leave_the_queue() {
    let mut folder = Folder::default();
    let mut phone = Engine::create(cfg_of("phone")).unwrap();
    phone.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    phone.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
    assert_eq!(phone.embed_progress().total, 6);
    // The desktop embeds everything; its segment reaches the phone while the phone runs.
    let _desk = desktop_with_vectors(&mut folder);
    let names: Vec<String> = folder.0.keys().cloned().collect();
    let wanted = phone.wanted_vector_files(&names);
    assert_eq!(wanted.len(), 1, "{wanted:?}");
    // Partly arrived: left alone, reported; whole: added.
    let seg = folder.0[&wanted[0]].clone();
    let r = phone.add_vectors(vec![IndexFile { name: wanted[0].clone(), bytes: seg[..seg.len() / 2].to_vec() }]);
    assert_eq!((r.added, r.ignored.len()), (0, 1), "{r:?}");
    assert_eq!(phone.wanted_vector_files(&names), wanted, "asked for again until it verifies");
    let r = phone.add_vectors(vec![IndexFile { name: wanted[0].clone(), bytes: seg }]);
    assert_eq!((r.added, r.vectors), (6, 6));
    assert!(phone.wanted_vector_files(&names).is_empty());
    let p = phone.embed_progress();
    assert_eq!((p.done, p.total), (6, 6), "nothing left for the phone to embed");
    // And the phone writes no vectors of its own.
    let out = phone.flush().unwrap();
    assert!(!out.writes.iter().any(|w| w.name.starts_with(layout::VECTORS_DIR)));
}

#[test]
fn conflict_copies_partial_files_and_newer_versions_are_left_alone() {
    let mut folder = Folder::default();
    let desk = desktop_with_vectors(&mut folder);
    drop(desk);
    let dir = layout::device_dir("desk");
    let seg = folder.0.keys().find(|n| n.starts_with(layout::VECTORS_DIR) && n.ends_with(".svec")).cloned().unwrap();
    let newer = format!("{}desk.v{}/manifest-a.json", layout::DEVICES_DIR, store::FORMAT_VERSION + 1);
    let strangers = [
        format!("{dir}manifest-a (conflicted copy 2026-11-27).json"),
        format!("{dir}manifest-b.sync-conflict-20261127-101112-ABCDEFG.json"),
        format!("{dir}lex/.syncthing.0123.tmp"),
        format!("{}.icloud", seg.replace(".svec", "")),
        newer.clone(),
    ];
    for s in &strangers {
        folder.0.insert(s.clone(), b"someone else's bytes".to_vec());
    }
    // A segment torn in transit (its bytes do not match its name).
    let torn = layout::segment_name(1234, b"the whole segment");
    folder.0.insert(torn.clone(), b"the whole".to_vec());
    let names: Vec<String> = folder.0.keys().cloned().collect();
    let plan = layout::plan_open("desk", &names);
    assert!(plan.obsolete.is_empty());
    assert_eq!(plan.newer_format, Some(store::FORMAT_VERSION + 1));
    let mut e = open("desk", &folder);
    let report = e.open_report().clone();
    assert!(!report.fresh && report.orphans.is_empty(), "{report:?}");
    // Given the newer version's files, the engine names it too (a host passes the plan's).
    let all = folder.files();
    assert_eq!(Engine::open(cfg_of("desk"), all).open_report().newer_format, Some(store::FORMAT_VERSION + 1));
    e.update(UpdateBatch { upserts: vec![note("New.md", "# New\n\nnew words\n")], ..Default::default() }).unwrap();
    folder.apply(&e.flush().unwrap());
    for s in strangers.iter().chain([&torn]) {
        assert!(folder.0.contains_key(s), "{s} is left alone");
    }
}
