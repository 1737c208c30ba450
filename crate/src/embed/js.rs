//! The embedder of the wasm core built without tract: a JS object that the host makes with
//! `globalThis.__strataCreateEmbedder`, backed by the separate embedder wasm (`crate/embedder`).
//! A model's bytes stay in the host's arrays: they never enter the core's memory.

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{EmbedderConfig, TextEmbedder};

#[wasm_bindgen]
extern "C" {
    /// Installed by the host before `loadModel` (plugin/node/host.ts, the plugin's worker):
    /// `(model, tokenizer, config) => object with embed(texts: string[], query: boolean):
    /// Float32Array` (n × dimension, row-major), backed by the embedder wasm.
    #[wasm_bindgen(js_namespace = globalThis, js_name = __strataCreateEmbedder, catch)]
    fn create_embedder(
        model: &js_sys::Uint8Array,
        tokenizer: &js_sys::Uint8Array,
        config: JsValue,
    ) -> Result<JsValue, JsValue>;
}

fn js_message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// An embedder in the host's embedder wasm, made from bytes in this module's memory
/// (native-style callers of `embed::load`).
pub fn from_bytes(model: &[u8], tokenizer: &[u8], config: EmbedderConfig) -> Result<Box<dyn TextEmbedder>, String> {
    from_arrays(&js_sys::Uint8Array::from(model), &js_sys::Uint8Array::from(tokenizer), config)
}

/// An embedder in the host's embedder wasm, from the host's arrays: a model's bytes
/// (up to ~200 MB) never enter the core's memory, which would keep that size for good.
pub fn from_arrays(
    model: &js_sys::Uint8Array,
    tokenizer: &js_sys::Uint8Array,
    config: EmbedderConfig,
) -> Result<Box<dyn TextEmbedder>, String> {
    let cfg = config
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| format!("embedder config: {e}"))?;
    let obj = create_embedder(model, tokenizer, cfg).map_err(|e| {
        let msg = js_message(e);
        if msg.contains("__strataCreateEmbedder") {
            "the host has not loaded the embedder wasm (globalThis.__strataCreateEmbedder)".to_string()
        } else {
            msg
        }
    })?;
    let embed = js_sys::Reflect::get(&obj, &"embed".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or("the embedder object has no embed() method")?;
    Ok(Box::new(JsEmbedder { obj, embed, config }))
}

struct JsEmbedder {
    obj: JsValue,
    embed: js_sys::Function,
    config: EmbedderConfig,
}

impl JsEmbedder {
    fn run(&self, texts: &[&str], query: bool) -> Result<Vec<Vec<f32>>, String> {
        let arr: js_sys::Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let out = self.embed.call2(&self.obj, &arr, &JsValue::from_bool(query)).map_err(js_message)?;
        let flat = out
            .dyn_into::<js_sys::Float32Array>()
            .map_err(|_| "embed() did not return a Float32Array".to_string())?
            .to_vec();
        let dim = self.config.dimension;
        if flat.len() != texts.len() * dim {
            return Err(format!("embed() returned {} values for {} texts of dimension {dim}", flat.len(), texts.len()));
        }
        Ok(flat.chunks(dim).map(|c| c.to_vec()).collect())
    }
}

impl TextEmbedder for JsEmbedder {
    fn config(&self) -> &EmbedderConfig {
        &self.config
    }

    fn embed_passages(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        self.run(texts, false)
    }

    fn embed_query(&mut self, text: &str) -> Result<Vec<f32>, String> {
        self.run(&[text], true)?.pop().ok_or_else(|| "no vector".to_string())
    }
}
