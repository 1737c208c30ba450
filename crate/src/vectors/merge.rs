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
//! Which to merge: a size-tiered rule. Once a device has [`MERGE_AT`] or more segments of a space
//! smaller than half of [`MAX_SEGMENT_BYTES`], the smallest of them are merged, as many as fit in
//! [`MAX_SEGMENT_BYTES`]. A device therefore keeps fewer than `MERGE_AT` small segments per space
//! plus at most two per `MAX_SEGMENT_BYTES` of vectors, and each vector is rewritten about
//! log_16 of (a full segment's vectors / a flush's vectors) times.

/// A device merges its small segments of a space once it has this many.
pub const MERGE_AT: usize = 16;

/// A merged segment holds at most this many bytes (4 MiB, about 5,200 vectors of 384
/// dimensions): under the smallest per-file limit of the sync services Strata's users have
/// (Obsidian Sync Standard: 5 MB; Plus: 200 MB). Segments over half of it are never merged again.
pub const MAX_SEGMENT_BYTES: u64 = 4 << 20;

/// How long a merged segment's originals stay after it was written (7 days): longer than a
/// device that syncs at all usually goes between two syncs.
pub const GRACE_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// Of a device's mergeable segments of one space (name, size in bytes), the groups to merge, each
/// into one new segment: while `MERGE_AT` or more segments (the groups' merged ones counted) are
/// at most half of [`MAX_SEGMENT_BYTES`], the smallest ones, as many as fit in
/// [`MAX_SEGMENT_BYTES`] together (at least two).
pub fn plan(segments: &[(String, u64)]) -> Vec<Vec<String>> {
    let mut pool: Vec<&(String, u64)> = segments.iter().filter(|(_, size)| *size <= MAX_SEGMENT_BYTES / 2).collect();
    pool.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let mut pool = std::collections::VecDeque::from(pool);
    let mut groups = Vec::new();
    while pool.len() + groups.len() >= MERGE_AT && pool.len() >= 2 {
        let mut total = 0;
        let mut group = Vec::new();
        while let Some((name, size)) = pool.front() {
            if group.len() >= 2 && total + size > MAX_SEGMENT_BYTES {
                break;
            }
            total += size;
            group.push(name.clone());
            pool.pop_front();
        }
        groups.push(group);
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
        // Large segments do not count: they are never merged again.
        let mut many = segs(&[MAX_SEGMENT_BYTES / 2 + 1; 40]);
        many.extend(segs(&[10; MERGE_AT - 1]).into_iter().map(|(n, s)| (format!("small-{n}"), s)));
        assert!(plan(&many).is_empty());
    }

    #[test]
    fn the_smallest_are_merged_within_the_size_cap() {
        let groups = plan(&segs(&[1000; MERGE_AT]));
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].len(), MERGE_AT, "all of them fit in one segment");
        // Sizes over the cap together: as many of the smallest as fit, in several groups.
        let big = MAX_SEGMENT_BYTES / 3;
        let groups = plan(&segs(&[big; MERGE_AT + 4]));
        assert!(groups.iter().all(|g| g.len() >= 2 && g.len() as u64 * big <= MAX_SEGMENT_BYTES), "{groups:?}");
        let left = MERGE_AT + 4 - groups.iter().map(|g| g.len()).sum::<usize>();
        assert!(left + groups.len() < MERGE_AT, "{left} left, {} merged", groups.len());
        // Smallest first.
        let mut sizes = vec![5000; MERGE_AT];
        sizes[3] = 1;
        let groups = plan(&segs(&sizes));
        assert_eq!(groups[0][0], "s003");
    }

    #[test]
    fn a_long_embedding_keeps_few_segments() {
        // One segment of 30 vectors (~24 KB) per flush, 1,500 flushes: the tiered rule merges as
        // it goes; the count stays bounded and each vector is rewritten a few times.
        let per_flush = 44 + 30 * 800;
        let mut live: Vec<(String, u64)> = Vec::new();
        let (mut written, mut n) = (0u64, 0);
        for _ in 0..1500 {
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
            assert!(live.len() < MERGE_AT + 20, "{} segments", live.len());
        }
        let total = 1500 * per_flush;
        assert!(live.iter().all(|(_, s)| *s <= MAX_SEGMENT_BYTES));
        assert!(written < 5 * total, "bytes written {written} for {total} of vectors");
    }
}
