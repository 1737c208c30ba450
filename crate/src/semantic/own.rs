//! The shared segments this device writes (`layout`): each flush writes what it embedded since
//! the last one as a new segment, merges its small segments, and deletes those it merged once the
//! grace period has passed (the rules are in `vectors::merge`). The device's manifest lists them
//! (`store::OwnSegment`), so that a device never merges or deletes a segment it did not write.

use std::collections::HashSet;

use super::Semantic;
use crate::layout;
use crate::store::OwnSegment;
use crate::vectors::{merge, Key, VectorIndex};

/// What a flush writes and deletes of the shared vectors.
#[derive(Debug, Default)]
pub struct SegmentFlush {
    /// New segments, (name, bytes), each holding vectors of the active space.
    pub writes: Vec<(String, Vec<u8>)>,
    /// This device's segments merged into another more than the grace period ago.
    pub deletes: Vec<String>,
    /// The list of this device's segments changed: the manifest must be written.
    pub changed: bool,
}

impl SegmentFlush {
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.deletes.is_empty() && !self.changed
    }
}

impl Semantic {
    /// The segments this device wrote, from its manifest, before the shared segments are added.
    pub fn restore_own(&mut self, segments: Vec<OwnSegment>) {
        self.own = segments;
        self.own_settled = false;
    }

    /// Whether [`Semantic::settle_own`] ran since the list was restored.
    pub fn own_settled(&self) -> bool {
        self.own_settled
    }

    /// The segments this device wrote and has not deleted (for its manifest).
    pub fn own_segments(&self) -> &[OwnSegment] {
        &self.own
    }

    /// After the open, from a listing of the shared segments (`names`: every one in the folder):
    /// forgets the segments of this device that are gone (deleted, or never written whole before
    /// a crash), and keeps a merged one whose merged segment is not there as a segment of its own
    /// again.
    pub fn settle_own(&mut self, names: &HashSet<&str>) {
        self.own_settled = true;
        self.own.retain(|o| names.contains(o.name.as_str()));
        for o in &mut self.own {
            if o.merged_into.as_deref().is_some_and(|m| !names.contains(m)) {
                o.merged_into = None;
                o.merged_at = None;
            }
        }
        self.own_keys.retain(|n, _| names.contains(n.as_str()));
    }

    /// Whether this session read `name` whole (it verified) or wrote it.
    fn read_whole(&self, name: &str) -> bool {
        let layout::Entry::Segment { space, .. } = layout::parse(name) else { return false };
        [self.active.as_ref(), self.previous.as_ref()]
            .into_iter()
            .flatten()
            .any(|s| s.vectors.space() == space && s.loaded.contains(name))
    }

    /// The shared segment changes of a flush at wall-clock time `now` (ms): the vectors embedded
    /// since the last flush as a new segment, merges of this device's small segments, and the
    /// deletion of those merged at least `merge::GRACE_MS` ago into a segment this session read
    /// whole. What it returns must be written before the manifest, which lists
    /// [`Semantic::own_segments`], and deleted after it.
    pub fn take_segments(&mut self, now: u64) -> SegmentFlush {
        let mut out = SegmentFlush::default();
        if !self.deleting.is_empty() {
            let gone = std::mem::take(&mut self.deleting);
            self.own.retain(|o| !gone.contains(&o.name));
            out.changed = true;
        }
        self.write_and_merge(now, &mut out);
        let due: Vec<String> = self
            .own
            .iter()
            .filter(|o| {
                o.merged_at.is_some_and(|at| now >= at.saturating_add(merge::GRACE_MS))
                    && o.merged_into.as_deref().is_some_and(|m| self.read_whole(m))
            })
            .map(|o| o.name.clone())
            .collect();
        for name in due {
            self.own_keys.remove(&name);
            self.deleting.insert(name.clone());
            out.deletes.push(name);
        }
        out.changed |= !out.writes.is_empty() || !out.deletes.is_empty();
        out
    }

    /// The new segment of the active space and the merges of this device's segments of it.
    fn write_and_merge(&mut self, now: u64, out: &mut SegmentFlush) {
        let Some(active) = self.active.as_mut() else { return };
        let space = active.vectors.space();
        let keys: Vec<Key> = std::mem::take(&mut active.unsaved);
        active.vectors.forget_pending();
        let fresh = active.vectors.encode_keys(&keys).map(|bytes| {
            let keys: Vec<Key> = keys.into_iter().filter(|k| active.vectors.contains(k)).collect();
            (layout::segment_name(space, &bytes), bytes, keys)
        });
        let in_space =
            |name: &str| matches!(layout::parse(name), layout::Entry::Segment { space: s, .. } if s == space);
        let mut pool: Vec<(String, u64)> = self
            .own
            .iter()
            .filter(|o| o.merged_into.is_none() && in_space(&o.name) && self.own_keys.contains_key(&o.name))
            .map(|o| (o.name.clone(), o.size))
            .collect();
        if let Some((name, bytes, _)) = &fresh {
            if !pool.iter().any(|(n, _)| n == name) {
                pool.push((name.clone(), bytes.len() as u64));
            }
        }
        let mut fresh = fresh;
        for group in merge::plan(&pool) {
            let mut seen = HashSet::new();
            let mut keys: Vec<Key> = Vec::new();
            for name in &group {
                let part = match &fresh {
                    Some((n, _, k)) if n == name => k,
                    _ => &self.own_keys[name],
                };
                keys.extend(part.iter().filter(|k| seen.insert(**k)));
            }
            // Every vector of every original, or no merge.
            if !keys.iter().all(|k| active.vectors.contains(k)) {
                continue;
            }
            let Some(bytes) = active.vectors.encode_keys(&keys) else { continue };
            let merged = layout::segment_name(space, &bytes);
            for name in &group {
                if fresh.as_ref().is_some_and(|(n, _, _)| n == name) {
                    // Merged before it was ever written: it is not.
                    fresh = None;
                } else if *name != merged {
                    let o = self.own.iter_mut().find(|o| &o.name == name).expect("pooled from own");
                    o.merged_into = Some(merged.clone());
                    o.merged_at = Some(now);
                    self.own_keys.remove(name);
                }
            }
            if !self.own.iter().any(|o| o.name == merged) {
                self.own.push(OwnSegment {
                    name: merged.clone(),
                    size: bytes.len() as u64,
                    merged_into: None,
                    merged_at: None,
                });
            }
            self.own_keys.insert(merged.clone(), keys);
            active.loaded.insert(merged.clone());
            out.writes.push((merged, bytes));
        }
        if let Some((name, bytes, keys)) = fresh {
            if !self.own.iter().any(|o| o.name == name) {
                self.own.push(OwnSegment {
                    name: name.clone(),
                    size: bytes.len() as u64,
                    merged_into: None,
                    merged_at: None,
                });
            }
            self.own_keys.insert(name.clone(), keys);
            active.loaded.insert(name.clone());
            out.writes.push((name, bytes));
        }
    }
}
