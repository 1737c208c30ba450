//! The embedding model and the embedding queue, through the engine (see `semantic`).

use super::Engine;
use crate::api::*;
use crate::clock::{now_ms, now_wall_ms};
use crate::embed::EmbedderConfig;
use crate::error::{CoreError, Result};
use crate::hash::sha256_hex;
use crate::markdown;
use crate::paths;

impl Engine {
    /// Loads the embedding model (bytes of the ONNX file and tokenizer.json).
    pub fn load_model(
        &mut self,
        model: &[u8],
        tokenizer: &[u8],
        config: Option<EmbedderConfig>,
    ) -> Result<EmbedProgress> {
        let embedder = crate::embed::load(model, tokenizer, config.unwrap_or_default())
            .map_err(|e| CoreError::BadRequest(format!("the embedding model could not be loaded: {e}")))?;
        self.use_embedder(embedder)
    }

    /// [`Engine::load_model`] with an embedder the host made (the wasm core's JS embedder).
    pub fn use_embedder(&mut self, embedder: Box<dyn crate::embed::TextEmbedder>) -> Result<EmbedProgress> {
        self.semantic.use_embedder(embedder)?;
        self.key_map = None;
        Ok(self.semantic.progress(&self.catalog))
    }

    /// The embedding model for a setting (`auto` or a model id), by the share of the
    /// vault's text that is not English (see `embed::choice`).
    pub fn choose_model(&self, setting: &str) -> Result<crate::embed::choice::ModelChoice> {
        let current = self.semantic.spec().map(|s| s.model_id.as_str());
        crate::embed::choice::choose(setting, &self.catalog.script_counts(), current).map_err(CoreError::BadRequest)
    }

    /// Loads the model a switch is moving away from: its vectors answer queries until the
    /// new model has embedded everything (`status().switching` says which model it is).
    pub fn load_previous_model(
        &mut self,
        model: &[u8],
        tokenizer: &[u8],
        config: EmbedderConfig,
    ) -> Result<EmbedProgress> {
        self.semantic.check_previous(&config)?;
        let embedder = crate::embed::load(model, tokenizer, config)
            .map_err(|e| CoreError::BadRequest(format!("the embedding model could not be loaded: {e}")))?;
        self.use_previous_embedder(embedder)
    }

    /// [`Engine::load_previous_model`] with an embedder the host made.
    pub fn use_previous_embedder(&mut self, embedder: Box<dyn crate::embed::TextEmbedder>) -> Result<EmbedProgress> {
        self.semantic.use_previous_embedder(embedder)?;
        Ok(self.semantic.progress(&self.catalog))
    }

    /// Whether `config` is the model the current switch is moving away from.
    pub fn check_previous_model(&self, config: &EmbedderConfig) -> Result<()> {
        self.semantic.check_previous(config)
    }

    /// Embeds up to `max_chunks` pending sections; call repeatedly (between calls the
    /// caller may search, update, cancel or flush).
    ///
    /// `texts`: the current bytes of the notes [`Engine::embed_needs`] named (the index does
    /// not store note text); a chunk whose note is missing there or changed since it was
    /// indexed is dropped from this session's queue, so a loop of steps always ends.
    pub fn embed_step(&mut self, max_chunks: usize, texts: &NoteTexts) -> Result<EmbedProgress> {
        self.semantic.embed_step(&self.catalog, max_chunks, texts, now_ms)
    }

    /// The notes whose text the next [`Engine::embed_step`] needs: it takes the next
    /// `max_chunks` pending chunks off the queue.
    pub fn embed_needs(&mut self, max_chunks: usize) -> Result<Vec<String>> {
        self.semantic.embed_needs(&self.catalog, max_chunks)
    }

    /// Hands out up to `max_chunks` pending chunks, with their keys and texts, to be embedded
    /// elsewhere (the host's embedder workers); `texts` as for [`Engine::embed_step`]. The
    /// vectors come back through [`Engine::embed_put`]; see `semantic::handout`.
    pub fn embed_take(&mut self, max_chunks: usize, texts: &NoteTexts) -> Result<EmbedBatch> {
        self.semantic.embed_take(&self.catalog, max_chunks, texts, now_ms)
    }

    /// Stores vectors made elsewhere for chunks [`Engine::embed_take`] handed out (`keys[i]`
    /// gets the i-th `dimension` values of `vectors`); keys not in flight are skipped.
    pub fn embed_put(&mut self, model: &str, keys: &[String], vectors: &[f32]) -> Result<EmbedProgress> {
        self.semantic.embed_put(&self.catalog, model, keys, vectors, now_ms)
    }

    /// Returns the chunks handed out and not put back to the queue.
    pub fn embed_release(&mut self) -> EmbedProgress {
        self.semantic.embed_release(&self.catalog, now_ms)
    }

    pub fn embed_progress(&mut self) -> EmbedProgress {
        self.semantic.progress(&self.catalog)
    }

    /// Moves notes to the front of the embedding queue (opened or edited notes).
    pub fn prioritize(&mut self, paths: &[String]) {
        self.semantic.prioritize(paths, now_wall_ms());
    }

    /// The texts the core embeds for an indexed note: its lead vector's, then each leaf's in
    /// order, from the note's bytes, which must be the indexed version. For benchmarks that run
    /// another engine on the same texts.
    pub fn embed_texts(&self, path: &str, bytes: &[u8]) -> Result<Vec<String>> {
        let path = paths::normalize(path)?;
        let note = self.catalog.get(&path).ok_or_else(|| CoreError::BadRequest(format!("not in the index: {path}")))?;
        if sha256_hex(bytes) != note.hash {
            return Err(CoreError::BadRequest(format!("{path} changed since it was indexed")));
        }
        let text = markdown::decode(bytes).text;
        let leaves = note.sections.iter().filter(|s| s.is_leaf()).map(|s| note.embed_text(&text, s));
        Ok(std::iter::once(note.lead_text(&text)).chain(leaves).collect())
    }
}
