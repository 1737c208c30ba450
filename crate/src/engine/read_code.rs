//! Reading a definition of a source file by its name (`read` with `symbol`): the definition
//! with a few lines of context, its section id, and the file's imports.

use super::read::{finish_read, matching_section};
use super::{section_id, Engine};
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::error::{CoreError, Result};
use crate::markdown::slice_lines;
use crate::paths;
use crate::sections::{Section, HEADING_SEPARATOR};

/// Lines shown above and below a definition read by name.
pub const SYMBOL_CONTEXT_LINES: u32 = 2;

/// The names of a symbol: "A.b", "A::b", "A > b", "A#b" → ["A", "b"].
fn symbol_names(symbol: &str) -> Vec<&str> {
    symbol.split(['.', '#', '>', '/']).flat_map(|s| s.split("::")).map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// Whether a section's breadcrumb ends with the names (exact case when `exact`).
fn names_match(sec: &Section, names: &[&str], exact: bool) -> bool {
    let Some(code) = &sec.code else { return false };
    if code.name.is_empty() {
        return false;
    }
    let crumbs: Vec<&str> = sec.heading_path.split(HEADING_SEPARATOR).collect();
    if crumbs.len() < names.len() || crumbs.last() != Some(&code.name.as_str()) {
        return false;
    }
    crumbs[crumbs.len() - names.len()..]
        .iter()
        .zip(names)
        .all(|(a, b)| if exact { a == b } else { a.eq_ignore_ascii_case(b) })
}

impl Engine {
    pub(super) fn read_symbol(
        &self,
        path: &str,
        text: &str,
        note: &NoteEntry,
        indexed: Option<&NoteEntry>,
        symbol: &str,
        req: &ReadRequest,
    ) -> Result<ReadResult> {
        let Some(lang) = paths::code_language(path, &self.config) else {
            return Err(CoreError::BadRequest(format!("{path} is not a code file: read it by heading or section id")));
        };
        let names = symbol_names(symbol);
        if names.is_empty() {
            return Err(CoreError::BadRequest(format!("not a symbol: {symbol:?}")));
        }
        // Exact case first; a definition beats a part of it (an oversized one's windows).
        let found = [true, false]
            .into_iter()
            .find_map(|exact| note.sections.iter().filter(|s| names_match(s, &names, exact)).min_by_key(|s| s.depth));
        let Some(sec) = found else {
            let known: Vec<&str> = note
                .sections
                .iter()
                .filter_map(|s| s.code.as_ref().filter(|c| !c.name.is_empty()).map(|_| s.heading_path.as_str()))
                .take(20)
                .collect();
            return Err(CoreError::BadRequest(format!(
                "no definition {symbol:?} in {path}; its definitions include: {}",
                known.join(", ")
            )));
        };
        let id = match indexed {
            None => Some(sec.order),
            Some(indexed) => matching_section(note, sec, indexed).map(|s| s.order),
        };
        let imports = crate::code_sections::chunk(lang, text, self.config.chunk_budget, self.config.code_syntax)
            .ok()
            .and_then(|c| c.imports)
            .filter(|(a, b)| a <= b && *b < sec.start_line)
            .map(|(a, b)| slice_lines(text, a, b).to_string());
        let r = ReadResult {
            path: path.to_string(),
            title: note.title.clone(),
            content_hash: note.hash.clone(),
            section_id: id.map(|o| section_id(path, o)),
            heading_path: sec.heading_path.clone(),
            start_line: sec.start_line.saturating_sub(SYMBOL_CONTEXT_LINES).max(1),
            end_line: (sec.end_line + SYMBOL_CONTEXT_LINES).min(note.line_count.max(1)),
            text: String::new(),
            truncated: false,
            code: sec.code.as_deref().map(CodeInfo::of),
            imports,
            lang: note.lang.clone(),
        };
        Ok(finish_read(r, text, req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_split_into_names() {
        assert_eq!(symbol_names("SessionRedirectMixin.rebuild_auth"), ["SessionRedirectMixin", "rebuild_auth"]);
        assert_eq!(symbol_names("a::b::c"), ["a", "b", "c"]);
        assert_eq!(symbol_names("A > b"), ["A", "b"]);
        assert!(symbol_names(" . ").is_empty());
    }
}
