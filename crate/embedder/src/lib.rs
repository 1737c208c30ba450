//! The embedder wasm: [`strata_core::embed::onnx::Embedder`] behind a wasm-bindgen class.
//! The host hands it to the core (`globalThis.__strataCreateEmbedder`, see
//! `strata_core::embed`), which calls `embed` for passages and queries.

#[cfg(target_arch = "wasm32")]
mod bindings {
    use strata_core::embed::onnx::Embedder;
    use strata_core::embed::EmbedderConfig;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    pub struct StrataEmbedder {
        inner: Embedder,
    }

    #[wasm_bindgen]
    impl StrataEmbedder {
        /// Loads an ONNX model and its tokenizer.json (bytes) with the core's config.
        #[wasm_bindgen(constructor)]
        pub fn new(model: Vec<u8>, tokenizer: &[u8], config: JsValue) -> Result<StrataEmbedder, JsError> {
            let cfg: EmbedderConfig = if config.is_undefined() || config.is_null() {
                EmbedderConfig::default()
            } else {
                serde_wasm_bindgen::from_value(config)
                    .map_err(|e| JsError::new(&format!("[bad-request] model config: {e}")))?
            };
            let inner = Embedder::from_owned(model, tokenizer, cfg)
                .map_err(|e| JsError::new(&format!("[bad-request] the embedding model could not be loaded: {e}")))?;
            Ok(StrataEmbedder { inner })
        }

        /// Vectors of `texts` (passages, or queries when `query`), row-major.
        pub fn embed(&mut self, texts: Vec<String>, query: bool) -> Result<Vec<f32>, JsError> {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vecs = if query {
                refs.iter().map(|t| self.inner.embed_query(t)).collect::<Result<Vec<_>, _>>()
            } else {
                self.inner.embed_passages(&refs)
            }
            .map_err(|e| JsError::new(&format!("[internal] embedding failed: {e}")))?;
            Ok(vecs.concat())
        }

        /// Token ids of `text` as the model sees it (special tokens included, no prefix).
        #[wasm_bindgen(js_name = tokenIds)]
        pub fn token_ids(&self, text: &str) -> Vec<u32> {
            self.inner.token_ids(text)
        }

        pub fn dimension(&self) -> usize {
            self.inner.dimension()
        }
    }
}
