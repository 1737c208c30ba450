//! Chunks embedded outside the core: [`Semantic::embed_take`] hands the next chunks out with
//! their keys and exact texts, [`Semantic::embed_put`] stores the vectors that come back, and
//! [`Semantic::embed_release`] returns what never came back to the queue. A host with a pool of
//! embedder workers (plugin/core/embedding/pool.ts) runs these; [`Semantic::embed_step`] is the
//! same take and put around the core's own embedder, so there is one path.
//!
//! Handed-out chunks are "in flight": they count as pending in the progress, and a queue rebuilt
//! meanwhile (an edit, a `prioritize`) leaves them out, so no chunk is handed out twice. The
//! rate is over wall time with chunks in flight, so that it is the rate of all workers together.

use std::collections::HashMap;

use super::{Pending, Semantic, HOW_TO_ENABLE};
use crate::api::{EmbedBatch, EmbedItem, EmbedProgress, NoteTexts};
use crate::catalog::Catalog;
use crate::error::{CoreError, Result};
use crate::hash::sha256_hex;
use crate::vectors::{Key, VectorIndex};

/// A key as the host sees it: lower-case hex.
pub fn key_hex(key: &Key) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// A key from its hex form (None when it is not 64 hex digits).
pub fn key_from_hex(hex: &str) -> Option<Key> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, b) in key.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(key)
}

impl Semantic {
    /// Takes up to `max_chunks` pending chunks (those [`Semantic::embed_needs`] took, else the
    /// next ones) and returns their keys and texts from `texts` (the current bytes of the notes
    /// they need). A chunk whose note is missing there, or whose bytes no longer hash to the
    /// indexed note's, is dropped from this session's queue (`dropped`). The chunks returned are
    /// in flight until [`Semantic::embed_put`] or [`Semantic::embed_release`].
    pub fn embed_take(
        &mut self,
        catalog: &Catalog,
        max_chunks: usize,
        texts: &NoteTexts,
        now: impl Fn() -> f64,
    ) -> Result<EmbedBatch> {
        if !self.model_loaded() {
            return Err(CoreError::Unavailable(HOW_TO_ENABLE.into()));
        }
        let max_chunks = max_chunks.max(1);
        let batch = match self.staged.take() {
            Some(mut staged) => {
                if self.queue.is_none() {
                    self.build_queue(catalog);
                }
                if staged.len() > max_chunks {
                    let queue = self.queue.as_mut().expect("built");
                    // Back in pop order: the first of the rest is popped next.
                    queue.extend(staged.split_off(max_chunks).into_iter().rev());
                }
                staged
            }
            None => self.take_batch(catalog, max_chunks),
        };
        let mut items: Vec<EmbedItem> = Vec::with_capacity(batch.len());
        let mut keys: Vec<Key> = Vec::with_capacity(batch.len());
        // path → the note's current text, when it is the indexed version.
        let mut current: HashMap<String, Option<String>> = HashMap::new();
        let mut stale = false;
        for p in &batch {
            let Some(text) = pending_text(catalog, p, texts, &mut current, &mut stale) else { continue };
            if self.inflight.contains(&p.key) || keys.contains(&p.key) {
                continue; // the same text, handed out already
            }
            items.push(EmbedItem { key: key_hex(&p.key), text });
            keys.push(p.key);
        }
        if stale {
            // Chunks of notes that changed after they were taken: rebuild the queue, which
            // holds the notes' new chunks (and a text another note shares).
            self.queue = None;
        }
        if !keys.is_empty() && self.busy_since.is_none() {
            self.busy_since = Some(now());
        }
        self.inflight.extend(keys);
        let spec = self.spec().expect("a loaded model has a space");
        Ok(EmbedBatch {
            model: spec.model_id.clone(),
            dimension: spec.dimension,
            dropped: batch.len() - items.len(),
            items,
        })
    }

    /// Stores vectors made elsewhere for chunks [`Semantic::embed_take`] handed out: `keys[i]`
    /// (hex) gets `vectors[i * dimension..][..dimension]`. `model` must be the active model.
    /// A key that is not in flight (unknown, released, already stored, or from before a model
    /// switch) is skipped and counted in `dropped`; a vector that is not finite is an error,
    /// and so is a length that does not match. Returns the progress, `embedded` = stored.
    pub fn embed_put(
        &mut self,
        catalog: &Catalog,
        model: &str,
        keys: &[String],
        vectors: &[f32],
        now: impl Fn() -> f64,
    ) -> Result<EmbedProgress> {
        let active = self.active.as_mut().ok_or_else(|| CoreError::Unavailable(HOW_TO_ENABLE.into()))?;
        if active.spec.model_id != model {
            return Err(CoreError::BadRequest(format!(
                "vectors of {model} cannot be stored: the index embeds with {}",
                active.spec.model_id
            )));
        }
        let dim = active.spec.dimension;
        if vectors.len() != keys.len() * dim {
            return Err(CoreError::BadRequest(format!(
                "{} values for {} keys of dimension {dim}",
                vectors.len(),
                keys.len()
            )));
        }
        if vectors.iter().any(|v| !v.is_finite()) {
            return Err(CoreError::BadRequest("a vector has a value that is not finite".into()));
        }
        let mut stored = 0;
        for (hex, v) in keys.iter().zip(vectors.chunks(dim)) {
            let Some(key) = key_from_hex(hex) else { continue };
            if !self.inflight.remove(&key) || active.vectors.contains(&key) {
                continue;
            }
            active.vectors.insert(key, v).map_err(|e| CoreError::Internal(format!("vector index: {e}")))?;
            active.unsaved.push(key);
            stored += 1;
        }
        self.embedded += stored;
        self.mark_busy(now());
        self.finish_switch();
        let mut p = self.progress(catalog);
        p.embedded = stored;
        p.dropped = keys.len() - stored;
        Ok(p)
    }

    /// Returns every chunk in flight to the queue (a cancelled or failed run of the host's
    /// workers): the next take hands them out again.
    pub fn embed_release(&mut self, catalog: &Catalog, now: impl Fn() -> f64) -> EmbedProgress {
        if !self.inflight.is_empty() {
            self.inflight.clear();
            self.queue = None;
        }
        self.mark_busy(now());
        self.progress(catalog)
    }

    /// Adds the time since the last mark to the embedding time while chunks were in flight.
    fn mark_busy(&mut self, now: f64) {
        if let Some(since) = self.busy_since {
            self.embed_ms += (now - since).max(0.0);
        }
        self.busy_since = (!self.inflight.is_empty()).then_some(now);
    }

    /// Embeds the chunks [`Semantic::embed_needs`] took (at most `max_chunks` of them; the
    /// rest go back to the queue), or, without that call, up to `max_chunks` pending ones, with
    /// the loaded model: [`Semantic::embed_take`], the core's embedder, [`Semantic::embed_put`].
    pub fn embed_step(
        &mut self,
        catalog: &Catalog,
        max_chunks: usize,
        texts: &NoteTexts,
        now: impl Fn() -> f64,
    ) -> Result<EmbedProgress> {
        let batch = self.embed_take(catalog, max_chunks, texts, &now)?;
        let refs: Vec<&str> = batch.items.iter().map(|i| i.text.as_str()).collect();
        let mut flat: Vec<f32> = Vec::with_capacity(refs.len() * batch.dimension);
        if !refs.is_empty() {
            let embedder = self.active.as_mut().and_then(|a| a.embedder.as_mut()).expect("checked by take");
            match embedder.embed_passages(&refs) {
                Ok(vecs) if vecs.len() == refs.len() && vecs.iter().all(|v| v.len() == batch.dimension) => {
                    vecs.iter().for_each(|v| flat.extend_from_slice(v))
                }
                Ok(_) => {
                    self.embed_release(catalog, &now);
                    return Err(CoreError::Internal("embedding failed: the model returned other shapes".into()));
                }
                Err(e) => {
                    self.embed_release(catalog, &now);
                    return Err(CoreError::Internal(format!("embedding failed: {e}")));
                }
            }
        }
        let keys: Vec<String> = batch.items.into_iter().map(|i| i.key).collect();
        let mut p = self.embed_put(catalog, &batch.model, &keys, &flat, &now)?;
        p.dropped = batch.dropped;
        Ok(p)
    }
}

/// The embed text of a pending chunk from its note's current bytes, or None (its note is gone,
/// changed since the chunk was taken: `stale`, or its bytes were not supplied or differ).
fn pending_text(
    catalog: &Catalog,
    p: &Pending,
    texts: &NoteTexts,
    current: &mut HashMap<String, Option<String>>,
    stale: &mut bool,
) -> Option<String> {
    let Some(note) = catalog.get(&p.path) else {
        *stale = true;
        return None;
    };
    // The note's lead (no order) or one of its leaves: still the text the key was taken for?
    let sec = p.order.and_then(|o| note.section(o));
    let key = match p.order {
        None => note.lead_key,
        Some(_) => sec.and_then(|s| s.embed_key),
    };
    if key != Some(p.key) {
        // The note changed since the chunk was taken: its new keys are queued.
        *stale = true;
        return None;
    }
    let text = current.entry(p.path.clone()).or_insert_with(|| {
        let bytes = texts.get(&p.path)?.as_ref()?;
        (sha256_hex(bytes) == note.hash).then(|| crate::markdown::decode(bytes).text)
    });
    let text = text.as_ref()?;
    Some(match sec {
        Some(sec) => note.embed_text(text, sec),
        None => note.lead_text(text),
    })
}
