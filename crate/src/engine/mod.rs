//! The engine: notes in, searchable sections out, persisted as immutable files.
//!
//! `update` parses changed notes into sections and stages them in the lexical index and
//! the catalog; `commit` makes them searchable; `flush` returns the files to write.
//! `search` answers from the index alone. The index does not store note text (it was 38% of
//! the help vault's index): where the core needs it — `snippets` for search hits, `read`,
//! a rename, the embedding queue — the host, which has the notes on disk, supplies their
//! current bytes, and the core checks them against the catalog's content hash.
//!
//! The engine is one struct with an `impl` per concern: opening and the public surface
//! (here), [`index`] (plan, update, rename, flush), [`search`] (lexical search, hits and
//! snippets), [`hybrid`] (vector hits and their fusion with the lexical ones), [`similar`],
//! [`read`], [`embedding`] (the model and the embedding queue), [`code_pass`] (code files'
//! definitions in the background), and the structured queries
//! [`tasks`] and [`query`] (property expressions).

use std::collections::{HashMap, HashSet};

use crate::api::*;
use crate::catalog::{Catalog, NoteEntry};
use crate::clock::now_ms;
use crate::config::CoreConfig;
use crate::error::Result;
use crate::layout;
use crate::lexical::Lexical;
use crate::paths;
use crate::semantic::Semantic;
use crate::store::{self, Persisted, LEX_DIR, SLOTS};
use crate::vectors::Key;

mod code_filter;
mod code_index;
mod code_pass;
mod code_pick;
mod code_texts;
mod embedding;
mod hybrid;
mod index;
mod props;
mod query;
mod read;
mod read_code;
mod search;
mod similar;
mod tasks;
mod where_filter;

use search::note_matches;

pub use query::{QUERY_DEFAULT_LIMIT, QUERY_MAX_LIMIT};
pub use tasks::{TASKS_DEFAULT_LIMIT, TASKS_MAX_LIMIT};

pub const MAX_K: usize = 200;
/// Lines returned by `read` when no `maxLines` is given.
pub const DEFAULT_READ_LINES: u32 = 400;

pub struct Engine {
    config: CoreConfig,
    catalog: Catalog,
    lex: Lexical,
    persisted: Persisted,
    report: OpenReport,
    /// Notes deleted since the last flush, by content hash, with whether they had definitions
    /// (code): a new path with the same content is counted as a move.
    recent_deletes: HashMap<String, (String, bool)>,
    /// Notes indexed with their large fenced code blocks whole (no code chunker loaded): passed
    /// again, they are indexed again even when unchanged.
    blocks_pending: HashSet<String>,
    /// The batch being applied is a bulk index (`UpdateBatch::defer_code`).
    defer_code: bool,
    /// The code pass's queue and this session's counts (`code_pass`).
    code_pass: code_pass::CodePass,
    semantic: Semantic,
    /// Vector key → the notes and leaf sections (None: the note's lead) with that text
    /// (built on demand).
    key_map: Option<KeyMap>,
    /// The paths seen by a plan made in chunks ([`Engine::plan_chunk`]), until
    /// [`Engine::plan_deletes`].
    plan_seen: Option<HashSet<String>>,
    /// Frontmatter properties decoded for the structured queries, until the next update.
    props: props::PropCache,
    /// The vector spaces whose spec file (`layout::space_file`) is in the folder.
    space_files: HashSet<u64>,
    /// The specs of those whose spec file verified.
    specs: HashMap<u64, store::ModelSpec>,
}

/// Vector key → the notes and leaf sections (None: the note's lead) whose text has that key.
type KeyMap = HashMap<Key, Vec<(String, Option<u32>)>>;

/// Makes `bytes` of heap available in one block before many small allocations: the block is
/// allocated and freed at once (from free memory when a free block is that large, else by one
/// grow of linear memory), and the allocations that follow split it. In wasm the allocator
/// otherwise grows linear memory 64 KiB at a time as its free space runs out, each grow a call
/// into the engine: decoding a 100k-note catalog so took 1.3–2.5 s instead of 0.3. (Pages of
/// the block that are not used yet are not touched: they take no resident memory.)
fn reserve_heap(bytes: usize) {
    if cfg!(target_arch = "wasm32") && bytes > 0 {
        let block: Vec<u8> = Vec::with_capacity(bytes);
        std::hint::black_box(block.as_ptr());
    }
}

pub fn section_id(path: &str, order: u32) -> String {
    format!("{path}#{order}")
}

pub fn parse_section_id(id: &str) -> Option<(&str, u32)> {
    let (p, o) = id.rsplit_once('#')?;
    Some((p, o.parse().ok()?))
}

impl Engine {
    /// An empty index.
    pub fn create(config: CoreConfig) -> Result<Engine> {
        Ok(Engine {
            config,
            catalog: Catalog::default(),
            lex: Lexical::create()?,
            persisted: Persisted::default(),
            report: OpenReport { fresh: true, ..Default::default() },
            recent_deletes: HashMap::new(),
            blocks_pending: HashSet::new(),
            defer_code: false,
            code_pass: Default::default(),
            semantic: Semantic::default(),
            key_map: None,
            plan_seen: None,
            props: Default::default(),
            space_files: HashSet::new(),
            specs: HashMap::new(),
        })
    }

    /// Opens this device's index from the files of the index folder that
    /// [`layout::plan_open`] names (the host may pass more: what is not this device's or shared
    /// is left alone). Never fails: a missing index gives an empty engine (`fresh`), a corrupt,
    /// partial or foreign one an empty engine with `rebuilt` and the reason; the caller then
    /// indexes the vault. The shared vectors of the device's model among `files` are added either
    /// way; a device with an index of its own is given them after the open instead
    /// (`layout::OpenPlan::vectors`, [`Engine::wanted_vector_files`]), so that it reads no other
    /// model's.
    pub fn open(config: CoreConfig, files: Vec<IndexFile>) -> Engine {
        let device = config.device_id.clone();
        let dir = layout::device_dir(&device);
        let mut own: HashMap<String, Vec<u8>> = HashMap::new();
        let mut shared: Vec<(String, Vec<u8>)> = Vec::new();
        let mut legacy: HashMap<String, Vec<u8>> = HashMap::new();
        let mut newer_format = None;
        for f in files {
            match layout::parse(&f.name) {
                layout::Entry::Device { device: d, version, rel } if d == device => {
                    if version == store::FORMAT_VERSION && layout::is_own_name(rel) {
                        own.insert(rel.to_string(), f.bytes);
                    } else if version > store::FORMAT_VERSION {
                        newer_format = newer_format.max(Some(version));
                    }
                }
                layout::Entry::Segment { .. } | layout::Entry::Space { .. } => shared.push((f.name, f.bytes)),
                layout::Entry::Legacy => {
                    legacy.insert(f.name, f.bytes);
                }
                _ => {}
            }
        }
        let names: HashSet<String> = own.keys().cloned().collect();
        let mut e = match Engine::try_open(config.clone(), &mut own) {
            Ok(Some(engine)) => engine,
            Ok(None) => {
                let mut e = Engine::create(config).expect("empty index");
                // Files without a manifest: a first flush that did not finish.
                e.report.orphans = sorted(names);
                e
            }
            Err(err) => {
                let mut e = Engine::create(config).expect("empty index");
                let replaced = store::newest_manifest(&own);
                // Its manifests alone: its files were deleted ("Rebuild index", or the orphans of
                // an open like this one), a fresh index as asked.
                if replaced.is_none() || names.iter().any(|n| !SLOTS.contains(&n.as_str())) {
                    e.report.rebuilt = true;
                    e.report.reason =
                        Some(format!("the index could not be used and will be rebuilt: {}", err.message()));
                }
                // The manifests stay until the new index's overwrite them (`keep_from_replaced`).
                e.report.orphans = sorted(names.into_iter().filter(|n| !SLOTS.contains(&n.as_str())));
                e.keep_from_replaced(replaced);
                e
            }
        };
        // Until the first flush, the files found are on disk (a flush deletes what it no
        // longer needs of them).
        if e.persisted.is_new() {
            e.persisted.on_disk = e.report.orphans.iter().cloned().collect();
        }
        if e.persisted.is_new() && e.semantic.spec().is_none() {
            e.adopt_legacy_vectors(&legacy);
        }
        let refs: Vec<(String, &[u8])> = shared.iter().map(|(n, b)| (n.clone(), b.as_slice())).collect();
        e.learn_specs(&refs);
        let t = now_ms();
        if e.semantic.spec().is_none() {
            e.choose_shared_space(&refs);
        }
        let (added, ignored) = e.semantic.add_shared(&refs);
        e.report.timings.vectors_ms += now_ms() - t;
        e.report.timings.total_ms += now_ms() - t;
        e.report.shared_vectors = added;
        e.report.ignored = ignored;
        let segments: HashSet<&str> = refs.iter().map(|(n, _)| n.as_str()).filter(|n| is_segment(n)).collect();
        if !segments.is_empty() {
            // Else the listing the host passes to `wanted_vector_files` after the open settles it.
            e.semantic.settle_own(&segments);
        }
        e.report.newer_format = newer_format;
        e.report.orphans = e.report.orphans.iter().map(|o| format!("{dir}{o}")).collect();
        e
    }

    /// An index that must be rebuilt: what its newest manifest says stays true, whatever became
    /// of its files. Its models stay the device's, the shared segments it wrote stay its own to
    /// merge and delete (`vectors::merge`), and the new index's first manifest is numbered after
    /// it and written into the other slot (`store::Persisted::replaces`), so that a crash before
    /// then leaves that manifest, and its list, where they were.
    fn keep_from_replaced(&mut self, replaced: Option<(usize, store::Manifest)>) {
        let Some((slot, m)) = replaced else { return };
        if let Ok(semantic) = Semantic::restore(m.model.clone(), m.previous_model.clone()) {
            self.semantic = semantic;
        }
        self.semantic.restore_own(m.segments);
        self.persisted.replaces = Some((m.generation, slot));
    }

    /// Adopts the vectors of the single-device index of format 15 and earlier, if there is one.
    fn adopt_legacy_vectors(&mut self, legacy: &HashMap<String, Vec<u8>>) {
        let Some(salvaged) = store::salvage_vectors(legacy) else { return };
        let Ok(sem) = Semantic::salvage(salvaged.spec, &salvaged.blobs) else { return };
        let n = sem.vector_count();
        self.semantic = sem;
        let note =
            format!("{n} embedded chunks of the index of an earlier version were kept: they are not embedded again");
        self.report.reason = Some(match self.report.reason.take() {
            Some(r) => format!("{r} ({note})"),
            None => note,
        });
    }

    /// Notes the spec files among `shared`: the spaces whose spec file is in the folder, and the
    /// specs of those that verify.
    fn learn_specs(&mut self, shared: &[(String, &[u8])]) {
        for (name, b) in shared {
            if let layout::Entry::Space { space } = layout::parse(name) {
                self.space_files.insert(space);
                if let Ok(spec) = serde_json::from_slice::<store::ModelSpec>(b) {
                    if spec.space() == space {
                        self.specs.insert(space, spec);
                    }
                }
            }
        }
    }

    /// A device that has not chosen a model yet uses the shared vectors of the space with the
    /// most of them among the segments `shared`, whose spec file verifies (similar notes need no
    /// model; a model loaded later that makes other vectors starts a switch).
    fn choose_shared_space(&mut self, shared: &[(String, &[u8])]) {
        let mut bytes: HashMap<u64, usize> = HashMap::new();
        for (name, b) in shared {
            if let layout::Entry::Segment { space, .. } = layout::parse(name) {
                if self.specs.contains_key(&space) {
                    *bytes.entry(space).or_default() += b.len();
                }
            }
        }
        if let Some((space, _)) = bytes.into_iter().max_by_key(|(space, n)| (*n, *space)) {
            let _ = self.semantic.adopt_space(self.specs[&space].clone());
        }
    }

    /// Of `names` (a listing of the index folder, or of its `vectors/`), the shared vector files
    /// to read and pass to [`Engine::add_vectors`]: the segments of the models in use not added
    /// yet (those an open left to after it, `layout::OpenPlan::vectors`; what sync brought in
    /// since; after a model change, the new model's), none of another model's. A device that has
    /// not chosen a model yet wants every segment of a model whose spec it has, and the spec
    /// files it has not read, to choose the model with the most vectors. The first listing after
    /// the open also settles the device's list of the segments it wrote (those gone leave it).
    pub fn wanted_vector_files(&mut self, names: &[String]) -> Vec<String> {
        if !self.semantic.own_settled() {
            self.semantic.settle_own(&names.iter().map(String::as_str).filter(|n| is_segment(n)).collect());
        }
        if self.semantic.spec().is_none() {
            return names
                .iter()
                .filter(|n| match layout::parse(n) {
                    layout::Entry::Segment { space, .. } => self.specs.contains_key(&space),
                    layout::Entry::Space { space } => !self.specs.contains_key(&space),
                    _ => false,
                })
                .cloned()
                .collect();
        }
        names.iter().filter(|n| self.semantic.wants(n)).cloned().collect()
    }

    /// Adds shared vector segments and spec files (see [`Engine::wanted_vector_files`]).
    pub fn add_vectors(&mut self, files: Vec<IndexFile>) -> AddVectorsReport {
        let refs: Vec<(String, &[u8])> = files.iter().map(|f| (f.name.clone(), f.bytes.as_slice())).collect();
        self.learn_specs(&refs);
        if self.semantic.spec().is_none() {
            self.choose_shared_space(&refs);
        }
        let (added, ignored) = self.semantic.add_shared(&refs);
        if added > 0 {
            self.key_map = None;
        }
        AddVectorsReport { added, ignored, vectors: self.semantic.vector_count() }
    }

    fn try_open(config: CoreConfig, files: &mut HashMap<String, Vec<u8>>) -> Result<Option<Engine>> {
        let all_names: Vec<String> = files.keys().cloned().collect();
        let t0 = now_ms();
        let Some(chosen) = store::choose(files, &config.fingerprint())? else {
            return Ok(None);
        };
        let m = &chosen.manifest;
        let lex_files: Vec<(String, Vec<u8>)> = m
            .files
            .iter()
            .filter_map(|f| {
                let name = f.name.strip_prefix(LEX_DIR)?.to_string();
                // Moved, not copied: the segment files are most of the index's bytes.
                Some((name, files.remove(&f.name).unwrap_or_default()))
            })
            .collect();
        let t1 = now_ms();
        let lex = Lexical::open(&m.lexical_meta, lex_files)?;
        let t2 = now_ms();
        let cat_files: Vec<&[u8]> = m.catalog.iter().map(|c| files[c].as_slice()).collect();
        // Decoding the catalog takes up to twice its files' bytes of heap (measured natively: a
        // peak of 1.9× at 5.9k and at 100k notes), in small allocations: make it available in
        // one block first (see `reserve_heap`).
        reserve_heap(2 * cat_files.iter().map(|f| f.len()).sum::<usize>());
        let catalog = Catalog::load(&cat_files)?;
        let t3 = now_ms();
        let mut semantic = Semantic::restore(m.model.clone(), m.previous_model.clone())?;
        // The newest manifest's list, should it be another that failed to verify: the shared
        // segments are written before a manifest, and deleted after it.
        semantic.restore_own(store::newest_manifest(files).map_or_else(|| m.segments.clone(), |(_, n)| n.segments));
        let t4 = now_ms();
        let mut keep: HashSet<String> = m.names();
        let previous = chosen.other.as_ref().map(|o| o.names()).unwrap_or_default();
        keep.extend(previous.iter().cloned());
        keep.extend(SLOTS.iter().map(|s| s.to_string()));
        let orphans: Vec<String> = sorted(all_names.iter().filter(|n| !keep.contains(*n)).cloned().collect::<Vec<_>>());
        let persisted = Persisted {
            generation: m.generation,
            slot: chosen.slot,
            current: m.files.iter().map(|f| (f.name.clone(), f.clone())).collect(),
            previous,
            catalog: m.catalog.clone(),
            on_disk: all_names.into_iter().filter(|n| !orphans.contains(n)).collect(),
            replaces: None,
        };
        let report = OpenReport {
            fresh: false,
            rebuilt: false,
            reason: None,
            generation: m.generation,
            notes: catalog.len(),
            orphans,
            ..Default::default()
        };
        let report = OpenReport {
            timings: OpenTimings {
                verify_ms: t1 - t0,
                lexical_ms: t2 - t1,
                catalog_ms: t3 - t2,
                vectors_ms: t4 - t3,
                total_ms: t4 - t0,
            },
            ..report
        };
        Ok(Some(Engine {
            config,
            catalog,
            lex,
            persisted,
            report,
            recent_deletes: HashMap::new(),
            blocks_pending: HashSet::new(),
            defer_code: false,
            code_pass: Default::default(),
            semantic,
            key_map: None,
            plan_seen: None,
            props: Default::default(),
            space_files: HashSet::new(),
            specs: HashMap::new(),
        }))
    }

    pub fn open_report(&self) -> &OpenReport {
        &self.report
    }

    pub fn config(&self) -> &CoreConfig {
        &self.config
    }

    pub fn should_index(&self, path: &str) -> bool {
        paths::should_index(path, &self.config)
    }

    pub fn note(&self, path: &str) -> Option<NoteInfo> {
        let path = paths::normalize(path).ok()?;
        let n = self.catalog.get(&path)?;
        Some(NoteInfo {
            path: n.path.clone(),
            hash: n.hash.clone(),
            size: n.size,
            mtime: n.mtime,
            title: n.title.clone(),
            aliases: n.aliases.clone(),
            tags: n.tags.clone(),
            links: n.links.unpack(),
            frontmatter: serde_json::from_str(&n.frontmatter).unwrap_or(serde_json::Value::Null),
            sections: n
                .sections
                .iter()
                .map(|s| SectionInfo {
                    id: section_id(&n.path, s.order),
                    parent_id: s.parent.map(|p| section_id(&n.path, p)),
                    order: s.order,
                    depth: s.depth,
                    heading_path: s.heading_path.clone(),
                    start_line: s.start_line,
                    end_line: s.end_line,
                    tokens: s.tokens,
                    hash: hex::encode(s.hash),
                })
                .collect(),
        })
    }

    pub fn paths(&self) -> Vec<String> {
        self.catalog.paths().cloned().collect()
    }

    /// Notes by folder, tag and property, by path or newest first, with their usage.
    pub fn list(&self, req: &ListRequest) -> Result<ListResponse> {
        let limit = req.limit.unwrap_or(LIST_DEFAULT_LIMIT).min(LIST_MAX_LIMIT);
        let filters = SearchFilters {
            folder: req.folder.clone(),
            tag: req.tag.clone(),
            property: req.property.clone(),
            ..Default::default()
        };
        let mut matching: Vec<&NoteEntry> = self
            .catalog
            .entries()
            .filter(|n| n.sections.first().is_some_and(|s| note_matches(n, s, &filters)))
            .collect();
        if req.sort == ListSort::Mtime {
            matching.sort_by(|a, b| b.mtime.total_cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
        }
        let entries = matching
            .iter()
            .skip(req.offset)
            .take(limit)
            .map(|n| ListEntry {
                path: n.path.clone(),
                title: n.title.clone(),
                tags: n.tags.clone(),
                mtime: n.mtime,
                size: n.size,
                frontmatter: serde_json::from_str(&n.frontmatter).unwrap_or(serde_json::Value::Null),
                access: self.catalog.access(&n.path),
                context: self.folder_context(&n.path),
            })
            .collect();
        Ok(ListResponse { total: matching.len(), entries })
    }

    /// Counts a retrieval of each indexed note among `paths` (usage of memory notes); the
    /// next flush persists it in a small catalog delta. Unknown paths are ignored.
    pub fn record_access(&mut self, paths: &[String], now: f64) -> usize {
        paths.iter().filter_map(|p| paths::normalize(p).ok()).filter(|p| self.catalog.record_access(p, now)).count()
    }

    /// The context a note inherits from the folders above it: the `context` frontmatter
    /// property of each folder's folder note (`A/B/B.md` inside the folder, or `A/B.md`
    /// beside it), nearest folder first, one per line. A folder note does not inherit its
    /// own context twice.
    pub fn folder_context(&self, path: &str) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        for folder in paths::folder_prefixes(path).iter().rev() {
            let name = paths::file_name(folder);
            let inside = format!("{folder}/{name}.md");
            let beside = format!("{folder}.md");
            let ctx = [inside, beside]
                .iter()
                .filter_map(|p| self.catalog.get(p))
                .find_map(|n| context_property(&n.frontmatter));
            if let Some(c) = ctx {
                parts.push(c);
            }
        }
        (!parts.is_empty()).then(|| parts.join("\n"))
    }

    pub fn status(&self) -> Status {
        Status {
            vectors: self.semantic.vector_count(),
            model: self.semantic.spec().map(|s| s.model_id.clone()),
            model_loaded: self.semantic.model_loaded(),
            switching: self.semantic.switch(),
            notes: self.catalog.len(),
            sections: self.catalog.section_count(),
            segments: self.lex.segment_count(),
            deleted_docs: self.lex.deleted_docs(),
            index_bytes: self.persisted.current.values().map(|f| f.size).sum(),
            generation: self.persisted.generation,
            format_version: store::FORMAT_VERSION,
        }
    }
}

/// `list` page sizes.
pub const LIST_DEFAULT_LIMIT: usize = 100;
pub const LIST_MAX_LIMIT: usize = 1000;

/// The `context` property of a folder note's frontmatter JSON (a string, or a list of them).
fn context_property(frontmatter: &str) -> Option<String> {
    if !frontmatter.contains("\"context\"") {
        return None;
    }
    let fm: serde_json::Map<String, serde_json::Value> = serde_json::from_str(frontmatter).ok()?;
    let text = match fm.get("context")? {
        serde_json::Value::String(s) => s.trim().to_string(),
        serde_json::Value::Array(items) => {
            items.iter().filter_map(|v| v.as_str()).map(str::trim).collect::<Vec<_>>().join(" ")
        }
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

fn is_segment(name: &str) -> bool {
    matches!(layout::parse(name), layout::Entry::Segment { .. })
}

fn sorted(set: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = set.into_iter().collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests;
