//! Sentence embeddings: the configuration recorded with the vectors and the [`TextEmbedder`]
//! the engine embeds with (both from the strata-model crate), and where an embedder comes from:
//! - natively with the `embedder` feature: [`onnx::Embedder`] (tract + the Hugging Face
//!   tokenizer, in the strata-embedder crate, crate/embedder);
//! - in the wasm core (what the plugin, CLI and bridge load first, a third of the size): a JS
//!   object made by the host's `globalThis.__strataCreateEmbedder`, backed by the separate
//!   embedder wasm (the same `onnx::Embedder`), compiled only when a model is loaded. The first
//!   search never waits for tract.

pub use strata_model::{
    EmbedderConfig, Pooling, ShapeMode, TextEmbedder, KNOWN_MODELS, MINILM_L6_V2, MULTILINGUAL_E5_SMALL, SEQ_BUCKET,
};

pub mod choice;
#[cfg(target_arch = "wasm32")]
pub mod js;
pub mod models;
#[cfg(feature = "embedder")]
pub use strata_embedder::onnx;

/// Loads a model (ONNX + tokenizer.json bytes) into an embedder.
pub fn load(model: &[u8], tokenizer: &[u8], config: EmbedderConfig) -> Result<Box<dyn TextEmbedder>, String> {
    #[cfg(feature = "embedder")]
    {
        Ok(Box::new(onnx::Embedder::new(model, tokenizer, config)?))
    }
    #[cfg(all(not(feature = "embedder"), target_arch = "wasm32"))]
    {
        js::from_bytes(model, tokenizer, config)
    }
    #[cfg(all(not(feature = "embedder"), not(target_arch = "wasm32")))]
    {
        let _ = (model, tokenizer, config);
        Err("this build of the core has no embedder (feature \"embedder\")".into())
    }
}
