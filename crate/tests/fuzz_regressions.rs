//! Inputs the fuzz targets (fuzz/, docs/hardening.md) found crashing, kept as tests that run
//! without nightly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use strata_core::api::{IndexFile, NoteInput, SearchMode, SearchRequest, UpdateBatch};
use strata_core::layout;
use strata_core::store::{file_ref, Manifest, FORMAT_VERSION, SLOTS};
use strata_core::{CoreConfig, Engine};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_dir_files(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            read_dir_files(&p, root, out);
        } else {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.insert(rel, std::fs::read(&p).unwrap());
        }
    }
}

/// fuzz target `index_files`: a lexical file replaced by 5 bytes, the manifest re-signed for it
/// (so the checksums pass). tantivy's footer reader subtracted its 8-byte footer from the
/// file's length and overflowed; the open must instead rebuild and say why.
#[test]
fn lexical_file_shorter_than_its_footer_is_corrupt_not_a_panic() {
    let dir = repo().join(format!("tests/fixtures/formats/v{FORMAT_VERSION}"));
    let mut files = BTreeMap::new();
    read_dir_files(&dir, &dir, &mut files);
    files.remove("README.md");
    let own = layout::device_dir(layout::DEFAULT_DEVICE);
    let name = files.keys().find(|n| n.starts_with(&format!("{own}lex/")) && n.ends_with(".fast")).unwrap().clone();
    let rel = name.strip_prefix(&own).unwrap().to_string();
    let short = vec![0x02, 0x5a, 0x07, 0xc8, 0x04];
    files.insert(name.clone(), short.clone());
    for slot in SLOTS {
        let slot = format!("{own}{slot}");
        let Some(bytes) = files.get(&slot) else { continue };
        let mut m = Manifest::decode(bytes).unwrap();
        for f in m.files.iter_mut().filter(|f| f.name == rel) {
            *f = file_ref(&rel, &short);
        }
        files.insert(slot, m.encode());
    }
    let files = files.into_iter().map(|(name, bytes)| IndexFile { name, bytes }).collect();
    let mut e = Engine::open(CoreConfig::default(), files);
    let rep = e.open_report();
    assert!(rep.rebuilt, "{rep:?}");
    assert!(rep.reason.as_deref().unwrap_or_default().contains(&rel), "{:?}", rep.reason);
    let r = e.search(&SearchRequest { query: "the".into(), mode: Some(SearchMode::Lexical), ..Default::default() });
    assert!(r.unwrap().hits.is_empty());
}

/// fuzz target `query`: an excluded run with a NUL and replacement characters (an excluded
/// phrase). Under debug assertions tantivy's exclusion asserted in its phrase scorer; the
/// search must answer. The 10-minute run's 33 crashes were all that assertion; the shortest
/// (6 bytes) and its hand-minimized forms are a query that is only an excluded phrase matching
/// no document: `-"a s"`, `-a.s`, `-"2 5"`.
#[test]
fn excluded_phrase_with_odd_characters_answers() {
    let root = repo().join("tests/fixtures/vault");
    let mut files = BTreeMap::new();
    read_dir_files(&root, &root, &mut files);
    let upserts = files
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md"))
        .map(|(path, bytes)| NoteInput { path, bytes, mtime: 0.0, ctime: None })
        .collect();
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts, ..Default::default() }).unwrap();
    let query = String::from_utf8_lossy(b"-\x00fifti\xff\xff\xff\xf6s").into_owned();
    let minimized = ["-\"a s\"", "-a.s", "-\"2 5\"", "-a\u{19}\u{8}\u{0}s"].map(String::from);
    for q in [query.clone(), format!("sync {query}"), "-\"fifth sync\"".to_string()].into_iter().chain(minimized) {
        let req = SearchRequest { query: q.clone(), mode: Some(SearchMode::Lexical), ..Default::default() };
        let r = e.search(&req);
        assert!(r.is_ok(), "{q:?}: {:?}", r.err());
    }
}

/// fuzz target `index_files` (a timeout): bits flipped in the catalog, the manifest re-signed.
/// The damaged catalog decoded, with a section whose parent chain loops; the first search
/// walked up that chain forever. A catalog whose sections are not in pre-order (each at its
/// position, its parent before it) is corrupt: the open rebuilds.
#[test]
fn catalog_with_a_section_parent_loop_is_corrupt_not_a_hang() {
    let dir = repo().join(format!("tests/fixtures/formats/v{FORMAT_VERSION}"));
    let mut files = BTreeMap::new();
    read_dir_files(&dir, &dir, &mut files);
    files.remove("README.md");
    let own = layout::device_dir(layout::DEFAULT_DEVICE);
    let name = files.keys().find(|n| n.starts_with(&format!("{own}cat/"))).unwrap().clone();
    // The fuzz input's flips: pairs (a, b) flip bit b & 7 of the byte at (a * 257 + b) % len.
    let flips: &[u8] = b"\xff\xff\xfe\xfdpath\x00fAy\x09\x08X\xffr\x00f";
    let bytes = files.get_mut(&name).unwrap();
    for pair in flips.chunks(2) {
        let b = pair.get(1).copied().unwrap_or(0);
        let at = (pair[0] as usize * 257 + b as usize) % bytes.len();
        bytes[at] ^= 1 << (b & 7);
    }
    let damaged = bytes.clone();
    let rel = name.strip_prefix(&own).unwrap().to_string();
    for slot in SLOTS {
        let slot = format!("{own}{slot}");
        let Some(bytes) = files.get(&slot) else { continue };
        let mut m = Manifest::decode(bytes).unwrap();
        for f in m.files.iter_mut().filter(|f| f.name == rel) {
            *f = file_ref(&rel, &damaged);
        }
        files.insert(slot, m.encode());
    }
    let files: Vec<IndexFile> = files.into_iter().map(|(name, bytes)| IndexFile { name, bytes }).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut e = Engine::open(CoreConfig::default(), files);
        let rep = e.open_report().clone();
        let r = e.search(&SearchRequest { query: "the".into(), mode: Some(SearchMode::Lexical), ..Default::default() });
        tx.send((rep, r.map(|r| r.hits.len()))).unwrap();
    });
    let (rep, hits) = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the open and a search finish");
    assert!(rep.rebuilt, "{rep:?}");
    assert!(rep.reason.as_deref().unwrap_or_default().contains("catalog"), "{:?}", rep.reason);
    assert_eq!(hits.unwrap(), 0);
}
