//! Indexing: the plan (what to read, what to delete), updates (upserts, deletes, renames) parsed
//! into sections and staged in the lexical index and the catalog, and the flush that persists them.

use std::collections::HashSet;
use std::path::Path;

use super::code_texts::CodeTexts;
use super::Engine;
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::clock::{now_ms, now_wall_ms};
use crate::error::Result;
use crate::hash::KnownHash;
use crate::language::{self, Stem};
use crate::layout;
use crate::lexical::SectionDoc;
use crate::markdown::{self, LineIndex};
use crate::paths;
use crate::sections::{Section, SplitConfig, HEADING_SEPARATOR};
use crate::store::{self, CAT_DIR, LEX_DIR};

/// What `index_text` records about a note's file besides its text.
pub(super) struct FileFacts {
    /// Content hash (hex).
    pub hash: String,
    pub size: u64,
    pub mtime: f64,
    /// Creation time, when the host knows it (see [`known_ctime`]).
    pub ctime: Option<f64>,
    /// The path was indexed before (its old documents are replaced).
    pub existed: bool,
    /// The whole-note section's hash, when already known (see `known_for`).
    pub known: Option<KnownHash>,
    /// A code file whose definitions are in the index (chunked at once when it changes, so that
    /// they never give way to line windows).
    pub defined: bool,
}

/// A creation time the host gave, if it is one: a positive, finite time (a file system without
/// birth times may report 0).
fn known_ctime(ctime: Option<f64>) -> Option<f64> {
    ctime.filter(|t| t.is_finite() && *t > 0.0)
}

/// A note's content hash (hex) and the hash of its whole-note section's bytes, in one pass
/// over the note (see `hash::sha256_and_trimmed`).
pub(super) fn note_hashes(bytes: &[u8]) -> (String, KnownHash) {
    let (content, known) = crate::hash::sha256_and_trimmed(bytes);
    (hex::encode(content), known)
}

/// `known` applies to the decoded text only when that text is the note's bytes themselves:
/// valid UTF-8 and no BOM removed (a replacement character can take the place of three
/// invalid bytes, so equal lengths alone do not say it).
pub(super) fn known_for(decoded: &markdown::Decoded, bytes: &[u8], known: KnownHash) -> Option<KnownHash> {
    (!decoded.lossy && decoded.text.len() == bytes.len()).then_some(known)
}

impl Engine {
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
            let (limit, setting) = match paths::code_language(&path, &self.config) {
                Some(_) => (self.config.max_code_bytes, "maxCodeBytes"),
                None => (self.config.max_note_bytes, "maxNoteBytes"),
            };
            if f.size > limit {
                plan.skipped.push(Skip { path: path.clone(), reason: too_large(f.size, limit, setting) });
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
        // The decoded property columns follow the notes the batch inserts and removes.
        let t0 = now_ms();
        self.catalog.track_changes(self.props.has_columns());
        self.defer_code = batch.defer_code;
        let mut report = self.apply_batch(batch);
        self.defer_code = false;
        match self.catalog.take_changes() {
            Some(changes) if report.is_ok() => self.props.update(&self.catalog, &changes),
            _ => self.props.clear(),
        }
        if let Ok(r) = &mut report {
            r.took_ms = now_ms() - t0;
        }
        report
    }

    fn apply_batch(&mut self, batch: UpdateBatch) -> Result<UpdateReport> {
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
                self.recent_deletes.insert(e.hash, (path, !e.code_pending));
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
            self.code_pass.invalidate();
        }
        let touched: Vec<String> = batch.upserts.iter().map(|n| n.path.clone()).collect();
        self.semantic.prioritize(&touched, now_wall_ms());
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
        let (limit, setting) = match paths::code_language(&path, &self.config) {
            Some(_) => (self.config.max_code_bytes, "maxCodeBytes"),
            None => (self.config.max_note_bytes, "maxNoteBytes"),
        };
        if size > limit {
            report.skipped.push(Skip { path: path.clone(), reason: too_large(size, limit, setting) });
            self.drop_note(&path)?;
            return Ok(());
        }
        if markdown::looks_binary(&note.bytes) {
            report
                .skipped
                .push(Skip { path: path.clone(), reason: "binary content (NUL bytes), not a text note".into() });
            self.drop_note(&path)?;
            return Ok(());
        }
        let (hash, known) = note_hashes(&note.bytes);
        // A host that does not know the creation time keeps the one indexed for the path.
        let ctime = known_ctime(note.ctime).or_else(|| self.catalog.get(&path).and_then(|e| e.ctime));
        if let Some(existing) = self.catalog.get(&path).filter(|_| !self.blocks_pending.contains(&path)) {
            if existing.hash == hash {
                if existing.mtime != note.mtime || existing.size != size || existing.ctime != ctime {
                    let e = self.catalog.get_mut(&path).expect("present");
                    e.mtime = note.mtime;
                    e.size = size;
                    e.ctime = ctime;
                }
                report.unchanged += 1;
                return Ok(());
            }
        }
        let existed = self.catalog.get(&path).is_some();
        let moved_from = self.recent_deletes.remove(&hash);
        // A code file moved (deleted, then added with the same bytes) keeps its definitions.
        let defined = self.catalog.get(&path).map_or(moved_from.as_ref().is_some_and(|m| m.1), |e| !e.code_pending);
        let decoded = markdown::decode(&note.bytes);
        if decoded.lossy {
            report.warnings.push(Warning {
                path: path.clone(),
                message: "invalid UTF-8: decoded with replacement characters".into(),
            });
        }
        let known = known_for(&decoded, &note.bytes, known);
        let fm_error = self.index_text(
            &path,
            &decoded.text,
            FileFacts { hash, size, mtime: note.mtime, ctime, existed, known, defined },
            report,
        )?;
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
            // Nothing moved: new bytes are an edit.
            if let Some(bytes) = r.bytes.as_deref() {
                let (mtime, ctime) = (r.mtime.unwrap_or(old.mtime), known_ctime(r.ctime).or(old.ctime));
                self.upsert(&NoteInput { path: to, bytes: bytes.to_vec(), mtime, ctime }, report)?;
            }
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
        let (mtime, ctime) = (r.mtime.unwrap_or(old.mtime), known_ctime(r.ctime).or(old.ctime));
        self.catalog.remove(&from);
        self.lex.delete_note(&from)?;
        let (hash, known) = note_hashes(bytes);
        if hash == old.hash {
            let decoded = markdown::decode(bytes);
            let known = known_for(&decoded, bytes, known);
            let existed = self.catalog.get(&to).is_some();
            self.index_text(
                &to,
                &decoded.text,
                FileFacts { hash: old.hash, size: old.size, mtime, ctime, existed, known, defined: !old.code_pending },
                report,
            )?;
            report.moved += 1;
        } else {
            // Edited as well as renamed: a delete and an upsert (a code file with definitions
            // keeps them: chunked at once).
            report.deleted += 1;
            let defer = self.defer_code;
            self.defer_code = defer && old.code_pending;
            let done = self.upsert(&NoteInput { path: to.clone(), bytes: bytes.to_vec(), mtime, ctime }, report);
            self.defer_code = defer;
            done?;
        }
        if self.catalog.get(&to).is_some() {
            self.catalog.move_access(&from, &to, usage);
        }
        Ok(())
    }

    /// Parses `text` into sections and stages them. Returns the frontmatter error, if any.
    /// Indexes a file's text: a source file as code ([`Engine::index_code`]), anything else
    /// as a Markdown note. Returns the frontmatter's error, if any.
    fn index_text(
        &mut self,
        path: &str,
        text: &str,
        file: FileFacts,
        report: &mut UpdateReport,
    ) -> Result<Option<String>> {
        if let Some(lang) = paths::code_language(path, &self.config) {
            self.index_code(path, text, lang, file, report)?;
            return Ok(None);
        }
        self.index_note(path, text, file, report)
    }

    fn index_note(
        &mut self,
        path: &str,
        text: &str,
        file: FileFacts,
        report: &mut UpdateReport,
    ) -> Result<Option<String>> {
        let FileFacts { hash, size, mtime, ctime, existed, known, .. } = file;
        let parsed = markdown::parse(path, text);
        let (sections, chunker_missing) = self.note_sections(path, text, &parsed, known);
        if chunker_missing {
            self.blocks_pending.insert(path.to_string());
            report.code_chunker_needed.push(path.to_string());
        } else {
            self.blocks_pending.remove(path);
        }
        let folders = paths::folder_prefixes(path);
        let mut titles = vec![parsed.title.clone()];
        let stem = paths::stem(path);
        if !stem.eq_ignore_ascii_case(&parsed.title) {
            titles.push(stem.to_string());
        }
        let props = markdown::property_terms(&parsed.frontmatter);
        let lines = LineIndex::new(text);
        let heading_texts: Vec<String> = sections.iter().map(|s| section_headings(&parsed.headings, s)).collect();
        // Each section indexes its own lines: a leaf all of them, a section with children only
        // those before its first child (the frontmatter and intro of the whole-note document, a
        // heading's intro), since its children index the rest. So no text is indexed twice
        // (measured: half the tokens of indexing every section whole, the same dev-query
        // quality); overview searches lift section hits to their ancestors (`lift`), and title,
        // aliases, headings and tags stay on every document. The body is tokenized by the
        // field's analyzer as tantivy indexes it: its token stream reuses one token, where
        // tokens analyzed beforehand cost a string each, cloned twice more inside tantivy.
        let pin = ["lang", "language"].iter().find_map(|k| parsed.frontmatter.get(*k)?.as_str());
        let body_text = &text[lines.byte_range(text, parsed.body_start_line, parsed.line_count.max(1))];
        let note_lang = language::note_language(pin, body_text);
        let note_stem = note_lang.lang.map(language::stem_of).unwrap_or(Stem::ENGLISH);
        // The note's languages, its own first, then those of sections written in another.
        let mut langs: Vec<whatlang::Lang> = note_lang.lang.into_iter().collect();
        let mut first_child: Vec<Option<u32>> = vec![None; sections.len()];
        for s in &sections {
            if let Some(p) = s.parent {
                let slot = &mut first_child[p as usize];
                if slot.is_none_or(|c| s.start_line < c) {
                    *slot = Some(s.start_line);
                }
            }
        }
        // Large fenced code blocks are code sections: they, and the sections holding them, index
        // their own lines without their children's (code_texts.rs).
        let code = CodeTexts::of(text, &sections);
        let docs: Vec<SectionDoc> = sections
            .iter()
            .zip(&heading_texts)
            .zip(&first_child)
            .enumerate()
            .map(|(i, ((s, headings), child))| {
                let body = match (code.body(i), child) {
                    (Some(own), _) => own,
                    (None, Some(c)) if *c <= s.start_line => "",
                    (None, Some(c)) => &text[lines.byte_range(text, s.start_line, c - 1)],
                    (None, None) => &text[lines.byte_range(text, s.start_line, s.end_line)],
                };
                (i, s, headings, body)
            })
            .map(|(i, s, headings, body)| SectionDoc {
                code: code.doc(i, s),
                // In a note whose language is not settled (it may mix languages), a long
                // section says which language it is in; a short one is stemmed in its note's.
                stem: match language::section_language(&note_lang, sections.len(), body) {
                    Some(l) => {
                        if !langs.contains(&l) {
                            langs.push(l);
                        }
                        language::stem_of(l)
                    }
                    None => note_stem,
                },
                body,
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
            ctime,
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
            lang: langs.iter().map(|l| language::code(*l)).collect::<Vec<_>>().join(" "),
            tasks: crate::tasks::extract(text),
            code_pending: false,
        };
        entry.lead_key = Some(crate::sections::embed_key(&entry.lead_text(text)));
        self.catalog.insert(entry);
        Ok(parsed.frontmatter_error)
    }

    /// A parsed note's sections: its Markdown sections, and its large fenced code blocks chunked
    /// under them; `true` when a block stayed whole for want of a code chunker.
    pub(super) fn note_sections(
        &self,
        path: &str,
        text: &str,
        parsed: &markdown::ParsedNote,
        known: Option<KnownHash>,
    ) -> (Vec<Section>, bool) {
        let sections = crate::sections::build_sections_with(
            text,
            &parsed.headings,
            parsed.line_count,
            parsed.body_start_line,
            SplitConfig { budget: self.config.chunk_budget, min: self.config.chunk_min },
            known,
        );
        let mut missing = false;
        let sections = crate::code_sections::add_code_blocks(
            path,
            text,
            sections,
            &parsed.code_blocks,
            self.config.chunk_budget,
            self.config.code_syntax,
            &mut missing,
        );
        (sections, missing)
    }

    /// Makes staged changes searchable.
    pub fn commit(&mut self) -> Result<()> {
        self.lex.commit()?;
        Ok(())
    }

    /// Commits, then returns the files that persist the new state: new immutable files,
    /// then the manifest (last), and the files no manifest slot needs any more (see `store`).
    pub fn flush(&mut self) -> Result<FlushOutput> {
        self.flush_at(now_wall_ms() as u64)
    }

    /// [`Engine::flush`] at wall-clock time `now` (ms), which decides which merged vector
    /// segments are old enough to delete (`vectors::merge`).
    pub fn flush_at(&mut self, now: u64) -> Result<FlushOutput> {
        self.lex.commit()?;
        let lex_names: HashSet<String> =
            self.lex.files().iter().map(|p| format!("{LEX_DIR}{}", p.to_string_lossy())).collect();
        let lex_changed = !self.persisted.holds_exactly(LEX_DIR, &lex_names);
        let first = self.persisted.is_new();
        let vectors = self.semantic.take_segments(now);
        if !lex_changed && !self.catalog.is_dirty() && !first && vectors.is_empty() && !self.semantic.layout_changed() {
            return Ok(FlushOutput::default());
        }
        let mut gen = store::NextGeneration::new(&self.persisted);
        for name in &lex_names {
            if !gen.keep(name) {
                let bytes = self.lex.read_file(Path::new(&name[LEX_DIR.len()..]))?;
                gen.write(name.clone(), bytes);
            }
        }

        let mut catalog_files = self.persisted.catalog.clone();
        if let Some(w) = self.catalog.take_write(first || catalog_files.is_empty())? {
            if w.is_base {
                catalog_files.clear();
            }
            catalog_files.push(gen.write_new(CAT_DIR, w.bytes));
        }
        for c in &catalog_files {
            gen.keep(c);
        }

        let (mut out, next) = gen.finish(store::ManifestContent {
            device: self.config.device_id.clone(),
            settings: self.config.fingerprint(),
            lexical_meta: self.lex.meta_json()?,
            catalog: catalog_files,
            model: self.semantic.spec().cloned(),
            previous_model: self.semantic.previous_spec().cloned(),
            segments: self.semantic.own_segments().to_vec(),
        });
        self.semantic.layout_written();
        // The device's files go into its folder; the shared vectors (and, the first time, the
        // spec of their model) before its manifest, which stays the last write.
        let dir = layout::device_dir(&self.config.device_id);
        for f in out.writes.iter_mut() {
            f.name = format!("{dir}{}", f.name);
        }
        for d in out.deletes.iter_mut() {
            *d = format!("{dir}{d}");
        }
        let manifest = out.writes.pop();
        if !vectors.writes.is_empty() {
            if let Some(spec) = self.semantic.spec() {
                let space = spec.space();
                if self.space_files.insert(space) {
                    let b = layout::space_file_bytes(spec);
                    out.bytes_written += b.len() as u64;
                    out.writes.push(IndexFile { name: layout::space_file(space), bytes: b });
                }
            }
        }
        for (name, bytes) in vectors.writes {
            out.bytes_written += bytes.len() as u64;
            out.writes.push(IndexFile { name, bytes });
        }
        out.writes.extend(manifest);
        // After the manifest: the segments this device merged, the grace period past.
        out.deletes.extend(vectors.deletes);
        self.persisted = next;
        self.recent_deletes.clear();
        Ok(out)
    }
}

fn too_large(size: u64, max: u64, setting: &str) -> String {
    format!("file is {:.1} MB, over the {:.1} MB limit ({setting})", size as f64 / 1e6, max as f64 / 1e6)
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
