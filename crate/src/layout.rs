//! The index folder shared by a vault's devices, as sync services carry it between them.
//!
//! Layout (relative to `<vault>/<configDir>/plugins/strata-search/index/`):
//! - `devices/<device>.v<format>/`: one device's own lexical index and catalog, in the layout
//!   of [`crate::store`] (`manifest-a.json`, `manifest-b.json`, `lex/…`, `cat/…`). Only that
//!   device writes or deletes there; other devices never read it. The format version is in the
//!   folder's name, so two versions of Strata on one device never write over each other.
//! - `vectors/<space>/<hash>.svec`: the embeddings, shared by every device. `<space>` is the
//!   16-hex-digit tag of the model's [`ModelSpec`] (vectors of different models never mix),
//!   `<hash>` the first 32 hex digits of the SHA-256 of the file's bytes. A segment is
//!   immutable and verifies by its name alone, so a device reads the union of every segment
//!   present, from whichever device wrote it; one still arriving (torn, partial) does not
//!   verify and is left alone until it does. A device deletes a segment only when it wrote it
//!   (its manifest lists it), merged it into a larger one, and the grace period has passed since
//!   (`vectors::merge`): the union never loses a vector.
//! - `vectors/<space>/space.json`: that model's spec, the same bytes from every device, so a
//!   device that has not loaded the model yet knows what the vectors are.
//!
//! Anything else is left alone: other devices' folders, a sync service's conflict copies and
//! partial files, and the single-device layout of format 15 and earlier (top-level
//! `manifest-a.json`, `lex/`, `cat/`, `vec/`), whose vectors a device adopts once, when it has
//! no index of its own yet, and which a device still running that version keeps using.

use sha2::{Digest, Sha256};

use crate::error::{CoreError, Result};
use crate::store::{ModelSpec, FORMAT_VERSION, SLOTS, VEC_DIR};

pub const DEVICES_DIR: &str = "devices/";
pub const VECTORS_DIR: &str = "vectors/";
const SEGMENT_EXT: &str = ".svec";
pub const SPACE_FILE: &str = "space.json";
pub use crate::config::DEFAULT_DEVICE;

/// Checks a device id: 1–64 ASCII letters, digits, `-` or `_` (it names a folder).
pub fn check_device_id(id: &str) -> Result<()> {
    let ok =
        !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(CoreError::BadRequest(format!(
            "device id {id:?}: 1–64 letters, digits, '-' or '_' are allowed (it names a folder)"
        )))
    }
}

/// This device's folder for this format version, with its trailing `/`.
pub fn device_dir(device: &str) -> String {
    format!("{DEVICES_DIR}{device}.v{FORMAT_VERSION}/")
}

/// A space's tag as it appears in file names.
pub fn space_hex(space: u64) -> String {
    format!("{space:016x}")
}

/// The name of the shared segment holding `bytes`, in the folder of `space`.
pub fn segment_name(space: u64, bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("{VECTORS_DIR}{}/{}{SEGMENT_EXT}", space_hex(space), &hex::encode(digest)[..32])
}

/// The name of the spec file of `space`.
pub fn space_file(space: u64) -> String {
    format!("{VECTORS_DIR}{}/{SPACE_FILE}", space_hex(space))
}

/// The spec file's bytes: the spec as JSON (deterministic, the same from every device).
pub fn space_file_bytes(spec: &ModelSpec) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(spec).expect("spec serialises");
    out.push(b'\n');
    out
}

/// Whether `bytes` are what `name` (a segment name) says: its content hash.
pub fn segment_verifies(name: &str, bytes: &[u8]) -> bool {
    match parse(name) {
        Entry::Segment { hash, .. } => hex::encode(Sha256::digest(bytes)).starts_with(hash),
        _ => false,
    }
}

/// What a name in the index folder is, to a device.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry<'a> {
    /// In a device folder: the device, the format version of the folder, the name inside it.
    Device { device: &'a str, version: u32, rel: &'a str },
    /// A shared vector segment.
    Segment { space: u64, hash: &'a str },
    /// A space's spec file.
    Space { space: u64 },
    /// The single-device layout of format 15 and earlier: a manifest slot or a file in `vec/`.
    Legacy,
    /// Anything else: conflict copies, partial or temporary files, unknown names.
    Other,
}

/// Classifies a name relative to the index folder.
pub fn parse(name: &str) -> Entry<'_> {
    if let Some(rest) = name.strip_prefix(DEVICES_DIR) {
        let Some((folder, rel)) = rest.split_once('/') else { return Entry::Other };
        let Some((device, version)) = folder.rsplit_once(".v") else { return Entry::Other };
        let Ok(version) = version.parse::<u32>() else { return Entry::Other };
        if check_device_id(device).is_err() || rel.is_empty() {
            return Entry::Other;
        }
        return Entry::Device { device, version, rel };
    }
    if let Some(rest) = name.strip_prefix(VECTORS_DIR) {
        let Some((space, file)) = rest.split_once('/') else { return Entry::Other };
        if space.len() != 16 {
            return Entry::Other;
        }
        let Ok(space) = u64::from_str_radix(space, 16) else { return Entry::Other };
        if file == SPACE_FILE {
            return Entry::Space { space };
        }
        if let Some(hash) = file.strip_suffix(SEGMENT_EXT) {
            if hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
                return Entry::Segment { space, hash };
            }
        }
        return Entry::Other;
    }
    if SLOTS.contains(&name) || name.strip_prefix(VEC_DIR).is_some_and(is_generation_file) {
        return Entry::Legacy;
    }
    Entry::Other
}

/// `<8-digit generation>-<8 hex>.bin`: the names [`crate::store::NextGeneration::write_new`] gives.
pub fn is_generation_file(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".bin") else { return false };
    let Some((gen, rand)) = stem.split_once('-') else { return false };
    gen.len() == 8
        && gen.bytes().all(|b| b.is_ascii_digit())
        && rand.len() == 8
        && rand.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether a name inside a device folder is one Strata writes there: a manifest slot, a
/// tantivy file (`<32 hex>.<ext>` or `<32 hex>.<opstamp>.del`), a catalog file, or the
/// temporary file of one such ([`is_temp_name`]). Anything else in the folder (a conflict copy,
/// a partial download) was not written by Strata and is left alone.
pub fn is_own_name(rel: &str) -> bool {
    is_file_name(rel) || is_temp_name(rel)
}

/// The temporary file of an atomic write of one of Strata's own files by the Node host
/// (`<name>.tmp-<pid>-<n>`, renamed over `<name>` when whole): one still there was left by a
/// write a hard kill interrupted. Never read; the device deletes it at its next open.
pub fn is_temp_name(rel: &str) -> bool {
    let Some((name, tail)) = rel.rsplit_once(".tmp-") else { return false };
    let Some((pid, n)) = tail.split_once('-') else { return false };
    let number = |s: &str| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    number(pid) && number(n) && is_file_name(name)
}

/// Strata's own file names in a device folder, temporary files aside (see [`is_own_name`]).
fn is_file_name(rel: &str) -> bool {
    if SLOTS.contains(&rel) {
        return true;
    }
    if let Some(f) = rel.strip_prefix("cat/") {
        return is_generation_file(f);
    }
    if let Some(f) = rel.strip_prefix("lex/") {
        let mut parts = f.split('.');
        let (Some(id), Some(second)) = (parts.next(), parts.next()) else { return false };
        let third = parts.next();
        if parts.next().is_some() || id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return false;
        }
        let word = |s: &str| !s.is_empty() && s.len() <= 10 && s.bytes().all(|b| b.is_ascii_lowercase());
        return match third {
            None => word(second),
            Some(ext) => ext == "del" && !second.is_empty() && second.bytes().all(|b| b.is_ascii_digit()),
        };
    }
    false
}

/// The files a device reads at open, and those it deletes, from a listing of the folder.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenPlan {
    /// Its own folder's files, the spec files of the shared vectors, and, when it has no index
    /// of its own yet, the shared vector segments (to choose the model with the most vectors)
    /// and the single-device layout's manifests and vector files (to adopt their vectors).
    pub read: Vec<String>,
    /// The shared vector segments, when the device has an index of its own: not read for the
    /// open. After it, the host reads those of the device's models only
    /// (`Engine::wanted_vector_files` with these names, then `Engine::add_vectors`): a device
    /// never holds the vectors of a model it does not use.
    pub vectors: Vec<String>,
    /// The files to delete at open: those Strata wrote in its own folders of older format
    /// versions (it cannot read them), and the temporary files of writes a hard kill interrupted
    /// in its own folder.
    pub obsolete: Vec<String>,
    /// The files Strata wrote in its own folder of this version but its manifests: what deleting
    /// its index removes. The manifests stay, for they list the shared segments this device wrote
    /// (only it may merge and delete them); the open after that keeps the list and starts a fresh
    /// index, whose flushes overwrite them.
    pub own: Vec<String>,
    /// A newer format version of Strata indexed the vault on this device: the highest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub newer_format: Option<u32>,
}

/// Plans an open from the names in the index folder.
pub fn plan_open(device: &str, names: &[String]) -> OpenPlan {
    let mut plan = OpenPlan::default();
    let mut legacy = Vec::new();
    let mut segments = Vec::new();
    let mut has_own_manifest = false;
    for name in names {
        match parse(name) {
            Entry::Device { device: d, version, rel } if d == device => {
                if version == FORMAT_VERSION {
                    if is_temp_name(rel) {
                        plan.obsolete.push(name.clone());
                        plan.own.push(name.clone());
                    } else if is_own_name(rel) {
                        plan.read.push(name.clone());
                        if SLOTS.contains(&rel) {
                            has_own_manifest = true;
                        } else {
                            plan.own.push(name.clone());
                        }
                    }
                } else if version < FORMAT_VERSION {
                    // Only what Strata wrote there: a conflict copy in it is not this device's.
                    if is_own_name(rel) {
                        plan.obsolete.push(name.clone());
                    }
                } else {
                    plan.newer_format = plan.newer_format.max(Some(version));
                }
            }
            Entry::Segment { .. } => segments.push(name.clone()),
            Entry::Space { .. } => plan.read.push(name.clone()),
            Entry::Legacy => legacy.push(name.clone()),
            _ => {}
        }
    }
    if has_own_manifest {
        plan.vectors = segments;
    } else {
        plan.read.extend(segments);
        plan.read.extend(legacy);
    }
    plan.read.sort();
    plan.vectors.sort();
    plan.obsolete.sort();
    plan.own.sort();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_classified() {
        let me = device_dir("desk1");
        assert_eq!(
            parse(&format!("{me}manifest-a.json")),
            Entry::Device { device: "desk1", version: FORMAT_VERSION, rel: "manifest-a.json" }
        );
        assert_eq!(parse("devices/desk1.v3/lex/x"), Entry::Device { device: "desk1", version: 3, rel: "lex/x" });
        let seg = segment_name(7, b"abc");
        assert!(matches!(parse(&seg), Entry::Segment { space: 7, .. }), "{seg}");
        assert!(segment_verifies(&seg, b"abc"));
        assert!(!segment_verifies(&seg, b"ab"), "a partial file does not verify");
        assert_eq!(parse(&space_file(7)), Entry::Space { space: 7 });
        assert_eq!(parse("manifest-b.json"), Entry::Legacy);
        assert_eq!(parse("vec/00000003-0a1b2c3d.bin"), Entry::Legacy);
        for other in [
            "manifest-a (conflict 2026-11-27).json",
            "manifest-a.sync-conflict-20261127-101010-ABCDEFG.json",
            "devices/../x",
            "devices/a b.v16/manifest-a.json",
            "vectors/0000000000000007/abc.svec",
            "vectors/0000000000000007/.syncthing.0123456789abcdef0123456789abcdef.svec.tmp",
            "lex/0123.idx",
        ] {
            assert_eq!(parse(other), Entry::Other, "{other}");
        }
    }

    #[test]
    fn own_names_are_strata_s_only() {
        for own in [
            "manifest-a.json",
            "cat/00000012-0a1b2c3d.bin",
            "lex/0123456789abcdef0123456789abcdef.idx",
            "lex/0123456789abcdef0123456789abcdef.12.del",
            "manifest-b.json.tmp-4242-7",
            "lex/0123456789abcdef0123456789abcdef.idx.tmp-4242-12",
            "cat/00000012-0a1b2c3d.bin.tmp-1-1",
        ] {
            assert!(is_own_name(own), "{own}");
        }
        assert!(is_temp_name("manifest-a.json.tmp-4242-7") && !is_temp_name("manifest-a.json"));
        for not in [
            "manifest-a (1).json",
            "cat/00000012-0a1b2c3d (conflicted copy).bin",
            "lex/0123456789abcdef0123456789abcdef.idx.tmp",
            "lex/.0123456789abcdef0123456789abcdef.idx.icloud",
            "notes.md",
            "notes.md.tmp-4242-7",
            "manifest-a.json.tmp-4242",
            "manifest-a.json.tmp-x-1",
            "manifest-a (1).json.tmp-4242-7",
        ] {
            assert!(!is_own_name(not), "{not}");
        }
    }

    #[test]
    fn a_plan_reads_its_own_and_the_shared_files_only() {
        let me = device_dir("phone");
        let names: Vec<String> = [
            format!("{me}manifest-a.json"),
            format!("{me}lex/0123456789abcdef0123456789abcdef.idx"),
            format!("{me}manifest-a (conflict).json"),
            format!("{me}manifest-b.json.tmp-4242-3"),
            "devices/desk.v16/manifest-a.json".into(),
            "devices/phone.v2/manifest-a.json".into(),
            "devices/phone.v2/manifest-a (conflicted copy).json".into(),
            format!("devices/phone.v{}/manifest-a.json", FORMAT_VERSION + 1),
            segment_name(1, b"x"),
            space_file(1),
            "manifest-a.json".into(),
            "vec/00000001-00000000.bin".into(),
        ]
        .into_iter()
        .collect();
        let plan = plan_open("phone", &names);
        assert_eq!(
            plan.read,
            vec![
                format!("{me}lex/0123456789abcdef0123456789abcdef.idx"),
                format!("{me}manifest-a.json"),
                space_file(1),
            ]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
        );
        // With an index of its own, the shared segments are read after the open, those of its
        // models only (`Engine::wanted_vector_files`).
        assert_eq!(plan.vectors, vec![segment_name(1, b"x")]);
        // Deleting its index leaves its manifests (they list the segments it wrote).
        assert_eq!(
            plan.own,
            vec![format!("{me}lex/0123456789abcdef0123456789abcdef.idx"), format!("{me}manifest-b.json.tmp-4242-3")]
        );
        // Obsolete: its older version's files, and a temporary file a killed write left.
        assert_eq!(
            plan.obsolete,
            vec![format!("{me}manifest-b.json.tmp-4242-3"), "devices/phone.v2/manifest-a.json".to_string()]
        );
        assert_eq!(plan.newer_format, Some(FORMAT_VERSION + 1));
        // Without an index of its own, the single-device layout is read too (its vectors).
        let fresh = plan_open("tablet", &names);
        assert!(fresh.read.contains(&"manifest-a.json".to_string()));
        assert!(fresh.read.contains(&"vec/00000001-00000000.bin".to_string()));
        assert!(fresh.read.contains(&segment_name(1, b"x")) && fresh.vectors.is_empty(), "a new device reads them all");
        assert!(!fresh.read.iter().any(|n| n.starts_with("devices/")));
        assert!(fresh.obsolete.is_empty());
    }
}
