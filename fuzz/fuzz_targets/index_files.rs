//! The persisted-format readers: the frozen index folder of the current format
//! (tests/fixtures/formats/v<FORMAT_VERSION>) with one file, or the manifest's tantivy meta,
//! replaced by the input, truncated or bit-flipped, then opened. `Engine::open` must give an
//! index or "corrupt → rebuild", never a panic, and the opened index must answer a search.
//!
//! A damaged catalog or vector file is re-signed in the manifest (unless the input says not
//! to), so the damage reaches Strata's own readers behind the checksums. A damaged lexical file
//! is not: tantivy's segment readers trust their files (in 2 minutes they panicked 72 times on
//! re-signed damaged segments: overflows, slice bounds, unwraps), and the manifest's SHA-256 of
//! every file is what keeps damaged ones from them. `STRATA_FUZZ_RESIGN_LEX=1` re-signs those too.
//!
//! Input: byte 0 picks the file (the last choice: the manifest's `lexicalMeta`), byte 1 the
//! damage (low 2 bits: replace with the rest, truncate, flip bits, splice the rest in; bit 7:
//! leave the manifest unsigned), the rest is the damage's data.
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use strata_core::api::{IndexFile, SearchMode, SearchRequest};
use strata_core::layout;
use strata_core::store::{file_ref, Manifest, FORMAT_VERSION, SLOTS};
use strata_core::{CoreConfig, Engine};

fn read_dir_files(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            read_dir_files(&p, root, out);
        } else {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.insert(rel, std::fs::read(&p).unwrap());
        }
    }
}

fn fixture() -> &'static BTreeMap<String, Vec<u8>> {
    static FILES: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/fixtures/formats/v{FORMAT_VERSION}"));
        let mut files = BTreeMap::new();
        read_dir_files(&dir, &dir, &mut files);
        files.remove("README.md");
        assert!(files.contains_key(SLOTS[0]), "no frozen index folder in {}", dir.display());
        files
    })
}

fn damage(bytes: &mut Vec<u8>, how: u8, data: &[u8]) {
    match how & 3 {
        0 => *bytes = data.to_vec(),
        1 => {
            let keep = data.first().map_or(0, |&b| bytes.len() * b as usize / 256);
            bytes.truncate(keep);
        }
        2 => {
            for pair in data.chunks(2) {
                if bytes.is_empty() {
                    break;
                }
                let at = (pair[0] as usize * 257 + pair.get(1).copied().unwrap_or(0) as usize) % bytes.len();
                bytes[at] ^= 1 << (pair.get(1).copied().unwrap_or(0) & 7);
            }
        }
        _ => {
            let at = data.first().map_or(0, |&b| bytes.len() * b as usize / 256);
            bytes.splice(at..(at + data.len()).min(bytes.len()), data.iter().copied());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [pick, how, rest @ ..] = data else { return };
    let mut files = fixture().clone();
    let names: Vec<String> = files.keys().cloned().collect();
    let choice = *pick as usize % (names.len() + 1);
    // The default device's own folder (`layout`): its manifests name its files relative to it.
    let own = layout::device_dir(layout::DEFAULT_DEVICE);
    let slots: Vec<String> = SLOTS.iter().map(|s| format!("{own}{s}")).collect();
    if choice == names.len() {
        // The tantivy meta inside the manifest.
        let Some(bytes) = files.get(&slots[0]) else { return };
        let mut m = Manifest::decode(bytes).unwrap();
        let mut meta = m.lexical_meta.clone().into_bytes();
        damage(&mut meta, *how, rest);
        m.lexical_meta = String::from_utf8_lossy(&meta).into_owned();
        files.insert(slots[0].clone(), m.encode());
    } else {
        let name = &names[choice];
        let bytes = files.get_mut(name).unwrap();
        damage(bytes, *how, rest);
        let rel = name.strip_prefix(&own).unwrap_or(name).to_string();
        let lexical = rel.starts_with("lex/") && std::env::var_os("STRATA_FUZZ_RESIGN_LEX").is_none();
        if how & 0x80 == 0 && !lexical && !slots.contains(name) {
            let changed = bytes.clone();
            for slot in &slots {
                let Some(mb) = files.get(slot) else { continue };
                let Ok(mut m) = Manifest::decode(mb) else { continue };
                for f in m.files.iter_mut().filter(|f| f.name == rel) {
                    *f = file_ref(&rel, &changed);
                }
                files.insert(slot.clone(), m.encode());
            }
        }
    }
    let files: Vec<IndexFile> = files.into_iter().map(|(name, bytes)| IndexFile { name, bytes }).collect();
    let mut e = Engine::open(CoreConfig::default(), files);
    let req = SearchRequest { query: "the".into(), mode: Some(SearchMode::Lexical), ..Default::default() };
    let _ = e.search(&req);
    let _ = e.status();
});
