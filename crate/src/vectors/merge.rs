//! Merging the shared segments a device wrote (`layout`). Every flush that embedded something
//! writes one small segment, so a long first embedding would leave hundreds of files in
//! `vectors/<space>/`, each one more file for a sync service to carry and for every device to list
//! and read at open. The rules, which keep every vector in the union every device reads:
//!
//! - A device merges only segments it wrote (its manifest lists them: `store::OwnSegment`), and
//!   only those whose vectors it holds: the merged segment holds every vector of each original.
//! - The merged segment is written (before the manifest that names it) while the originals stay.
//! - An original is deleted only at a later flush, [`GRACE_MS`] after the merged segment was
//!   written, and only when this session read that segment whole (it verified, or this session
//!   wrote it): by then the sync service has carried the merged segment to the other devices, so
//!   a device reading the union never sees a vector vanish. (A device away from sync for longer
//!   than that may receive the deletion before the merged segment; it then lacks those vectors
//!   until the segment arrives, a minute later at most for the plugin, and embeds nothing for it
//!   unless it embeds.)
//! - Nothing else is ever deleted: other devices' segments, segments this device wrote before its
//!   manifest listed them, and those of a model not in use stay.
//!
//! Which to merge: a size-tiered rule with a large fan-in, so that the bytes a device writes (and
//! a sync service carries) per vector stay bounded. A device's segments smaller than
//! [`SEAL_BYTES`] are grouped by size, each group spanning at most a factor [`BUCKET_RATIO`];
//! once a group has [`MERGE_AT`] segments they are merged, as many as fit in
//! [`MAX_SEGMENT_BYTES`] into each new segment. A merged segment holds `MERGE_AT` or more of a
//! group (unless the cap split the group: then it is near the cap), so it lands in a larger
//! group; one of `SEAL_BYTES` or more is never merged again. Each vector is therefore written
//! once by the flush that embedded it and then once per level: twice in all when a flush writes
//! `SEAL_BYTES / MERGE_AT` (16 KiB, 20 vectors of 384 dimensions) or more, as a first
//! embedding's flushes do, three times for the smallest flushes (a vector or two, a day's edits),
//! whose merged segments are small. Segments of very different sizes are never merged together,
//! so a day's edits never rewrite the vectors of a first embedding. A device keeps fewer than `MERGE_AT` segments per group of sizes below
//! `SEAL_BYTES` (a first embedding: one group of flushes, then sealed ones) plus at most one per
//! `SEAL_BYTES` of vectors.

/// A device merges a group of its segments of similar size once it has this many.
pub const MERGE_AT: usize = 32;

/// Segments merged together are within this factor of each other's size.
pub const BUCKET_RATIO: u64 = 4;

/// A merged segment holds at most this many bytes (4 MiB, about 5,200 vectors of 384
/// dimensions): under the smallest per-file limit of the sync services Strata's users have
/// (Obsidian Sync Standard: 5 MB; Plus: 200 MB).
pub const MAX_SEGMENT_BYTES: u64 = 4 << 20;

/// Segments of this size or more (512 KiB, about 650 vectors of 384 dimensions) are never merged
/// again.
pub const SEAL_BYTES: u64 = MAX_SEGMENT_BYTES / 8;

/// How long a merged segment's originals stay after it was written (7 days): longer than a
/// device that syncs at all usually goes between two syncs.
pub const GRACE_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// Of a device's mergeable segments of one space (name, size in bytes), the groups to merge, each
/// into one new segment: the segments under [`SEAL_BYTES`], smallest first, in groups of sizes
/// within [`BUCKET_RATIO`] of the group's smallest; a group of [`MERGE_AT`] or more is merged, as
/// many as fit in [`MAX_SEGMENT_BYTES`] into each new segment (at least two).
pub fn plan(segments: &[(String, u64)]) -> Vec<Vec<String>> {
    let mut pool: Vec<&(String, u64)> = segments.iter().filter(|(_, size)| *size < SEAL_BYTES).collect();
    pool.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let mut groups = Vec::new();
    let mut start = 0;
    while start < pool.len() {
        let limit = pool[start].1.max(1).saturating_mul(BUCKET_RATIO);
        let end = start + pool[start..].iter().take_while(|(_, size)| *size <= limit).count();
        if end - start >= MERGE_AT {
            let mut group: Vec<String> = Vec::new();
            let mut total = 0;
            for (name, size) in &pool[start..end] {
                if group.len() >= 2 && total + size > MAX_SEGMENT_BYTES {
                    groups.push(std::mem::take(&mut group));
                    total = 0;
                }
                total += size;
                group.push(name.clone());
            }
            if group.len() >= 2 {
                groups.push(group);
            }
        }
        start = end;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(sizes: &[u64]) -> Vec<(String, u64)> {
        sizes.iter().enumerate().map(|(i, s)| (format!("s{i:03}"), *s)).collect()
    }

    #[test]
    fn nothing_is_merged_below_the_threshold() {
        assert!(plan(&segs(&[1000; MERGE_AT - 1])).is_empty());
        // Sealed segments do not count: they are never merged again.
        let mut many = segs(&[SEAL_BYTES; 40]);
        many.extend(segs(&[10; MERGE_AT - 1]).into_iter().map(|(n, s)| (format!("small-{n}"), s)));
        assert!(plan(&many).is_empty());
        // Nor do segments of very different sizes: a first embedding's are not rewritten with a
        // day's small ones.
        let mut mixed = segs(&[1000; MERGE_AT - 1]);
        mixed.extend(segs(&[100_000; MERGE_AT - 1]).into_iter().map(|(n, s)| (format!("big-{n}"), s)));
        assert!(plan(&mixed).is_empty());
    }

    #[test]
    fn a_group_of_similar_sizes_is_merged_within_the_size_cap() {
        let groups = plan(&segs(&[1000; MERGE_AT]));
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].len(), MERGE_AT, "all of them fit in one segment");
        // Sizes over the cap together: as many as fit, in several groups.
        let big = SEAL_BYTES - 1;
        let groups = plan(&segs(&[big; MERGE_AT + 4]));
        assert!(groups.iter().all(|g| g.len() >= 2 && g.len() as u64 * big <= MAX_SEGMENT_BYTES), "{groups:?}");
        assert_eq!(groups.iter().map(|g| g.len()).sum::<usize>(), MERGE_AT + 4);
        // Only the group that has MERGE_AT members; a larger one beside it waits.
        let mut sizes = vec![5000; MERGE_AT];
        sizes.extend([200_000; 3]);
        let groups = plan(&segs(&sizes));
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].len(), MERGE_AT);
        assert!(groups[0].iter().all(|n| n.as_str() < "s032"), "{groups:?}");
    }

    /// A first embedding, one flush segment of `per_flush` bytes at a time: the segments left
    /// and the bytes written (each flush's segment and every merged one).
    fn embedding(per_flush: u64, flushes: usize) -> (Vec<(String, u64)>, u64) {
        let mut live: Vec<(String, u64)> = Vec::new();
        let (mut written, mut n) = (0u64, 0);
        for _ in 0..flushes {
            live.push((format!("f{n:05}"), per_flush));
            n += 1;
            written += per_flush;
            for group in plan(&live) {
                let size: u64 = live.iter().filter(|(name, _)| group.contains(name)).map(|(_, s)| s).sum();
                live.retain(|(name, _)| !group.contains(name));
                live.push((format!("m{n:05}"), size));
                n += 1;
                written += size;
            }
        }
        (live, written)
    }

    #[test]
    fn a_long_embedding_writes_each_vector_at_most_twice_and_keeps_few_segments() {
        // One segment of 30 vectors (~24 KB) per flush, 1,500 flushes (36 MB of vectors).
        let per_flush = 44 + 30 * 800;
        let (live, written) = embedding(per_flush, 1500);
        let total = 1500 * per_flush;
        assert!(live.iter().all(|(_, s)| *s <= MAX_SEGMENT_BYTES));
        assert!(written <= 2 * total, "bytes written {written} for {total} of vectors");
        let small = live.iter().filter(|(_, s)| *s < SEAL_BYTES).count();
        assert!(small < MERGE_AT, "{small} segments still to merge");
        assert!(live.len() as u64 <= MERGE_AT as u64 + total / SEAL_BYTES, "{} segments", live.len());
    }

    #[test]
    fn the_smallest_flushes_write_each_vector_at_most_three_times() {
        // A vector a flush (a day of edits, flushed after each): two levels of merges.
        let per_flush = 44 + 800;
        let (live, written) = embedding(per_flush, 5000);
        let total = 5000 * per_flush;
        assert!(written <= 3 * total, "bytes written {written} for {total} of vectors");
        assert!(live.len() < 3 * MERGE_AT, "{} segments", live.len());
    }
}
