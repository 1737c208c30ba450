//! The vector index benchmark at 10k/100k/300k vectors, one code path for the native run
//! (`cargo test -p strata-bench --release -- --ignored --nocapture vector_bench`) and the bench
//! wasm (`benchVectors`, which `strata bench` prints): synthetic unit vectors in
//! clusters (like embeddings of related sections), the [`FlatIndex`]'s query latency, and its
//! recall@10 against an exact f32 scan of the same vectors.

use serde::Serialize;

use strata_core::clock::now_ms;
use strata_core::vectors::synthetic::{clustered_vectors, normalize, random_vectors, recall_at, Rng};
use strata_core::vectors::{FlatIndex, Key, VectorIndex};

/// One index size of the benchmark.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorBenchRow {
    pub n: usize,
    pub dim: usize,
    pub queries: usize,
    pub query_p50_ms: f64,
    pub query_p95_ms: f64,
    pub query_mean_ms: f64,
    /// Mean query time per stored vector (µs).
    pub us_per_vector: f64,
    /// recall@10 of queries near stored vectors (what a search for a known passage is).
    pub recall_near: f64,
    /// recall@10 of random unit queries (the hardest case for an int8 scan).
    pub recall_random: f64,
    pub insert_ms: f64,
    pub memory_bytes: usize,
    /// The persisted form (one base segment): its size and the time to write and load it.
    pub snapshot_bytes: usize,
    pub snapshot_write_ms: f64,
    pub snapshot_load_ms: f64,
}

/// Builds indexes of each size in `sizes` (ascending) from one set of `dim`-dimensional
/// clustered vectors and measures them. 50 timed queries (after 3 warm-up ones), recall over
/// 20 near-data and 20 random queries.
pub fn run(sizes: &[usize], dim: usize) -> Vec<VectorBenchRow> {
    let max = sizes.iter().copied().max().unwrap_or(0);
    let mut rng = Rng::new(2024);
    let data: Vec<(Key, Vec<f32>)> =
        clustered_vectors(&mut rng, max, dim, (max / 100).max(1), 0.7).into_iter().map(|v| (rng.key(), v)).collect();
    let near = |rng: &mut Rng, i: usize, n: usize| {
        let mut q: Vec<f32> = data[(i * 5981) % n].1.iter().map(|x| x + 0.05 * rng.gauss()).collect();
        normalize(&mut q);
        q
    };
    let random = random_vectors(&mut rng, 20, dim);
    let mut rows = Vec::new();
    let mut idx = FlatIndex::new(dim, 0).expect("bench dimension");
    let mut inserted = 0;
    let mut insert_ms = 0.0;
    for &n in sizes {
        // Grown in place: the rows share the insert work, each timed for its own vectors.
        let t = now_ms();
        for (k, v) in &data[inserted..n] {
            idx.insert(*k, v).expect("bench insert");
        }
        insert_ms += now_ms() - t;
        inserted = n;
        let queries: Vec<Vec<f32>> = (0..50).map(|i| near(&mut rng, i, n)).collect();
        for q in queries.iter().take(3) {
            idx.search(q, 10, None).expect("bench query");
        }
        let mut times: Vec<f64> = queries
            .iter()
            .map(|q| {
                let t = now_ms();
                std::hint::black_box(idx.search(q, 10, None).expect("bench query"));
                now_ms() - t
            })
            .collect();
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let t = now_ms();
        let bytes = idx.to_bytes();
        let snapshot_write_ms = now_ms() - t;
        let t = now_ms();
        let back = FlatIndex::from_bytes(&bytes, dim, 0).expect("bench snapshot");
        let snapshot_load_ms = now_ms() - t;
        assert_eq!(back.len(), n, "the snapshot holds every vector");
        drop(back);
        times.sort_by(f64::total_cmp);
        let pick = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        rows.push(VectorBenchRow {
            n,
            dim,
            queries: times.len(),
            query_p50_ms: pick(0.5),
            query_p95_ms: pick(0.95),
            query_mean_ms: mean,
            us_per_vector: mean * 1000.0 / n as f64,
            recall_near: recall_at(&idx, &data[..n], &queries[..20], 10),
            recall_random: recall_at(&idx, &data[..n], &random, 10),
            insert_ms,
            memory_bytes: idx.memory_bytes(),
            snapshot_bytes: bytes.len(),
            snapshot_write_ms,
            snapshot_load_ms,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_run_measures_each_size() {
        let rows = run(&[300, 1200], 48);
        assert_eq!(rows.iter().map(|r| r.n).collect::<Vec<_>>(), vec![300, 1200]);
        for r in &rows {
            assert!(r.query_p95_ms >= r.query_p50_ms && r.query_p50_ms >= 0.0, "{r:?}");
            assert!(r.recall_near >= 0.99 && r.recall_random >= 0.9, "{r:?}");
            assert!(r.snapshot_bytes >= r.n * r.dim && r.memory_bytes > r.snapshot_bytes / 2, "{r:?}");
        }
        assert!(rows[1].insert_ms >= rows[0].insert_ms, "insert time covers every vector up to the size");
    }

    /// The benchmark at its real sizes, natively:
    /// `cargo test -p strata-bench --release -- --ignored --nocapture vector_bench`.
    #[test]
    #[ignore]
    fn vector_bench() {
        for r in run(&[10_000, 100_000, 300_000], 384) {
            println!(
                "n={}: query p50 {:.2} ms, p95 {:.2} ms ({:.3} us/vector), recall@10 {:.3} (near-data queries) {:.3} (random queries); \
                 insert {:.2} s, {:.1} MB in memory, snapshot {:.1} MB written in {:.2} s, loaded in {:.2} s",
                r.n, r.query_p50_ms, r.query_p95_ms, r.us_per_vector, r.recall_near, r.recall_random, r.insert_ms / 1000.0,
                r.memory_bytes as f64 / 1e6, r.snapshot_bytes as f64 / 1e6, r.snapshot_write_ms / 1000.0, r.snapshot_load_ms / 1000.0
            );
        }
    }
}
