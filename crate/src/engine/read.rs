//! Reading a note: a section, a heading, a line range or the whole note, from its current
//! bytes (a note edited since it was indexed is answered from a fresh parse of them).

use super::{parse_section_id, section_id, Engine, DEFAULT_READ_LINES};
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::error::{CoreError, Result};
use crate::hash::sha256_hex;
use crate::markdown;
use crate::paths;
use crate::sections::{Section, HEADING_SEPARATOR};

impl Engine {
    /// A section, a heading, a line range or the whole of an indexed note, from its current
    /// bytes (`req.bytes`, read by the host). When they are the indexed version, sections
    /// and section ids are the index's; when the note was edited since, the answer comes
    /// from a fresh parse of these bytes (a section id then names the section with the same
    /// heading path), so lines and text are those of the note as it is now, and
    /// `contentHash` is theirs.
    pub fn read(&self, req: &ReadRequest) -> Result<ReadResult> {
        let path = paths::normalize(&req.path)?;
        let indexed =
            self.catalog.get(&path).ok_or_else(|| CoreError::BadRequest(format!("not in the index: {path}")))?;
        let bytes = req.bytes.as_deref().ok_or_else(|| {
            CoreError::BadRequest(format!(
                "read needs the current bytes of {path} (`bytes`): the index does not store note text"
            ))
        })?;
        let text = markdown::decode(bytes).text;
        let hash = sha256_hex(bytes);
        let fresh = (hash != indexed.hash).then(|| self.current_entry(&path, &text, hash));
        let note = fresh.as_ref().unwrap_or(indexed);
        if let Some(symbol) = req.symbol.as_deref().filter(|s| !s.trim().is_empty()) {
            return self.read_symbol(&path, &text, note, fresh.is_some().then_some(indexed), symbol, req);
        }
        let whole = note.section(0).cloned();
        let mut section: Option<Section> = None;
        let (mut start, mut end) = (1u32, note.line_count.max(1));
        if req.whole {
            section = whole;
        } else if let Some(id) = &req.section_id {
            let (p, order) =
                parse_section_id(id).ok_or_else(|| CoreError::BadRequest(format!("not a section id: {id}")))?;
            if p != path {
                return Err(CoreError::BadRequest(format!("section {id} is not in {path}")));
            }
            let mut s = indexed.section(order).ok_or_else(|| CoreError::BadRequest(format!("no section {id}")))?;
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
            let (s, e, hp) =
                find_heading(&text, h).ok_or_else(|| CoreError::BadRequest(format!("no heading {h:?} in {path}")))?;
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
                    code: None,
                    imports: None,
                    lang: note.lang.clone(),
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
            code: section.as_ref().and_then(|s| s.code.as_deref()).map(CodeInfo::of),
            heading_path: section.map(|s| s.heading_path).unwrap_or_default(),
            start_line: start,
            end_line: end,
            text: String::new(),
            truncated: false,
            imports: None,
            lang: note.lang.clone(),
        };
        Ok(finish_read(r, &text, req))
    }

    /// A note's entry for `text` without indexing it: its sections as the index would make
    /// them, for a note edited since it was indexed (`read`, `snippets`).
    pub(super) fn current_entry(&self, path: &str, text: &str, hash: String) -> NoteEntry {
        let entry = |title: String, sections: Vec<Section>, line_count: u32, body_start_line: u32| NoteEntry {
            path: path.to_string(),
            hash,
            size: text.len() as u64,
            mtime: 0.0,
            ctime: None,
            title,
            frontmatter: "{}".into(),
            aliases: Vec::new(),
            tags: Vec::new(),
            links: Default::default(),
            sections,
            line_count,
            body_start_line,
            lead_key: None,
            lead_end_line: 0,
            script: Default::default(),
            lang: String::new(),
            tasks: Vec::new(),
            code_pending: false,
        };
        if let Some(lang) = paths::code_language(path, &self.config) {
            let chunks = crate::code_sections::chunk(lang, text, self.config.chunk_budget, self.config.code_syntax)
                .unwrap_or_else(|_| strata_chunker::CodeFile::line_windows(lang, text, self.config.chunk_budget));
            let line_count = markdown::LineIndex::new(text).line_count();
            let sections = crate::code_sections::file_sections(path, text, &chunks, line_count, None);
            return entry(paths::file_name(path).to_string(), sections, line_count, 1);
        }
        let parsed = markdown::parse(path, text);
        let (sections, _) = self.note_sections(path, text, &parsed, None);
        entry(parsed.title, sections, parsed.line_count, parsed.body_start_line)
    }
}

/// Finds a heading by text or by heading path ("A > B"), case-insensitively; returns its
/// line range (to the next heading of the same or a higher level: the note's outline) and
/// heading path.
pub(super) fn find_heading(text: &str, wanted: &str) -> Option<(u32, u32, String)> {
    let wanted = wanted.trim().trim_start_matches('#').trim().to_lowercase();
    let suffix = format!("{HEADING_SEPARATOR}{wanted}");
    crate::outline::outline(text).headings.into_iter().find_map(|h| {
        let hp = h.path.join(HEADING_SEPARATOR);
        let lower = hp.to_lowercase();
        (h.text.to_lowercase() == wanted || lower == wanted || lower.ends_with(&suffix))
            .then_some((h.line, h.end_line, hp))
    })
}

/// The section of `to` (another version of a note: its current text, or the indexed one)
/// that stands for `sec`, a section of `from`: the same heading path at the same depth (the
/// n-th such one when headings repeat). None when the heading is not there.
pub(super) fn matching_section<'a>(from: &NoteEntry, sec: &Section, to: &'a NoteEntry) -> Option<&'a Section> {
    let same = |s: &&Section| s.depth == sec.depth && s.heading_path == sec.heading_path;
    let nth = from.sections.iter().filter(same).take_while(|s| s.order != sec.order).count();
    to.sections.iter().filter(same).nth(nth)
}

pub(super) fn finish_read(mut r: ReadResult, text: &str, req: &ReadRequest) -> ReadResult {
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
