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
        let config: CoreConfig = from_js(v, "config")?;
        crate::layout::check_device_id(&config.device_id).map_err(err)?;
        Ok(config)
    }
}

/// The boundary's types, declared once: generated from the Rust types by `typescript.rs` into
/// plugin/core/generated/api.ts, and named here by the `unchecked_*_type` of every method, so
/// wasm-bindgen's declaration of `StrataCore` (build/wasm/strata_core.d.ts) is the TypeScript
/// interface the hosts use (plugin/core/api.ts). The path is relative to `build/wasm*/`.
#[wasm_bindgen(typescript_custom_section)]
const BOUNDARY_TYPES: &'static str = r#"import type * as api from "../../plugin/core/generated/api.ts";"#;

#[wasm_bindgen]
pub struct StrataCore {
    engine: Engine,
    /// Files handed over for [`StrataCore::open_staged`].
    staged: Vec<IndexFile>,
}

#[wasm_bindgen]
impl StrataCore {
    /// An empty index.
    pub fn create(
        #[wasm_bindgen(unchecked_param_type = "api.CoreConfig | null | undefined")] config: JsValue,
    ) -> Result<StrataCore, JsError> {
        Ok(StrataCore { engine: Engine::create(config_from(config)?).map_err(err)?, staged: Vec::new() })
    }

    /// Opens the index from the files of the index folder. Never throws on a bad index: it starts
    /// fresh and says why in `openReport()`.
    pub fn open(
        #[wasm_bindgen(unchecked_param_type = "api.CoreConfig | null | undefined")] config: JsValue,
        #[wasm_bindgen(unchecked_param_type = "api.IndexFile[]")] files: JsValue,
    ) -> Result<StrataCore, JsError> {
        let config = config_from(config)?;
        let files: Vec<IndexFile> = from_js(files, "files")?;
        Ok(StrataCore { engine: Engine::open(config, files), staged: Vec::new() })
    }

    /// Takes one file of the index folder for `openStaged`. A host hands the files over one at a
    /// time as it reads them, so that it does not hold every file beside the core's copy while
    /// the core opens (`open` takes them all at once: at 100k notes, 360 MB twice).
    #[wasm_bindgen(js_name = stageFile)]
    pub fn stage_file(&mut self, name: String, bytes: Vec<u8>) {
        self.staged.push(IndexFile { name, bytes });
    }

    /// Opens the index from the files staged (`stageFile`) in place of this core's, as `open`
    /// does from its `files`: never throws on a bad index (see `openReport()`).
    #[wasm_bindgen(js_name = openStaged)]
    pub fn open_staged(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "api.CoreConfig | null | undefined")] config: JsValue,
    ) -> Result<(), JsError> {
        let config = config_from(config)?;
        let files = std::mem::take(&mut self.staged);
        self.engine = Engine::open(config, files);
        Ok(())
    }

    /// Which files of the index folder (`names`, a listing) this device reads to open, which
    /// shared segments it may read after the open (`vectors`: pass them to `wantedVectorFiles`),
    /// and which it deletes first: its own folders of older format versions (`layout::plan_open`).
    /// Files of other devices, conflict copies and partial files are in none.
    #[wasm_bindgen(js_name = planOpen, unchecked_return_type = "api.OpenPlan")]
    pub fn plan_open(
        #[wasm_bindgen(unchecked_param_type = "api.CoreConfig | null | undefined")] config: JsValue,
        names: Vec<String>,
    ) -> Result<JsValue, JsError> {
        let config = config_from(config)?;
        to_js(&crate::layout::plan_open(&config.device_id, &names))
    }

    /// The embedding models the core knows by id, the default first (`embed::models`).
    #[wasm_bindgen(unchecked_return_type = "api.ModelInfo[]")]
    pub fn models() -> Result<JsValue, JsError> {
        to_js(&crate::embed::models::models())
    }

    /// The outline of a note's bytes (`outline::outline_bytes`): where its frontmatter ends and
    /// each heading's line and section end, 1-based, from the parser indexing uses.
    #[wasm_bindgen(unchecked_return_type = "api.Outline")]
    pub fn outline(bytes: &[u8]) -> Result<JsValue, JsError> {
        to_js(&crate::outline::outline_bytes(bytes))
    }

    /// What opening found: a fresh or rebuilt index (and why), its generation and notes, the
    /// orphan files it left out, and its timings.
    #[wasm_bindgen(js_name = openReport, unchecked_return_type = "api.OpenReport")]
    pub fn open_report(&self) -> Result<JsValue, JsError> {
        to_js(self.engine.open_report())
    }

    /// Of `names` (a listing of the index folder or of its `vectors/`), the shared vector files of
    /// the models in use not added yet: those an open left to after it (`planOpen`'s `vectors`),
    /// what sync brought in, or a newly loaded model's; never another model's. Read them and pass
    /// them to `addVectors`. The first listing after the open also settles the list of the
    /// segments this device wrote (those gone leave it).
    #[wasm_bindgen(js_name = wantedVectorFiles)]
    pub fn wanted_vector_files(&mut self, names: Vec<String>) -> Vec<String> {
        self.engine.wanted_vector_files(&names)
    }

    /// Adds shared vector segments (see `wantedVectorFiles`); one that does not verify yet (still
    /// arriving) is left out and named in `ignored`.
    #[wasm_bindgen(js_name = addVectors, unchecked_return_type = "api.AddVectorsReport")]
    pub fn add_vectors(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "api.IndexFile[]")] files: JsValue,
    ) -> Result<JsValue, JsError> {
        let files: Vec<IndexFile> = from_js(files, "files")?;
        to_js(&self.engine.add_vectors(files))
    }

    /// Whether the indexing policy takes this vault path (extension, hidden and excluded folders).
    #[wasm_bindgen(js_name = shouldIndex)]
    pub fn should_index(&self, path: &str) -> bool {
        self.engine.should_index(path)
    }

    /// What to index: the notes of `listing` to read (new or changed), those to delete (no longer
    /// listed), and the files skipped and why.
    #[wasm_bindgen(unchecked_return_type = "api.Plan")]
    pub fn plan(
        &self,
        #[wasm_bindgen(unchecked_param_type = "api.FileStat[]")] listing: JsValue,
    ) -> Result<JsValue, JsError> {
        let listing: Vec<FileStat> = from_js(listing, "listing")?;
        to_js(&self.engine.plan(&listing))
    }

    /// `plan` a part of the listing at a time (`first` starts a new plan; `delete` stays empty);
    /// then `planDeletes`.
    #[wasm_bindgen(js_name = planChunk, unchecked_return_type = "api.Plan")]
    pub fn plan_chunk(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "api.FileStat[]")] listing: JsValue,
        first: bool,
    ) -> Result<JsValue, JsError> {
        let listing: Vec<FileStat> = from_js(listing, "listing")?;
        to_js(&self.engine.plan_chunk(&listing, first))
    }

    /// After the last `planChunk`: the notes no part listed (to delete).
    #[wasm_bindgen(js_name = planDeletes, unchecked_return_type = "string[]")]
    pub fn plan_deletes(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.plan_deletes())
    }

    /// Indexes a batch of notes (upserts, deletes, renames); searchable when it returns unless the
    /// batch says `commit: false`.
    #[wasm_bindgen(unchecked_return_type = "api.UpdateReport")]
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "api.UpdateBatch")] batch: JsValue,
    ) -> Result<JsValue, JsError> {
        let batch: UpdateBatch = from_js(batch, "batch")?;
        to_js(&self.engine.update(batch).map_err(err)?)
    }

    /// Makes staged (`commit: false`) changes searchable. `flush()` commits too.
    pub fn commit(&mut self) -> Result<(), JsError> {
        self.engine.commit().map_err(err)
    }

    /// Commits, and returns the files to write to the index folder, in order (the manifest last),
    /// and those to delete.
    #[wasm_bindgen(unchecked_return_type = "api.FlushOutput")]
    pub fn flush(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.flush().map_err(err)?)
    }

    /// Ranks; hits carry no snippet (see `snippets`: the index does not store note text).
    #[wasm_bindgen(unchecked_return_type = "api.SearchResponse")]
    pub fn search(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "api.SearchRequest")] req: JsValue,
    ) -> Result<JsValue, JsError> {
        let req: SearchRequest = from_js(req, "search request")?;
        to_js(&self.engine.search(&req).map_err(err)?)
    }

    /// A note by section, heading, lines or definition. `req.bytes`: the note's current bytes (the
    /// index does not store note text).
    #[wasm_bindgen(unchecked_return_type = "api.ReadResult")]
    pub fn read(
        &self,
        #[wasm_bindgen(unchecked_param_type = "api.ReadRequest")] req: JsValue,
    ) -> Result<JsValue, JsError> {
        let req: ReadRequest = from_js(req, "read request")?;
        to_js(&self.engine.read(&req).map_err(err)?)
    }

    /// A snippet (or null) per hit of `req.hits`, in order: the hit section's best fragment with the
    /// query's terms highlighted, from the notes' bytes in `req.texts`.
    #[wasm_bindgen(unchecked_return_type = "(api.Snippet | null)[]")]
    pub fn snippets(
        &self,
        #[wasm_bindgen(unchecked_param_type = "api.SnippetRequest")] req: JsValue,
    ) -> Result<JsValue, JsError> {
        let req: SnippetRequest = from_js(req, "snippet request")?;
        to_js(&self.engine.snippets(&req).map_err(err)?)
    }

    /// An indexed note's catalog entry (title, frontmatter, tags, links, sections), or null.
    #[wasm_bindgen(unchecked_return_type = "api.NoteInfo | null")]
    pub fn note(&self, path: &str) -> Result<JsValue, JsError> {
        match self.engine.note(path) {
            Some(n) => to_js(&n),
            None => Ok(JsValue::NULL),
        }
    }

    /// The texts the core embeds for an indexed note: its lead vector's (folders, title and the
    /// note's opening lines), then each leaf section's, from the note's bytes (the indexed version,
    /// else "[bad-request] …"). For benchmarks running another engine on them.
    #[wasm_bindgen(js_name = embedTexts, unchecked_return_type = "string[]")]
    pub fn embed_texts(&self, path: &str, bytes: &[u8]) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_texts(path, bytes).map_err(err)?)
    }

    /// The indexed notes' paths.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn paths(&self) -> Result<JsValue, JsError> {
        to_js(&self.engine.paths())
    }

    /// The index's state: notes, sections, segments, vectors, the model (and a switch under way),
    /// its size, generation and format version.
    #[wasm_bindgen(unchecked_return_type = "api.Status")]
    pub fn status(&self) -> Result<JsValue, JsError> {
        to_js(&self.engine.status())
    }

    /// Loads the model vectors are made with, from bytes (the ONNX file and its tokenizer.json; they
    /// do not enter the core's memory). `config`: a known model's id (`"multilingual-e5-small"`), a
    /// full model spec (id, dimension, prefixes, …), or nothing (all-MiniLM-L6-v2). A model whose
    /// spec differs from the index's vectors starts a switch (`switching`): a new vector space fills
    /// in the background (see `loadPreviousModel`).
    #[wasm_bindgen(js_name = loadModel, unchecked_return_type = "api.EmbedProgress")]
    pub fn load_model(
        &mut self,
        model: &js_sys::Uint8Array,
        tokenizer: &js_sys::Uint8Array,
        #[wasm_bindgen(unchecked_param_type = "string | Partial<api.ModelConfig> | null | undefined")] config: JsValue,
    ) -> Result<JsValue, JsError> {
        let config = model_config(config)?.unwrap_or_default();
        let embedder = crate::embed::js::from_arrays(model, tokenizer, config)
            .map_err(|e| JsError::new(&format!("[bad-request] the embedding model could not be loaded: {e}")))?;
        to_js(&self.engine.use_embedder(embedder).map_err(err)?)
    }

    /// During a model switch (`status().switching`) only, and only for the model switched from
    /// ("[bad-request] …" else): its vectors then keep answering queries until the new model has
    /// embedded everything.
    #[wasm_bindgen(js_name = loadPreviousModel, unchecked_return_type = "api.EmbedProgress")]
    pub fn load_previous_model(
        &mut self,
        model: &js_sys::Uint8Array,
        tokenizer: &js_sys::Uint8Array,
        #[wasm_bindgen(unchecked_param_type = "string | Partial<api.ModelConfig>")] config: JsValue,
    ) -> Result<JsValue, JsError> {
        let config = model_config(config)?.unwrap_or_default();
        self.engine.check_previous_model(&config).map_err(err)?;
        let embedder = crate::embed::js::from_arrays(model, tokenizer, config)
            .map_err(|e| JsError::new(&format!("[bad-request] the embedding model could not be loaded: {e}")))?;
        to_js(&self.engine.use_previous_embedder(embedder).map_err(err)?)
    }

    /// The embedding model for a setting, `"auto"` or a model id (an unknown one throws
    /// "[bad-request] …"), with the reason. `auto` reads the indexed notes' scripts: call it after
    /// indexing.
    #[wasm_bindgen(js_name = chooseModel, unchecked_return_type = "api.ModelChoice")]
    pub fn choose_model(&self, setting: &str) -> Result<JsValue, JsError> {
        to_js(&self.engine.choose_model(setting).map_err(err)?)
    }

    /// Takes up to `maxChunks` pending chunks (recent notes first) for the next `embedStep` and
    /// returns the paths of the notes whose bytes it needs.
    #[wasm_bindgen(js_name = embedNeeds, unchecked_return_type = "string[]")]
    pub fn embed_needs(&mut self, max_chunks: usize) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_needs(max_chunks).map_err(err)?)
    }

    /// Embeds the chunks `embedNeeds` took (without that call, up to `maxChunks` pending ones) from
    /// `texts`, the needed notes' bytes (null: unreadable); a chunk whose note is missing there or
    /// changed since it was indexed is dropped (`dropped`). Call in a loop (`embedAll`); cancel by not
    /// calling again. Vectors persist with `flush()`.
    #[wasm_bindgen(js_name = embedStep, unchecked_return_type = "api.EmbedProgress")]
    pub fn embed_step(
        &mut self,
        max_chunks: usize,
        #[wasm_bindgen(unchecked_param_type = "api.NoteTexts | null | undefined")] texts: JsValue,
    ) -> Result<JsValue, JsError> {
        let texts: NoteTexts =
            if texts.is_undefined() || texts.is_null() { NoteTexts::default() } else { from_js(texts, "texts")? };
        to_js(&self.engine.embed_step(max_chunks, &texts).map_err(err)?)
    }

    /// `embedStep`'s first half, for vectors made elsewhere (embedder workers): hands out the chunks
    /// `embedNeeds` took (at most `maxChunks`) with their keys and exact passage texts (the worker's
    /// embedder adds the model's passage prefix), from `texts` as for `embedStep`. They stay in flight
    /// (pending in the progress, never handed out twice) until `embedPut` or `embedRelease`.
    #[wasm_bindgen(js_name = embedTake, unchecked_return_type = "api.EmbedBatch")]
    pub fn embed_take(
        &mut self,
        max_chunks: usize,
        #[wasm_bindgen(unchecked_param_type = "api.NoteTexts | null | undefined")] texts: JsValue,
    ) -> Result<JsValue, JsError> {
        let texts: NoteTexts =
            if texts.is_undefined() || texts.is_null() { NoteTexts::default() } else { from_js(texts, "texts")? };
        to_js(&self.engine.embed_take(max_chunks, &texts).map_err(err)?)
    }

    /// Stores vectors for chunks `embedTake` handed out: `keys[i]` gets
    /// `vectors[i·dimension … (i+1)·dimension)`, made with `model` (another model, a wrong length or a
    /// value that is not finite throws "[bad-request] …"). Keys not in flight (unknown, released,
    /// stored already) are skipped and counted in `dropped`; `embedded` counts the vectors stored.
    /// Vectors persist with `flush()`.
    #[wasm_bindgen(js_name = embedPut, unchecked_return_type = "api.EmbedProgress")]
    pub fn embed_put(
        &mut self,
        model: &str,
        #[wasm_bindgen(unchecked_param_type = "string[]")] keys: JsValue,
        vectors: &[f32],
    ) -> Result<JsValue, JsError> {
        let keys: Vec<String> = from_js(keys, "keys")?;
        to_js(&self.engine.embed_put(model, &keys, vectors).map_err(err)?)
    }

    /// Returns the chunks in flight to the queue (a cancelled or failed run of the workers).
    #[wasm_bindgen(js_name = embedRelease, unchecked_return_type = "api.EmbedProgress")]
    pub fn embed_release(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_release())
    }

    /// The embedding queue's progress: done, total, the rate and ETA, the model.
    #[wasm_bindgen(js_name = embedProgress, unchecked_return_type = "api.EmbedProgress")]
    pub fn embed_progress(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.embed_progress())
    }

    /// Takes up to `maxFiles` code files waiting for their definitions (a bulk index indexed them in
    /// line windows: `deferCode`) for the next `codePassStep`, and returns their paths to read.
    #[wasm_bindgen(js_name = codePassNeeds, unchecked_return_type = "string[]")]
    pub fn code_pass_needs(&mut self, max_files: usize) -> Result<JsValue, JsError> {
        to_js(&self.engine.code_pass_needs(max_files))
    }

    /// Replaces the line windows of the files `codePassNeeds` took with their definitions, from
    /// `texts` (their bytes; a file missing there or changed is dropped for this session). Throws
    /// "[unavailable] …" before changing anything when the code wasm is not loaded. Call in a loop
    /// until `left` is 0 (`codePassAll`); `flush()` persists.
    #[wasm_bindgen(js_name = codePassStep, unchecked_return_type = "api.CodePassProgress")]
    pub fn code_pass_step(
        &mut self,
        max_files: usize,
        #[wasm_bindgen(unchecked_param_type = "api.NoteTexts")] texts: JsValue,
    ) -> Result<JsValue, JsError> {
        let texts: NoteTexts = from_js(texts, "texts")?;
        to_js(&self.engine.code_pass_step(max_files, &texts).map_err(err)?)
    }

    /// The code pass's progress: files left in line windows, files given their definitions.
    #[wasm_bindgen(js_name = codePassProgress, unchecked_return_type = "api.CodePassProgress")]
    pub fn code_pass_progress(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.engine.code_pass_progress())
    }

    /// Whether an update of `paths` (with `deferCode` as given) chunks a code file at once, so
    /// that the host loads the code wasm before it.
    #[wasm_bindgen(js_name = codeChunkerWanted)]
    pub fn code_chunker_wanted(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
        defer_code: bool,
    ) -> Result<bool, JsError> {
        let paths: Vec<String> = from_js(paths, "paths")?;
        Ok(self.engine.code_chunker_wanted(&paths, defer_code))
    }

    /// Moves notes to the front of the embedding queue (opened or edited notes).
    pub fn prioritize(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
    ) -> Result<(), JsError> {
        let paths: Vec<String> = from_js(paths, "paths")?;
        self.engine.prioritize(&paths);
        Ok(())
    }

    /// Notes by folder, tag or property, with their usage.
    #[wasm_bindgen(unchecked_return_type = "api.ListResponse")]
    pub fn list(
        &self,
        #[wasm_bindgen(unchecked_param_type = "api.ListRequest | null | undefined")] req: JsValue,
    ) -> Result<JsValue, JsError> {
        let req: ListRequest =
            if req.is_undefined() || req.is_null() { ListRequest::default() } else { from_js(req, "list request")? };
        to_js(&self.engine.list(&req).map_err(err)?)
    }

    /// Counts a retrieval of these notes (usage count, last access) in the catalog, not in the
    /// notes; persisted by the next `flush()`. `now` in ms since epoch. Returns how many of the paths
    /// were indexed notes.
    #[wasm_bindgen(js_name = recordAccess)]
    pub fn record_access(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
        now: f64,
    ) -> Result<usize, JsError> {
        let paths: Vec<String> = from_js(paths, "paths")?;
        Ok(self.engine.record_access(&paths, now))
    }

    /// Tasks of the indexed notes by status, place, tag, text, note properties, dates and priority;
    /// sorted, grouped and counted (`TasksRequest`). Bad filters throw "[bad-request] …".
    #[wasm_bindgen(unchecked_return_type = "api.TasksResponse")]
    pub fn tasks(
        &self,
        #[wasm_bindgen(unchecked_param_type = "api.TasksRequest | null | undefined")] req: JsValue,
    ) -> Result<JsValue, JsError> {
        let req: TasksRequest =
            if req.is_undefined() || req.is_null() { TasksRequest::default() } else { from_js(req, "tasks request")? };
        to_js(&self.engine.tasks(&req).map_err(err)?)
    }

    /// Notes whose properties match an expression (`status = draft AND file.mtime >= today-7d`),
    /// sorted and paged (`QueryRequest`); a bad expression throws "[bad-request] …" naming its
    /// position.
    #[wasm_bindgen(unchecked_return_type = "api.QueryResponse")]
    pub fn query(
        &self,
        #[wasm_bindgen(unchecked_param_type = "api.QueryRequest | null | undefined")] req: JsValue,
    ) -> Result<JsValue, JsError> {
        let req: QueryRequest =
            if req.is_undefined() || req.is_null() { QueryRequest::default() } else { from_js(req, "query request")? };
        to_js(&self.engine.query(&req).map_err(err)?)
    }

    /// Decodes the most common note properties into the columns `query()` and `tasks()` read
    /// (`Engine::warm_queries`), so the first property query after an open is fast: for a host to
    /// call when idle after opening, never on the way to the first search. Returns how many property
    /// columns it built.
    #[wasm_bindgen(js_name = warmQueries)]
    pub fn warm_queries(&self) -> usize {
        self.engine.warm_queries()
    }

    /// Notes nearest a note or one of its sections (`req.path`, `req.sectionId`) by their vectors.
    #[wasm_bindgen(unchecked_return_type = "api.SimilarResponse")]
    pub fn similar(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "api.SimilarRequest")] req: JsValue,
    ) -> Result<JsValue, JsError> {
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
