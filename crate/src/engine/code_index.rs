//! Indexing source files: chunked by their syntax ([`crate::code_sections`]), each chunk a section
//! with its definition, indexed in the code fields (identifiers whole and split, names and
//! signatures boosted) and filterable by language and kind.

use strata_chunker::{ChunkKind, CodeLang};

use super::code_texts::CodeTexts;
use super::index::FileFacts;
use super::Engine;
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::error::Result;
use crate::language::Stem;
use crate::lexical::SectionDoc;
use crate::markdown::LineIndex;
use crate::paths;

impl Engine {
    /// Indexes a source file: its chunks are its sections; the file name is its title. In a bulk
    /// index (`defer_code`) a file without definitions in the index yet is indexed in line
    /// windows and left to the code pass (`code_pass.rs`); so is a file the chunker is missing
    /// for (the host has not loaded the code wasm).
    pub(super) fn index_code(
        &mut self,
        path: &str,
        text: &str,
        lang: CodeLang,
        file: FileFacts,
        report: &mut UpdateReport,
    ) -> Result<()> {
        let defer = self.defer_code && self.config.code_syntax && !file.defined;
        let chunks = if defer {
            None
        } else {
            match crate::code_sections::chunk(lang, text, self.config.chunk_budget, self.config.code_syntax) {
                Ok(chunks) => Some(chunks),
                Err(e) => {
                    let message = format!("code chunker unavailable ({e}): indexed in line windows until it is loaded");
                    report.warnings.push(Warning { path: path.to_string(), message });
                    None
                }
            }
        };
        self.index_code_chunks(path, text, lang, file, chunks, report)
    }

    /// [`Engine::index_code`] with the file's chunks (None: line windows, pending the code pass).
    pub(super) fn index_code_chunks(
        &mut self,
        path: &str,
        text: &str,
        lang: CodeLang,
        file: FileFacts,
        chunked: Option<strata_chunker::CodeFile>,
        report: &mut UpdateReport,
    ) -> Result<()> {
        let FileFacts { hash, size, mtime, ctime, existed, known, .. } = file;
        let pending = chunked.is_none();
        self.code_pass.forget(path);
        let chunks =
            chunked.unwrap_or_else(|| strata_chunker::CodeFile::line_windows(lang, text, self.config.chunk_budget));
        let unparsed = chunks.fallback && chunks.error_regions == 0;
        if unparsed && !pending && self.config.code_syntax && !chunks.chunks.is_empty() && !report_has(report, path) {
            let message =
                "not parsed (minified or bundled code, or beyond the parser's limits): indexed in line windows";
            report.warnings.push(Warning { path: path.to_string(), message: message.into() });
        } else if chunks.error_regions > 0 {
            let n = chunks.error_regions;
            let message = format!(
                "{n} syntax-error region{}: the definitions around {} are indexed, the damaged lines as plain text",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" }
            );
            report.warnings.push(Warning { path: path.to_string(), message });
        }
        let lines = LineIndex::new(text);
        let line_count = lines.line_count();
        let sections = crate::code_sections::file_sections(path, text, &chunks, line_count, known);
        let mut texts = CodeTexts::of(text, &sections);
        texts.add_literals(&sections, &chunks.literals);
        let folders = paths::folder_prefixes(path);
        let title = paths::file_name(path).to_string();
        let mut titles = vec![title.clone()];
        let stem = paths::stem(path);
        if stem != title {
            titles.push(stem.to_string());
        }
        let docs: Vec<SectionDoc> = sections
            .iter()
            .enumerate()
            .map(|(i, s)| SectionDoc {
                path,
                order: s.order,
                depth: s.depth,
                folders: &folders,
                titles: &titles,
                aliases: &[],
                headings: &s.heading_path,
                tags: &[],
                props: &[],
                // The whole file's own text is what no chunk covers (blank lines), or all of it
                // when it has no chunks.
                body: texts.body(i).unwrap_or(if sections.len() == 1 { text } else { "" }),
                stem: Stem::ENGLISH,
                code: texts.doc(i, s),
            })
            .collect();
        if existed {
            self.lex.delete_note(path)?;
        }
        report.sections += docs.len();
        self.lex.add_note(path, docs)?;
        // The lead: the file's opening module chunk (its doc comment and imports).
        let lead_end_line = sections
            .get(1)
            .filter(|s| s.start_line <= 2 && s.code.as_ref().is_some_and(|c| c.kind() == ChunkKind::Module))
            .map_or(0, |s| s.end_line);
        let mut entry = NoteEntry {
            path: path.to_string(),
            hash,
            size,
            mtime,
            ctime,
            title,
            frontmatter: "{}".into(),
            aliases: Vec::new(),
            tags: Vec::new(),
            links: crate::catalog::PackedLinks::default(),
            sections,
            line_count,
            body_start_line: 1,
            lead_key: None,
            lead_end_line,
            // Code does not choose the vault's embedding model: its prose is its notes'.
            script: Default::default(),
            lang: String::new(),
            tasks: Vec::new(),
            code_pending: pending,
        };
        entry.lead_key = Some(crate::sections::embed_key(&entry.lead_text(text)));
        self.catalog.insert(entry);
        Ok(())
    }
}

/// Whether the report already has a warning for `path` (the chunker's absence said once).
fn report_has(report: &UpdateReport, path: &str) -> bool {
    report.warnings.iter().any(|w| w.path == path)
}
