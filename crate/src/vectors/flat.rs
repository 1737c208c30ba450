//! [`FlatIndex`]: the slots, the int8 scan and the f16 re-rank (persistence is in `segment`).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use half::f16;
use half::slice::HalfFloatSliceExt;

use super::{scan, Key, VectorIndex, COMPACT_DEAD_FRACTION};
use crate::ranking::{RERANK_MIN, RERANK_PER_HIT};

/// Largest dimension an index accepts (a segment claiming more is corrupt).
pub(super) const MAX_DIM: usize = 1 << 16;

/// Appends the int8 codes of `values` (finite: checked on insert and query) to `out`, scaled
/// so that the largest magnitude maps to 127; returns the scale (code × scale ≈ value).
/// Written with plain comparisons and ties-to-even rounding, which compile to wasm's
/// `f32.gt`/`f32.nearest`: `f32::max` and `f32::round` were calls to libm's `fmaxf` and
/// `roundf` per component (measured: most of the time of loading 100k vectors, 0.8 s).
fn quantize_into(values: &[f32], out: &mut Vec<i8>) -> f32 {
    // The largest |x| through the bits: for finite floats the order of `bits & 0x7fff_ffff`
    // is the order of |x|, and an integer max vectorizes (a float one does not).
    let max = f32::from_bits(values.iter().map(|x| x.to_bits() & 0x7fff_ffff).max().unwrap_or(0));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let inv = 1.0 / scale;
    let start = out.len();
    out.resize(start + values.len(), 0);
    for (o, &x) in out[start..].iter_mut().zip(values) {
        let r = (x * inv).round_ties_even();
        // In range already (|x| ≤ max); the bounds guard rounding at the ends. (`clamp` is two
        // comparisons, not a libm call.)
        let r = r.clamp(-127.0, 127.0);
        *o = r as i32 as i8;
    }
    scale
}

/// Exact int8 scan + f16 re-rank. See the module documentation.
#[derive(Clone, Debug)]
pub struct FlatIndex {
    pub(super) dim: usize,
    /// Row stride of `codes`: `dim` rounded up to 32.
    pub(super) stride: usize,
    pub(super) space: u64,
    pub(super) keys: Vec<Key>,
    pub(super) codes: Vec<i8>,
    pub(super) scales: Vec<f32>,
    pub(super) halves: Vec<f16>,
    pub(super) alive: Vec<bool>,
    pub(super) slot_of: HashMap<Key, u32>,
    pub(super) dead: usize,
    /// Minimum number of int8 candidates re-ranked with f16.
    pub(super) rerank_min: usize,
    // Persistence state.
    pub(super) persisted_slots: usize,
    pub(super) pending_tombstones: Vec<Key>,
    pub(super) next_seq: u64,
    pub(super) needs_base: bool,
}

impl FlatIndex {
    /// An empty index for `dim`-dimensional vectors. `space` is the caller's
    /// fingerprint of the embedding space (model id, dimension, pooling,
    /// prefixes); segments from another space are refused on load.
    pub fn new(dim: usize, space: u64) -> Result<FlatIndex, String> {
        if dim == 0 || dim > MAX_DIM {
            return Err(format!("vector index: dimension {dim} out of range"));
        }
        Ok(FlatIndex {
            dim,
            stride: dim.div_ceil(32) * 32,
            space,
            keys: Vec::new(),
            codes: Vec::new(),
            scales: Vec::new(),
            halves: Vec::new(),
            alive: Vec::new(),
            slot_of: HashMap::new(),
            dead: 0,
            rerank_min: RERANK_MIN,
            persisted_slots: 0,
            pending_tombstones: Vec::new(),
            next_seq: 0,
            needs_base: true,
        })
    }

    /// Set the minimum number of candidates re-ranked (default 40; the
    /// re-rank takes `max(this, 4k)`).
    pub fn set_rerank_min(&mut self, n: usize) {
        self.rerank_min = n.max(1);
    }

    pub fn space(&self) -> u64 {
        self.space
    }

    /// Number of slots, dead ones included.
    pub fn slots(&self) -> usize {
        self.keys.len()
    }

    /// Number of dead slots.
    pub fn dead(&self) -> usize {
        self.dead
    }

    /// Whether more than [`COMPACT_DEAD_FRACTION`] of the slots are dead.
    pub fn needs_compaction(&self) -> bool {
        self.dead > 0 && self.dead as f64 > COMPACT_DEAD_FRACTION * self.slots() as f64
    }

    /// Approximate heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.codes.len()
            + self.halves.len() * 2
            + self.scales.len() * 4
            + self.keys.len() * 33
            + self.slot_of.len() * 40
    }

    /// Reserve room for `additional` more vectors.
    pub fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
        self.scales.reserve(additional);
        self.alive.reserve(additional);
        self.codes.reserve(additional * self.stride);
        self.halves.reserve(additional * self.dim);
        self.slot_of.reserve(additional);
    }

    /// Drop dead slots. The next [`pending_segment`](Self::pending_segment)
    /// is a base segment holding every live vector.
    pub fn compact(&mut self) {
        if self.dead == 0 {
            return;
        }
        let n = self.slots();
        let (d, st) = (self.dim, self.stride);
        let mut w = 0usize;
        for r in 0..n {
            if !self.alive[r] {
                continue;
            }
            if w != r {
                self.keys[w] = self.keys[r];
                self.scales[w] = self.scales[r];
                self.codes.copy_within(r * st..(r + 1) * st, w * st);
                self.halves.copy_within(r * d..(r + 1) * d, w * d);
            }
            w += 1;
        }
        self.keys.truncate(w);
        self.scales.truncate(w);
        self.codes.truncate(w * st);
        self.halves.truncate(w * d);
        self.alive.clear();
        self.alive.resize(w, true);
        self.slot_of = self.keys.iter().enumerate().map(|(i, k)| (*k, i as u32)).collect();
        self.dead = 0;
        self.persisted_slots = 0;
        self.pending_tombstones.clear();
        self.needs_base = true;
    }

    /// Keep only the vectors whose key satisfies `keep` (e.g. the hashes of
    /// the chunks that still exist). Returns how many were removed.
    pub fn retain(&mut self, mut keep: impl FnMut(&Key) -> bool) -> usize {
        let gone: Vec<Key> =
            (0..self.slots()).filter(|&i| self.alive[i] && !keep(&self.keys[i])).map(|i| self.keys[i]).collect();
        for k in &gone {
            self.remove(k);
        }
        gone.len()
    }

    /// Append a slot. `values` must be `halves` widened to f32 (the codes are
    /// made from the f16 values, so a reloaded index is bit-identical).
    pub(super) fn push_slot(&mut self, key: Key, halves: &[f16], values: &[f32]) {
        let slot = self.slots() as u32;
        let scale = quantize_into(values, &mut self.codes);
        self.codes.resize(self.codes.len() + self.stride - self.dim, 0);
        self.scales.push(scale);
        self.halves.extend_from_slice(halves);
        self.keys.push(key);
        self.alive.push(true);
        self.slot_of.insert(key, slot);
    }

    fn quantize_query(&self, query: &[f32]) -> Vec<i8> {
        let mut q = Vec::with_capacity(self.stride);
        quantize_into(query, &mut q);
        q.resize(self.stride, 0);
        q
    }

    /// The int8 stage: the `c` best live slots by approximate score.
    fn candidates(&self, query: &[f32], c: usize, filter: Option<&dyn Fn(&Key) -> bool>) -> Vec<u32> {
        let q = self.quantize_query(query);
        let qp = scan::prepare(&q);
        let mut heap: BinaryHeap<Cand> = BinaryHeap::with_capacity(c + 1);
        let mut threshold = f32::NEG_INFINITY;
        let st = self.stride;
        for (slot, (row, &scale)) in self.codes.chunks_exact(st).zip(&self.scales).enumerate() {
            let score = scan::dot(&qp, row) as f32 * scale;
            if score <= threshold {
                continue;
            }
            if !self.alive[slot] {
                continue;
            }
            if let Some(f) = filter {
                if !f(&self.keys[slot]) {
                    continue;
                }
            }
            heap.push(Cand { score, slot: slot as u32 });
            if heap.len() > c {
                heap.pop();
            }
            if heap.len() == c {
                threshold = heap.peek().map(|x| x.score).unwrap_or(f32::NEG_INFINITY);
            }
        }
        heap.into_iter().map(|c| c.slot).collect()
    }

    fn exact_score(&self, slot: usize, query: &[f32], buf: &mut [f32]) -> f32 {
        self.halves[slot * self.dim..(slot + 1) * self.dim].convert_to_f32_slice(buf);
        let mut acc = [0f32; 8];
        let mut chunks = buf.chunks_exact(8);
        let mut qc = query.chunks_exact(8);
        for (r, q) in (&mut chunks).zip(&mut qc) {
            for i in 0..8 {
                acc[i] += r[i] * q[i];
            }
        }
        let mut s: f32 = acc.iter().sum();
        for (r, q) in chunks.remainder().iter().zip(qc.remainder()) {
            s += r * q;
        }
        s
    }
}

impl VectorIndex for FlatIndex {
    fn dim(&self) -> usize {
        self.dim
    }

    fn len(&self) -> usize {
        self.slots() - self.dead
    }

    fn contains(&self, key: &Key) -> bool {
        self.slot_of.contains_key(key)
    }

    fn insert(&mut self, key: Key, vector: &[f32]) -> Result<bool, String> {
        if vector.len() != self.dim {
            return Err(format!("vector index: vector of dimension {}, index has {}", vector.len(), self.dim));
        }
        if vector.iter().any(|x| !x.is_finite()) {
            return Err("vector index: vector has a NaN or infinite component".into());
        }
        if self.slot_of.contains_key(&key) {
            return Ok(false);
        }
        let mut halves = vec![f16::ZERO; self.dim];
        halves.convert_from_f32_slice(vector);
        let values = halves.to_f32_vec();
        self.push_slot(key, &halves, &values);
        Ok(true)
    }

    fn remove(&mut self, key: &Key) -> bool {
        let Some(slot) = self.slot_of.remove(key) else { return false };
        let slot = slot as usize;
        self.alive[slot] = false;
        self.dead += 1;
        // The next delta says it is gone. Recorded even for a vector not yet
        // persisted: a segment taken before this removal may still hold it
        // (and a tombstone for a key no earlier segment has is a no-op).
        self.pending_tombstones.push(*key);
        true
    }

    fn get(&self, key: &Key) -> Option<Vec<f32>> {
        let slot = *self.slot_of.get(key)? as usize;
        Some(self.halves[slot * self.dim..(slot + 1) * self.dim].iter().map(|h| h.to_f32()).collect())
    }

    fn score(&self, key: &Key, query: &[f32]) -> Option<f32> {
        let slot = *self.slot_of.get(key)? as usize;
        if query.len() != self.dim || !self.alive[slot] {
            return None;
        }
        Some(self.exact_score(slot, query, &mut vec![0f32; self.dim]))
    }

    fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&dyn Fn(&Key) -> bool>,
    ) -> Result<Vec<(Key, f32)>, String> {
        if query.len() != self.dim {
            return Err(format!("vector index: query of dimension {}, index has {}", query.len(), self.dim));
        }
        if query.iter().any(|x| !x.is_finite()) {
            return Err("vector index: query has a NaN or infinite component".into());
        }
        if k == 0 || self.is_empty() {
            return Ok(Vec::new());
        }
        let c = self.rerank_min.max(RERANK_PER_HIT * k);
        let mut buf = vec![0f32; self.dim];
        let mut scored: Vec<(u32, f32)> = self
            .candidates(query, c, filter)
            .into_iter()
            .map(|s| (s, self.exact_score(s as usize, query, &mut buf)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        Ok(scored.into_iter().map(|(s, score)| (self.keys[s as usize], score)).collect())
    }

    fn keys(&self) -> Vec<Key> {
        (0..self.slots()).filter(|&i| self.alive[i]).map(|i| self.keys[i]).collect()
    }
}

/// Min-heap entry (the heap's top is the worst candidate kept).
#[derive(Clone, Copy)]
struct Cand {
    score: f32,
    slot: u32,
}
impl PartialEq for Cand {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Cand {}
impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cand {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the lowest score on top.
        o.score.total_cmp(&self.score).then(self.slot.cmp(&o.slot))
    }
}
