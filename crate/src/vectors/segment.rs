//! Persistence of a [`FlatIndex`]: immutable base and delta segments (layout in the module
//! documentation of `vectors`), written O(change) and verified on load.

use half::f16;

use super::flat::MAX_DIM;
use super::{FlatIndex, Key, VectorIndex};

/// Segment format version.
pub const FORMAT_VERSION: u16 = 1;

const MAGIC: &[u8; 4] = b"SVEC";
const HEADER_LEN: usize = 40;
const FLAG_BASE: u16 = 1;

/// `half`'s f16 → f32 conversion of every bit pattern, computed once (256 KB): wasm has no
/// f16 instructions, and loading a snapshot converts every stored component.
fn f16_table() -> &'static [f32] {
    static TABLE: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| (0..=u16::MAX).map(|b| f16::from_bits(b).to_f32()).collect())
}

/// A new segment to persist, from [`FlatIndex::pending_segment`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentWrite {
    /// Sequence number: a base starts a new list, a delta follows `seq - 1`.
    pub seq: u64,
    /// A base replaces every earlier segment.
    pub base: bool,
    pub bytes: Vec<u8>,
    /// Slots and tombstones covered, for [`FlatIndex::mark_persisted`].
    upto_slot: usize,
    tombstones: usize,
}

impl FlatIndex {
    /// The segment that would persist the changes since the last
    /// [`mark_persisted`](Self::mark_persisted): a delta (appended vectors +
    /// removed keys), or a base with every live vector after a compaction or
    /// for a new index. `None` if nothing changed.
    /// Makes the next [`pending_segment`](Self::pending_segment) a base with every live
    /// vector (vectors adopted into a new index folder).
    pub fn rebase(&mut self) {
        self.needs_base = true;
    }

    pub fn pending_segment(&self) -> Option<SegmentWrite> {
        if self.needs_base {
            let slots: Vec<usize> = (0..self.slots()).filter(|&i| self.alive[i]).collect();
            let bytes = self.encode(self.next_seq, true, &slots, &[]);
            return Some(SegmentWrite {
                seq: self.next_seq,
                base: true,
                bytes,
                upto_slot: self.slots(),
                tombstones: self.pending_tombstones.len(),
            });
        }
        let slots: Vec<usize> = (self.persisted_slots..self.slots()).filter(|&i| self.alive[i]).collect();
        if slots.is_empty() && self.pending_tombstones.is_empty() {
            return None;
        }
        let bytes = self.encode(self.next_seq, false, &slots, &self.pending_tombstones);
        Some(SegmentWrite {
            seq: self.next_seq,
            base: false,
            bytes,
            upto_slot: self.slots(),
            tombstones: self.pending_tombstones.len(),
        })
    }

    /// Record that `seg` (from [`pending_segment`](Self::pending_segment))
    /// was written durably. Changes made since it was taken stay pending.
    /// Errors if `seg` is stale (another segment or a compaction came first).
    pub fn mark_persisted(&mut self, seg: &SegmentWrite) -> Result<(), String> {
        if seg.seq != self.next_seq
            || seg.base != self.needs_base
            || seg.upto_slot > self.slots()
            || seg.tombstones > self.pending_tombstones.len()
        {
            return Err(format!("vector index: stale segment {} (next is {})", seg.seq, self.next_seq));
        }
        self.persisted_slots = seg.upto_slot;
        self.pending_tombstones.drain(..seg.tombstones);
        self.next_seq += 1;
        self.needs_base = false;
        Ok(())
    }

    /// A full snapshot: one base segment with every live vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        let slots: Vec<usize> = (0..self.slots()).filter(|&i| self.alive[i]).collect();
        self.encode(self.next_seq, true, &slots, &[])
    }

    /// Load a snapshot (one base segment). `dim` and `space` must match it.
    pub fn from_bytes(bytes: &[u8], dim: usize, space: u64) -> Result<FlatIndex, String> {
        Self::from_segments(&[bytes], dim, space)
    }

    /// Load a base segment followed by its deltas, in order.
    pub fn from_segments(segments: &[&[u8]], dim: usize, space: u64) -> Result<FlatIndex, String> {
        let mut idx = FlatIndex::new(dim, space)?;
        let mut last_seq = None;
        for (i, bytes) in segments.iter().enumerate() {
            let seg = Segment::parse(bytes)?;
            if seg.dim != dim {
                return Err(format!("vector segment {i}: dimension {} but the index has {dim}", seg.dim));
            }
            if seg.space != space {
                return Err(format!(
                    "vector segment {i}: written for another embedding space (model change: re-embed)"
                ));
            }
            match (i, seg.base, last_seq) {
                (0, true, _) => {}
                (0, false, _) => return Err("vector segments: the first one is not a base segment".into()),
                (_, true, _) => return Err(format!("vector segment {i}: a base segment after the first")),
                (_, false, Some(prev)) if seg.seq != prev + 1 => {
                    return Err(format!("vector segment {i}: sequence {} after {prev} (a segment is missing)", seg.seq))
                }
                _ => {}
            }
            last_seq = Some(seg.seq);
            for t in 0..seg.tombstones {
                let k = seg.tombstone(t);
                idx.remove(&k);
            }
            let mut h = vec![f16::ZERO; dim];
            let mut f = vec![0f32; dim];
            idx.reserve(seg.count);
            for v in 0..seg.count {
                let key = seg.key(v);
                if idx.slot_of.contains_key(&key) {
                    continue;
                }
                seg.vector(v, &mut h);
                let t = f16_table();
                for (o, x) in f.iter_mut().zip(&h) {
                    *o = t[x.to_bits() as usize];
                }
                idx.push_slot(key, &h, &f);
            }
        }
        if let Some(s) = last_seq {
            idx.next_seq = s + 1;
            idx.needs_base = false;
        }
        idx.persisted_slots = idx.slots();
        idx.pending_tombstones.clear();
        Ok(idx)
    }

    /// Adds the vectors of one shared segment (a base without tombstones, as
    /// [`encode_keys`](Self::encode_keys) writes them) to the index, whatever else it holds:
    /// the union of segments from several writers. Keys already present keep their vector.
    /// Returns how many were added, and the keys that were present already.
    pub fn add_segment(&mut self, bytes: &[u8]) -> Result<(usize, Vec<Key>), String> {
        let seg = Segment::parse(bytes)?;
        if seg.dim != self.dim {
            return Err(format!("vector segment: dimension {} but the index has {}", seg.dim, self.dim));
        }
        if seg.space != self.space {
            return Err("vector segment: written for another embedding space".into());
        }
        if seg.tombstones != 0 {
            return Err("vector segment: a shared segment has no tombstones".into());
        }
        let mut h = vec![f16::ZERO; self.dim];
        let mut f = vec![0f32; self.dim];
        let t = f16_table();
        let mut added = 0;
        let mut present = Vec::new();
        self.reserve(seg.count);
        for v in 0..seg.count {
            let key = seg.key(v);
            if self.slot_of.contains_key(&key) {
                present.push(key);
                continue;
            }
            seg.vector(v, &mut h);
            for (o, x) in f.iter_mut().zip(&h) {
                *o = t[x.to_bits() as usize];
            }
            self.push_slot(key, &h, &f);
            added += 1;
        }
        Ok((added, present))
    }

    /// The keys of a segment's vectors, in its order (it is checked whole first).
    pub fn segment_keys(bytes: &[u8]) -> Result<Vec<Key>, String> {
        let seg = Segment::parse(bytes)?;
        Ok((0..seg.count).map(|v| seg.key(v)).collect())
    }

    /// A shared segment holding the live vectors of `keys` (absent or dead keys are left
    /// out): a base segment, sequence 0, no tombstones. `None` when none is live.
    pub fn encode_keys(&self, keys: &[Key]) -> Option<Vec<u8>> {
        let mut slots: Vec<usize> =
            keys.iter().filter_map(|k| self.slot_of.get(k).map(|&s| s as usize)).filter(|&s| self.alive[s]).collect();
        slots.sort_unstable();
        slots.dedup();
        (!slots.is_empty()).then(|| self.encode(0, true, &slots, &[]))
    }

    /// Forgets the delta bookkeeping (appended slots, tombstones): for an index persisted
    /// as shared segments ([`encode_keys`](Self::encode_keys)), which never writes deltas.
    pub fn forget_pending(&mut self) {
        self.persisted_slots = self.slots();
        self.pending_tombstones.clear();
        self.needs_base = false;
    }

    fn encode(&self, seq: u64, base: bool, slots: &[usize], tombstones: &[Key]) -> Vec<u8> {
        let d = self.dim;
        let len = HEADER_LEN + slots.len() * 32 + tombstones.len() * 32 + slots.len() * d * 2 + 4;
        let mut out = Vec::with_capacity(len);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(if base { FLAG_BASE } else { 0 }).to_le_bytes());
        out.extend_from_slice(&(d as u32).to_le_bytes());
        out.extend_from_slice(&(slots.len() as u32).to_le_bytes());
        out.extend_from_slice(&(tombstones.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&self.space.to_le_bytes());
        for &s in slots {
            out.extend_from_slice(&self.keys[s]);
        }
        for k in tombstones {
            out.extend_from_slice(k);
        }
        for &s in slots {
            for h in &self.halves[s * d..(s + 1) * d] {
                out.extend_from_slice(&h.to_bits().to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        debug_assert_eq!(out.len(), len);
        out
    }
}

/// A parsed, verified segment (borrowing the bytes).
struct Segment<'a> {
    base: bool,
    dim: usize,
    count: usize,
    tombstones: usize,
    seq: u64,
    space: u64,
    keys: &'a [u8],
    tombs: &'a [u8],
    vectors: &'a [u8],
}

impl<'a> Segment<'a> {
    fn parse(b: &'a [u8]) -> Result<Segment<'a>, String> {
        if b.len() < HEADER_LEN + 4 {
            return Err(format!("vector segment: {} bytes is too short", b.len()));
        }
        if &b[0..4] != MAGIC {
            return Err("vector segment: bad magic".into());
        }
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let version = u16_at(4);
        if version != FORMAT_VERSION {
            return Err(format!("vector segment: format version {version}, this build reads {FORMAT_VERSION}"));
        }
        let body = &b[..b.len() - 4];
        let stored = u32_at(b.len() - 4);
        if crc32fast::hash(body) != stored {
            return Err("vector segment: checksum mismatch (corrupt or truncated)".into());
        }
        let flags = u16_at(6);
        if flags & !FLAG_BASE != 0 {
            return Err(format!("vector segment: unknown flags {flags:#x}"));
        }
        let dim = u32_at(8) as usize;
        let count = u32_at(12) as usize;
        let tombstones = u32_at(16) as usize;
        if dim == 0 || dim > MAX_DIM {
            return Err(format!("vector segment: dimension {dim} out of range"));
        }
        let expect =
            (count as u64) * 32 + (tombstones as u64) * 32 + (count as u64) * (dim as u64) * 2 + HEADER_LEN as u64 + 4;
        if expect != b.len() as u64 {
            return Err(format!("vector segment: {} bytes, header implies {expect}", b.len()));
        }
        let k_end = HEADER_LEN + count * 32;
        let t_end = k_end + tombstones * 32;
        Ok(Segment {
            base: flags & FLAG_BASE != 0,
            dim,
            count,
            tombstones,
            seq: u64_at(24),
            space: u64_at(32),
            keys: &b[HEADER_LEN..k_end],
            tombs: &b[k_end..t_end],
            vectors: &b[t_end..b.len() - 4],
        })
    }

    fn key(&self, i: usize) -> Key {
        self.keys[i * 32..(i + 1) * 32].try_into().unwrap()
    }

    fn tombstone(&self, i: usize) -> Key {
        self.tombs[i * 32..(i + 1) * 32].try_into().unwrap()
    }

    fn vector(&self, i: usize, out: &mut [f16]) {
        let row = &self.vectors[i * self.dim * 2..(i + 1) * self.dim * 2];
        for (o, c) in out.iter_mut().zip(row.chunks_exact(2)) {
            *o = f16::from_bits(u16::from_le_bytes([c[0], c[1]]));
        }
    }
}
