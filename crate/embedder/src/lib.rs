//! The embedder: [`onnx::Embedder`] (an ONNX sentence-embedding model run by tract, its
//! tokenizer.json by tokenizers), and on wasm32 the embedder wasm, that embedder behind a
//! wasm-bindgen class. The host hands it to the core (`globalThis.__strataCreateEmbedder`, see
//! `strata_core::embed`), which calls `embed` for passages and queries. A pool worker loads the
//! model alone (`forTokenIds`) and embeds the token ids the core's thread makes (`passageIds`).
//! The core depends on this crate only natively (its `embedder` feature); this crate never
//! depends on the core, so its wasm carries no search engine.

pub mod onnx;

#[cfg(target_arch = "wasm32")]
mod bindings {
    use crate::onnx::Embedder;
    use strata_model::EmbedderConfig;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    pub struct StrataEmbedder {
        inner: Embedder,
    }

    fn parse_config(config: JsValue) -> Result<EmbedderConfig, JsError> {
        if config.is_undefined() || config.is_null() {
            return Ok(EmbedderConfig::default());
        }
        serde_wasm_bindgen::from_value(config).map_err(|e| JsError::new(&format!("[bad-request] model config: {e}")))
    }

    fn load_error(e: String) -> JsError {
        JsError::new(&format!("[bad-request] the embedding model could not be loaded: {e}"))
    }

    #[wasm_bindgen]
    impl StrataEmbedder {
        /// Loads an ONNX model and its tokenizer.json (bytes) with the core's config (the
        /// `EmbedderConfig` the core passes its host's hook, or nothing: all-MiniLM-L6-v2).
        #[wasm_bindgen(constructor)]
        pub fn new(
            model: Vec<u8>,
            tokenizer: &[u8],
            #[wasm_bindgen(unchecked_param_type = "unknown")] config: JsValue,
        ) -> Result<StrataEmbedder, JsError> {
            let inner = Embedder::from_owned(model, tokenizer, parse_config(config)?).map_err(load_error)?;
            Ok(StrataEmbedder { inner })
        }

        /// Loads an ONNX model without a tokenizer: it embeds the token ids another embedder
        /// made (`passageIds`, `padId`), as a pool worker does.
        #[wasm_bindgen(js_name = forTokenIds)]
        pub fn for_token_ids(
            model: Vec<u8>,
            pad_id: u32,
            #[wasm_bindgen(unchecked_param_type = "unknown")] config: JsValue,
        ) -> Result<StrataEmbedder, JsError> {
            let inner = Embedder::for_token_ids(model, pad_id, parse_config(config)?).map_err(load_error)?;
            Ok(StrataEmbedder { inner })
        }

        /// The passages' token ids as the model is fed them, each preceded by its length:
        /// `[n0, ids0…, n1, ids1…]` (what `embedIds` takes).
        #[wasm_bindgen(js_name = passageIds)]
        pub fn passage_ids(&self, texts: Vec<String>) -> Result<Vec<u32>, JsError> {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let ids = self
                .inner
                .passage_ids(&refs)
                .map_err(|e| JsError::new(&format!("[internal] tokenizing failed: {e}")))?;
            let mut flat = Vec::with_capacity(ids.iter().map(|x| x.len() + 1).sum());
            for row in ids {
                flat.push(row.len() as u32);
                flat.extend(row);
            }
            Ok(flat)
        }

        /// Vectors (row-major) of passages given as `passageIds` lays them out.
        #[wasm_bindgen(js_name = embedIds)]
        pub fn embed_ids(&mut self, flat: &[u32]) -> Result<Vec<f32>, JsError> {
            let mut rows = Vec::new();
            let mut rest = flat;
            while let Some((&n, tail)) = rest.split_first() {
                let n = n as usize;
                if n > tail.len() {
                    return Err(JsError::new("[bad-request] token ids: a row is longer than the data left"));
                }
                rows.push(tail[..n].to_vec());
                rest = &tail[n..];
            }
            let vecs =
                self.inner.embed_ids(&rows).map_err(|e| JsError::new(&format!("[internal] embedding failed: {e}")))?;
            Ok(vecs.concat())
        }

        /// The id padded rows are filled with (for `forTokenIds`).
        #[wasm_bindgen(js_name = padId)]
        pub fn pad_id(&self) -> u32 {
            self.inner.pad_id()
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
