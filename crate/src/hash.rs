//! Content hashes (SHA-256, hex) for notes and sections, and a fast checksum (xxh3)
//! for index files.

use sha2::{Digest, Sha256};

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// SHA-256 as raw bytes: what the catalog stores per section (half the size of hex, and
/// no string to allocate when the catalog is decoded on open).
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The SHA-256 of `text[..len]`, already known (see [`sha256_and_trimmed`]): the section
/// that spans exactly those bytes (the whole note) is not hashed again.
#[derive(Clone, Copy, Debug)]
pub struct KnownHash {
    pub len: usize,
    pub hash: [u8; 32],
}

/// SHA-256 of `bytes`, and of `bytes` without their trailing line breaks (`len` bytes): a
/// note's content hash and, when its text is these very bytes, the hash of its whole-note
/// section (`LineIndex::byte_range` of every line), in one pass over the note.
pub fn sha256_and_trimmed(bytes: &[u8]) -> ([u8; 32], KnownHash) {
    let len = bytes.len() - bytes.iter().rev().take_while(|b| matches!(b, b'\n' | b'\r')).count();
    let mut h = Sha256::new();
    h.update(&bytes[..len]);
    let trimmed: [u8; 32] = h.clone().finalize().into();
    h.update(&bytes[len..]);
    (h.finalize().into(), KnownHash { len, hash: trimmed })
}

/// Checksum of an index file: fast enough to verify every file on a cold open.
pub fn checksum(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_gives_both_hashes() {
        for text in ["", "a", "a\n", "a\r\n\n", "\n\n", "# T\n\nbody  \n\n"] {
            let (whole, k) = sha256_and_trimmed(text.as_bytes());
            assert_eq!(whole, sha256(text.as_bytes()));
            assert_eq!(k.hash, sha256(text.trim_end_matches(['\n', '\r']).as_bytes()));
            assert_eq!(k.len, text.trim_end_matches(['\n', '\r']).len());
        }
    }

    #[test]
    fn sha256_known_value() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn checksum_differs_on_change() {
        assert_ne!(checksum(b"abc"), checksum(b"abd"));
        assert_eq!(checksum(b"abc").len(), 16);
    }
}
