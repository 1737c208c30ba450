//! Strata's vector index: an exact int8 scan with an f16 re-rank.
//!
//! # Why not hnsw_rs
//! The design card named hnsw_rs. It cannot serve in wasm32-unknown-unknown
//! (measured): its dependency mmap-rs has no platform module there, a compile
//! error (`cargo build --target wasm32-unknown-unknown` fails in mmap-rs);
//! `PointIndexation::drop` and `HnswIo::load_hnsw` call `SystemTime::now()`,
//! which panics on wasm32-unknown-unknown; it dumps and reloads only through
//! `std::fs::File`, and it has no delete. An exact int8 scan with SIMD128
//! costs ~0.1 µs per 384-d vector in wasm, needs no build time, persists as
//! flat bytes and deletes by tombstone, so it is what we use. It sits behind
//! the [`VectorIndex`] trait so an ANN tier can be added if a benchmark ever
//! shows the scan missing its budget (100k vectors ≤ 15 ms, 300k ≤ 40 ms).
//!
//! # Layout
//! Every vector lives in a slot, appended on insert:
//! * `codes`: int8, symmetric per-vector quantisation (`scale = max|x| / 127`),
//!   rows padded with zeros to a multiple of 32 bytes for the scan loops;
//! * `scales`: one f32 per slot;
//! * `halves`: the vector in f16, used to re-rank the best int8 candidates
//!   (`max(40, 4k)`) against the f32 query. f16 rather than f32 to halve the
//!   memory: a 384-d vector costs 384 (int8) + 768 (f16) + 36 (scale, key)
//!   bytes, ~1.2 KB, so 100k vectors take ~120 MB;
//! * `keys`: the 32-byte SHA-256 of the chunk text. A key already present is
//!   never embedded again: not after a rename or a move, not after an edit
//!   elsewhere in the note, not on a second device that syncs the folder.
//!
//! Removal marks the slot dead (tombstone). When more than
//! [`COMPACT_DEAD_FRACTION`] of the slots are dead, [`FlatIndex::compact`]
//! rebuilds the arrays.
//!
//! Scores are dot products of the stored vectors with the query: cosine
//! similarity for L2-normalised embeddings.
//!
//! # Persistence: immutable segments, written O(change)
//! The persisted state is a list of segment blobs: one *base* segment
//! followed by *delta* segments with consecutive sequence numbers. A delta
//! holds the vectors appended and the keys removed since the previous
//! segment, so adding 3 vectors writes a blob of ~2.5 KB. Compaction (or
//! [`FlatIndex::to_bytes`]) writes a new base with every live vector, which
//! replaces all earlier segments. Loading applies each segment's tombstones,
//! then its vectors, in order. Segment layout (little endian):
//!
//! ```text
//!  0  magic "SVEC"       4
//!  4  format version     u16 (1)
//!  6  flags              u16 (bit 0: base)
//!  8  dim                u32
//! 12  vector count       u32
//! 16  tombstone count    u32
//! 20  reserved           u32 (0)
//! 24  sequence number    u64
//! 32  space tag          u64 (the caller's fingerprint of model + prefixes)
//! 40  keys               count × 32
//!     tombstones         tombstones × 32
//!     vectors            count × dim × f16
//! end crc32              u32 over every byte before it
//! ```
//! A truncated, corrupt or foreign blob is an error, never a panic. From format 16
//! the index folder shares base segments without tombstones between devices
//! (`layout`), each device merging the ones it wrote ([`merge`]).

mod flat;
pub mod merge;
mod scan;
mod segment;
/// Synthetic vectors for the tests and the benchmark crate (feature `synthetic`).
#[cfg(any(test, feature = "synthetic"))]
pub mod synthetic;
#[cfg(test)]
mod tests;

pub use flat::FlatIndex;
pub use segment::{SegmentWrite, FORMAT_VERSION};

/// SHA-256 of a chunk's text.
pub type Key = [u8; 32];

/// Compaction is due when more than this fraction of the slots are dead.
pub const COMPACT_DEAD_FRACTION: f64 = 0.2;

/// A vector index keyed by chunk-text hash. The exact scan ([`FlatIndex`]) is
/// the only implementation; an ANN tier would implement this too.
pub trait VectorIndex {
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// Number of live vectors.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn contains(&self, key: &Key) -> bool;
    /// Add a vector. Returns `Ok(false)` if the key is already present (its
    /// text was embedded before: the stored vector is kept).
    fn insert(&mut self, key: Key, vector: &[f32]) -> Result<bool, String>;
    /// Remove a vector. Returns whether it was present.
    fn remove(&mut self, key: &Key) -> bool;
    /// The stored vector (f16 precision), e.g. to find notes similar to a section.
    fn get(&self, key: &Key) -> Option<Vec<f32>>;
    /// The dot product of `query` with the stored vector of `key` (the score `search`
    /// would give it), if the key is present.
    fn score(&self, key: &Key, query: &[f32]) -> Option<f32>;
    /// The `k` best live vectors by dot product with `query`, best first.
    /// `filter`, if given, must return true for a key to be returned.
    fn search(&self, query: &[f32], k: usize, filter: Option<&dyn Fn(&Key) -> bool>)
        -> Result<Vec<(Key, f32)>, String>;
    /// Keys of all live vectors (any order).
    fn keys(&self) -> Vec<Key>;
}
