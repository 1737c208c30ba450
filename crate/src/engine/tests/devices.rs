//! One vault on several devices: each writes its own folder, the vectors are shared, and no
//! device deletes or rewrites what another wrote, whatever order sync delivers files in.
//! (tests/node/sync.test.ts runs the same through the CLI with a sync process in between.)

use super::switch::{vault, WordHash};
use super::*;
use crate::vectors::merge;

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

/// A device: its engine over the files of `folder` it would read (`layout::plan_open`), then,
/// as the hosts do after the open, the shared segments it wants of those the plan left to after.
fn open(device: &str, folder: &Folder) -> Engine {
    open_reading(cfg_of(device), folder, &mut Vec::new())
}

/// [`open`] with `config`, recording every file read in `read`.
fn open_reading(config: CoreConfig, folder: &Folder, read: &mut Vec<String>) -> Engine {
    let names: Vec<String> = folder.0.keys().cloned().collect();
    let plan = layout::plan_open(&config.device_id, &names);
    let files =
        |names: &[String]| names.iter().map(|n| IndexFile { name: n.clone(), bytes: folder.0[n].clone() }).collect();
    read.extend(plan.read.iter().cloned());
    let mut e = Engine::open(config, files(&plan.read));
    let wanted = e.wanted_vector_files(&plan.vectors);
    read.extend(wanted.iter().cloned());
    e.add_vectors(files(&wanted));
    e
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

/// `n` notes, each with its own words (two texts each to embed: its lead and its section).
fn many_notes(n: usize) -> Vec<NoteInput> {
    (0..n)
        .map(|i| NoteInput {
            path: format!("Long/Note {i}.md"),
            bytes: format!("# Topic {i}\n\nwords{i} alpha{i} beta{i} gamma{i}\n").into_bytes(),
            mtime: 1000.0 + i as f64,
            ctime: None,
        })
        .collect()
}

/// The keys in the shared segments of `folder` that verify.
fn union(folder: &Folder) -> std::collections::HashSet<crate::vectors::Key> {
    folder
        .0
        .iter()
        .filter(|(n, b)| matches!(layout::parse(n), layout::Entry::Segment { .. }) && layout::segment_verifies(n, b))
        .flat_map(|(_, b)| crate::vectors::FlatIndex::segment_keys(b).unwrap())
        .collect()
}

fn segment_files(folder: &Folder) -> Vec<String> {
    folder.0.keys().filter(|n| matches!(layout::parse(n), layout::Entry::Segment { .. })).cloned().collect()
}

const T0: u64 = 1_800_000_000_000;

/// A long first embedding: the desktop flushes after every text (one small segment each), while
/// a phone reads the folder after every flush.
fn long_embedding(folder: &mut Folder, notes: &[NoteInput], written: &mut Vec<String>) -> Engine {
    let mut desk = open("desk", folder);
    desk.update(UpdateBatch { upserts: notes.to_vec(), ..Default::default() }).unwrap();
    desk.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
    let mut seen = union(folder);
    loop {
        let need = desk.embed_needs(1).unwrap();
        let p =
            desk.embed_step(1, &texts(&notes.iter().filter(|n| need.contains(&n.path)).cloned().collect::<Vec<_>>()));
        let out = desk.flush_at(T0).unwrap();
        written.extend(out.writes.iter().map(|w| w.name.clone()));
        assert!(
            out.deletes.iter().all(|d| d.starts_with(&layout::device_dir("desk"))),
            "no segment goes before the grace period"
        );
        folder.apply(&out);
        let now = union(folder);
        assert!(now.is_superset(&seen), "no vector left the union");
        seen = now;
        let p = p.unwrap();
        if p.done >= p.total {
            return desk;
        }
    }
}

/// A first embedding of `notes` with a 384-dimension model, flushed after every `per_flush`
/// texts: the bytes of the segments it wrote, and the engine.
fn first_embedding(folder: &mut Folder, notes: &[NoteInput], per_flush: usize) -> (u64, Engine) {
    let mut desk = open("desk", folder);
    desk.update(UpdateBatch { upserts: notes.to_vec(), ..Default::default() }).unwrap();
    desk.use_embedder(WordHash::boxed_dim("model-a", 1, 384)).unwrap();
    let mut written = 0;
    loop {
        let need = desk.embed_needs(per_flush).unwrap();
        let p = desk
            .embed_step(
                per_flush,
                &texts(&notes.iter().filter(|n| need.contains(&n.path)).cloned().collect::<Vec<_>>()),
            )
            .unwrap();
        let out = desk.flush_at(T0).unwrap();
        written += out
            .writes
            .iter()
            .filter(|w| matches!(layout::parse(&w.name), layout::Entry::Segment { .. }))
            .map(|w| w.bytes.len() as u64)
            .sum::<u64>();
        folder.apply(&out);
        if p.done >= p.total {
            return (written, desk);
        }
    }
}

#[test]
fn a_first_embedding_writes_each_vector_at_most_twice() {
    // 3,200 texts, a flush every 24 (19 KB of vectors, as the plugin's flush every 8 s writes
    // at 3 texts a second): each vector goes out once in its flush's segment and at most once in
    // a merged one. (The rule before, 16 small segments merged smallest first up to 4 MiB,
    // rewrote the growing merged segment at every merge: 5.05 times the vectors' bytes here.)
    let mut folder = Folder::default();
    let notes = many_notes(1600);
    let (written, mut desk) = first_embedding(&mut folder, &notes, 24);
    assert_eq!(desk.status().vectors, 3200);
    folder.apply(&desk.flush_at(T0 + merge::GRACE_MS).unwrap());
    let segments = segment_files(&folder);
    let kept: u64 = segments.iter().map(|n| folder.0[n].len() as u64).sum();
    assert_eq!(union(&folder).len(), 3200, "every vector is still in the union");
    let factor = written as f64 / kept as f64;
    assert!(factor <= 2.0, "{written} bytes written for {kept} bytes of vectors: {factor:.2}x");
    // Few segments to list and read at open: fewer than MERGE_AT flush segments, the merged
    // ones at least SEAL_BYTES each.
    assert!(segments.len() as u64 <= merge::MERGE_AT as u64 + kept / merge::SEAL_BYTES, "{} segments", segments.len());
}

#[test]
fn a_device_merges_the_segments_it_wrote_and_deletes_them_only_after_the_grace_period() {
    let mut folder = Folder::default();
    // A laptop embedded two notes earlier: its segment is not the desktop's to merge or delete.
    let notes = many_notes(40);
    let mut laptop = open("laptop", &folder);
    laptop.update(UpdateBatch { upserts: notes[..2].to_vec(), ..Default::default() }).unwrap();
    laptop.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
    assert_eq!(embed_all(&mut laptop, &notes[..2]), 4);
    folder.apply(&laptop.flush_at(T0).unwrap());
    let laptop_files = segment_files(&folder);
    assert_eq!(laptop_files.len(), 1);

    let mut written = Vec::new();
    let mut desk = long_embedding(&mut folder, &notes, &mut written);
    let texts_total = 80;
    assert_eq!(desk.status().vectors, texts_total);
    let flushes = written.iter().filter(|n| n.ends_with("manifest-a.json") || n.ends_with("manifest-b.json")).count();
    assert!(flushes >= 70, "one flush per text embedded: {flushes}");
    let before = segment_files(&folder).len();
    // The grace period has not passed: nothing of the desktop's is deleted yet.
    let out = desk.flush_at(T0 + merge::GRACE_MS - 1).unwrap();
    assert!(out.deletes.is_empty() && out.writes.is_empty(), "{:?}", out.deletes);
    let union_before = union(&folder);
    // It has: the desktop deletes the segments it merged, and only those.
    let out = desk.flush_at(T0 + merge::GRACE_MS).unwrap();
    assert!(!out.deletes.is_empty());
    for d in &out.deletes {
        assert!(written.contains(d), "{d}: the desktop deletes only segments it wrote");
        assert!(matches!(layout::parse(d), layout::Entry::Segment { .. }), "{d}");
    }
    folder.apply(&out);
    assert_eq!(union(&folder), union_before, "every vector is still in the union");
    for f in &laptop_files {
        assert!(folder.0.contains_key(f), "the laptop's segment stays");
    }
    let after = segment_files(&folder).len();
    assert!(after < merge::MERGE_AT + 1, "{before} segment files before the grace period, {after} after");
    assert!(after + 20 < before, "{before} → {after}");
    // A phone opening now reads every vector.
    let phone = open("phone", &folder);
    assert_eq!(phone.status().vectors, texts_total);
    // The next manifest no longer lists what was deleted; the one after changes nothing.
    let out = desk.flush_at(T0 + merge::GRACE_MS + 1).unwrap();
    let dir = layout::device_dir("desk");
    assert!(out.deletes.iter().chain(out.writes.iter().map(|w| &w.name)).all(|n| n.starts_with(&dir)), "{out:?}");
    let m = out.writes.iter().find(|w| w.name.ends_with(".json")).expect("a manifest");
    let listed = store::Manifest::decode(&m.bytes).unwrap().segments;
    assert!(listed.iter().all(|o| o.merged_into.is_none()), "the deleted ones are no longer listed: {listed:?}");
    folder.apply(&out);
    let out = desk.flush_at(T0 + merge::GRACE_MS + 2).unwrap();
    assert!(out.writes.is_empty() && out.deletes.is_empty(), "nothing left to do");
}

#[test]
fn a_reopened_device_deletes_what_it_merged_only_when_the_merged_segment_is_whole() {
    let mut folder = Folder::default();
    let notes = many_notes(40);
    let mut written = Vec::new();
    drop(long_embedding(&mut folder, &notes, &mut written));
    // Which of the desktop's segments were merged, into which, from its manifest.
    let manifest = |folder: &Folder| {
        let dir = layout::device_dir("desk");
        let m = [format!("{dir}manifest-a.json"), format!("{dir}manifest-b.json")]
            .iter()
            .filter_map(|n| store::Manifest::decode(folder.0.get(n)?).ok())
            .max_by_key(|m| m.generation)
            .unwrap();
        m.segments
    };
    let own = manifest(&folder);
    let retired: Vec<&store::OwnSegment> = own.iter().filter(|o| o.merged_into.is_some()).collect();
    assert!(retired.len() >= merge::MERGE_AT - 1, "{own:?}");
    assert!(own.iter().all(|o| folder.0.contains_key(&o.name)));

    // The merged segment of some of them is torn (a sync tool rewrote it partly): reopened, the
    // desktop keeps those, and deletes the others after the grace period.
    let mut damaged = folder.clone();
    let target = retired[0].merged_into.clone().unwrap();
    let bytes = damaged.0.get_mut(&target).unwrap();
    bytes.truncate(bytes.len() / 2);
    let mut desk = open("desk", &damaged);
    let out = desk.flush_at(T0 + merge::GRACE_MS).unwrap();
    let kept: Vec<&String> =
        retired.iter().filter(|o| o.merged_into.as_ref() == Some(&target)).map(|o| &o.name).collect();
    assert!(kept.iter().all(|n| !out.deletes.contains(n)), "a segment whose merged one is torn stays");
    assert!(out.deletes.iter().all(|d| written.contains(d)));

    // Whole, and reopened: every merged one goes after the grace period, not before.
    let mut desk = open("desk", &folder);
    let out = desk.flush_at(T0 + 1).unwrap();
    assert!(out.deletes.is_empty());
    folder.apply(&out);
    let vectors = union(&folder);
    let before_deletes = folder.clone();
    let out = desk.flush_at(T0 + merge::GRACE_MS).unwrap();
    let mut deleted = out.deletes.clone();
    deleted.sort();
    let mut expected: Vec<String> = retired.iter().map(|o| o.name.clone()).collect();
    expected.sort();
    assert_eq!(deleted, expected);
    folder.apply(&out);
    assert_eq!(union(&folder), vectors);
    // The manifest written with the deletions still lists them (a crash before the deletes would
    // leave them to delete again); reopened, the desktop forgets them and deletes nothing more.
    let listed = manifest(&folder);
    assert!(listed.iter().filter(|o| o.merged_into.is_some()).all(|o| !folder.0.contains_key(&o.name)));
    assert!(listed.iter().filter(|o| o.merged_into.is_none()).all(|o| folder.0.contains_key(&o.name)));
    let mut desk = open("desk", &folder);
    let out = desk.flush_at(T0 + 3 * merge::GRACE_MS).unwrap();
    assert!(out.deletes.is_empty());

    // A merged segment gone (deleted by hand): the segments merged into it are the desktop's
    // own again and stay; the others go.
    let mut gone = before_deletes;
    let newest = retired.last().unwrap().merged_into.clone().unwrap();
    gone.0.remove(&newest);
    let vectors = union(&gone);
    let mut desk = open("desk", &gone);
    let out = desk.flush_at(T0 + merge::GRACE_MS).unwrap();
    for o in &retired {
        let into_newest = o.merged_into.as_ref() == Some(&newest);
        assert_eq!(out.deletes.contains(&o.name), !into_newest, "{}", o.name);
    }
    gone.apply(&out);
    assert_eq!(union(&gone), vectors, "no vector left the union");
}

/// The shared segments the newest manifest of `device` lists.
fn listed(folder: &Folder, device: &str) -> Vec<store::OwnSegment> {
    let dir = layout::device_dir(device);
    store::SLOTS
        .iter()
        .filter_map(|slot| store::Manifest::decode(folder.0.get(&format!("{dir}{slot}"))?).ok())
        .max_by_key(|m| m.generation)
        .unwrap()
        .segments
}

#[test]
fn a_rebuilt_index_keeps_the_list_of_segments_the_device_wrote() {
    let mut folder = Folder::default();
    let notes = many_notes(24);
    drop(long_embedding(&mut folder, &notes, &mut Vec::new()));
    let dir = layout::device_dir("desk");
    let mut retired: Vec<String> =
        listed(&folder, "desk").into_iter().filter(|o| o.merged_into.is_some()).map(|o| o.name).collect();
    retired.sort();
    assert!(retired.len() >= merge::MERGE_AT - 1, "{retired:?}");

    // "Rebuild index" deletes the device's index but its manifests (`layout::OpenPlan::own`); a
    // change of the index settings makes the index unusable. Either way the device starts a new
    // index, and a crash before its first flush loses nothing: the old manifests are still there.
    let names: Vec<String> = folder.0.keys().cloned().collect();
    let mut wiped = folder.clone();
    for name in layout::plan_open("desk", &names).own {
        wiped.0.remove(&name);
    }
    let left: Vec<&String> = wiped.0.keys().filter(|n| n.starts_with(&dir)).collect();
    assert!(!left.is_empty() && left.iter().all(|n| n.ends_with("manifest-a.json") || n.ends_with("manifest-b.json")));
    let other_settings = CoreConfig { chunk_budget: cfg_of("desk").chunk_budget + 100, ..cfg_of("desk") };
    for (what, config, mut folder) in
        [("rebuild", cfg_of("desk"), wiped), ("other settings", other_settings, folder.clone())]
    {
        for attempt in ["crashed before its first flush", "flushes"] {
            let mut desk = open_reading(config.clone(), &folder, &mut Vec::new());
            let report = desk.open_report().clone();
            assert!(report.fresh, "{what}: {report:?}");
            // "Rebuild index" asked for a fresh index, and an open like this one deleted the files
            // of the index it could not use: no reason to give again.
            let unusable = what == "other settings" && attempt == "crashed before its first flush";
            assert_eq!(report.rebuilt, unusable, "{what}, {attempt}: {report:?}");
            assert!(report.orphans.iter().all(|o| !o.ends_with(".json")), "the manifests stay: {report:?}");
            for orphan in &report.orphans {
                folder.0.remove(orphan);
            }
            if attempt == "crashed before its first flush" {
                continue;
            }
            desk.update(UpdateBatch { upserts: notes.clone(), ..Default::default() }).unwrap();
            let out = desk.flush_at(T0 + 1).unwrap();
            assert!(
                out.deletes.iter().all(|d| d.starts_with(&dir)),
                "{what}: nothing shared goes before the grace period"
            );
            folder.apply(&out);
            let own = listed(&folder, "desk");
            assert!(retired.iter().all(|r| own.iter().any(|o| &o.name == r)), "{what}: the new manifest lists them");
            // The new index is the one that opens, the old manifest beside it.
            let again = open_reading(config.clone(), &folder, &mut Vec::new());
            assert!(!again.open_report().fresh && !again.open_report().rebuilt, "{what}: {:?}", again.open_report());
            assert_eq!(again.status().notes, notes.len());
            let vectors = union(&folder);
            let out = desk.flush_at(T0 + merge::GRACE_MS).unwrap();
            let mut deleted: Vec<String> = out.deletes.iter().filter(|d| !d.starts_with(&dir)).cloned().collect();
            deleted.sort();
            assert_eq!(deleted, retired, "{what}: it deletes the segments it merged");
            folder.apply(&out);
            assert_eq!(union(&folder), vectors, "{what}: no vector left the union");
            // Nothing was embedded again: the model and its vectors stayed the device's.
            desk.use_embedder(WordHash::boxed("model-a", 1)).unwrap();
            assert!(desk.embed_needs(8).unwrap().is_empty(), "{what}");
        }
    }
}

#[test]
fn a_device_reads_the_vectors_of_its_own_model_only() {
    // The desktop embedded with model-a, a laptop with model-b (another space); a phone opened
    // before either had embedded anything (its manifest names no model).
    let mut folder = Folder::default();
    let mut phone = open("phone", &folder);
    phone.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    folder.apply(&phone.flush().unwrap());
    let mut desk = desktop_with_vectors(&mut folder);
    let mut laptop = open("laptop", &folder);
    laptop.update(UpdateBatch { upserts: vault(), ..Default::default() }).unwrap();
    laptop.use_embedder(WordHash::boxed("model-b", 2)).unwrap();
    laptop
        .update(UpdateBatch { upserts: vec![note("More.md", "# More\n\nmore words here\n")], ..Default::default() })
        .unwrap();
    let mut more = vault();
    more.push(note("More.md", "# More\n\nmore words here\n"));
    assert_eq!(embed_all(&mut laptop, &more), 8);
    folder.apply(&laptop.flush().unwrap());
    folder.apply(&desk.flush().unwrap());
    let space_of = |e: &Engine| layout::space_hex(e.semantic.spec().unwrap().space());
    let (a, b) = (space_of(&desk), space_of(&laptop));
    assert_ne!(a, b);
    let in_space = |names: &[String], space: &str| {
        names
            .iter()
            .filter(|n| n.starts_with(&format!("{}{space}/", layout::VECTORS_DIR)) && n.ends_with(".svec"))
            .count()
    };
    let names: Vec<String> = folder.0.keys().cloned().collect();
    assert!(in_space(&names, &a) > 0 && in_space(&names, &b) > 0);

    // Reopened, each reads its own model's segments and none of the other's.
    for (device, mine, theirs, vectors) in [("desk", &a, &b, 6), ("laptop", &b, &a, 8)] {
        let mut read = Vec::new();
        let e = open_reading(cfg_of(device), &folder, &mut read);
        assert_eq!(in_space(&read, mine), in_space(&names, mine), "{device} reads its model's vectors: {read:?}");
        assert_eq!(in_space(&read, theirs), 0, "{device} reads none of the other model's: {read:?}");
        assert_eq!(e.status().vectors, vectors, "{device}");
        assert_eq!(e.open_report().shared_vectors, 0, "{device}: added after the open");
    }
    // A device without a model reads both once, to take the model with the most vectors (as a
    // new device does), and then that model's only.
    for device in ["phone", "tablet"] {
        let mut read = Vec::new();
        let mut e = open_reading(cfg_of(device), &folder, &mut read);
        assert!(in_space(&read, &a) > 0 && in_space(&read, &b) > 0, "{device}: {read:?}");
        assert_eq!((e.status().model.as_deref(), e.status().vectors), (Some("model-b"), 8), "{device}");
        assert!(e.wanted_vector_files(&names).is_empty(), "{device}");
    }
}
