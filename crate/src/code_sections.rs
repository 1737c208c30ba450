//! Code as sections: a source file, or a fenced code block larger than the section budget, is
//! chunked by its syntax (`strata_chunker`: tree-sitter) and each chunk becomes a section with its
//! definition ([`SectionCode`]): a file is depth 0, a class 1, a method 2. Breadcrumbs are the
//! heading paths ("SessionRedirectMixin > rebuild_auth"), and hashes and embedding keys are made
//! as for Markdown, so the incremental index, `read`, `similar` and every search mode work on
//! code unchanged, and unchanged code is never embedded again.
//!
//! The chunker runs in this crate natively (feature `code`); the wasm core calls the code wasm
//! through the host's hook `globalThis.__strataChunkCode` (see [`chunker`]), which a host
//! installs only when its vault has code. Without a chunker, code is chunked in line windows.

use strata_chunker::{ChunkKind, CodeFile, CodeLang};

use crate::hash::{sha256, KnownHash};
use crate::markdown::LineIndex;
use crate::sections::{embed_key, Section, SectionCode, HEADING_SEPARATOR};
use crate::token_estimate::estimate_tokens;

/// Chunks `text` of a source file in `lang` by its syntax; without `syntax`, not at all (the
/// file is one section: the baseline `strata eval` compares with). An error when no chunker is
/// available (the wasm core's host has not loaded the code wasm).
pub fn chunk(lang: CodeLang, text: &str, budget: usize, syntax: bool) -> Result<CodeFile, String> {
    if !syntax {
        return Ok(CodeFile {
            lang,
            chunks: Vec::new(),
            error_regions: 0,
            fallback: true,
            imports: None,
            literals: Vec::new(),
        });
    }
    #[cfg(test)]
    if tests::CHUNKER_OFF.get() {
        return Err("no chunker (test)".into());
    }
    chunker::chunk(lang, text, budget)
}

#[cfg(test)]
pub(crate) mod tests {
    thread_local! {
        /// Tests of a host without the code wasm: the chunker reports itself missing.
        pub static CHUNKER_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
}

#[cfg(feature = "code")]
mod chunker {
    use super::*;

    pub fn chunk(lang: CodeLang, text: &str, budget: usize) -> Result<CodeFile, String> {
        Ok(strata_chunker::chunk(lang, text, budget))
    }
}

#[cfg(all(not(feature = "code"), target_arch = "wasm32"))]
mod chunker {
    use super::*;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// Installed by the host (plugin/node/host.ts, the plugin's worker) when its vault has
        /// code: `(lang, text, budgetTokens) => Uint8Array`, the code wasm's `chunkCode`.
        #[wasm_bindgen(js_namespace = globalThis, js_name = __strataChunkCode, catch)]
        fn chunk_code(lang: &str, text: &str, budget: u32) -> Result<js_sys::Uint8Array, JsValue>;
    }

    pub fn chunk(lang: CodeLang, text: &str, budget: usize) -> Result<CodeFile, String> {
        let bytes = chunk_code(lang.name(), text, budget as u32).map_err(|e| {
            let msg = e.as_string().or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())));
            msg.unwrap_or_else(|| "the host has not loaded the code wasm (globalThis.__strataChunkCode)".into())
        })?;
        CodeFile::decode(&bytes.to_vec())
    }
}

#[cfg(all(not(feature = "code"), not(target_arch = "wasm32")))]
mod chunker {
    use super::*;

    pub fn chunk(_: CodeLang, _: &str, _: usize) -> Result<CodeFile, String> {
        Err("this build has no code chunker (feature `code`)".into())
    }
}

/// The sections of a source file: the whole file (depth 0), then its chunks in pre-order.
pub fn file_sections(
    path: &str,
    text: &str,
    file: &CodeFile,
    line_count: u32,
    known: Option<KnownHash>,
) -> Vec<Section> {
    let lines = LineIndex::new(text);
    let range = lines.byte_range(text, 1, line_count.max(1));
    let hash = match known {
        Some(k) if range.start == 0 && range.end == k.len => k.hash,
        _ => sha256(text[range].as_bytes()),
    };
    let root = Section {
        order: 0,
        parent: None,
        depth: 0,
        heading_path: String::new(),
        start_line: 1,
        end_line: line_count.max(1),
        tokens: estimate_tokens(text) as u32,
        hash,
        embed_key: None,
        code: None,
    };
    let mut out = vec![root];
    push_chunks(text, &lines, file, 0, 0, &mut out);
    if out.len() == 1 {
        // No chunks: the file is one section, embedded whole (up to the model's limit).
        out[0].embed_key = Some(embed_key(text.trim()));
    }
    set_embed_keys(path, text, &mut out, 1);
    out
}

/// Appends the chunks of `file` (whose line 1 is line `offset + 1` of `text`) under section
/// `parent`; their breadcrumbs continue the parent's heading path.
fn push_chunks(text: &str, lines: &LineIndex, file: &CodeFile, offset: u32, parent: u32, out: &mut Vec<Section>) {
    let first = out.len() as u32;
    let line_count = lines.line_count();
    for c in &file.chunks {
        let (start, end) = ((c.start_line + offset).min(line_count), (c.end_line + offset).min(line_count));
        if start == 0 || end < start {
            continue;
        }
        let up = match c.parent {
            Some(p) if first + p < out.len() as u32 => first + p,
            _ => parent,
        };
        let up_section = &out[up as usize];
        let mut heading_path = up_section.heading_path.clone();
        let up_name = up_section.code.as_ref().map(|c| c.name.as_str()).unwrap_or("");
        let mut push = |name: &str| {
            if !name.is_empty() {
                if !heading_path.is_empty() {
                    heading_path.push_str(HEADING_SEPARATOR);
                }
                heading_path.push_str(name);
            }
        };
        push(&c.container);
        // A part of an oversized definition keeps the definition's name: not repeated.
        if !(c.kind == ChunkKind::Lines && c.name == up_name) {
            push(&c.name);
        }
        let hash = sha256(text[lines.byte_range(text, start, end)].as_bytes());
        out.push(Section {
            order: out.len() as u32,
            parent: Some(up),
            depth: out[up as usize].depth.saturating_add(1),
            heading_path,
            start_line: start,
            end_line: end,
            tokens: 0,
            hash,
            embed_key: None,
            code: Some(Box::new(SectionCode {
                lang: file.lang.id(),
                kind: c.kind.id(),
                name: c.name.clone(),
                signature: c.signature.clone(),
                signature_end_line: c.signature_end_line + offset,
                doc: c.doc.clone(),
                syntax_errors: c.has_syntax_errors,
            })),
        });
    }
}

/// Token estimates and embedding keys of the code sections from `from` on: each has a vector
/// when it has text of its own (a class's declaration and fields beside its methods).
fn set_embed_keys(path: &str, text: &str, sections: &mut [Section], from: usize) {
    let tree = Tree::new(text, sections);
    let mut keys = Vec::new();
    for i in from..sections.len() {
        if sections[i].code.is_none() {
            continue;
        }
        let own = tree.own_text(sections, i, false);
        let key = (!own.trim().is_empty()).then(|| embed_key(&tree.embed_text(path, sections, i)));
        keys.push((i, estimate_tokens(&own) as u32, key));
    }
    for (i, tokens, key) in keys {
        sections[i].tokens = tokens;
        sections[i].embed_key = key;
    }
}

/// A note's text with its line index and each section's children: what own texts are cut
/// from (built once per note; every section's text is cut in time linear in its own lines).
pub struct Tree<'a> {
    text: &'a str,
    lines: LineIndex,
    children: Vec<Vec<u32>>,
}

impl<'a> Tree<'a> {
    pub fn new(text: &'a str, sections: &[Section]) -> Tree<'a> {
        let mut children = vec![Vec::new(); sections.len()];
        for s in sections {
            if let Some(p) = s.parent.filter(|p| (*p as usize) < sections.len()) {
                children[p as usize].push(s.order);
            }
        }
        Tree { text, lines: LineIndex::new(text), children }
    }

    /// Section `i`'s own lines: its lines without its children's. With `collapse`, each child
    /// is replaced by its signature and "…" (a class's embedded text lists its methods).
    pub fn own_text(&self, sections: &[Section], i: usize, collapse: bool) -> String {
        let (text, lines) = (self.text, &self.lines);
        let s = &sections[i];
        let mut out = String::new();
        let mut next = s.start_line;
        for &k in &self.children[i] {
            let c = &sections[k as usize];
            if c.start_line > next {
                out.push_str(&text[lines.byte_range(text, next, c.start_line - 1)]);
                out.push('\n');
            }
            if collapse {
                if let Some(sig) = c.code.as_ref().map(|c| c.signature.as_str()).filter(|s| !s.is_empty()) {
                    out.push_str(sig);
                    out.push_str(" …\n");
                }
            }
            next = next.max(c.end_line + 1);
        }
        if next <= s.end_line {
            out.push_str(&text[lines.byte_range(text, next, s.end_line)]);
        }
        out
    }

    /// The text embedded for code section `i` of the file or note at `path`.
    ///
    /// A definition is embedded by what describes it: the path, its breadcrumb and kind, its
    /// doc comment and its signature; its body is left out (measured on `tests/eval-code`'s
    /// questions, semantic definition hit@5 .46 with the body, .66 without:
    /// docs/benchmarks.md, Code). Data (JSON, YAML) and line windows (a part of an oversized
    /// definition, a file the parser gave up on), whose lines are all they have, are embedded
    /// with their lines: the path, the breadcrumb, the definition's signature for a part, then
    /// the own lines with children collapsed to their signatures. The path is part of every
    /// code key: moving or renaming a source file embeds its definitions again.
    pub fn embed_text(&self, path: &str, sections: &[Section], i: usize) -> String {
        let s = &sections[i];
        let mut out = String::from(path);
        out.push('\n');
        out.push_str(&s.heading_path);
        if let Some(code) = s.code.as_ref().filter(|c| describes(c)) {
            out.push_str(" (");
            out.push_str(code.kind().name());
            out.push(')');
            for part in [&code.doc, &code.signature] {
                if !part.is_empty() {
                    out.push('\n');
                    out.push_str(part.trim());
                }
            }
            return out;
        }
        out.push_str("\n\n");
        let parent = s.parent.and_then(|p| sections.get(p as usize)).and_then(|p| p.code.as_ref());
        if let (Some(code), Some(sig)) = (&s.code, parent.map(|c| &c.signature)) {
            if code.kind() == ChunkKind::Lines && !sig.is_empty() {
                out.push_str(sig);
                out.push_str("\n…\n");
            }
        }
        out.push_str(self.own_text(sections, i, true).trim());
        out
    }
}

/// Whether a code section is embedded by its description (a definition in a programming
/// language) rather than by its lines.
fn describes(code: &SectionCode) -> bool {
    code.kind() != ChunkKind::Lines && !matches!(code.lang(), CodeLang::Json | CodeLang::Yaml)
}

/// The lead vector's text of a source file chunked into definitions: its path, its module doc
/// comments, and its top-level definitions' names (what the file holds, as its definitions'
/// vectors describe each); `None` for anything else (a note, an unchunked file).
pub fn lead_text(path: &str, sections: &[Section]) -> Option<String> {
    let code: Vec<&SectionCode> = sections.iter().skip(1).filter_map(|s| s.code.as_deref()).collect();
    if code.is_empty() || code.len() + 1 != sections.len() {
        return None;
    }
    let mut out = String::from(path);
    for c in code.iter().filter(|c| c.kind() == ChunkKind::Module && !c.doc.is_empty()) {
        out.push('\n');
        out.push_str(&c.doc);
    }
    let names: Vec<&str> = sections
        .iter()
        .filter(|s| s.depth == 1)
        .filter_map(|s| s.code.as_deref())
        .filter(|c| c.kind() != ChunkKind::Module && c.kind() != ChunkKind::Lines && !c.name.is_empty())
        .map(|c| c.name.as_str())
        .collect();
    if !names.is_empty() {
        out.push('\n');
        out.push_str(&names.join(", "));
    }
    let mut cut = out.len().min(crate::ranking::LEAD_MAX_BYTES);
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    Some(out)
}

/// [`Tree::embed_text`] of one section.
pub fn embed_text(path: &str, text: &str, sections: &[Section], i: usize) -> String {
    Tree::new(text, sections).embed_text(path, sections, i)
}

/// Adds the chunks of the note's large fenced code blocks as children of the sections that
/// hold them. `sections` are the note's Markdown sections (pre-order); the result is pre-order
/// again, orders and parents renumbered. A block is chunked when its language is known and it
/// is over `budget` estimated tokens; smaller blocks stay part of their section's text, and so
/// do large ones when no chunker is available (`missing` is then set).
pub fn add_code_blocks(
    path: &str,
    text: &str,
    sections: Vec<Section>,
    blocks: &[crate::markdown::CodeBlock],
    budget: usize,
    syntax: bool,
    missing: &mut bool,
) -> Vec<Section> {
    if blocks.is_empty() {
        return sections;
    }
    let lines = LineIndex::new(text);
    let mut chunked: Vec<(u32, CodeFile)> = Vec::new();
    for b in blocks {
        let Some(lang) = CodeLang::from_info_string(&b.info) else { continue };
        if b.first_line > b.last_line {
            continue;
        }
        let code = &text[lines.byte_range(text, b.first_line, b.last_line)];
        if estimate_tokens(code) <= budget {
            continue;
        }
        match chunk(lang, code, budget, syntax) {
            Ok(file) => chunked.push((b.first_line - 1, file)),
            // Without a chunker the block stays whole in its section, as a small one does.
            Err(_) => *missing = true,
        }
    }
    if chunked.is_empty() {
        return sections;
    }
    let mut renumber = vec![0u32; sections.len()];
    let mut out: Vec<Section> = Vec::with_capacity(sections.len());
    for (old, mut s) in sections.into_iter().enumerate() {
        renumber[old] = out.len() as u32;
        s.order = out.len() as u32;
        s.parent = s.parent.map(|p| renumber[p as usize]);
        let is_leaf = s.embed_key.is_some();
        let (start, end) = (s.start_line, s.end_line);
        let at = out.len() as u32;
        out.push(s);
        if !is_leaf {
            continue;
        }
        let from = out.len();
        for (offset, file) in chunked.iter().filter(|(o, _)| *o + 1 >= start && *o < end) {
            push_chunks(text, &lines, file, *offset, at, &mut out);
        }
        set_embed_keys(path, text, &mut out, from);
    }
    out
}
