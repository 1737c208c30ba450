//! A tiny deterministic embedder for the frozen index fixtures (tests/fixtures/formats): eight
//! dimensions from a hash of the text, L2-normalised. It has no notion of meaning; it only
//! gives every text its own stable vector, so a test can tell kept vectors from new ones.

use strata_core::embed::{EmbedderConfig, TextEmbedder};

/// The model id recorded in the fixtures' manifests.
pub const FIXTURE_MODEL: &str = "fixture-fake-8d";
pub const FIXTURE_DIM: usize = 8;

pub struct FixtureEmbedder {
    config: EmbedderConfig,
    /// Texts embedded so far (passages and queries).
    pub embedded: usize,
}

impl FixtureEmbedder {
    pub fn new() -> FixtureEmbedder {
        let config =
            EmbedderConfig { model_id: FIXTURE_MODEL.into(), dimension: FIXTURE_DIM, ..EmbedderConfig::minilm_l6_v2() };
        FixtureEmbedder { config, embedded: 0 }
    }

    pub fn vector(text: &str) -> Vec<f32> {
        // FNV-1a over the bytes, one stream per dimension.
        let mut v: Vec<f32> = (0..FIXTURE_DIM as u64)
            .map(|d| {
                let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ d.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                for b in text.bytes() {
                    h ^= b as u64;
                    h = h.wrapping_mul(0x0000_0100_0000_01B3);
                }
                ((h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
            })
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
        v.iter_mut().for_each(|x| *x /= n);
        v
    }
}

impl TextEmbedder for FixtureEmbedder {
    fn config(&self) -> &EmbedderConfig {
        &self.config
    }

    fn embed_passages(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        self.embedded += texts.len();
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }

    fn embed_query(&mut self, text: &str) -> Result<Vec<f32>, String> {
        self.embedded += 1;
        Ok(Self::vector(text))
    }
}
