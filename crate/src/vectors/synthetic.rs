//! Synthetic vectors for tests and benchmarks: a deterministic generator, unit vectors at
//! random or in clusters (like embeddings of related sections), and the recall@k of an index
//! against an exact f32 scan of the same vectors.

use super::{FlatIndex, Key, VectorIndex};

/// Deterministic generator (splitmix64 + Box-Muller), no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    pub fn gauss(&mut self) -> f32 {
        let (u, v) = (self.unit(), self.unit());
        ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()) as f32
    }
    pub fn key(&mut self) -> Key {
        let mut k = [0u8; 32];
        for c in k.chunks_mut(8) {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        k
    }
}

pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

pub fn random_vectors(rng: &mut Rng, n: usize, dim: usize) -> Vec<Vec<f32>> {
    (0..n)
        .map(|_| {
            let mut v: Vec<f32> = (0..dim).map(|_| rng.gauss()).collect();
            normalize(&mut v);
            v
        })
        .collect()
}

/// Clusters, like embeddings of related sections: centre + noise.
pub fn clustered_vectors(rng: &mut Rng, n: usize, dim: usize, clusters: usize, noise: f32) -> Vec<Vec<f32>> {
    let centres = random_vectors(rng, clusters, dim);
    (0..n)
        .map(|_| {
            let c = &centres[(rng.next_u64() % clusters as u64) as usize];
            let mut v: Vec<f32> = c.iter().map(|x| x + noise * rng.gauss() / (dim as f32).sqrt()).collect();
            normalize(&mut v);
            v
        })
        .collect()
}

/// The exact top `k` keys for each query, by f32 dot product over `data` (one pass).
pub fn exact_tops(data: &[(Key, Vec<f32>)], queries: &[Vec<f32>], k: usize) -> Vec<Vec<Key>> {
    let mut tops: Vec<Vec<(f32, Key)>> = vec![Vec::with_capacity(k + 1); queries.len()];
    for (key, v) in data {
        for (q, top) in queries.iter().zip(tops.iter_mut()) {
            let s: f32 = v.iter().zip(q).map(|(a, b)| a * b).sum();
            if top.len() < k || s > top[top.len() - 1].0 {
                let at = top.partition_point(|x| x.0 >= s);
                top.insert(at, (s, *key));
                top.truncate(k);
            }
        }
    }
    tops.into_iter().map(|t| t.into_iter().map(|x| x.1).collect()).collect()
}

/// recall@k of `idx` against the exact scan of `data`.
pub fn recall_at(idx: &FlatIndex, data: &[(Key, Vec<f32>)], queries: &[Vec<f32>], k: usize) -> f64 {
    let truth = exact_tops(data, queries, k);
    let mut hit = 0usize;
    for (q, want) in queries.iter().zip(&truth) {
        let got: Vec<Key> = idx.search(q, k, None).expect("bench query").into_iter().map(|x| x.0).collect();
        hit += want.iter().filter(|t| got.contains(t)).count();
    }
    hit as f64 / (queries.len() * k) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_tops_match_a_full_sort() {
        let mut rng = Rng::new(7);
        let data: Vec<(Key, Vec<f32>)> =
            random_vectors(&mut rng, 200, 16).into_iter().map(|v| (rng.key(), v)).collect();
        let qs = random_vectors(&mut rng, 3, 16);
        let tops = exact_tops(&data, &qs, 5);
        for (q, top) in qs.iter().zip(&tops) {
            let mut all: Vec<(f32, Key)> =
                data.iter().map(|(k, v)| (v.iter().zip(q).map(|(a, b)| a * b).sum(), *k)).collect();
            all.sort_by(|a, b| b.0.total_cmp(&a.0));
            assert_eq!(top, &all.iter().take(5).map(|x| x.1).collect::<Vec<_>>());
        }
    }
}
