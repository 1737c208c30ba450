//! The engine: notes in, searchable sections out, persisted as immutable files.
//!
//! `update` parses changed notes into sections and stages them in the lexical index and
//! the catalog; `commit` makes them searchable; `flush` returns the files to write.
//! `search` answers from the index alone. The index does not store note text (it was 38% of
//! the help vault's index): where the core needs it — `snippets` for search hits, `read`,
//! a rename, the embedding queue — the host, which has the notes on disk, supplies their
//! current bytes, and the core checks them against the catalog's content hash.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::api::*;
use crate::catalog::{Catalog, NoteEntry};
use crate::config::CoreConfig;
use crate::error::{CoreError, Result};
use crate::hash::sha256_hex;
use crate::lexical::search::{LexQuery, SNIPPET_CHARS};
use crate::lexical::{Lexical, SectionDoc};
use crate::markdown::{self, LineIndex};
use crate::paths;
use crate::sections::{build_sections, embed_text, Section, SplitConfig, HEADING_SEPARATOR};
use crate::snippet::{leading_snippet, make_snippet};
use crate::embed::EmbedderConfig;
use crate::fusion;
use crate::semantic::{EmbedProgress, Semantic};
use crate::store::{self, Manifest, Persisted, CAT_DIR, LEX_DIR, SLOTS, VEC_DIR};
use crate::vectors::{Key, VectorIndex};

pub const MAX_K: usize = 200;
/// Lines returned by `read` when no `maxLines` is given.
pub const DEFAULT_READ_LINES: u32 = 400;

pub struct Engine {
    config: CoreConfig,
    catalog: Catalog,
    lex: Lexical,
    persisted: Persisted,
    report: OpenReport,
    /// Notes deleted since the last flush, by content hash: a new path with the same
    /// content is counted as a move.
    recent_deletes: HashMap<String, String>,
    semantic: Semantic,
    /// Vector key → the notes and leaf sections (None: the note's lead) with that text
    /// (built on demand).
    key_map: Option<HashMap<Key, Vec<(String, Option<u32>)>>>,
    /// The paths seen by a plan made in chunks ([`Engine::plan_chunk`]), until
    /// [`Engine::plan_deletes`].
    plan_seen: Option<HashSet<String>>,
}

pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        // performance.now() (sub-millisecond) where the host has it: Node, workers,
        // browsers; Date.now() otherwise.
        use wasm_bindgen::JsCast;
        let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
        let now = perf.as_ref().and_then(|p| {
            js_sys::Reflect::get(p, &"now".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                .and_then(|f| f.call0(p).ok())
                .and_then(|v| v.as_f64())
        });
        now.unwrap_or_else(js_sys::Date::now)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }
}

/// Wall-clock milliseconds (for recency), not for durations.
pub fn now_wall_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
    }
}

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

/// A note's content hash (hex) and the hash of its whole-note section's bytes, in one pass
/// over the note (see `hash::sha256_and_trimmed`).
fn note_hashes(bytes: &[u8]) -> (String, crate::sections::KnownHash) {
    let (content, known) = crate::hash::sha256_and_trimmed(bytes);
    (hex::encode(content), known)
}

/// `known` applies to the decoded text only when that text is the note's bytes themselves:
/// valid UTF-8 and no BOM removed (a replacement character can take the place of three
/// invalid bytes, so equal lengths alone do not say it).
fn known_for(decoded: &markdown::Decoded, bytes: &[u8], known: crate::sections::KnownHash) -> Option<crate::sections::KnownHash> {
    (!decoded.lossy && decoded.text.len() == bytes.len()).then_some(known)
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
            report: OpenReport {
                fresh: true,
                ..Default::default()
            },
            recent_deletes: HashMap::new(),
            semantic: Semantic::default(),
            key_map: None,
            plan_seen: None,
        })
    }

    /// Opens the index from the files of the index folder. Never fails: a missing index
    /// gives an empty engine (`fresh`), a corrupt, partial or foreign one an empty engine
    /// with `rebuilt` and the reason; the caller then indexes the vault.
    pub fn open(config: CoreConfig, files: Vec<IndexFile>) -> Engine {
        let mut files: HashMap<String, Vec<u8>> = files.into_iter().map(|f| (f.name, f.bytes)).collect();
        let names: HashSet<String> = files.keys().cloned().collect();
        match Engine::try_open(config.clone(), &mut files) {
            Ok(Some(engine)) => engine,
            Ok(None) => {
                let mut e = Engine::create(config).expect("empty index");
                e.report.orphans = sorted(names);
                e.persisted.on_disk = e.report.orphans.iter().cloned().collect();
                e
            }
            Err(err) => {
                let mut e = Engine::create(config).expect("empty index");
                e.report.fresh = true;
                e.report.rebuilt = true;
                e.report.reason = Some(format!("the index could not be used and will be rebuilt: {}", err.message()));
                let mut keep: HashSet<String> = HashSet::new();
                if let Some((spec, names, blobs)) = store::salvage_vectors(&files) {
                    if let Ok(sem) = Semantic::salvage(spec, &blobs) {
                        let n = sem.vector_count();
                        e.semantic = sem;
                        // With the manifests that name them: until the first flush, a
                        // reopen salvages them again.
                        keep.extend(names);
                        keep.extend(SLOTS.iter().map(|s| s.to_string()));
                        if let Some(r) = e.report.reason.as_mut() {
                            r.push_str(&format!(" ({n} embedded chunks were kept: they are not embedded again)"));
                        }
                    }
                }
                // Everything in the folder is stale; the new generation starts over. Kept
                // vector files go with the first flush, once it has written them again.
                e.persisted.on_disk = names.iter().cloned().collect();
                e.report.orphans = sorted(names.into_iter().filter(|n| !keep.contains(n)));
                e
            }
        }
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
        let vec_files: Vec<(String, &[u8])> = m.vectors.iter().map(|v| (v.clone(), files[v].as_slice())).collect();
        let previous = m.previous_model.clone().map(|spec| {
            (spec, m.previous_vectors.iter().map(|v| (v.clone(), files[v].as_slice())).collect::<Vec<_>>())
        });
        let t3 = now_ms();
        let semantic = Semantic::restore(m.model.clone(), vec_files, previous)?;
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
        };
        let report = OpenReport {
            fresh: false,
            rebuilt: false,
            reason: None,
            generation: m.generation,
            notes: catalog.len(),
            orphans,
            timings: OpenTimings {
                verify_ms: t1 - t0,
                lexical_ms: t2 - t1,
                catalog_ms: t3 - t2,
                vectors_ms: t4 - t3,
                total_ms: t4 - t0,
            },
        };
        Ok(Some(Engine {
            config,
            catalog,
            lex,
            persisted,
            report,
            recent_deletes: HashMap::new(),
            semantic,
            key_map: None,
            plan_seen: None,
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

    /// Compares a vault listing with the catalog: what to read, what to delete.
    pub fn plan(&self, listing: &[FileStat]) -> Plan {
        let mut seen = HashSet::new();
        let mut plan = self.plan_part(listing, &mut seen);
        plan.delete = self.unseen(&seen);
        plan
    }

    /// [`Engine::plan`] a part of the listing at a time, so that a host can answer searches
    /// between the parts of a large vault's plan (measured: 0.3–0.5 s for 100k notes in one
    /// call). `first` starts a new plan; `delete` stays empty until [`Engine::plan_deletes`],
    /// after the last part. The parts together give exactly `plan` of the whole listing.
    pub fn plan_chunk(&mut self, listing: &[FileStat], first: bool) -> Plan {
        let mut seen = if first { HashSet::new() } else { self.plan_seen.take().unwrap_or_default() };
        let plan = self.plan_part(listing, &mut seen);
        self.plan_seen = Some(seen);
        plan
    }

    /// The notes of the catalog that no part of the chunked plan listed (to delete).
    pub fn plan_deletes(&mut self) -> Vec<String> {
        let seen = self.plan_seen.take().unwrap_or_default();
        self.unseen(&seen)
    }

    fn plan_part(&self, listing: &[FileStat], seen: &mut HashSet<String>) -> Plan {
        let mut plan = Plan::default();
        for f in listing {
            let path = match paths::normalize(&f.path) {
                Ok(p) => p,
                Err(e) => {
                    plan.skipped.push(Skip { path: f.path.clone(), reason: e.message().to_string() });
                    continue;
                }
            };
            if let Some(reason) = paths::exclusion_reason(&path, &self.config) {
                plan.skipped.push(Skip { path, reason });
                continue;
            }
            if f.size > self.config.max_note_bytes {
                plan.skipped.push(Skip { path: path.clone(), reason: too_large(f.size, self.config.max_note_bytes) });
                continue;
            }
            match self.catalog.get(&path) {
                Some(e) if e.size == f.size && e.mtime == f.mtime => plan.unchanged += 1,
                _ => plan.read.push(path.clone()),
            }
            seen.insert(path);
        }
        plan
    }

    fn unseen(&self, seen: &HashSet<String>) -> Vec<String> {
        self.catalog.paths().filter(|p| !seen.contains(*p)).cloned().collect()
    }

    /// Applies a batch of changes. Bad notes are skipped with a reason, never fatal.
    pub fn update(&mut self, batch: UpdateBatch) -> Result<UpdateReport> {
        let t0 = now_ms();
        let mut report = UpdateReport::default();

        for r in &batch.renames {
            self.rename(r, &mut report)?;
        }
        for d in &batch.deletes {
            let Ok(path) = paths::normalize(d) else {
                report.skipped.push(Skip { path: d.clone(), reason: "invalid path".into() });
                continue;
            };
            if let Some(e) = self.catalog.remove(&path) {
                self.lex.delete_note(&path)?;
                self.recent_deletes.insert(e.hash, path);
                report.deleted += 1;
            }
        }
        for note in &batch.upserts {
            self.upsert(note, &mut report)?;
        }
        if batch.commit {
            self.lex.commit()?;
        }
        if report.added + report.updated + report.moved + report.deleted > 0 {
            self.semantic.invalidate();
            self.key_map = None;
        }
        let touched: Vec<String> = batch.upserts.iter().map(|n| n.path.clone()).collect();
        self.semantic.prioritize(&touched, now_wall_ms());
        report.took_ms = now_ms() - t0;
        Ok(report)
    }

    fn upsert(&mut self, note: &NoteInput, report: &mut UpdateReport) -> Result<()> {
        let path = match paths::normalize(&note.path) {
            Ok(p) => p,
            Err(e) => {
                report.skipped.push(Skip { path: note.path.clone(), reason: e.message().to_string() });
                return Ok(());
            }
        };
        if let Some(reason) = paths::exclusion_reason(&path, &self.config) {
            report.skipped.push(Skip { path, reason });
            return Ok(());
        }
        let size = note.bytes.len() as u64;
        if size > self.config.max_note_bytes {
            report.skipped.push(Skip { path: path.clone(), reason: too_large(size, self.config.max_note_bytes) });
            self.drop_note(&path)?;
            return Ok(());
        }
        if markdown::looks_binary(&note.bytes) {
            report.skipped.push(Skip { path: path.clone(), reason: "binary content (NUL bytes), not a text note".into() });
            self.drop_note(&path)?;
            return Ok(());
        }
        let (hash, known) = note_hashes(&note.bytes);
        if let Some(existing) = self.catalog.get(&path) {
            if existing.hash == hash {
                if existing.mtime != note.mtime || existing.size != size {
                    let e = self.catalog.get_mut(&path).expect("present");
                    e.mtime = note.mtime;
                    e.size = size;
                }
                report.unchanged += 1;
                return Ok(());
            }
        }
        let existed = self.catalog.get(&path).is_some();
        let moved_from = self.recent_deletes.remove(&hash);
        let decoded = markdown::decode(&note.bytes);
        if decoded.lossy {
            report.warnings.push(Warning {
                path: path.clone(),
                message: "invalid UTF-8: decoded with replacement characters".into(),
            });
        }
        let known = known_for(&decoded, &note.bytes, known);
        let fm_error = self.index_text(&path, &decoded.text, hash, size, note.mtime, existed, known, report)?;
        if let Some(err) = fm_error {
            report.warnings.push(Warning { path: path.clone(), message: format!("{err}; body indexed without it") });
        }
        if moved_from.is_some() && !existed {
            report.moved += 1;
            report.deleted = report.deleted.saturating_sub(1);
        } else if existed {
            report.updated += 1;
        } else {
            report.added += 1;
        }
        Ok(())
    }

    /// Removes a note that can no longer be indexed (became binary or too large).
    fn drop_note(&mut self, path: &str) -> Result<()> {
        if self.catalog.remove(path).is_some() {
            self.lex.delete_note(path)?;
        }
        Ok(())
    }

    /// A rename event: the note at `r.from` is now at `r.to`, with the bytes the host read
    /// there. The same content (SHA-256) is a move: the note is indexed under its new path
    /// from those bytes, and every section keeps its vector (keys are the embedded text's
    /// hash); only the lead vector ("folders > title", then the lead) is new. Other content: `from` is
    /// deleted and `to` indexed like any upsert.
    fn rename(&mut self, r: &Rename, report: &mut UpdateReport) -> Result<()> {
        let (from, to) = match (paths::normalize(&r.from), paths::normalize(&r.to)) {
            (Ok(f), Ok(t)) => (f, t),
            _ => {
                report.skipped.push(Skip { path: format!("{} → {}", r.from, r.to), reason: "invalid path".into() });
                return Ok(());
            }
        };
        let Some(old) = self.catalog.get(&from).cloned() else {
            report.skipped.push(Skip { path: from, reason: "rename of a note that is not indexed".into() });
            return Ok(());
        };
        if from == to {
            return Ok(());
        }
        let usage = self.catalog.access(&from);
        if paths::exclusion_reason(&to, &self.config).is_some() {
            // Moved out of the indexed set (e.g. into an excluded folder).
            self.catalog.remove(&from);
            self.lex.delete_note(&from)?;
            report.deleted += 1;
            return Ok(());
        }
        let Some(bytes) = r.bytes.as_deref() else {
            report.skipped.push(Skip {
                path: format!("{from} → {to}"),
                reason: "rename without the note's bytes (the index does not store note text; the host reads the note at its new path)".into(),
            });
            return Ok(());
        };
        let mtime = r.mtime.unwrap_or(old.mtime);
        self.catalog.remove(&from);
        self.lex.delete_note(&from)?;
        let (hash, known) = note_hashes(bytes);
        if hash == old.hash {
            let decoded = markdown::decode(bytes);
            let known = known_for(&decoded, bytes, known);
            let existed = self.catalog.get(&to).is_some();
            self.index_text(&to, &decoded.text, old.hash, old.size, mtime, existed, known, report)?;
            report.moved += 1;
        } else {
            // Edited as well as renamed: a delete and an upsert.
            report.deleted += 1;
            self.upsert(&NoteInput { path: to.clone(), bytes: bytes.to_vec(), mtime }, report)?;
        }
        if self.catalog.get(&to).is_some() {
            self.catalog.move_access(&from, &to, usage);
        }
        Ok(())
    }

    /// Parses `text` into sections and stages them. Returns the frontmatter error, if any.
    #[allow(clippy::too_many_arguments)]
    fn index_text(
        &mut self,
        path: &str,
        text: &str,
        hash: String,
        size: u64,
        mtime: f64,
        existed: bool,
        known: Option<crate::sections::KnownHash>,
        report: &mut UpdateReport,
    ) -> Result<Option<String>> {
        let parsed = markdown::parse(path, text);
        let sections = crate::sections::build_sections_with(
            text,
            &parsed.headings,
            parsed.line_count,
            parsed.body_start_line,
            SplitConfig { budget: self.config.chunk_budget, min: self.config.chunk_min },
            known,
        );
        let folders = paths::folder_prefixes(path);
        let mut titles = vec![parsed.title.clone()];
        let stem = paths::stem(path);
        if !stem.eq_ignore_ascii_case(&parsed.title) {
            titles.push(stem.to_string());
        }
        let props = markdown::property_terms(&parsed.frontmatter);
        let lines = LineIndex::new(text);
        let heading_texts: Vec<String> = sections
            .iter()
            .map(|s| section_headings(&parsed.headings, s))
            .collect();
        // Each section indexes its own lines: a leaf all of them, a section with children only
        // those before its first child (the frontmatter and intro of the whole-note document, a
        // heading's intro), since its children index the rest. So no text is indexed twice
        // (measured: half the tokens of indexing every section whole, the same dev-query
        // quality); overview searches lift section hits to their ancestors (`lift`), and title,
        // aliases, headings and tags stay on every document. The body is tokenized by the
        // field's analyzer as tantivy indexes it: its token stream reuses one token, where
        // tokens analyzed beforehand cost a string each, cloned twice more inside tantivy.
        let mut first_child: Vec<Option<u32>> = vec![None; sections.len()];
        for s in &sections {
            if let Some(p) = s.parent {
                let slot = &mut first_child[p as usize];
                if slot.is_none_or(|c| s.start_line < c) {
                    *slot = Some(s.start_line);
                }
            }
        }
        let docs: Vec<SectionDoc> = sections
            .iter()
            .zip(&heading_texts)
            .zip(&first_child)
            .map(|((s, headings), child)| SectionDoc {
                body: match child {
                    Some(c) if *c <= s.start_line => "",
                    Some(c) => &text[lines.byte_range(text, s.start_line, c - 1)],
                    None => &text[lines.byte_range(text, s.start_line, s.end_line)],
                },
                path,
                order: s.order,
                depth: s.depth,
                folders: &folders,
                titles: &titles,
                aliases: &parsed.aliases,
                headings,
                tags: &parsed.tags,
                props: &props,
            })
            .collect();
        if existed {
            self.lex.delete_note(path)?;
        }
        report.sections += docs.len();
        self.lex.add_note(path, docs)?;
        let frontmatter = serde_json::to_string(&parsed.frontmatter).unwrap_or_else(|_| "{}".into());
        let lead_end_line = crate::sections::lead_end_line(text, &parsed.headings, parsed.body_start_line);
        let mut entry = NoteEntry {
            path: path.to_string(),
            hash,
            size,
            mtime,
            title: parsed.title,
            frontmatter,
            aliases: parsed.aliases,
            tags: parsed.tags,
            links: crate::catalog::PackedLinks::pack(&parsed.links),
            sections,
            line_count: parsed.line_count,
            body_start_line: parsed.body_start_line,
            lead_key: None,
            lead_end_line,
            script: crate::embed::choice::ScriptCounts::of(text),
        };
        entry.lead_key = Some(crate::sections::embed_key(&entry.lead_text(text)));
        self.catalog.insert(entry);
        Ok(parsed.frontmatter_error)
    }

    /// Makes staged changes searchable.
    pub fn commit(&mut self) -> Result<()> {
        self.lex.commit()?;
        Ok(())
    }

    /// Commits, then returns the files that persist the new state: new immutable files,
    /// then the manifest (last), and the files no manifest slot needs any more.
    pub fn flush(&mut self) -> Result<FlushOutput> {
        self.lex.commit()?;
        let lex_names: HashSet<String> = self
            .lex
            .files()
            .iter()
            .map(|p| format!("{LEX_DIR}{}", p.to_string_lossy()))
            .collect();
        let lex_changed = lex_names.iter().any(|n| !self.persisted.current.contains_key(n))
            || self.persisted.current.keys().any(|n| n.starts_with(LEX_DIR) && !lex_names.contains(n));
        let first = self.persisted.generation == 0;
        self.semantic.collect_garbage(&self.catalog);
        let vec_segment = self.semantic.take_segment()?;
        if !lex_changed && !self.catalog.is_dirty() && !first && vec_segment.is_none() && !self.semantic.layout_changed() {
            return Ok(FlushOutput::default());
        }
        let generation = self.persisted.generation + 1;
        let mut writes: Vec<IndexFile> = Vec::new();
        let mut refs: HashMap<String, store::FileRef> = HashMap::new();

        for name in &lex_names {
            if let Some(r) = self.persisted.current.get(name) {
                refs.insert(name.clone(), r.clone());
                continue;
            }
            let bytes = self.lex.read_file(Path::new(&name[LEX_DIR.len()..]))?;
            refs.insert(name.clone(), store::file_ref(name, &bytes));
            writes.push(IndexFile { name: name.clone(), bytes });
        }

        let mut catalog_files = self.persisted.catalog.clone();
        if let Some(w) = self.catalog.take_write(first || catalog_files.is_empty())? {
            let name = format!("{CAT_DIR}{generation:08}-{}.bin", &uuid::Uuid::new_v4().simple().to_string()[..8]);
            if w.is_base {
                catalog_files.clear();
            }
            catalog_files.push(name.clone());
            refs.insert(name.clone(), store::file_ref(&name, &w.bytes));
            writes.push(IndexFile { name, bytes: w.bytes });
        }
        for c in &catalog_files {
            if let Some(r) = self.persisted.current.get(c) {
                refs.entry(c.clone()).or_insert_with(|| r.clone());
            }
        }

        let (mut vector_files, previous_vectors) = self.semantic.segment_names();
        if let Some((bytes, is_base)) = vec_segment {
            let name = format!("{VEC_DIR}{generation:08}-{}.bin", &uuid::Uuid::new_v4().simple().to_string()[..8]);
            if is_base {
                vector_files.clear();
            }
            vector_files.push(name.clone());
            refs.insert(name.clone(), store::file_ref(&name, &bytes));
            writes.push(IndexFile { name, bytes });
        }
        for v in vector_files.iter().chain(&previous_vectors) {
            if let Some(r) = self.persisted.current.get(v) {
                refs.entry(v.clone()).or_insert_with(|| r.clone());
            }
        }
        self.semantic.set_active_segments(vector_files.clone());

        let mut files: Vec<store::FileRef> = refs.values().cloned().collect();
        files.sort_by(|a, b| a.name.cmp(&b.name));
        let manifest = Manifest {
            format: store::FORMAT_NAME.into(),
            version: store::FORMAT_VERSION,
            generation,
            settings: self.config.fingerprint(),
            lexical_meta: self.lex.meta_json()?,
            catalog: catalog_files.clone(),
            model: self.semantic.spec().cloned(),
            vectors: vector_files,
            previous_model: self.semantic.previous_spec().cloned(),
            previous_vectors,
            files,
        };
        let slot = if first { 0 } else { 1 - self.persisted.slot };
        writes.push(IndexFile { name: SLOTS[slot].to_string(), bytes: manifest.encode() });

        // Keep what the new manifest and the one in the other slot reference.
        let previous: HashSet<String> = self.persisted.current.keys().cloned().collect();
        let mut on_disk = std::mem::take(&mut self.persisted.on_disk);
        on_disk.extend(writes.iter().map(|w| w.name.clone()));
        let keep: HashSet<&String> = refs.keys().chain(previous.iter()).collect();
        let mut deletes: Vec<String> = on_disk
            .iter()
            .filter(|n| !keep.contains(n) && !SLOTS.contains(&n.as_str()))
            .cloned()
            .collect();
        deletes.sort();
        for d in &deletes {
            on_disk.remove(d);
        }
        let bytes_written = writes.iter().map(|w| w.bytes.len() as u64).sum();
        self.persisted = Persisted {
            generation,
            slot,
            current: refs,
            previous,
            catalog: catalog_files,
            on_disk,
        };
        self.recent_deletes.clear();
        Ok(FlushOutput { writes, deletes, bytes_written })
    }

    /// Searches in the requested mode. Hybrid (the default) needs a loaded model; without
    /// one the answer is lexical and says so (`semanticUnavailable`).
    pub fn search(&mut self, req: &SearchRequest) -> Result<SearchResponse> {
        let mode = req.mode.unwrap_or_default();
        match mode {
            SearchMode::Lexical => self.search_lexical(req),
            SearchMode::Semantic => self.search_fused(req, mode),
            SearchMode::Hybrid => {
                if self.semantic.can_search() {
                    self.search_fused(req, mode)
                } else {
                    let mut r = self.search_lexical(req)?;
                    r.mode = SearchMode::Lexical;
                    r.notice = Some(crate::semantic::HOW_TO_ENABLE.to_string());
                    Ok(r)
                }
            }
        }
    }

    fn search_lexical(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let t0 = now_ms();
        let mode = SearchMode::Lexical;
        let k = req.k.unwrap_or(10).clamp(1, MAX_K);
        let filters = req.filters.clone().unwrap_or_default();
        let q = LexQuery {
            text: req.query.clone(),
            folder: filters.folder.clone(),
            tag: filters.tag.clone(),
            property: filters.property.as_ref().map(|p| (p.key.clone(), p.value.clone())),
            min_depth: filters.min_depth,
            // Deeper hits are lifted to their ancestor at the maximum depth instead.
            max_depth: None,
            limit: k * 4 + 20,
        };
        let results = self.lex.search(&q)?;
        let mut kept: Vec<(f32, &NoteEntry, &Section)> = Vec::new();
        for h in &results.hits {
            let Some(note) = self.catalog.get(&h.path) else { continue };
            let Some(sec) = note.section(h.order) else { continue };
            let Some(sec) = lift(note, sec, filters.max_depth) else { continue };
            // Collapse overlapping hits of one note: a section whose ancestor or
            // descendant already ranks higher adds nothing new.
            let overlaps = kept.iter().any(|(_, n, s)| {
                n.path == note.path && (s.order == sec.order || is_ancestor(note, s, sec) || is_ancestor(note, sec, s))
            });
            if !overlaps {
                kept.push((h.score, note, sec));
            }
            if kept.len() >= k * 2 {
                break;
            }
        }
        match req.depth_order.unwrap_or_default() {
            DepthOrder::Relevance => {}
            DepthOrder::Shallow => kept.sort_by_key(|(_, _, s)| s.depth),
            DepthOrder::Deep => kept.sort_by_key(|(_, _, s)| std::cmp::Reverse(s.depth)),
        }
        kept.truncate(k);

        let max = kept.first().map(|k| k.0).unwrap_or(0.0).max(f32::EPSILON);
        let scored: Vec<(&NoteEntry, &Section, Scores)> = kept
            .iter()
            .map(|(score, note, sec)| {
                let sc = Scores {
                    final_score: *score,
                    lex_score: *score,
                    lex_norm: score / max,
                    vec_score: 0.0,
                    vec_norm: 0.0,
                    rrf_score: 0.0,
                    explain: format!("BM25 {score:.2}"),
                };
                (*note, *sec, sc)
            })
            .collect();
        let strong = fusion::strong_signal(&kept.iter().map(|k| k.0).collect::<Vec<_>>());
        let hits = self.make_hits(scored);
        Ok(SearchResponse { hits, mode, took_ms: now_ms() - t0, strong_signal: strong, weights: None, notice: None, semantic_coverage: None })
    }

    /// Builds hits (snippets come from [`Engine::snippets`], with the notes' text).
    fn make_hits(&self, scored: Vec<(&NoteEntry, &Section, Scores)>) -> Vec<Hit> {
        scored
            .into_iter()
            .map(|(note, sec, sc)| Hit {
                section_id: section_id(&note.path, sec.order),
                parent_id: sec.parent.map(|p| section_id(&note.path, p)),
                path: note.path.clone(),
                title: note.title.clone(),
                heading_path: sec.heading_path.clone(),
                depth: sec.depth,
                start_line: sec.start_line,
                end_line: sec.end_line,
                score: sc.final_score,
                lex_score: sc.lex_score,
                final_score: sc.final_score,
                lex_norm: sc.lex_norm,
                vec_score: sc.vec_score,
                vec_norm: sc.vec_norm,
                rrf_score: sc.rrf_score,
                explain: sc.explain,
                context: self.folder_context(&note.path),
            })
            .collect()
    }

    /// A snippet for each hit, in order, from the hit notes' current bytes (`texts`): the
    /// hit section's lines (without frontmatter) around the best-matching fragment, the
    /// terms of the search's query highlighted, or its first characters when no term is in
    /// it. A note edited since it was indexed gets the snippet of its section that stands for
    /// the hit in its current text (same heading path). None for a hit whose note is not
    /// in `texts` or not in the index.
    pub fn snippets(&self, req: &SnippetRequest) -> Result<Vec<Option<Snippet>>> {
        let query = snippet_query(&req.query, req.queries.as_deref());
        let generator = if query.trim().is_empty() {
            None
        } else {
            let q = self.lex.search(&LexQuery { text: query.to_string(), limit: 1, ..Default::default() })?;
            Some(self.lex.snippet_generator(&*q.query)?)
        };
        // path → the current text, and its sections when it is not the indexed version.
        let mut current: HashMap<&str, Option<(String, Option<NoteEntry>)>> = HashMap::new();
        let mut out = Vec::with_capacity(req.hits.len());
        for hit in &req.hits {
            out.push(self.hit_snippet(hit, &req.texts, &mut current, generator.as_ref()));
        }
        Ok(out)
    }

    fn hit_snippet<'r>(
        &self,
        hit: &'r SnippetHit,
        texts: &NoteTexts,
        current: &mut HashMap<&'r str, Option<(String, Option<NoteEntry>)>>,
        generator: Option<&tantivy::snippet::SnippetGenerator>,
    ) -> Option<Snippet> {
        let (path, order) = parse_section_id(&hit.section_id).filter(|(p, _)| *p == hit.path)?;
        let indexed = self.catalog.get(path)?;
        let hit_sec = indexed.section(order)?;
        if !current.contains_key(path) {
            let entry = texts.get(path).and_then(|b| b.as_ref()).map(|bytes| {
                let text = markdown::decode(bytes).text;
                let hash = sha256_hex(bytes);
                let fresh = (hash != indexed.hash).then(|| self.current_entry(path, &text, hash));
                (text, fresh)
            });
            current.insert(path, entry);
        }
        let (text, fresh) = current.get(path)?.as_ref()?;
        let (note, sec) = match fresh {
            None => (indexed, hit_sec),
            Some(f) => (f, matching_section(indexed, hit_sec, f).or(f.sections.first())?),
        };
        let body = markdown::slice_lines(text, body_start(note, sec), sec.end_line);
        match generator.map(|g| g.snippet(body)) {
            Some(s) if !s.highlighted().is_empty() => Some(make_snippet(s.fragment(), s.highlighted())),
            _ => Some(leading_snippet(body, SNIPPET_CHARS)),
        }
    }

    /// A note's entry for `text` without indexing it: its sections as the index would make
    /// them, for a note edited since it was indexed (`read`, `snippets`).
    fn current_entry(&self, path: &str, text: &str, hash: String) -> NoteEntry {
        let parsed = markdown::parse(path, text);
        let sections = build_sections(
            text,
            &parsed.headings,
            parsed.line_count,
            parsed.body_start_line,
            SplitConfig { budget: self.config.chunk_budget, min: self.config.chunk_min },
        );
        NoteEntry {
            path: path.to_string(),
            hash,
            size: text.len() as u64,
            mtime: 0.0,
            title: parsed.title,
            frontmatter: "{}".into(),
            aliases: Vec::new(),
            tags: Vec::new(),
            links: Default::default(),
            sections,
            line_count: parsed.line_count,
            body_start_line: parsed.body_start_line,
            lead_key: None,
            lead_end_line: 0,
            script: Default::default(),
        }
    }

    fn key_map(&mut self) -> &HashMap<Key, Vec<(String, Option<u32>)>> {
        if self.key_map.is_none() {
            let mut m: HashMap<Key, Vec<(String, Option<u32>)>> = HashMap::new();
            for n in self.catalog.entries() {
                for (order, k) in n.vector_keys() {
                    m.entry(k).or_default().push((n.path.clone(), order));
                }
            }
            self.key_map = Some(m);
        }
        self.key_map.as_ref().expect("built")
    }

    /// Vector hits per note as (path, section order, score), best first, filtered, `limit`
    /// long at most. A note's score is `LEAD_WEIGHT` × its lead's cosine + the rest × its
    /// best section's (the one shown); either alone when the note has only that one embedded
    /// or passing the filters. The scan's candidates name the notes; a component they leave
    /// out is scored from the stored vector.
    fn vector_hits(&mut self, query: &str, filters: &SearchFilters, limit: usize) -> Result<Vec<VecHit>> {
        let qv = self.semantic.query_vector(query)?;
        self.key_map(); // built once per catalog change, borrowed (not cloned) per query
        let map = self.key_map.as_ref().expect("built");
        let Some(vectors) = self.semantic.vectors() else { return Ok(Vec::new()) };
        let raw: Vec<(Key, f32)> = vectors
            .search(&qv, limit * 2 + 20, None)
            .map_err(|e| CoreError::Internal(format!("vector search: {e}")))?;
        // A leaf's section as a hit: lifted for overview searches, filtered.
        let shown = |note: &'_ NoteEntry, order: u32| -> Option<u32> {
            let sec = lift(note, note.section(order)?, filters.max_depth)?;
            note_matches(note, sec, filters).then_some(sec.order)
        };
        // path → (best section (order, cosine), lead cosine), in the order notes were met.
        let mut found: Vec<(&str, Option<(u32, f32)>, Option<f32>)> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (key, score) in &raw {
            for (path, order) in map.get(key).into_iter().flatten() {
                let Some(note) = self.catalog.get(path) else { continue };
                let i = *index.entry(path.as_str()).or_insert_with(|| {
                    found.push((path.as_str(), None, None));
                    found.len() - 1
                });
                let e = &mut found[i];
                match order {
                    None => e.2 = Some(e.2.map_or(*score, |s| s.max(*score))),
                    Some(o) => {
                        if e.1.is_none_or(|(_, s)| *score > s) {
                            if let Some(shown) = shown(note, *o) {
                                e.1 = Some((shown, *score));
                            }
                        }
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(found.len());
        for (path, mut best, mut lead) in found {
            let Some(note) = self.catalog.get(path) else { continue };
            if lead.is_none() {
                lead = note.lead_key.and_then(|k| vectors.score(&k, &qv));
            }
            if best.is_none() {
                for s in note.sections.iter().filter(|s| s.embed_key.is_some()) {
                    let Some(score) = vectors.score(&s.embed_key.expect("a leaf"), &qv) else { continue };
                    if best.is_none_or(|(_, b)| score > b) {
                        if let Some(shown) = shown(note, s.order) {
                            best = Some((shown, score));
                        }
                    }
                }
            }
            let (order, score) = match (best, lead) {
                (Some((o, b)), Some(l)) => (o, (1.0 - LEAD_WEIGHT) * b + LEAD_WEIGHT * l),
                (Some((o, b)), None) => (o, b),
                // Only the lead: the whole note, if it passes the filters.
                (None, Some(l)) => match shown(note, 0) {
                    Some(o) => (o, l),
                    None => continue,
                },
                (None, None) => continue,
            };
            out.push(VecHit { path: path.to_string(), order, score, section: best.map(|b| b.1), lead });
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
        out.truncate(limit);
        Ok(out)
    }

    /// Hybrid and semantic search: rankings fused per note (RRF by default), one hit per
    /// note (its best section), several query strings fused by RRF (original × 2).
    fn search_fused(&mut self, req: &SearchRequest, mode: SearchMode) -> Result<SearchResponse> {
        let t0 = now_ms();
        if !self.semantic.can_search() {
            return Err(CoreError::Unavailable(crate::semantic::HOW_TO_ENABLE.into()));
        }
        let k = req.k.unwrap_or(10).clamp(1, MAX_K);
        let filters = req.filters.clone().unwrap_or_default();
        let mut queries: Vec<(String, f32)> = Vec::new();
        if !req.query.trim().is_empty() {
            queries.push((req.query.clone(), QUERY_WEIGHT_ORIGINAL));
        }
        for q in req.queries.iter().flatten().take(MAX_QUERIES) {
            if !q.trim().is_empty() && !queries.iter().any(|(x, _)| x == q) {
                let w = if queries.is_empty() { QUERY_WEIGHT_ORIGINAL } else { QUERY_WEIGHT_EXPANSION };
                queries.push((q.clone(), w));
            }
        }
        if queries.is_empty() {
            return Err(CoreError::BadRequest("an empty query needs mode \"lexical\" (filters only)".into()));
        }
        let method = req.fusion.unwrap_or_default();
        let depth = req.filters.as_ref().map(|f| (f.min_depth, f.max_depth)).unwrap_or((None, None));
        // Candidates per list: the same for every k up to FUSION_POOL_MIN's worth, so the first
        // results do not depend on how many were asked for (the plugin asks 30, the bridge 10).
        let pool = (k * 4 + 30).clamp(FUSION_POOL_MIN, 400);

        // note path → per-note evidence, accumulated over queries.
        let mut notes: HashMap<String, NoteEvidence> = HashMap::new();
        let mut per_query: Vec<HashMap<String, f32>> = Vec::new();
        let mut strong = false;
        let mut weights_used = None;
        for (qi, (q, _)) in queries.iter().enumerate() {
            let lex: Vec<(String, u32, f32)> = if mode == SearchMode::Hybrid {
                let r = self.lex.search(&LexQuery {
                    text: q.clone(),
                    folder: filters.folder.clone(),
                    tag: filters.tag.clone(),
                    property: filters.property.as_ref().map(|p| (p.key.clone(), p.value.clone())),
                    min_depth: depth.0,
                    max_depth: None,
                    limit: pool,
                })?;
                r.hits
                    .into_iter()
                    .filter_map(|h| {
                        let note = self.catalog.get(&h.path)?;
                        let order = lift(note, note.section(h.order)?, depth.1)?.order;
                        Some((h.path, order, h.score))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            // Vector hits are one per note already.
            let vec_notes = self.vector_hits(q, &filters, pool)?;
            let lex_notes = best_per_note(&lex);
            if qi == 0 {
                strong = fusion::strong_signal(&lex_notes.iter().map(|x| x.2).collect::<Vec<_>>());
            }
            let lex_keys: Vec<String> = lex_notes.iter().map(|x| x.0.clone()).collect();
            let vec_keys: Vec<String> = vec_notes.iter().map(|h| h.path.clone()).collect();
            let (w, why) = if mode == SearchMode::Semantic {
                (fusion::Weights { lex: 0.0, vec: 1.0 }, "semantic only")
            } else {
                let ov = fusion::overlap(&lex_keys, &vec_keys, 10);
                let multilingual = self.semantic.serving_spec().is_some_and(|s| s.multilingual);
                fusion::dynamic_weights(q, &lex_notes.iter().map(|x| x.2).collect::<Vec<_>>(), ov, multilingual)
            };
            if qi == 0 {
                weights_used = Some(FusionWeights { lex: w.lex, vec: w.vec, reason: why.to_string(), method });
            }
            let fused: HashMap<String, f32> = match method {
                fusion::FusionMethod::Rrf => fusion::rrf_trusted(&[(w.lex, &lex_keys[..]), (w.vec, &vec_keys[..])]),
                fusion::FusionMethod::Linear => fusion::linear(
                    &lex_notes.iter().map(|x| (x.0.clone(), x.2)).collect::<Vec<_>>(),
                    &vec_notes.iter().map(|h| (h.path.clone(), h.score)).collect::<Vec<_>>(),
                    w,
                ),
            };
            let lex_max = lex_notes.first().map(|x| x.2).unwrap_or(0.0).max(f32::EPSILON);
            let vec_max = vec_notes.first().map(|h| h.score).unwrap_or(0.0).max(f32::EPSILON);
            for (rank, (path, order, score)) in lex_notes.iter().enumerate() {
                let e = notes.entry(path.clone()).or_default();
                if qi == 0 || e.lex.is_none() {
                    e.lex = Some((rank, *order, *score, score / lex_max));
                }
            }
            for (rank, h) in vec_notes.iter().enumerate() {
                let e = notes.entry(h.path.clone()).or_default();
                if qi == 0 || e.vec.is_none() {
                    e.vec = Some((rank, h.order, h.score, h.score / vec_max));
                    e.vec_parts = (h.section, h.lead);
                }
            }
            if qi == 0 {
                for e in notes.values_mut() {
                    e.weights = (w.lex, w.vec);
                }
            }
            per_query.push(fused);
        }

        // Across queries: RRF of each query's fused ranking (original weighted 2).
        let final_scores: HashMap<String, f32> = if per_query.len() == 1 {
            per_query.pop().expect("one")
        } else {
            let ranked: Vec<Vec<String>> = per_query
                .iter()
                .map(|m| {
                    let mut v: Vec<(&String, &f32)> = m.iter().collect();
                    v.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
                    v.into_iter().map(|(p, _)| p.clone()).collect()
                })
                .collect();
            let lists: Vec<(f32, &[String])> = ranked.iter().zip(&queries).map(|(r, (_, w))| (*w, &r[..])).collect();
            fusion::rrf(&lists)
        };
        let mut ranked: Vec<(String, f32)> = final_scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(k);

        let coverage = self.semantic.coverage(&self.catalog);
        let mut scored: Vec<(&NoteEntry, &Section, Scores)> = Vec::new();
        for (path, final_score) in &ranked {
            let Some(note) = self.catalog.get(path) else { continue };
            let e = &notes[path];
            // The section shown: the better-ranked of the lexical and vector evidence.
            let order = match (e.lex, e.vec) {
                (Some(l), Some(v)) => if v.0 < l.0 { v.1 } else { l.1 },
                (Some(l), None) => l.1,
                (None, Some(v)) => v.1,
                (None, None) => 0,
            };
            let Some(sec) = note.section(order) else { continue };
            let lex_part = e.lex.map(|l| format!("lex #{} ({:.2})", l.0 + 1, l.2)).unwrap_or_else(|| "lex –".into());
            let parts: Vec<String> = [("section", e.vec_parts.0), ("lead", e.vec_parts.1)]
                .into_iter()
                .filter_map(|(name, cos)| Some(format!("{name} {:.3}", cos?)))
                .collect();
            let vec_part = e
                .vec
                .map(|v| format!("vec #{} ({:.3}: {})", v.0 + 1, v.2, parts.join(", ")))
                .unwrap_or_else(|| "vec –".into());
            let w = weights_used.as_ref();
            let explain = format!(
                "{lex_part} · {vec_part} · {} weights {:.2}/{:.2} ({})",
                match method { fusion::FusionMethod::Rrf => "RRF", fusion::FusionMethod::Linear => "linear" },
                e.weights.0,
                e.weights.1,
                w.map(|w| w.reason.as_str()).unwrap_or("")
            );
            scored.push((
                note,
                sec,
                Scores {
                    final_score: *final_score,
                    lex_score: e.lex.map(|l| l.2).unwrap_or(0.0),
                    lex_norm: e.lex.map(|l| l.3).unwrap_or(0.0),
                    vec_score: e.vec.map(|v| v.2).unwrap_or(0.0),
                    vec_norm: e.vec.map(|v| v.3).unwrap_or(0.0),
                    rrf_score: *final_score,
                    explain,
                },
            ));
        }
        let hits = self.make_hits(scored);
        Ok(SearchResponse {
            hits,
            mode,
            took_ms: now_ms() - t0,
            strong_signal: strong,
            weights: weights_used,
            notice: (coverage < 1.0).then(|| format!("semantic results cover {:.0}% of the vault so far; embedding continues", coverage * 100.0)),
            semantic_coverage: Some(coverage),
        })
    }

    /// Loads the embedding model (bytes of the ONNX file and tokenizer.json).
    pub fn load_model(&mut self, model: &[u8], tokenizer: &[u8], config: Option<EmbedderConfig>) -> Result<EmbedProgress> {
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
    /// vault's text that is not in Latin script (see `embed::choice`).
    pub fn choose_model(&self, setting: &str) -> Result<crate::embed::choice::ModelChoice> {
        let current = self.semantic.spec().map(|s| s.model_id.as_str());
        crate::embed::choice::choose(setting, &self.catalog.script_counts(), current).map_err(CoreError::BadRequest)
    }

    /// Loads the model a switch is moving away from: its vectors answer queries until the
    /// new model has embedded everything (`status().switching` says which model it is).
    pub fn load_previous_model(&mut self, model: &[u8], tokenizer: &[u8], config: EmbedderConfig) -> Result<EmbedProgress> {
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

    pub fn embed_progress(&mut self) -> EmbedProgress {
        self.semantic.progress(&self.catalog)
    }

    /// Moves notes to the front of the embedding queue (opened or edited notes).
    pub fn prioritize(&mut self, paths: &[String]) {
        self.semantic.prioritize(paths, now_wall_ms());
    }

    /// Notes nearest to a note or a section, by vector, with the sections that match.
    pub fn similar(&mut self, req: &SimilarRequest) -> Result<SimilarResponse> {
        let t0 = now_ms();
        let k = req.k.unwrap_or(10).clamp(1, MAX_K);
        let (path, only) = match (&req.path, &req.section_id) {
            (_, Some(id)) => {
                let (p, o) = parse_section_id(id).ok_or_else(|| CoreError::BadRequest(format!("not a section id: {id}")))?;
                (paths::normalize(p)?, Some(o))
            }
            (Some(p), None) => (paths::normalize(p)?, None),
            (None, None) => return Err(CoreError::BadRequest("similar needs a path or a section id".into())),
        };
        let note = self.catalog.get(&path).ok_or_else(|| CoreError::BadRequest(format!("not in the index: {path}")))?;
        let vectors = self.semantic.vectors().ok_or_else(|| CoreError::Unavailable(crate::semantic::HOW_TO_ENABLE.into()))?;
        // The source: the leaves of the note (or of the section), averaged.
        let leaves: Vec<Key> = note
            .sections
            .iter()
            .filter(|s| match only {
                None => true,
                Some(o) => s.order == o || is_ancestor(note, note.section(o).unwrap_or(s), s),
            })
            .filter_map(|s| s.embed_key)
            .collect();
        let mut sum: Vec<f32> = Vec::new();
        for key in &leaves {
            if let Some(v) = vectors.get(key) {
                if sum.is_empty() {
                    sum = vec![0.0; v.len()];
                }
                for (a, b) in sum.iter_mut().zip(&v) {
                    *a += b;
                }
            }
        }
        if sum.is_empty() {
            return Err(CoreError::Unavailable(format!("{path} has no embedded sections yet; embedding is in progress or the model is missing")));
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
        sum.iter_mut().for_each(|x| *x /= norm);
        let raw = vectors
            .search(&sum, k * 8 + 20, None)
            .map_err(|e| CoreError::Internal(format!("vector search: {e}")))?;
        self.key_map(); // built once per catalog change, borrowed (not cloned) per query
        let map = self.key_map.as_ref().expect("built");
        let mut by_note: Vec<(String, f32, Vec<(u32, f32)>)> = Vec::new();
        for (key, score) in raw {
            for (p, order) in map.get(&key).into_iter().flatten() {
                if *p == path {
                    continue;
                }
                // A lead vector ranks its note but is not one of the sections that match.
                let secs = match by_note.iter_mut().find(|(np, _, _)| np == p) {
                    Some((_, _, secs)) => secs,
                    None => {
                        by_note.push((p.clone(), score, Vec::new()));
                        &mut by_note.last_mut().expect("pushed").2
                    }
                };
                if let Some(order) = order {
                    if secs.len() < 3 {
                        secs.push((*order, score));
                    }
                }
            }
            if by_note.len() >= k {
                break;
            }
        }
        by_note.truncate(k);
        let hits = by_note
            .into_iter()
            .filter_map(|(p, score, secs)| {
                let n = self.catalog.get(&p)?;
                Some(SimilarHit {
                    path: p.clone(),
                    title: n.title.clone(),
                    score,
                    sections: secs
                        .into_iter()
                        .filter_map(|(o, s)| {
                            let sec = n.section(o)?;
                            Some(SimilarSection {
                                section_id: section_id(&p, o),
                                heading_path: sec.heading_path.clone(),
                                start_line: sec.start_line,
                                end_line: sec.end_line,
                                score: s,
                            })
                        })
                        .collect(),
                })
            })
            .collect();
        Ok(SimilarResponse { source: path, hits, took_ms: now_ms() - t0 })
    }

    /// A section, a heading, a line range or the whole of an indexed note, from its current
    /// bytes (`req.bytes`, read by the host). When they are the indexed version, sections
    /// and section ids are the index's; when the note was edited since, the answer comes
    /// from a fresh parse of these bytes (a section id then names the section with the same
    /// heading path), so lines and text are those of the note as it is now, and
    /// `contentHash` is theirs.
    pub fn read(&self, req: &ReadRequest) -> Result<ReadResult> {
        let path = paths::normalize(&req.path)?;
        let indexed = self
            .catalog
            .get(&path)
            .ok_or_else(|| CoreError::BadRequest(format!("not in the index: {path}")))?;
        let bytes = req.bytes.as_deref().ok_or_else(|| {
            CoreError::BadRequest(format!("read needs the current bytes of {path} (`bytes`): the index does not store note text"))
        })?;
        let text = markdown::decode(bytes).text;
        let hash = sha256_hex(bytes);
        let fresh = (hash != indexed.hash).then(|| self.current_entry(&path, &text, hash));
        let note = fresh.as_ref().unwrap_or(indexed);
        let whole = note.section(0).cloned();
        let mut section: Option<Section> = None;
        let (mut start, mut end) = (1u32, note.line_count.max(1));
        if req.whole {
            section = whole;
        } else if let Some(id) = &req.section_id {
            let (p, order) = parse_section_id(id)
                .ok_or_else(|| CoreError::BadRequest(format!("not a section id: {id}")))?;
            if p != path {
                return Err(CoreError::BadRequest(format!("section {id} is not in {path}")));
            }
            let mut s = indexed
                .section(order)
                .ok_or_else(|| CoreError::BadRequest(format!("no section {id}")))?;
            if let Some(f) = &fresh {
                s = matching_section(indexed, s, f).ok_or_else(|| {
                    CoreError::BadRequest(format!(
                        "section {id} ({}) is no longer in {path}: the note changed since it was indexed; read it by heading or line, or search again",
                        if s.heading_path.is_empty() { "the text before the first heading" } else { s.heading_path.as_str() }
                    ))
                })?;
            }
            let mut s = s.clone();
            if req.parent {
                if let Some(parent) = s.parent.and_then(|p| note.section(p)) {
                    s = parent.clone();
                }
            }
            section = Some(s);
        } else if let Some(h) = &req.heading {
            let (s, e, hp) = find_heading(&text, h)
                .ok_or_else(|| CoreError::BadRequest(format!("no heading {h:?} in {path}")))?;
            start = s;
            end = e;
            section = note
                .sections
                .iter()
                // The section of exactly this heading; a small heading merged with its
                // neighbours into one section is read alone, without a section id.
                .filter(|x| x.start_line == s && x.end_line == e && x.depth > 0)
                .max_by_key(|x| x.depth)
                .cloned();
            if section.is_none() {
                let r = ReadResult {
                    path: path.clone(),
                    title: note.title.clone(),
                    content_hash: note.hash.clone(),
                    section_id: None,
                    heading_path: hp,
                    start_line: s,
                    end_line: e,
                    text: String::new(),
                    truncated: false,
                };
                return Ok(finish_read(r, &text, req));
            }
        } else if let Some(s) = req.start_line {
            start = s.max(1);
            end = note.line_count.max(start);
        } else {
            section = whole;
        }
        if let Some(s) = &section {
            start = s.start_line;
            end = s.end_line;
        }
        // Section ids are the index's: a note edited since it was indexed answers with the id
        // of the indexed section that stands for the one read (none for a new heading).
        let id = match (&section, &fresh) {
            (Some(s), None) => Some(s.order),
            (Some(s), Some(f)) => matching_section(f, s, indexed).map(|x| x.order),
            (None, _) => None,
        };
        let r = ReadResult {
            path: path.clone(),
            title: note.title.clone(),
            content_hash: note.hash.clone(),
            section_id: id.map(|o| section_id(&path, o)),
            heading_path: section.map(|s| s.heading_path).unwrap_or_default(),
            start_line: start,
            end_line: end,
            text: String::new(),
            truncated: false,
        };
        Ok(finish_read(r, &text, req))
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
        let leaves = note.sections.iter().filter(|s| s.is_leaf()).map(|s| embed_text(&text, s, note.body_start_line));
        Ok(std::iter::once(note.lead_text(&text)).chain(leaves).collect())
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
        paths
            .iter()
            .filter_map(|p| paths::normalize(p).ok())
            .filter(|p| self.catalog.record_access(p, now))
            .count()
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
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// Query weights in multi-query search.
pub const QUERY_WEIGHT_ORIGINAL: f32 = 2.0;
pub const QUERY_WEIGHT_EXPANSION: f32 = 1.0;
pub const MAX_QUERIES: usize = 5;
/// Candidates per list in hybrid and semantic search, at least (see `search_fused`).
pub const FUSION_POOL_MIN: usize = 150;
/// A note's vector score: this share from its lead vector's cosine, the rest from its best
/// section's (`vector_hits`). Dev queries, hybrid R@10 / MRR@10 before → after (measured with
/// `strata eval`): en (all-MiniLM-L6-v2) .922/.791 → .944/.856, en (multilingual-e5-small)
/// .889/.786 → .911/.880, zh .833/1.0 → 1.0/1.0, ja .833/.733 → .900/.900. In a simulation of
/// the fusion first, every share from 3/7 to 3/5 and every lead of 32 to 96 tokens beat the
/// best section alone in all four; 3/5 with 64 tokens had the best worst case.
pub const LEAD_WEIGHT: f32 = 0.6;
// Note-level aggregation is the note's best section, with no bonus for further matching
// sections: on the dev queries every bonus tried (+4 % per further section up to 3, as
// before; or only for sections within 5 % of the best) lost recall or MRR in all three
// languages, because long notes (Settings, formatting syntax) match something everywhere.

struct Scores {
    final_score: f32,
    lex_score: f32,
    lex_norm: f32,
    vec_score: f32,
    vec_norm: f32,
    rrf_score: f32,
    explain: String,
}

/// Evidence for one note: (rank, section order, raw score, normalised score) per list.
#[derive(Default)]
struct NoteEvidence {
    lex: Option<(usize, u32, f32, f32)>,
    vec: Option<(usize, u32, f32, f32)>,
    /// The vector score's parts: the best section's cosine and the lead's.
    vec_parts: (Option<f32>, Option<f32>),
    weights: (f32, f32),
}

/// A note's vector evidence (`Engine::vector_hits`).
struct VecHit {
    path: String,
    /// The section shown: the best-matching one (lifted and filtered), else the whole note.
    order: u32,
    /// `LEAD_WEIGHT` × lead + the rest × section, or the one of them there is.
    score: f32,
    section: Option<f32>,
    lead: Option<f32>,
}

/// One entry per note in rank order: (path, best section order, best score).
fn best_per_note(list: &[(String, u32, f32)]) -> Vec<(String, u32, f32)> {
    let mut seen: HashSet<&str> = HashSet::new();
    list.iter().filter(|(path, _, _)| seen.insert(path.as_str())).cloned().collect()
}

/// Applies search filters to a vector hit (the lexical side filters in tantivy).
fn note_matches(note: &NoteEntry, sec: &Section, f: &SearchFilters) -> bool {
    if let Some(folder) = f.folder.as_deref().map(|s| s.trim_matches('/')).filter(|s| !s.is_empty()) {
        if !paths::in_folder(&note.path.to_lowercase(), &folder.to_lowercase()) {
            return false;
        }
    }
    if let Some(tag) = &f.tag {
        let want = tag.trim().trim_start_matches('#').to_lowercase();
        let ok = note.tags.iter().any(|t| {
            let t = t.to_lowercase();
            t == want || t.starts_with(&format!("{want}/"))
        });
        if !ok {
            return false;
        }
    }
    if let Some(p) = &f.property {
        let fm: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&note.frontmatter).unwrap_or_default();
        let want = format!("{}={}", p.key.trim().to_lowercase(), p.value.trim().to_lowercase());
        if !markdown::property_terms(&fm).contains(&want) {
            return false;
        }
    }
    if f.min_depth.is_some_and(|d| sec.depth < d) || f.max_depth.is_some_and(|d| sec.depth > d) {
        return false;
    }
    true
}

fn sorted(set: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = set.into_iter().collect();
    v.sort();
    v
}

fn too_large(size: u64, max: u64) -> String {
    format!(
        "note is {:.1} MB, over the {:.1} MB limit (maxNoteBytes)",
        size as f64 / 1e6,
        max as f64 / 1e6
    )
}

/// The section that stands for `sec` under a maximum depth: itself, or its ancestor at
/// that depth. None only for a broken section tree.
fn lift<'a>(note: &'a NoteEntry, sec: &'a Section, max_depth: Option<u8>) -> Option<&'a Section> {
    let Some(max) = max_depth else { return Some(sec) };
    let mut cur = sec;
    while cur.depth > max {
        cur = note.section(cur.parent?)?;
    }
    Some(cur)
}

/// True when `a` is an ancestor of `b` in `note`'s section tree.
fn is_ancestor(note: &NoteEntry, a: &Section, b: &Section) -> bool {
    let mut cur = b.parent;
    while let Some(p) = cur {
        if p == a.order {
            return true;
        }
        cur = note.section(p).and_then(|s| s.parent);
    }
    false
}

/// First line of a section's body for snippets (skips the frontmatter of depth 0).
fn body_start(note: &NoteEntry, sec: &Section) -> u32 {
    // The first section of any depth can start at line 1, inside the frontmatter.
    sec.start_line.max(note.body_start_line).min(sec.end_line)
}

/// Headings indexed for a section: its heading path plus the headings inside it.
fn section_headings(headings: &[markdown::Heading], s: &Section) -> String {
    let mut out = s.heading_path.replace(HEADING_SEPARATOR, "\n");
    for h in headings {
        if h.line > s.start_line && h.line <= s.end_line {
            out.push('\n');
            out.push_str(&h.text);
        }
    }
    if s.depth == 0 {
        out = headings.iter().map(|h| h.text.as_str()).collect::<Vec<_>>().join("\n");
    }
    out
}

/// Finds a heading by text or by heading path ("A > B"), case-insensitively; returns its
/// line range (to the next heading of the same or a higher level: the note's outline) and
/// heading path.
fn find_heading(text: &str, wanted: &str) -> Option<(u32, u32, String)> {
    let wanted = wanted.trim().trim_start_matches('#').trim().to_lowercase();
    let suffix = format!("{HEADING_SEPARATOR}{wanted}");
    crate::outline::outline(text).headings.into_iter().find_map(|h| {
        let hp = h.path.join(HEADING_SEPARATOR);
        let lower = hp.to_lowercase();
        (h.text.to_lowercase() == wanted || lower == wanted || lower.ends_with(&suffix)).then_some((h.line, h.end_line, hp))
    })
}

/// The query string whose terms snippets highlight: the query hybrid and semantic search
/// rank by first (the original, else the first expansion).
fn snippet_query<'a>(query: &'a str, queries: Option<&'a [String]>) -> &'a str {
    if !query.trim().is_empty() {
        return query;
    }
    queries.into_iter().flatten().map(String::as_str).find(|q| !q.trim().is_empty()).unwrap_or("")
}

/// The section of `to` (another version of a note: its current text, or the indexed one)
/// that stands for `sec`, a section of `from`: the same heading path at the same depth (the
/// n-th such one when headings repeat). None when the heading is not there.
fn matching_section<'a>(from: &NoteEntry, sec: &Section, to: &'a NoteEntry) -> Option<&'a Section> {
    let same = |s: &&Section| s.depth == sec.depth && s.heading_path == sec.heading_path;
    let nth = from.sections.iter().filter(same).take_while(|s| s.order != sec.order).count();
    to.sections.iter().filter(same).nth(nth)
}

fn finish_read(mut r: ReadResult, text: &str, req: &ReadRequest) -> ReadResult {
    let max_lines = req.max_lines.unwrap_or(DEFAULT_READ_LINES).max(1);
    if r.end_line >= r.start_line + max_lines {
        r.end_line = r.start_line + max_lines - 1;
        r.truncated = true;
    }
    let mut body = markdown::slice_lines(text, r.start_line, r.end_line).to_string();
    if let Some(max) = req.max_chars {
        if body.chars().count() > max {
            body = body.chars().take(max).collect();
            r.truncated = true;
        }
    }
    r.text = body;
    r
}

#[cfg(test)]
mod tests;

/// With the real model, through the native embedder (`cargo test --workspace`); CI's
/// ./test.sh covers the same through the wasm embedder in the Node tests.
#[cfg(all(test, not(target_arch = "wasm32"), feature = "embedder"))]
mod semantic_tests;
#[cfg(test)]
mod switch_tests;
#[cfg(test)]
mod text_tests;
