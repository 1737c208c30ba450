//! Frozen index folders of earlier persisted formats (tests/fixtures/formats/v<N>), made from
//! tests/fixtures/vault by the Strata of that format with the fixture embedder
//! (crate/examples/make_format_fixture.rs; see tests/fixtures/formats/README.md). Opening one
//! must upgrade as designed: the current format opens as it is; an older one is rebuilt, says
//! why, and keeps its embedded vectors so that only what the new format adds is embedded (the
//! device folder of the format before, and format 15's single index for the vault).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::fixture_embedder::{FixtureEmbedder, FIXTURE_MODEL};
use strata_core::api::{
    FileStat, IndexFile, NoteInput, NoteTexts, QueryRequest, SearchMode, SearchRequest, UpdateBatch,
};
use strata_core::layout;
use strata_core::store::FORMAT_VERSION;
use strata_core::{CoreConfig, Engine};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_dir_files(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            read_dir_files(&p, root, out);
        } else {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read(&p).unwrap()));
        }
    }
}

/// The frozen index folder of format `version`.
fn fixture(version: u32) -> Vec<IndexFile> {
    let dir = repo().join(format!("tests/fixtures/formats/v{version}"));
    let mut files = Vec::new();
    read_dir_files(&dir, &dir, &mut files);
    files.retain(|(name, _)| name != "README.md");
    files.into_iter().map(|(name, bytes)| IndexFile { name, bytes }).collect()
}

/// The creation time the host gives every note (format 13 keeps it; earlier ones did not).
const CTIME: f64 = 1_600_000_000_000.0;

/// The fixture vault's notes, with the mtime (and, from format 13, the ctime) the fixtures were
/// made with.
fn vault() -> Vec<NoteInput> {
    let dir = repo().join("tests/fixtures/vault");
    let mut files = Vec::new();
    read_dir_files(&dir, &dir, &mut files);
    files
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md"))
        .map(|(path, bytes)| NoteInput { path, bytes, mtime: 1_700_000_000_000.0, ctime: Some(CTIME) })
        .collect()
}

/// Embeds everything pending with `embedder`'s engine; returns the texts embedded.
fn embed_all(e: &mut Engine, notes: &[NoteInput]) -> usize {
    let bytes: HashMap<&str, &[u8]> = notes.iter().map(|n| (n.path.as_str(), n.bytes.as_slice())).collect();
    let mut embedded = 0;
    loop {
        let needs = e.embed_needs(64).unwrap();
        let texts: NoteTexts = needs
            .iter()
            .map(|p| (p.clone(), bytes.get(p.as_str()).map(|b| serde_bytes::ByteBuf::from(b.to_vec()))))
            .collect();
        let p = e.embed_step(64, &texts).unwrap();
        embedded += p.embedded;
        if p.embedded == 0 && p.dropped == 0 {
            assert_eq!(p.done, p.total);
            return embedded;
        }
    }
}

#[test]
fn the_current_format_opens_as_it_is() {
    let files = fixture(FORMAT_VERSION);
    assert!(
        !files.is_empty(),
        "tests/fixtures/formats/v{FORMAT_VERSION} is missing: freeze it with make_format_fixture"
    );
    let mut e = Engine::open(CoreConfig::default(), files);
    let r = e.open_report();
    assert!(!r.fresh && !r.rebuilt && r.reason.is_none() && r.orphans.is_empty(), "{r:?}");
    let notes = vault();
    assert_eq!(r.notes, notes.len());
    let s = e.status();
    assert_eq!((s.format_version, s.model.as_deref()), (FORMAT_VERSION, Some(FIXTURE_MODEL)));
    assert!(s.vectors > notes.len(), "leaves and leads: {s:?}");

    // Every vector is there: with the model loaded again, nothing is left to embed.
    let p = e.use_embedder(Box::new(FixtureEmbedder::new())).unwrap();
    assert_eq!((p.done, p.total), (s.vectors, s.vectors), "{p:?}");
    assert_eq!(embed_all(&mut e, &notes), 0);

    // The index answers: lexically, and by vector (a query the fixture embedder maps onto a
    // note's lead text is that note's nearest vector).
    let hit = |e: &mut Engine, query: &str, mode| {
        let r = e.search(&SearchRequest { query: query.into(), mode: Some(mode), ..Default::default() }).unwrap();
        r.hits.first().map(|h| h.path.clone())
    };
    assert_eq!(hit(&mut e, "sourdough starter", SearchMode::Lexical).as_deref(), Some("Cooking/Sourdough starter.md"));
    let note = notes.iter().find(|n| n.path == "Cooking/Sourdough starter.md").unwrap();
    let lead = e.embed_texts(&note.path, &note.bytes).unwrap().remove(0);
    assert_eq!(hit(&mut e, &lead, SearchMode::Semantic).as_deref(), Some(note.path.as_str()), "the lead's own vector");
    let unchanged = vault();
    let listing: Vec<FileStat> = unchanged
        .iter()
        .map(|n| FileStat { path: n.path.clone(), size: n.bytes.len() as u64, mtime: n.mtime, ctime: None })
        .collect();
    let plan = e.plan(&listing);
    assert_eq!((plan.read.len(), plan.delete.len(), plan.unchanged), (0, 0, notes.len()), "nothing to re-read");
    // Every note's creation time, as the host gave it.
    assert_eq!(ctime_count(&e, "file.ctime = 2020-09-13T12:26:40Z"), notes.len());
}

/// How many notes a property expression finds.
fn ctime_count(e: &Engine, expr: &str) -> usize {
    e.query(&QueryRequest { where_: Some(expr.into()), ..Default::default() }).unwrap().total
}

#[test]
fn the_previous_device_folder_gives_way_and_the_shared_vectors_stay() {
    // From format 16 on each device has its own folder: an older one of this device is deleted
    // and its lexical index rebuilt; the shared vectors stay and nothing is embedded again.
    let previous = FORMAT_VERSION - 1;
    assert!(previous >= 16, "format {previous} has no device folders");
    let files = fixture(previous);
    assert!(!files.is_empty(), "tests/fixtures/formats/v{previous} is missing");
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let plan = layout::plan_open(layout::DEFAULT_DEVICE, &names);
    let own_old = format!("devices/{}.v{previous}/", layout::DEFAULT_DEVICE);
    let old_folder: Vec<&String> = names.iter().filter(|n| n.starts_with(&own_old)).collect();
    assert!(!old_folder.is_empty());
    assert_eq!(plan.obsolete.iter().collect::<Vec<_>>(), old_folder, "the older folder goes, nothing else");
    assert!(plan.read.iter().all(|n| !n.starts_with(&own_old)));
    let read =
        |wanted: &[String]| -> Vec<IndexFile> { files.iter().filter(|f| wanted.contains(&f.name)).cloned().collect() };
    let mut e = Engine::open(CoreConfig::default(), read(&plan.read));
    assert!(e.open_report().fresh, "{:?}", e.open_report());
    let wanted = e.wanted_vector_files(&plan.vectors);
    e.add_vectors(read(&wanted));
    let shared = e.status().vectors;
    assert!(shared > 0, "{:?}", e.status());

    let notes = vault();
    e.update(UpdateBatch { upserts: notes.clone(), ..Default::default() }).unwrap();
    let p = e.use_embedder(Box::new(FixtureEmbedder::new())).unwrap();
    assert_eq!((p.done, p.total), (shared, shared), "every text has its shared vector: {p:?}");
    assert_eq!(embed_all(&mut e, &notes), 0);
    let out = e.flush().unwrap();
    assert!(out.writes.iter().all(|w| !w.name.starts_with("vectors/")), "no vector written again");
    assert!(out
        .writes
        .iter()
        .any(|w| w.name.starts_with(&format!("devices/{}.v{FORMAT_VERSION}/", layout::DEFAULT_DEVICE))));
}

#[test]
fn the_single_device_format_is_adopted_keeping_its_vectors() {
    // Format 15 was the last with one index for the vault at the top of the folder; from 16 on
    // each device has its own folder and the vectors are shared (`layout`).
    let previous = 15;
    let files = fixture(previous);
    assert!(!files.is_empty(), "tests/fixtures/formats/v{previous} is missing");
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let plan = layout::plan_open(layout::DEFAULT_DEVICE, &names);
    assert_eq!(plan.read.len(), names.iter().filter(|n| n.starts_with("vec/") || n.starts_with("manifest-")).count());
    let mut e = Engine::open(CoreConfig::default(), files);
    let r = e.open_report().clone();
    assert!(r.fresh && !r.rebuilt && r.orphans.is_empty(), "{r:?}");
    let kept = e.status().vectors;
    assert!(kept > 0, "{:?}", e.status());
    let reason = r.reason.clone().unwrap_or_default();
    assert!(
        reason.contains(&format!("{kept} embedded chunks of the index of an earlier version were kept")),
        "{reason}"
    );
    assert_eq!(e.status().model.as_deref(), Some(FIXTURE_MODEL));

    // The caller indexes the vault again; with the model loaded, nothing is embedded again.
    let notes = vault();
    e.update(UpdateBatch { upserts: notes.clone(), ..Default::default() }).unwrap();
    assert_eq!(ctime_count(&e, "file.ctime < 2021-01-01"), notes.len(), "the creation times the host gave");
    let p = e.use_embedder(Box::new(FixtureEmbedder::new())).unwrap();
    assert_eq!((p.done, p.total), (kept, kept), "every vector was kept: {p:?}");
    assert_eq!(embed_all(&mut e, &notes), 0);

    // The new index persists in the current format, in the device's folder, the vectors as a
    // shared segment; the old files stay for a device still on format 15.
    let out = e.flush().unwrap();
    assert!(out.deletes.is_empty(), "{:?}", out.deletes);
    let mut folder: HashMap<String, Vec<u8>> = fixture(previous).into_iter().map(|f| (f.name, f.bytes)).collect();
    let old: Vec<String> = folder.keys().cloned().collect();
    for w in out.writes {
        assert!(!folder.contains_key(&w.name), "{} is not rewritten", w.name);
        folder.insert(w.name, w.bytes);
    }
    let reopened = Engine::open(
        CoreConfig::default(),
        folder.into_iter().map(|(name, bytes)| IndexFile { name, bytes }).collect(),
    );
    let r = reopened.open_report();
    assert!(!r.rebuilt && !r.fresh && r.orphans.is_empty() && r.reason.is_none(), "{r:?}");
    assert_eq!(reopened.status().format_version, FORMAT_VERSION);
    assert_eq!(reopened.status().vectors, e.status().vectors);
    assert_eq!(r.shared_vectors, kept);
    assert_eq!(ctime_count(&reopened, "file.ctime exists"), notes.len());
    assert!(!old.is_empty());
}
