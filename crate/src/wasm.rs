//! The JavaScript API (wasm-bindgen). Values cross as plain objects through
//! serde-wasm-bindgen; byte arrays as `Uint8Array`. Errors are thrown as JS `Error`s
//! whose message starts with a bracketed code ("[bad-request] …").

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::api::*;
use crate::config::CoreConfig;
use crate::engine::Engine;
use crate::error::CoreError;

fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    // JSON-compatible objects, but byte buffers as Uint8Array (json_compatible() would
    // turn the index files into arrays of numbers: 8× the memory and seconds to build).
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false))
        .map_err(|e| JsError::new(&format!("[internal] {e}")))
}

fn from_js<T: serde::de::DeserializeOwned>(v: JsValue, what: &str) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(v).map_err(|e| JsError::new(&format!("[bad-request] {what}: {e}")))
}

fn err(e: CoreError) -> JsError {
    JsError::new(&e.to_string())
}

fn config_from(v: JsValue) -> Result<CoreConfig, JsError> {
    if v.is_undefined() || v.is_null() {
        Ok(CoreConfig::default())
    } else {
        from_js(v, "config")
    }
}

#[wasm_bindgen]
pub struct StrataCore {
    engine: Engine,
}

#[wasm_bindgen]
impl StrataCore {
    /// An empty index.
    pub fn create(config: JsValue) -> Result<StrataCore, JsError> {
        Ok(StrataCore { engine: Engine::create(config_from(config)?).map_err(err)? })
    }

    /// Opens the index from the files of the index folder (never throws on a bad index).
    pub fn open(config: JsValue, files: JsValue) -> Result<StrataCore, JsError> {
        let config = config_from(config)?;
        let files: Vec<IndexFile> = from_js(files, "files")?;
        Ok(StrataCore { engine: Engine::open(config, files) })
    }

    /// The embedding models the core knows by id, the default first (`embed::models`).
    pub fn models() -> Result<JsValue, JsError> {
        to_js(&crate::embed::models::models())
    }

    /// The outline of a note's bytes (`outline::outline_bytes`): where its frontmatter ends and
    /// each heading's line and section end, 1-based, from the parser indexing uses.
    pub fn outline(bytes: &[u8]) -> Result<JsValue, JsError> {
        to_js(&crate::outline::outline_bytes(bytes))
    }

    #[wasm_bindgen(js_name = openReport)]
    pub fn open_report(&self) -> Result<JsValue, JsError> {
        to_js(self.engine.open_report())
    }

    #[wasm_bindgen(js_name = shouldIndex)]
    pub fn should_index(&self, path: &str) -> bool {
        self.engine.should_index(path)
    }

    pub fn plan(&self, listing: JsValue) -> Result<JsValue, JsError> {
        let listing: Vec<FileStat> = from_js(listing, "listing")?;
        to_js(&self.engine.plan(&listing))
    }

    /// `plan` a part of the listing at a time (`first` starts a new plan); then `planDeletes`.
    #[wasm_bindgen(js_name = planChunk)]
    pub fn plan_chunk(&mut self, listing: JsValue, first: bool) -> Result<JsValue, JsError> {
        let listing: Vec<FileStat> = from_js(listing, "listing")?;
        to_js(&self.engine.plan_chunk(&listing, first))
    }

    #[wasm_bindgen(js_name = planDeletes)]
    pub fn plan_deletes(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.plan_deletes())
    }

    pub fn update(&mut self, batch: JsValue) -> Result<JsValue, JsError> {
        let batch: UpdateBatch = from_js(batch, "batch")?;
        to_js(&self.engine.update(batch).map_err(err)?)
    }

    pub fn commit(&mut self) -> Result<(), JsError> {
        self.engine.commit().map_err(err)
    }

    pub fn flush(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.flush().map_err(err)?)
    }

    pub fn search(&mut self, req: JsValue) -> Result<JsValue, JsError> {
        let req: SearchRequest = from_js(req, "search request")?;
        to_js(&self.engine.search(&req).map_err(err)?)
    }

    /// `req.bytes`: the note's current bytes (the index does not store note text).
    pub fn read(&self, req: JsValue) -> Result<JsValue, JsError> {
        let req: ReadRequest = from_js(req, "read request")?;
        to_js(&self.engine.read(&req).map_err(err)?)
    }

    /// A snippet (or null) for each of `req.hits`, from the hit notes' bytes in `req.texts`.
    pub fn snippets(&self, req: JsValue) -> Result<JsValue, JsError> {
        let req: SnippetRequest = from_js(req, "snippet request")?;
        to_js(&self.engine.snippets(&req).map_err(err)?)
    }

    pub fn note(&self, path: &str) -> Result<JsValue, JsError> {
        match self.engine.note(path) {
            Some(n) => to_js(&n),
            None => Ok(JsValue::NULL),
        }
    }

    /// The texts the core embeds for an indexed note (lead, then leaves), from its bytes.
    #[wasm_bindgen(js_name = embedTexts)]
    pub fn embed_texts(&self, path: &str, bytes: &[u8]) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_texts(path, bytes).map_err(err)?)
    }

    pub fn paths(&self) -> Result<JsValue, JsError> {
        to_js(&self.engine.paths())
    }

    pub fn status(&self) -> Result<JsValue, JsError> {
        to_js(&self.engine.status())
    }

    /// Loads the embedding model vectors are to be made with: the ONNX file and its
    /// tokenizer.json, as bytes. `config`: a known model's id (`"multilingual-e5-small"`),
    /// a full model spec (id, dimension, prefixes, …), or nothing (all-MiniLM-L6-v2).
    /// A model other than the vectors' starts a switch (see `loadPreviousModel`).
    #[wasm_bindgen(js_name = loadModel)]
    pub fn load_model(
        &mut self,
        model: &js_sys::Uint8Array,
        tokenizer: &js_sys::Uint8Array,
        config: JsValue,
    ) -> Result<JsValue, JsError> {
        let config = model_config(config)?.unwrap_or_default();
        let embedder = crate::embed::js::from_arrays(model, tokenizer, config)
            .map_err(|e| JsError::new(&format!("[bad-request] the embedding model could not be loaded: {e}")))?;
        to_js(&self.engine.use_embedder(embedder).map_err(err)?)
    }

    /// During a model switch (`status().switching`), loads the model switched from, so
    /// that its vectors keep answering queries until the new model has embedded everything.
    #[wasm_bindgen(js_name = loadPreviousModel)]
    pub fn load_previous_model(
        &mut self,
        model: &js_sys::Uint8Array,
        tokenizer: &js_sys::Uint8Array,
        config: JsValue,
    ) -> Result<JsValue, JsError> {
        let config = model_config(config)?.unwrap_or_default();
        self.engine.check_previous_model(&config).map_err(err)?;
        let embedder = crate::embed::js::from_arrays(model, tokenizer, config)
            .map_err(|e| JsError::new(&format!("[bad-request] the embedding model could not be loaded: {e}")))?;
        to_js(&self.engine.use_previous_embedder(embedder).map_err(err)?)
    }

    /// The embedding model for a setting (`"auto"` or a model id), with the reason.
    #[wasm_bindgen(js_name = chooseModel)]
    pub fn choose_model(&self, setting: &str) -> Result<JsValue, JsError> {
        to_js(&self.engine.choose_model(setting).map_err(err)?)
    }

    /// Takes up to `maxChunks` pending chunks for the next `embedStep` and returns the paths
    /// of the notes whose bytes it needs.
    #[wasm_bindgen(js_name = embedNeeds)]
    pub fn embed_needs(&mut self, max_chunks: usize) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_needs(max_chunks).map_err(err)?)
    }

    /// Embeds the chunks `embedNeeds` took (or up to `maxChunks` pending ones) from `texts`
    /// (path → the note's bytes, or null when unreadable) and reports progress.
    #[wasm_bindgen(js_name = embedStep)]
    pub fn embed_step(&mut self, max_chunks: usize, texts: JsValue) -> Result<JsValue, JsError> {
        let texts: NoteTexts =
            if texts.is_undefined() || texts.is_null() { NoteTexts::default() } else { from_js(texts, "texts")? };
        to_js(&self.engine.embed_step(max_chunks, &texts).map_err(err)?)
    }

    /// Hands out up to `maxChunks` pending chunks (those `embedNeeds` took) with their keys and
    /// texts, from `texts` as for `embedStep`, to be embedded elsewhere (an EmbedBatch).
    #[wasm_bindgen(js_name = embedTake)]
    pub fn embed_take(&mut self, max_chunks: usize, texts: JsValue) -> Result<JsValue, JsError> {
        let texts: NoteTexts =
            if texts.is_undefined() || texts.is_null() { NoteTexts::default() } else { from_js(texts, "texts")? };
        to_js(&self.engine.embed_take(max_chunks, &texts).map_err(err)?)
    }

    /// Stores the vectors of chunks `embedTake` handed out: `keys[i]` gets the i-th `dimension`
    /// values of `vectors`, made with `model`. Keys not handed out are skipped (`dropped`).
    #[wasm_bindgen(js_name = embedPut)]
    pub fn embed_put(&mut self, model: &str, keys: JsValue, vectors: &[f32]) -> Result<JsValue, JsError> {
        let keys: Vec<String> = from_js(keys, "keys")?;
        to_js(&self.engine.embed_put(model, &keys, vectors).map_err(err)?)
    }

    /// Returns the chunks handed out by `embedTake` and not put back to the queue.
    #[wasm_bindgen(js_name = embedRelease)]
    pub fn embed_release(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_release())
    }

    #[wasm_bindgen(js_name = embedProgress)]
    pub fn embed_progress(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_progress())
    }

    /// Moves notes to the front of the embedding queue.
    pub fn prioritize(&mut self, paths: JsValue) -> Result<(), JsError> {
        let paths: Vec<String> = from_js(paths, "paths")?;
        self.engine.prioritize(&paths);
        Ok(())
    }

    /// Notes by folder/tag/property with their usage.
    pub fn list(&self, req: JsValue) -> Result<JsValue, JsError> {
        let req: ListRequest =
            if req.is_undefined() || req.is_null() { ListRequest::default() } else { from_js(req, "list request")? };
        to_js(&self.engine.list(&req).map_err(err)?)
    }

    /// Counts a retrieval of these notes in the catalog (persisted by the next flush).
    #[wasm_bindgen(js_name = recordAccess)]
    pub fn record_access(&mut self, paths: JsValue, now: f64) -> Result<usize, JsError> {
        let paths: Vec<String> = from_js(paths, "paths")?;
        Ok(self.engine.record_access(&paths, now))
    }

    /// Tasks of the indexed notes by status, place, tag, text, dates and priority, sorted and
    /// grouped (`TasksRequest`).
    pub fn tasks(&self, req: JsValue) -> Result<JsValue, JsError> {
        let req: TasksRequest =
            if req.is_undefined() || req.is_null() { TasksRequest::default() } else { from_js(req, "tasks request")? };
        to_js(&self.engine.tasks(&req).map_err(err)?)
    }

    /// Notes whose properties match an expression (`QueryRequest`).
    pub fn query(&self, req: JsValue) -> Result<JsValue, JsError> {
        let req: QueryRequest =
            if req.is_undefined() || req.is_null() { QueryRequest::default() } else { from_js(req, "query request")? };
        to_js(&self.engine.query(&req).map_err(err)?)
    }

    /// Decodes the most common note properties for the queries (`Engine::warm_queries`): for
    /// a host to call when idle after opening. Returns how many property columns it built.
    #[wasm_bindgen(js_name = warmQueries)]
    pub fn warm_queries(&self) -> usize {
        self.engine.warm_queries()
    }

    pub fn similar(&mut self, req: JsValue) -> Result<JsValue, JsError> {
        let req: SimilarRequest = from_js(req, "similar request")?;
        to_js(&self.engine.similar(&req).map_err(err)?)
    }
}

/// A model config from JS: a known model's id, a full spec, or nothing.
fn model_config(config: JsValue) -> Result<Option<crate::embed::EmbedderConfig>, JsError> {
    if config.is_undefined() || config.is_null() {
        return Ok(None);
    }
    if let Some(id) = config.as_string() {
        return crate::embed::EmbedderConfig::named(&id)
            .map(Some)
            .ok_or_else(|| JsError::new(&format!("[bad-request] unknown embedding model `{id}`")));
    }
    Ok(Some(from_js(config, "model config")?))
}
