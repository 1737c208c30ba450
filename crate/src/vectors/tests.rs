//! Tests of the vector index: exactness of the scan, recall, scores, tombstones, compaction,
//! segments and their corruption.

use super::synthetic::{clustered_vectors, normalize, random_vectors, recall_at, Rng};
use super::*;

pub(crate) fn exact_top(data: &[(Key, Vec<f32>)], q: &[f32], k: usize) -> Vec<Key> {
    let mut s: Vec<(f32, Key)> =
        data.iter().map(|(key, v)| (v.iter().zip(q).map(|(a, b)| a * b).sum(), *key)).collect();
    s.sort_by(|a, b| b.0.total_cmp(&a.0));
    s.into_iter().take(k).map(|x| x.1).collect()
}

fn build(vecs: Vec<Vec<f32>>, rng: &mut Rng) -> (FlatIndex, Vec<(Key, Vec<f32>)>) {
    let dim = vecs[0].len();
    let mut idx = FlatIndex::new(dim, 7).unwrap();
    let data: Vec<(Key, Vec<f32>)> = vecs.into_iter().map(|v| (rng.key(), v)).collect();
    for (k, v) in &data {
        assert!(idx.insert(*k, v).unwrap());
    }
    (idx, data)
}

#[test]
fn simd_or_scalar_dot_is_exact() {
    let mut rng = Rng::new(1);
    for len in [32usize, 64, 384, 768] {
        let a: Vec<i8> = (0..len).map(|_| (rng.next_u64() % 255) as i8).map(|x| x.max(-127)).collect();
        let b: Vec<i8> = (0..len).map(|_| (rng.next_u64() % 255) as i8).map(|x| x.max(-127)).collect();
        let want: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
        assert_eq!(scan::dot(&scan::prepare(&a), &b), want);
    }
    let a = vec![-127i8; 384];
    assert_eq!(scan::dot(&scan::prepare(&a), &a), 127 * 127 * 384);
}

#[test]
fn recall_random_and_clustered() {
    let mut rng = Rng::new(42);
    let dim = 384;
    for (name, vecs) in [
        ("random", random_vectors(&mut rng, 20_000, dim)),
        ("clustered", clustered_vectors(&mut rng, 20_000, dim, 200, 0.6)),
    ] {
        let (idx, data) = build(vecs, &mut rng);
        // 50 queries a set (500 of the true top 10): the exact f32 ranking they are checked
        // against is most of the test's time in the unoptimised test build.
        let queries: Vec<Vec<f32>> = if name == "random" {
            random_vectors(&mut rng, 50, dim)
        } else {
            // Queries near the data, like real ones.
            (0..50)
                .map(|i| {
                    let mut q: Vec<f32> = data[i * 397].1.iter().map(|x| x + 0.05 * rng.gauss()).collect();
                    normalize(&mut q);
                    q
                })
                .collect()
        };
        let r = recall_at(&idx, &data, &queries, 10);
        println!("{name}: recall@10 = {r:.4}");
        assert!(r >= 0.99, "{name}: recall@10 {r} < 0.99");
    }
}

#[test]
fn score_of_a_key_is_its_search_score() {
    let mut rng = Rng::new(5);
    let (mut idx, data) = build(random_vectors(&mut rng, 300, 64), &mut rng);
    let q = &data[3].1;
    for (key, score) in idx.search(q, 20, None).unwrap() {
        assert_eq!(idx.score(&key, q), Some(score));
    }
    assert_eq!(idx.score(&rng.key(), q), None, "unknown key");
    assert!(idx.remove(&data[3].0));
    assert_eq!(idx.score(&data[3].0, q), None, "removed key");
    assert_eq!(idx.score(&data[4].0, &q[..10]), None, "wrong dimension");
}

#[test]
fn scores_are_dot_products() {
    let mut rng = Rng::new(3);
    let (idx, data) = build(random_vectors(&mut rng, 500, 100), &mut rng);
    let q = &data[17].1;
    let res = idx.search(q, 5, None).unwrap();
    assert_eq!(res[0].0, data[17].0);
    assert!((res[0].1 - 1.0).abs() < 2e-3, "self-score {}", res[0].1);
    for w in res.windows(2) {
        assert!(w[0].1 >= w[1].1);
    }
    // dim 100 is not a multiple of 16: padding must not change the scores.
    let truth: f32 = data[17].1.iter().zip(q).map(|(a, b)| a * b).sum();
    assert!((res[0].1 - truth).abs() < 2e-3);
    assert!(idx.search(&q[..99], 5, None).is_err());
    assert!(idx.search(q, 0, None).unwrap().is_empty());
}

#[test]
fn insert_is_keyed_by_hash() {
    let mut idx = FlatIndex::new(4, 0).unwrap();
    let k = [1u8; 32];
    assert!(idx.insert(k, &[1.0, 0.0, 0.0, 0.0]).unwrap());
    assert!(!idx.insert(k, &[0.0, 1.0, 0.0, 0.0]).unwrap(), "same text: not stored again");
    assert_eq!(idx.len(), 1);
    assert_eq!(idx.get(&k).unwrap(), vec![1.0, 0.0, 0.0, 0.0]);
    assert!(idx.insert([2u8; 32], &[1.0, 2.0]).is_err());
    assert!(idx.insert([2u8; 32], &[f32::NAN, 0.0, 0.0, 0.0]).is_err());
    assert!(FlatIndex::new(0, 0).is_err());
}

#[test]
fn tombstones_filter_and_compaction() {
    let mut rng = Rng::new(5);
    let (mut idx, data) = build(clustered_vectors(&mut rng, 3000, 64, 30, 0.5), &mut rng);
    let q = data[0].1.clone();
    // Remove the best hits: they must never come back.
    let top: Vec<Key> = idx.search(&q, 10, None).unwrap().into_iter().map(|x| x.0).collect();
    for k in &top[..5] {
        assert!(idx.remove(k));
        assert!(!idx.remove(k));
    }
    let after: Vec<Key> = idx.search(&q, 10, None).unwrap().into_iter().map(|x| x.0).collect();
    assert!(after.iter().all(|k| !top[..5].contains(k)));
    assert_eq!(&after[..5], &top[5..]);
    assert_eq!(idx.len(), 2995);
    assert!(!idx.needs_compaction());

    // Filter: only keys whose first byte is even.
    let even = |k: &Key| k[0].is_multiple_of(2);
    let f = idx.search(&q, 10, Some(&even)).unwrap();
    assert_eq!(f.len(), 10);
    assert!(f.iter().all(|(k, _)| even(k)));
    let alive: Vec<(Key, Vec<f32>)> = data.iter().filter(|(k, _)| idx.contains(k) && even(k)).cloned().collect();
    let truth = exact_top(&alive, &q, 10);
    let got: Vec<Key> = f.iter().map(|x| x.0).collect();
    assert!(truth.iter().filter(|t| got.contains(t)).count() >= 9);

    // Past 20% dead: compaction keeps exactly the live set and the results.
    let removed = idx.retain(|k| k[1] % 4 != 0);
    assert!(removed > 600);
    assert!(idx.needs_compaction());
    let before = idx.search(&q, 10, None).unwrap();
    let keys_before = {
        let mut k = idx.keys();
        k.sort();
        k
    };
    idx.compact();
    assert_eq!(idx.dead(), 0);
    assert_eq!(idx.slots(), idx.len());
    assert!(!idx.needs_compaction());
    let mut keys_after = idx.keys();
    keys_after.sort();
    assert_eq!(keys_before, keys_after);
    assert_eq!(idx.search(&q, 10, None).unwrap(), before);
    for (k, v) in data.iter().filter(|(k, _)| idx.contains(k)).take(50) {
        let g = idx.get(k).unwrap();
        assert!(g.iter().zip(v).all(|(a, b)| (a - b).abs() < 1e-3));
    }
}

fn assert_same(a: &FlatIndex, b: &FlatIndex, queries: &[Vec<f32>]) {
    assert_eq!(a.len(), b.len());
    let (mut ka, mut kb) = (a.keys(), b.keys());
    ka.sort();
    kb.sort();
    assert_eq!(ka, kb);
    for k in ka.iter().take(100) {
        assert_eq!(a.get(k), b.get(k));
    }
    for q in queries {
        assert_eq!(a.search(q, 10, None).unwrap(), b.search(q, 10, None).unwrap());
    }
}

#[test]
fn snapshot_round_trip() {
    let mut rng = Rng::new(9);
    let (mut idx, data) = build(random_vectors(&mut rng, 1000, 384), &mut rng);
    for (k, _) in data.iter().take(100) {
        idx.remove(k);
    }
    let bytes = idx.to_bytes();
    assert_eq!(bytes.len(), 40 + 900 * (32 + 768) + 4);
    let back = FlatIndex::from_bytes(&bytes, 384, 7).unwrap();
    assert_eq!(back.dead(), 0);
    let qs = random_vectors(&mut rng, 5, 384);
    assert_same(&idx, &back, &qs);
    assert!(FlatIndex::from_bytes(&bytes, 384, 8).is_err(), "another embedding space");
    assert!(FlatIndex::from_bytes(&bytes, 256, 7).is_err(), "another dimension");
    let empty = FlatIndex::new(8, 1).unwrap();
    let e = FlatIndex::from_bytes(&empty.to_bytes(), 8, 1).unwrap();
    assert!(e.is_empty());
}

#[test]
fn segments_are_written_o_change() {
    let mut rng = Rng::new(11);
    let dim = 384;
    let vecs = random_vectors(&mut rng, 2000, dim);
    let data: Vec<(Key, Vec<f32>)> = vecs.into_iter().map(|v| (rng.key(), v)).collect();
    let mut idx = FlatIndex::new(dim, 42).unwrap();
    let mut files: Vec<Vec<u8>> = Vec::new();
    let persist = |idx: &mut FlatIndex, files: &mut Vec<Vec<u8>>| -> Option<usize> {
        let seg = idx.pending_segment()?;
        if seg.base {
            files.clear();
        }
        files.push(seg.bytes.clone());
        idx.mark_persisted(&seg).unwrap();
        Some(seg.bytes.len())
    };
    assert!(persist(&mut idx, &mut files).is_some(), "a new index writes an empty base first");
    assert_eq!(persist(&mut idx, &mut files), None, "nothing changed: nothing to write");

    for (k, v) in &data[..1500] {
        idx.insert(*k, v).unwrap();
    }
    persist(&mut idx, &mut files).unwrap();
    // Add 3 vectors: a tiny delta.
    for (k, v) in &data[1500..1503] {
        idx.insert(*k, v).unwrap();
    }
    let n = persist(&mut idx, &mut files).unwrap();
    assert_eq!(n, 40 + 3 * (32 + 768) + 4);
    // Remove 2 persisted, remove 1 unpersisted, re-add a removed key.
    for (k, v) in &data[1503..1510] {
        idx.insert(*k, v).unwrap();
    }
    idx.remove(&data[0].0);
    idx.remove(&data[1].0);
    idx.remove(&data[1505].0);
    idx.insert(data[1].0, &data[1].1).unwrap();
    let n = persist(&mut idx, &mut files).unwrap();
    assert!(n < 10_000, "delta of {n} bytes");
    assert_eq!(files.len(), 4);

    let refs: Vec<&[u8]> = files.iter().map(|f| f.as_slice()).collect();
    let loaded = FlatIndex::from_segments(&refs, dim, 42).unwrap();
    let qs = random_vectors(&mut rng, 5, dim);
    assert_same(&idx, &loaded, &qs);
    assert!(!loaded.contains(&data[0].0));
    assert!(loaded.contains(&data[1].0));
    assert!(!loaded.contains(&data[1505].0));

    // A loaded index continues the sequence.
    let mut loaded = loaded;
    loaded.insert(data[1600].0, &data[1600].1).unwrap();
    let seg = loaded.pending_segment().unwrap();
    assert!(!seg.base);
    assert_eq!(seg.seq, 4);

    // Changes made while a segment is being written stay pending.
    let seg = idx.pending_segment();
    assert!(seg.is_none());
    idx.insert(data[1700].0, &data[1700].1).unwrap();
    let seg = idx.pending_segment().unwrap();
    idx.insert(data[1701].0, &data[1701].1).unwrap();
    idx.mark_persisted(&seg).unwrap();
    assert!(idx.mark_persisted(&seg).is_err(), "stale");
    files.push(seg.bytes.clone());
    persist(&mut idx, &mut files).unwrap();

    // Compaction: a base that replaces everything.
    idx.retain(|k| k[0] < 150);
    assert!(idx.needs_compaction());
    idx.compact();
    persist(&mut idx, &mut files).unwrap();
    assert_eq!(files.len(), 1);
    let loaded = FlatIndex::from_segments(&[&files[0]], dim, 42).unwrap();
    assert_same(&idx, &loaded, &qs);

    // Missing or misordered segments are errors.
    let mut idx2 = FlatIndex::new(dim, 42).unwrap();
    let mut f2 = Vec::new();
    persist(&mut idx2, &mut f2);
    for (k, v) in &data[..3] {
        idx2.insert(*k, v).unwrap();
        persist(&mut idx2, &mut f2);
    }
    assert_eq!(f2.len(), 4);
    assert!(FlatIndex::from_segments(&[&f2[0], &f2[2]], dim, 42).is_err(), "gap");
    assert!(FlatIndex::from_segments(&[&f2[1], &f2[2]], dim, 42).is_err(), "no base");
    assert!(FlatIndex::from_segments(&[&f2[0], &f2[1], &f2[0]], dim, 42).is_err(), "second base");
    assert!(FlatIndex::from_segments(&[&f2[0], &f2[1], &f2[2], &f2[3]], dim, 42).is_ok());
}

#[test]
fn corrupt_segments_are_errors() {
    let mut rng = Rng::new(13);
    let (idx, _) = build(random_vectors(&mut rng, 50, 32), &mut rng);
    let good = idx.to_bytes();
    assert!(FlatIndex::from_bytes(&good, 32, 7).is_ok());
    // Every truncation.
    for len in 0..good.len() {
        assert!(FlatIndex::from_bytes(&good[..len], 32, 7).is_err(), "truncated to {len}");
    }
    // Every single-bit flip at a spread of positions.
    for pos in (0..good.len()).step_by(7).chain([4, 6, 8, 12, 16, 24, 32, good.len() - 1]) {
        for bit in [0u8, 3, 7] {
            let mut bad = good.clone();
            bad[pos] ^= 1 << bit;
            assert!(FlatIndex::from_bytes(&bad, 32, 7).is_err(), "flip at {pos} bit {bit}");
        }
    }
    // Trailing garbage, random bytes, a header that lies (with a valid crc).
    let mut long = good.clone();
    long.push(0);
    assert!(FlatIndex::from_bytes(&long, 32, 7).is_err());
    let noise: Vec<u8> = (0..5000).map(|_| rng.next_u64() as u8).collect();
    assert!(FlatIndex::from_bytes(&noise, 32, 7).is_err());
    let mut lie = good[..good.len() - 4].to_vec();
    lie[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let crc = crc32fast::hash(&lie);
    lie.extend_from_slice(&crc.to_le_bytes());
    assert!(FlatIndex::from_bytes(&lie, 32, 7).is_err());
    let mut lie = good[..good.len() - 4].to_vec();
    lie[4] = 9;
    let crc = crc32fast::hash(&lie);
    lie.extend_from_slice(&crc.to_le_bytes());
    assert!(FlatIndex::from_bytes(&lie, 32, 7).unwrap_err().contains("version"));
}
