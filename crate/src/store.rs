//! A device's index folder (`devices/<device>.v<format>/`, see [`crate::layout`]).
//!
//! Layout (relative to the device folder):
//! - `lex/<segment files>`: tantivy's immutable segment and `.del` files;
//! - `cat/<generation>-<random>.bin`: catalog base and delta files (immutable);
//! - `manifest-a.json`, `manifest-b.json`: two manifest slots, written alternately.
//!
//! A flush writes new immutable files first and a manifest last. A manifest names
//! every file with its size and xxh3 checksum and ends with its own checksum; opening
//! takes the newest slot whose manifest and files all verify, so a crash at any write
//! leaves the previous state (older slot) or the new one. Files are deleted only once
//! neither slot references them. Other index settings are detected and reported, and the
//! caller rebuilds. The vectors are not here: they are shared by every device
//! (`layout`); a manifest names the models whose vectors the device uses, and the shared
//! segments the device wrote (the only ones it may merge or delete: `vectors::merge`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::api::{FlushOutput, IndexFile};
use crate::error::{CoreError, Result};
use crate::hash::checksum;

pub const FORMAT_NAME: &str = "strata-index";
/// 2: the catalog carries retrieval usage (AccessInfo). 3: section hashes as raw bytes.
/// 4: a split note's text is indexed in its sections only. 5: every line once (a section
/// with children indexes its lines before the first child). 6: script counts per note.
/// 7: links kept encoded, hashes as byte strings (a faster catalog decode at open).
/// 8: no stored note text (the hosts supply it: snippets, read, renames, embedding); body
/// positions restart in each section (the body is tokenized per section). 9: a lead
/// vector per note (its folders, title and opening lines) instead of a title vector.
/// 10: each note's language in the catalog; sections stemmed in their language, Thai, Lao,
/// Khmer and Burmese split into words, Arabic and Hebrew normalised. 11: each note's tasks in
/// the catalog (status, text, line, heading path, tags, parent, dates, priority).
/// 12: code (source files, large fenced blocks) as sections with their definitions; the lexical
/// code fields. 13: each note's creation time in the catalog, when the host knows it
/// (`file.ctime`). 14: Ukrainian words stemmed by prefix (`language::Stem::PREFIX`). 15: the
/// lexical exact-form field (quoted phrases' words as written); a Ukrainian note's ASCII words
/// stemmed in English, not cut to a prefix. 16: one folder per device, the vectors shared by
/// all devices as content-addressed segments (`layout`); the format 15 index's vectors are
/// adopted (see `salvage_vectors`). 17: code sections' string literals in a lexical field of
/// their own (quoted phrases and pasted messages); the code analyzer's exact forms. 18: a code
/// file indexed in line windows and waiting for its definitions is marked in the catalog (the
/// code pass resumes after a restart). 19: code sections' doc comments in the catalog, and a
/// definition's key made from its description (path, breadcrumb, kind, doc, signature).
pub const FORMAT_VERSION: u32 = 19;
pub const SLOTS: [&str; 2] = ["manifest-a.json", "manifest-b.json"];
pub const LEX_DIR: &str = "lex/";
/// The fixed tail of tantivy's file footer: its length and magic number (two u32).
const LEX_FOOTER_TAIL: usize = 8;
pub const CAT_DIR: &str = "cat/";
pub const VEC_DIR: &str = "vec/";

/// What identifies a vector space: vectors from another spec are never mixed in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelSpec {
    pub model_id: String,
    pub dimension: usize,
    pub max_tokens: usize,
    pub pooling: String,
    pub query_prefix: String,
    pub passage_prefix: String,
    #[serde(default)]
    pub multilingual: bool,
}

impl ModelSpec {
    /// The space tag written into every vector segment.
    pub fn space(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(serde_json::to_string(self).unwrap_or_default().as_bytes())
    }
}

/// A shared vector segment this device wrote (`layout`), as its manifest remembers it: a device
/// merges and deletes only these (`vectors::merge`). Older Strata of format 16 ignore the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnSegment {
    /// Its name in the index folder (`vectors/<space>/<hash>.svec`).
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// The segment of this device that holds every vector of this one, once it was merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<String>,
    /// When that segment was written (wall-clock ms): this one is deleted at a flush once the
    /// grace period (`vectors::merge::GRACE_MS`) has passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    pub name: String,
    pub size: u64,
    pub checksum: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub generation: u64,
    /// The device that wrote it (format 16 on).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device: String,
    /// Settings that change index content (see `CoreConfig::fingerprint`).
    pub settings: String,
    /// tantivy's meta.json for the lexical segments.
    pub lexical_meta: String,
    /// Catalog files in load order (a base, then deltas).
    pub catalog: Vec<String>,
    /// The embedding model the device's vectors come from (none before it chose one).
    #[serde(default)]
    pub model: Option<ModelSpec>,
    /// Format 15 and earlier: the vector segment files in load order (a base, then deltas).
    /// Empty from format 16 on: the vectors are shared (`layout`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vectors: Vec<String>,
    /// During a model switch: the model the old vectors come from (they answer queries
    /// until `model` has embedded everything); before format 16, their segment files too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_model: Option<ModelSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_vectors: Vec<String>,
    /// Every file this generation needs.
    pub files: Vec<FileRef>,
    /// The shared vector segments this device wrote and has not deleted (format 16: a device
    /// that wrote none, or a Strata before compaction, has none listed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<OwnSegment>,
}

impl Manifest {
    pub fn encode(&self) -> Vec<u8> {
        let json = serde_json::to_string_pretty(self).expect("manifest serialises");
        format!("{json}\nchecksum {}\n", checksum(json.as_bytes())).into_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<Manifest> {
        let text = std::str::from_utf8(bytes).map_err(|_| CoreError::Corrupt("manifest is not UTF-8".into()))?;
        let text = text.trim_end();
        let (json, sum) = text
            .rsplit_once("\nchecksum ")
            .ok_or_else(|| CoreError::Corrupt("manifest has no checksum (partial write?)".into()))?;
        if checksum(json.as_bytes()) != sum.trim() {
            return Err(CoreError::Corrupt("manifest checksum mismatch".into()));
        }
        let m: Manifest = serde_json::from_str(json).map_err(|e| CoreError::Corrupt(format!("manifest: {e}")))?;
        if m.format != FORMAT_NAME {
            return Err(CoreError::Corrupt(format!("not a Strata index ({})", m.format)));
        }
        Ok(m)
    }

    pub fn names(&self) -> HashSet<String> {
        self.files.iter().map(|f| f.name.clone()).collect()
    }
}

pub fn file_ref(name: &str, bytes: &[u8]) -> FileRef {
    FileRef { name: name.to_string(), size: bytes.len() as u64, checksum: checksum(bytes) }
}

/// The outcome of looking at an index folder.
pub struct Chosen {
    pub manifest: Manifest,
    pub slot: usize,
    /// The other slot's manifest, when it parses (its files are kept on disk).
    pub other: Option<Manifest>,
}

/// Picks the newest manifest whose files are all present and verify.
/// `Ok(None)`: no manifest at all (a fresh index). `Err`: there was an index, but no
/// usable generation; the message says why.
pub fn choose(files: &HashMap<String, Vec<u8>>, settings: &str) -> Result<Option<Chosen>> {
    let mut parsed: Vec<(usize, Manifest)> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut any = false;
    for (slot, name) in SLOTS.iter().enumerate() {
        let Some(bytes) = files.get(*name) else { continue };
        any = true;
        match Manifest::decode(bytes) {
            Ok(m) => parsed.push((slot, m)),
            Err(e) => problems.push(format!("{name}: {}", e.message())),
        }
    }
    if !any {
        return Ok(None);
    }
    parsed.sort_by_key(|(_, m)| std::cmp::Reverse(m.generation));
    for (i, (slot, m)) in parsed.iter().enumerate() {
        if m.version != FORMAT_VERSION {
            problems.push(format!(
                "{}: index format version {} (this Strata reads {})",
                SLOTS[*slot], m.version, FORMAT_VERSION
            ));
            continue;
        }
        if m.settings != settings {
            problems
                .push(format!("{}: built with other index settings ({} vs {})", SLOTS[*slot], m.settings, settings));
            continue;
        }
        match verify(m, files) {
            Ok(()) => {
                let other = parsed.iter().enumerate().find(|(j, _)| *j != i).map(|(_, (_, m))| m.clone());
                return Ok(Some(Chosen { manifest: m.clone(), slot: *slot, other }));
            }
            Err(e) => problems.push(format!("{}: {}", SLOTS[*slot], e.message())),
        }
    }
    Err(CoreError::Corrupt(problems.join("; ")))
}

/// The newest manifest of this format among the slots of `files` that decodes (its slot and
/// itself), whatever its settings and whether its files are there: the device's own list of the
/// shared segments it wrote, and the model it used, for an index that must be rebuilt (other
/// settings, a file that fails to verify, or its files deleted by "Rebuild index", which leaves
/// the manifests: `layout::OpenPlan::own`). Shared segments are written before a manifest and
/// deleted after it, so the newest manifest's list is the truth.
pub fn newest_manifest(files: &HashMap<String, Vec<u8>>) -> Option<(usize, Manifest)> {
    SLOTS
        .iter()
        .enumerate()
        .filter_map(|(slot, name)| Some((slot, Manifest::decode(files.get(*name)?).ok()?)))
        .filter(|(_, m)| m.version == FORMAT_VERSION)
        .max_by_key(|(_, m)| m.generation)
}

/// Vectors kept from an index that must be rebuilt ([`salvage_vectors`]).
pub struct Salvaged<'a> {
    /// The model they come from.
    pub spec: ModelSpec,
    /// Their segment files, in load order.
    pub names: Vec<String>,
    /// The segments' bytes, in the same order.
    pub blobs: Vec<&'a [u8]>,
}

/// The vector segments of the newest single-device manifest (format 15 and earlier, at the top
/// of the index folder) whose vector files verify, whatever its format version or the state of
/// its other files: vectors are keyed by the text they embed, so a device moving to the shared
/// layout need not embed again. The files stay: a device still on that version uses them.
pub fn salvage_vectors(files: &HashMap<String, Vec<u8>>) -> Option<Salvaged<'_>> {
    let mut manifests: Vec<Manifest> =
        SLOTS.iter().filter_map(|name| files.get(*name)).filter_map(|bytes| Manifest::decode(bytes).ok()).collect();
    manifests.sort_by_key(|m| std::cmp::Reverse(m.generation));
    manifests.into_iter().find_map(|m| {
        let spec = m.model.clone()?;
        if m.vectors.is_empty() {
            return None;
        }
        let blobs: Option<Vec<&[u8]>> = m
            .vectors
            .iter()
            .map(|name| {
                let r = m.files.iter().find(|f| &f.name == name)?;
                let bytes = files.get(name)?;
                (bytes.len() as u64 == r.size && checksum(bytes) == r.checksum).then_some(bytes.as_slice())
            })
            .collect();
        Some(Salvaged { spec, names: m.vectors.clone(), blobs: blobs? })
    })
}

fn verify(m: &Manifest, files: &HashMap<String, Vec<u8>>) -> Result<()> {
    for f in &m.files {
        let bytes = files.get(&f.name).ok_or_else(|| CoreError::Corrupt(format!("missing file {}", f.name)))?;
        if bytes.len() as u64 != f.size {
            return Err(CoreError::Corrupt(format!("{} has {} bytes, expected {}", f.name, bytes.len(), f.size)));
        }
        if checksum(bytes) != f.checksum {
            return Err(CoreError::Corrupt(format!("{} checksum mismatch", f.name)));
        }
        // Every lexical file ends with tantivy's footer; its reader assumes the footer's
        // 8-byte tail is there (a shorter file made it overflow, found by fuzzing).
        if f.name.starts_with(LEX_DIR) && bytes.len() < LEX_FOOTER_TAIL {
            return Err(CoreError::Corrupt(format!("{} is shorter than its footer ({} bytes)", f.name, bytes.len())));
        }
    }
    for c in m.catalog.iter().chain(&m.vectors).chain(&m.previous_vectors) {
        if !m.files.iter().any(|f| &f.name == c) {
            return Err(CoreError::Corrupt(format!("file {c} not listed")));
        }
    }
    Ok(())
}

/// What the engine remembers about the folder between flushes.
#[derive(Debug, Default, Clone)]
pub struct Persisted {
    pub generation: u64,
    /// Slot of the newest manifest (the next flush writes the other one).
    pub slot: usize,
    /// Files referenced by the newest manifest, with their refs.
    pub current: HashMap<String, FileRef>,
    /// Files referenced by the manifest in the other slot (kept until overwritten).
    pub previous: HashSet<String>,
    /// Catalog files of the newest manifest, in order.
    pub catalog: Vec<String>,
    /// Every file known to be in the folder (written or loaded).
    pub on_disk: HashSet<String>,
    /// Before the first flush of a rebuilt index: the generation and slot of the newest manifest
    /// of the index it replaces, which stays in the folder (it lists the shared segments this
    /// device wrote) until flushes overwrite it. The first generation is numbered after it and
    /// written into the other slot, so the newest manifest is always the new index's.
    pub replaces: Option<(u64, usize)>,
}

impl Persisted {
    /// Nothing was written to the folder yet (no generation).
    pub fn is_new(&self) -> bool {
        self.generation == 0
    }

    /// Whether the newest manifest's files under `dir` are exactly `names`.
    pub fn holds_exactly(&self, dir: &str, names: &HashSet<String>) -> bool {
        names.iter().all(|n| self.current.contains_key(n))
            && self.current.keys().filter(|n| n.starts_with(dir)).all(|n| names.contains(n))
    }
}

/// What a manifest says besides its files (which [`NextGeneration`] collects).
pub struct ManifestContent {
    pub device: String,
    pub settings: String,
    pub lexical_meta: String,
    pub catalog: Vec<String>,
    pub model: Option<ModelSpec>,
    pub previous_model: Option<ModelSpec>,
    pub segments: Vec<OwnSegment>,
}

/// The next generation of the index folder, as a flush assembles it: every file it needs,
/// kept from the current generation or written new, then the manifest that names them, written
/// last into the slot the current one is not in.
pub struct NextGeneration<'a> {
    persisted: &'a Persisted,
    generation: u64,
    writes: Vec<IndexFile>,
    refs: HashMap<String, FileRef>,
}

impl<'a> NextGeneration<'a> {
    pub fn new(persisted: &'a Persisted) -> NextGeneration<'a> {
        let after = match persisted.replaces {
            Some((generation, _)) if persisted.is_new() => generation,
            _ => persisted.generation,
        };
        NextGeneration { persisted, generation: after + 1, writes: Vec::new(), refs: HashMap::new() }
    }

    /// Keeps `name` when the current generation has it; false when it does not.
    pub fn keep(&mut self, name: &str) -> bool {
        match self.persisted.current.get(name) {
            Some(r) => {
                self.refs.entry(name.to_string()).or_insert_with(|| r.clone());
                true
            }
            None => false,
        }
    }

    /// Writes a file under the name it has (a lexical segment file: its name is its content's).
    pub fn write(&mut self, name: String, bytes: Vec<u8>) {
        self.refs.insert(name.clone(), file_ref(&name, &bytes));
        self.writes.push(IndexFile { name, bytes });
    }

    /// Writes a new immutable file in `dir` (a catalog or vector segment), named by the
    /// generation and a random part; returns its name.
    pub fn write_new(&mut self, dir: &str, bytes: Vec<u8>) -> String {
        let name = format!("{dir}{:08}-{}.bin", self.generation, &uuid::Uuid::new_v4().simple().to_string()[..8]);
        self.write(name.clone(), bytes);
        name
    }

    /// Writes the manifest last and says which files no slot needs any more (to delete after
    /// the writes); returns them with what the engine remembers of the new generation.
    pub fn finish(self, content: ManifestContent) -> (FlushOutput, Persisted) {
        let NextGeneration { persisted, generation, mut writes, refs } = self;
        let mut files: Vec<FileRef> = refs.values().cloned().collect();
        files.sort_by(|a, b| a.name.cmp(&b.name));
        let manifest = Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            generation,
            device: content.device,
            settings: content.settings,
            lexical_meta: content.lexical_meta,
            catalog: content.catalog.clone(),
            model: content.model,
            vectors: Vec::new(),
            previous_model: content.previous_model,
            previous_vectors: Vec::new(),
            files,
            segments: content.segments,
        };
        let slot = match persisted.replaces {
            _ if !persisted.is_new() => 1 - persisted.slot,
            Some((_, replaced)) => 1 - replaced,
            None => 0,
        };
        writes.push(IndexFile { name: SLOTS[slot].to_string(), bytes: manifest.encode() });

        // Keep what the new manifest and the one in the other slot reference.
        let previous: HashSet<String> = persisted.current.keys().cloned().collect();
        let mut on_disk = persisted.on_disk.clone();
        on_disk.extend(writes.iter().map(|w| w.name.clone()));
        let keep: HashSet<&String> = refs.keys().chain(previous.iter()).collect();
        let mut deletes: Vec<String> =
            on_disk.iter().filter(|n| !keep.contains(n) && !SLOTS.contains(&n.as_str())).cloned().collect();
        deletes.sort();
        for d in &deletes {
            on_disk.remove(d);
        }
        let bytes_written = writes.iter().map(|w| w.bytes.len() as u64).sum();
        let next =
            Persisted { generation, slot, current: refs, previous, catalog: content.catalog, on_disk, replaces: None };
        (FlushOutput { writes, deletes, bytes_written }, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(generation: u64, files: Vec<FileRef>) -> Manifest {
        Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            generation,
            device: String::new(),
            settings: "s".into(),
            lexical_meta: "{}".into(),
            catalog: vec![],
            model: None,
            vectors: vec![],
            previous_model: None,
            previous_vectors: vec![],
            files,
            segments: vec![],
        }
    }

    #[test]
    fn manifest_round_trip_and_tamper_detection() {
        let m = manifest(3, vec![file_ref("lex/a", b"x")]);
        let bytes = m.encode();
        assert_eq!(Manifest::decode(&bytes).unwrap(), m);
        // This device's segments, merged or not, round trip; none are written as no field.
        assert!(!String::from_utf8_lossy(&bytes).contains("segments"));
        let mut with = m.clone();
        with.segments = vec![
            OwnSegment { name: "vectors/0000000000000001/a.svec".into(), size: 9, merged_into: None, merged_at: None },
            OwnSegment {
                name: "vectors/0000000000000001/b.svec".into(),
                size: 7,
                merged_into: Some("vectors/0000000000000001/a.svec".into()),
                merged_at: Some(1_800_000_000_000),
            },
        ];
        assert_eq!(Manifest::decode(&with.encode()).unwrap(), with);
        let mut bad = bytes.clone();
        bad[10] ^= 1;
        assert!(Manifest::decode(&bad).is_err());
        assert!(Manifest::decode(&bytes[..bytes.len() / 2]).is_err());
    }

    #[test]
    fn newest_valid_slot_wins_and_falls_back() {
        // Lexical files are at least tantivy's 8-byte footer tail long (`verify`).
        let mut files = HashMap::new();
        files.insert("lex/a".to_string(), b"aaaaaaaaaaaa".to_vec());
        files.insert("lex/b".to_string(), b"bbbbbbbbbbbb".to_vec());
        files.insert(SLOTS[0].to_string(), manifest(1, vec![file_ref("lex/a", b"aaaaaaaaaaaa")]).encode());
        files.insert(SLOTS[1].to_string(), manifest(2, vec![file_ref("lex/b", b"bbbbbbbbbbbb")]).encode());
        assert_eq!(choose(&files, "s").unwrap().unwrap().manifest.generation, 2);
        // Damage generation 2's file: generation 1 is used.
        files.insert("lex/b".to_string(), b"bbbbbbbbbbbX".to_vec());
        let c = choose(&files, "s").unwrap().unwrap();
        assert_eq!(c.manifest.generation, 1);
        // Damage both: an error naming the problems.
        files.remove("lex/a");
        let e = choose(&files, "s").err().unwrap();
        assert!(e.message().contains("missing file lex/a"), "{e}");
        assert!(choose(&HashMap::new(), "s").unwrap().is_none());
    }

    #[test]
    fn other_version_or_settings_are_refused() {
        let mut files = HashMap::new();
        let mut m = manifest(1, vec![]);
        m.version = 99;
        files.insert(SLOTS[0].to_string(), m.encode());
        let e = choose(&files, "s").err().unwrap();
        assert!(e.message().contains("version 99"), "{e}");
        files.insert(SLOTS[0].to_string(), manifest(1, vec![]).encode());
        assert!(choose(&files, "other").is_err());
    }
}
