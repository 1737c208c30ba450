//! The code pass: code files indexed in line windows by a bulk index (`UpdateBatch::defer_code`:
//! plain-text speed, searchable at once) are given their definitions in the background, in
//! bounded steps as embedding is. A step is two calls, since the index holds no text:
//! [`Engine::code_pass_needs`] takes the next files off the queue and names them, the host reads
//! them, and [`Engine::code_pass_step`] chunks them and replaces each file's windows with its
//! definitions (committed, so a search sees one or the other, never neither).
//!
//! The queue is derived from the catalog (the files marked `code_pending`), so a restart resumes
//! the pass. A file deleted or indexed again since it was taken is passed over; one whose text
//! was not supplied or changed on disk is dropped for this session (its next update indexes it
//! again). The embedding queue leaves pending files out (`NoteEntry::vector_keys`): their
//! windows would be thrown away.

use std::collections::HashSet;

use super::index::{known_for, note_hashes, FileFacts};
use super::Engine;
use crate::api::*;
use crate::error::{CoreError, Result};
use crate::{markdown, paths};

/// The code pass's state in this session.
#[derive(Default)]
pub(super) struct CodePass {
    /// Pending files, next first (rebuilt from the catalog when None).
    queue: Option<Vec<String>>,
    /// Files taken by `code_pass_needs` for the next step, with the content hash they had.
    staged: Option<Vec<(String, String)>>,
    /// Files dropped for this session: their text was missing or not the indexed version.
    dropped: HashSet<String>,
    /// Files given their definitions in this session.
    done: usize,
}

impl CodePass {
    /// The catalog changed: the queue is rebuilt when next needed.
    pub fn invalidate(&mut self) {
        self.queue = None;
    }

    /// `path` was indexed again: it is no longer dropped for this session.
    pub fn forget(&mut self, path: &str) {
        self.dropped.remove(path);
    }
}

impl Engine {
    /// Takes up to `max_files` pending code files off the queue (most recently modified first) for
    /// the next [`Engine::code_pass_step`], unless an earlier call's are still waiting, and returns
    /// their paths: the host reads their current bytes.
    pub fn code_pass_needs(&mut self, max_files: usize) -> Vec<String> {
        if self.code_pass.staged.is_none() {
            let batch = self.code_pass_take(max_files);
            self.code_pass.staged = Some(batch);
        }
        self.code_pass.staged.iter().flatten().map(|(p, _)| p.clone()).collect()
    }

    /// Gives the files [`Engine::code_pass_needs`] took (without that call, up to `max_files`
    /// pending ones) their definitions, from `texts` (their current bytes). An `unavailable` error,
    /// before anything changed, when the chunker is not loaded: the host loads the code wasm and
    /// steps again. Call in a loop until `left` is 0; flush to persist.
    pub fn code_pass_step(&mut self, max_files: usize, texts: &NoteTexts) -> Result<CodePassProgress> {
        let mut staged = match self.code_pass.staged.take() {
            Some(s) => s,
            None => self.code_pass_take(max_files),
        };
        let mut report = UpdateReport::default();
        let (mut defined, mut dropped) = (0, 0);
        self.catalog.track_changes(self.props.has_columns());
        let (mut failure, mut indexed) = (None, Ok(()));
        while !staged.is_empty() {
            let (path, staged_hash) = staged.remove(0);
            let Some(entry) = self.catalog.get(&path).filter(|e| e.code_pending) else { continue }; // deleted, or defined
            if entry.hash != staged_hash {
                // Indexed again since it was taken: queued again.
                self.code_pass.invalidate();
                continue;
            }
            let (size, mtime, ctime) = (entry.size, entry.mtime, entry.ctime);
            let Some(lang) = paths::code_language(&path, &self.config) else { continue };
            let bytes = texts.get(&path).and_then(|b| b.as_deref());
            let Some((bytes, (hash, known))) =
                bytes.map(|b| (b, note_hashes(b))).filter(|(_, (h, _))| *h == staged_hash)
            else {
                self.code_pass.dropped.insert(path);
                dropped += 1;
                continue;
            };
            let decoded = markdown::decode(bytes);
            let budget = self.config.chunk_budget;
            let chunks = match crate::code_sections::chunk(lang, &decoded.text, budget, self.config.code_syntax) {
                Ok(c) => c,
                Err(e) => {
                    staged.insert(0, (path, staged_hash));
                    failure = Some(e);
                    break;
                }
            };
            let known = known_for(&decoded, bytes, known);
            let file = FileFacts { hash, size, mtime, ctime, existed: true, known, defined: false };
            indexed = self.index_code_chunks(&path, &decoded.text, lang, file, Some(chunks), &mut report);
            if indexed.is_err() {
                break;
            }
            defined += 1;
        }
        match self.catalog.take_changes() {
            Some(changes) => self.props.update(&self.catalog, &changes),
            None => self.props.clear(),
        }
        if defined > 0 {
            self.lex.commit()?;
            self.semantic.invalidate();
            self.key_map = None;
        }
        self.code_pass.done += defined;
        indexed?;
        if let Some(e) = failure {
            self.code_pass.staged = Some(staged).filter(|s| !s.is_empty());
            return Err(CoreError::Unavailable(format!(
                "the code chunker is not loaded ({e}): load the code wasm and step again"
            )));
        }
        let mut progress = self.code_pass_progress();
        progress.defined = defined;
        progress.dropped = dropped;
        progress.warnings = report.warnings;
        Ok(progress)
    }

    /// The code pass's progress: the files it has left in this session (those dropped left out).
    pub fn code_pass_progress(&mut self) -> CodePassProgress {
        let queued = self.code_pass_queue().len();
        let staged = self.code_pass.staged.as_ref().map_or(0, |s| s.len());
        CodePassProgress { left: queued + staged, done: self.code_pass.done, ..Default::default() }
    }

    /// Whether indexing `paths` needs the code chunker now: one is a code file chunked at once,
    /// because its definitions are in the index or the batch is not a bulk index (`defer_code`
    /// false). A host loads the code wasm before such an update, so that definitions never give
    /// way to line windows; a vault without code never loads it.
    pub fn code_chunker_wanted(&self, paths: &[String], defer_code: bool) -> bool {
        self.config.code_syntax
            && paths.iter().filter_map(|p| paths::normalize(p).ok()).any(|p| {
                paths::code_language(&p, &self.config).is_some()
                    && paths::exclusion_reason(&p, &self.config).is_none()
                    && (!defer_code || self.catalog.get(&p).is_some_and(|e| !e.code_pending))
            })
    }

    /// The pending files, next first: most recently modified, then by path.
    fn code_pass_queue(&mut self) -> &mut Vec<String> {
        if self.code_pass.queue.is_none() {
            let staged: HashSet<&str> = self.code_pass.staged.iter().flatten().map(|(p, _)| p.as_str()).collect();
            let mut pending: Vec<(f64, &str)> = self
                .catalog
                .entries()
                .filter(|e| e.code_pending)
                .filter(|e| !self.code_pass.dropped.contains(&e.path) && !staged.contains(e.path.as_str()))
                .map(|e| (e.mtime, e.path.as_str()))
                .collect();
            // Popped from the end: the most recent last.
            pending.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)));
            self.code_pass.queue = Some(pending.into_iter().map(|(_, p)| p.to_string()).collect());
        }
        self.code_pass.queue.as_mut().expect("built")
    }

    /// Pops up to `max_files` files that are still pending, with their content hashes.
    fn code_pass_take(&mut self, max_files: usize) -> Vec<(String, String)> {
        let mut batch = Vec::new();
        while batch.len() < max_files.max(1) {
            let Some(path) = self.code_pass_queue().pop() else { break };
            if let Some(e) = self.catalog.get(&path).filter(|e| e.code_pending) {
                batch.push((path, e.hash.clone()));
            }
        }
        batch
    }
}
