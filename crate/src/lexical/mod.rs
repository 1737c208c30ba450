//! The lexical index: tantivy BM25 over sections, held in memory ([`memdir`]), committed by
//! the thread-free [`writer`] layer, persisted by exporting its immutable files.

pub mod coverage;
mod memdir;
pub mod schema;
pub mod search;
pub mod writer;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tantivy::index::SegmentMeta;
use tantivy::{Directory, Index, IndexReader, ReloadPolicy, Searcher};

use crate::analyzer;
use crate::error::{CoreError, Result};
use memdir::MemDir;
pub use schema::{CodeDoc, Fields, SectionDoc};
use writer::{Committer, Staged};

pub struct Lexical {
    ram: MemDir,
    index: Index,
    reader: IndexReader,
    pub fields: Fields,
    segments: Vec<SegmentMeta>,
    opstamp: u64,
    staged: Staged,
    /// Files of the committed segments.
    files: HashSet<PathBuf>,
    /// The language the index's analyzer stems the next section in (see [`analyzer::LangSlot`]).
    slot: analyzer::LangSlot,
    /// Collects each section's exact forms while it is added (see [`analyzer::ExactSink`]).
    exact: analyzer::ExactSink,
    /// Whether a committed section has a string literal (set at each reader reload, read by
    /// every search).
    has_literals: bool,
}

const META: &str = "meta.json";

impl Lexical {
    /// A new, empty index.
    pub fn create() -> Result<Lexical> {
        let (schema, fields) = schema::build_schema();
        let ram = MemDir::default();
        let index = Index::create(ram.clone(), schema, writer::index_settings())?;
        Lexical::finish_open(ram, index, fields)
    }

    /// Opens an index from tantivy's meta JSON and the raw bytes of its segment files.
    pub fn open(meta_json: &str, files: Vec<(String, Vec<u8>)>) -> Result<Lexical> {
        let (schema, fields) = schema::build_schema();
        let ram = MemDir::default();
        for (name, bytes) in files {
            // Moved in, not copied: the segment files are most of the index's bytes.
            ram.insert(Path::new(&name), bytes);
        }
        ram.atomic_write(Path::new(META), meta_json.as_bytes())?;
        let index = Index::open(ram.clone()).map_err(|e| CoreError::Corrupt(format!("lexical index: {e}")))?;
        if index.schema() != schema {
            return Err(CoreError::Corrupt("lexical index has a different schema".into()));
        }
        let lex = Lexical::finish_open(ram, index, fields)?;
        // Open every segment now so a damaged file is found here, not at the first search.
        let searcher = lex.reader.searcher();
        for r in searcher.segment_readers() {
            r.inverted_index(lex.fields.body).map_err(|e| CoreError::Corrupt(format!("lexical segment: {e}")))?;
            r.get_store_reader(1).map_err(|e| CoreError::Corrupt(format!("lexical store: {e}")))?;
        }
        Ok(lex)
    }

    fn finish_open(ram: MemDir, index: Index, fields: Fields) -> Result<Lexical> {
        // Tokenizers are not persisted: register ours after every open.
        let slot = analyzer::LangSlot::default();
        let exact = analyzer::ExactSink::default();
        index.tokenizers().register(analyzer::TOKENIZER_NAME, analyzer::analyzer(slot.clone(), exact.clone()));
        index.tokenizers().register(
            analyzer::identifiers::CODE_TOKENIZER_NAME,
            analyzer::identifiers::code_analyzer_into(Some(exact.clone())),
        );
        index
            .tokenizers()
            .register(analyzer::identifiers::LITERAL_TOKENIZER_NAME, analyzer::identifiers::literal_analyzer());
        index.tokenizers().register(analyzer::EXACT_TOKENIZER_NAME, analyzer::exact_analyzer(exact.clone()));
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let metas = index.load_metas()?;
        let files = writer::segment_files(&index, &ram, &metas.segments);
        let mut lex = Lexical {
            ram,
            reader,
            fields,
            segments: metas.segments,
            opstamp: metas.opstamp,
            staged: Staged::default(),
            files,
            index,
            slot,
            exact,
            has_literals: false,
        };
        lex.has_literals = lex.count_literals();
        Ok(lex)
    }

    fn committer(&self) -> Committer<'_> {
        Committer { index: &self.index, ram: &self.ram, path_field: self.fields.path }
    }

    /// Stages the removal of every section of `path` (applied at the next commit).
    pub fn delete_note(&mut self, path: &str) -> Result<()> {
        if self.staged.paths.contains(path) {
            // The note was added in this uncommitted batch: commit so the delete sees it.
            self.commit()?;
        }
        self.staged.deletes.insert(path.to_string());
        Ok(())
    }

    /// Stages the sections of one note. Call `delete_note` first when it replaces one.
    pub fn add_note(&mut self, path: &str, docs: Vec<SectionDoc>) -> Result<()> {
        if self.staged.paths.contains(path) {
            self.commit()?;
            self.staged.deletes.insert(path.to_string());
        }
        self.staged.paths.insert(path.to_string());
        let opstamp = self.opstamp + 1;
        for d in docs {
            // The segment writer tokenizes inside `add`, with clones of the index's analyzers
            // that share this slot and this sink.
            self.slot.set(d.stem);
            let doc = self.fields.document(d);
            let committer = Committer { index: &self.index, ram: &self.ram, path_field: self.fields.path };
            self.exact.begin();
            let added = committer.add(&mut self.staged, opstamp, doc);
            self.exact.end();
            added?;
        }
        Ok(())
    }

    pub fn has_staged(&self) -> bool {
        !self.staged.is_empty()
    }

    /// Makes staged changes searchable: new segment, delete files, merges, meta swap.
    pub fn commit(&mut self) -> Result<bool> {
        if self.staged.is_empty() {
            return Ok(false);
        }
        self.opstamp += 1;
        let opstamp = self.opstamp;
        let mut staged = std::mem::take(&mut self.staged);
        let segments = self.committer().apply(&self.segments, &mut staged, opstamp)?;
        self.install(segments)?;
        // Merge policy: run until nothing qualifies (usually zero or one round).
        for _ in 0..4 {
            let groups = Committer::merge_candidates(&self.segments);
            if groups.is_empty() {
                break;
            }
            let mut segments = self.segments.clone();
            for group in groups {
                let merged = self.committer().merge(&group)?;
                let ids: HashSet<_> = group.iter().map(|m| m.id()).collect();
                segments.retain(|m| !ids.contains(&m.id()));
                segments.extend(merged);
            }
            self.install(segments)?;
        }
        Ok(true)
    }

    /// Swaps in a new segment list: meta.json, reader reload, drop unreferenced files.
    fn install(&mut self, segments: Vec<SegmentMeta>) -> Result<()> {
        let json = writer::meta_json(&self.index, segments.clone(), self.opstamp)?;
        self.ram.atomic_write(Path::new(META), json.as_bytes())?;
        self.reader.reload()?;
        self.has_literals = self.count_literals();
        let files = writer::segment_files(&self.index, &self.ram, &segments);
        for old in self.files.difference(&files) {
            let _ = self.ram.delete(old);
        }
        self.files = files;
        self.segments = segments;
        Ok(())
    }

    pub fn meta_json(&self) -> Result<String> {
        writer::meta_json(&self.index, self.segments.clone(), self.opstamp)
    }

    pub fn files(&self) -> &HashSet<PathBuf> {
        &self.files
    }

    pub fn read_file(&self, name: &Path) -> Result<Vec<u8>> {
        writer::read_raw(&self.ram, name)
    }

    /// Sets the language the index's analyzer stems in: a snippet of a note's text is
    /// tokenized as the note was.
    pub fn set_text_language(&self, stem: crate::language::Stem) {
        self.slot.set(stem);
    }

    pub fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    pub fn deleted_docs(&self) -> u64 {
        self.segments.iter().map(|s| s.num_deleted_docs() as u64).sum()
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn bytes(&self) -> u64 {
        self.ram.total_mem_usage() as u64
    }
}

#[cfg(test)]
mod tests;
