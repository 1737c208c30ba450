//! A source file's syntax tree → chunks. Definitions are found among the top-level nodes and,
//! below them, in the bodies of containers (classes, impls, traits, namespaces) down to three
//! levels; other nodes are searched through (a C `#ifdef`, a Python `if`, a JS IIFE) but a
//! definition's body is not (a function's inner functions are part of its text). The lines
//! between top-level definitions form module chunks; `ERROR` regions become line windows; a
//! definition whose own text exceeds the budget is split into `Lines` children that keep its
//! name and repeat its signature.

use tree_sitter::Node;

use crate::lang::{self, classify, is_comment, is_leading_attribute, Found};
use crate::text::{collapse, truncate, Lines, DOC_MAX_BYTES, SIGNATURE_MAX_BYTES};
use crate::{Chunk, ChunkKind, CodeLang};

/// Definitions nest at most this deep (a top-level definition is level 1: file = 0, class = 1,
/// method = 2, a nested class's method = 3), as the core's sections do.
pub(crate) const MAX_LEVEL: u8 = 3;
/// Nodes that are not definitions are searched through this many levels deep.
const MAX_SEARCH_DEPTH: usize = 24;

/// A definition (or an `ERROR` region) before it becomes chunks. Rows are 0-based.
pub(crate) struct Item {
    pub kind: ChunkKind,
    pub name: String,
    pub container: String,
    pub signature: String,
    pub sig_end: u32,
    pub doc: String,
    /// The first row, doc comments and attributes above the definition included.
    pub start: u32,
    /// The definition node's own first row.
    pub node_start: u32,
    pub end: u32,
    pub level: u8,
    pub children: Vec<Item>,
    pub overload: bool,
    /// An `ERROR` region: line windows.
    pub error: bool,
}

/// The last row a node's text is on (a node ending with its line break ends on the row before).
pub(crate) fn last_row(node: Node) -> u32 {
    let (s, e) = (node.start_position(), node.end_position());
    if e.column == 0 && e.row > s.row {
        (e.row - 1) as u32
    } else {
        e.row as u32
    }
}

pub(crate) struct Walk<'a> {
    pub lang: CodeLang,
    pub lines: &'a Lines<'a>,
}

impl Walk<'_> {
    fn src(&self) -> &str {
        self.lines.text()
    }

    /// The definitions under `parent` at `level`, in order, without overlaps, overloads merged.
    pub(crate) fn collect(&self, parent: Node, level: u8, in_type: bool) -> Vec<Item> {
        let mut out = Vec::new();
        self.search(parent, level, in_type, 0, &mut out);
        normalize(out)
    }

    fn search(&self, parent: Node, level: u8, in_type: bool, depth: usize, out: &mut Vec<Item>) {
        for child in lang::named_children(parent) {
            if child.is_error() {
                let (start, end) = (child.start_position().row as u32, last_row(child));
                out.push(Item::region(start, end, level));
            } else if is_comment(child.kind()) {
                continue;
            } else if let Some(found) = classify(self.lang, child, self.src(), in_type) {
                out.push(self.item(child, found, level));
            } else if depth < MAX_SEARCH_DEPTH && child.named_child_count() > 0 {
                self.search(child, level, in_type, depth + 1, out);
            }
        }
    }

    fn item(&self, node: Node, found: Found, level: u8) -> Item {
        let src = self.src();
        let (first, docs) = self.leading(node);
        let node_start = node.start_position().row as u32;
        let (signature, sig_end) = self.signature(node, found.body);
        let doc = match found.docstring {
            Some(s) => clean_doc(lang::text(s, src)),
            None => clean_doc(&docs.iter().map(|d| lang::text(*d, src)).collect::<Vec<_>>().join("\n")),
        };
        let children = match found.members {
            Some(m) if level < MAX_LEVEL => self.collect(m, level + 1, found.kind != ChunkKind::Module),
            _ => Vec::new(),
        };
        Item {
            kind: found.kind,
            name: truncate(found.name.trim(), SIGNATURE_MAX_BYTES).to_string(),
            container: truncate(&found.container, SIGNATURE_MAX_BYTES).to_string(),
            signature,
            sig_end,
            doc,
            start: first,
            node_start,
            end: last_row(node).max(node_start),
            level,
            children,
            overload: found.overload,
            error: false,
        }
    }

    /// The first row of a definition with the comments and attributes directly above it (no
    /// blank line between), and those comments.
    pub(crate) fn leading<'t>(&self, node: Node<'t>) -> (u32, Vec<Node<'t>>) {
        let mut first = node.start_position().row as u32;
        let mut docs = Vec::new();
        let mut cur = node.prev_named_sibling();
        while let Some(p) = cur {
            let kind = p.kind();
            let comment = is_comment(kind);
            if !(comment || is_leading_attribute(self.lang, kind)) || last_row(p) + 1 < first {
                break;
            }
            // A comment after code on its line belongs to that code; `//!` documents the module.
            let start = p.start_position().row as u32;
            if p.prev_sibling().is_some_and(|q| !is_comment(q.kind()) && last_row(q) >= start) {
                break;
            }
            let t = lang::text(p, self.src());
            if t.starts_with("//!") || t.starts_with("/*!") {
                break;
            }
            if comment {
                docs.push(p);
            }
            first = start;
            cur = p.prev_named_sibling();
        }
        docs.reverse();
        (first, docs)
    }

    /// The definition's text up to its body (or its first line), whitespace collapsed, and the
    /// row it ends on. Comment lines between the name and the body are left out.
    pub(crate) fn signature(&self, node: Node, body: Option<Node>) -> (String, u32) {
        let src = self.src();
        let start = node.start_byte();
        let end = match body {
            Some(b) if b.start_byte() >= start => b.start_byte(),
            _ => {
                let rest = src.get(start..node.end_byte()).unwrap_or("");
                start + rest.find('\n').unwrap_or(rest.len())
            }
        };
        let raw = src.get(start..end).unwrap_or("");
        let python = self.lang == CodeLang::Python;
        let mut kept = String::new();
        let mut last_line = 0usize;
        for (i, line) in raw.split('\n').enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") || (python && t.starts_with('#')) || t.is_empty() {
                continue;
            }
            kept.push_str(line);
            kept.push(' ');
            last_line = i;
        }
        let mut sig = collapse(&kept, SIGNATURE_MAX_BYTES);
        if body.is_none() {
            sig = sig.trim_end_matches(['{', ';']).trim_end().to_string();
        }
        (sig, node.start_position().row as u32 + last_line as u32)
    }
}

impl Item {
    pub(crate) fn region(start: u32, end: u32, level: u8) -> Item {
        Item {
            kind: ChunkKind::Lines,
            name: String::new(),
            container: String::new(),
            signature: String::new(),
            sig_end: start,
            doc: String::new(),
            start,
            node_start: start,
            end: end.max(start),
            level,
            children: Vec::new(),
            overload: false,
            error: true,
        }
    }
}

/// Overload signatures merged into the definition that follows with the same name (first
/// signature and doc kept); a definition that starts on a row an earlier one already holds
/// gives up its leading comments, or is part of the earlier one.
fn normalize(items: Vec<Item>) -> Vec<Item> {
    let mut merged: Vec<Item> = Vec::with_capacity(items.len());
    let mut pending: Option<Item> = None;
    for mut it in items {
        if let Some(p) = pending.take() {
            if !it.error && p.name == it.name && p.kind == it.kind {
                it.start = p.start;
                it.node_start = p.node_start;
                it.signature = p.signature;
                if it.doc.is_empty() {
                    it.doc = p.doc;
                }
            } else {
                merged.push(p);
            }
        }
        if it.overload {
            pending = Some(it);
        } else {
            merged.push(it);
        }
    }
    merged.extend(pending);
    let mut out: Vec<Item> = Vec::with_capacity(merged.len());
    for mut it in merged {
        if let Some(last) = out.last() {
            if it.start <= last.end {
                if it.node_start > last.end {
                    it.start = it.node_start;
                } else {
                    continue;
                }
            }
        }
        out.push(it);
    }
    out
}

/// Comment markers and a docstring's quotes removed, lines trimmed, at most DOC_MAX_BYTES.
pub(crate) fn clean_doc(raw: &str) -> String {
    let mut lines = Vec::new();
    for line in raw.lines() {
        let mut t = line.trim();
        for marker in ["///", "//!", "//", "/**", "/*!", "/*", "#"] {
            if let Some(rest) = t.strip_prefix(marker) {
                t = rest;
                break;
            }
        }
        t = t.strip_suffix("*/").unwrap_or(t).trim();
        if let Some(rest) = t.strip_prefix('*') {
            t = rest.trim();
        }
        lines.push(t);
    }
    let mut doc = lines.join("\n");
    // A Python docstring: its prefix and quotes.
    let d = doc.trim().trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if d.len() >= 2 * q.len() && d.starts_with(q) && d.ends_with(q) {
            doc = d[q.len()..d.len() - q.len()].to_string();
            break;
        }
    }
    truncate(doc.trim(), DOC_MAX_BYTES).trim_end().to_string()
}

/// Items → chunks in pre-order, with module chunks between the top-level items.
pub(crate) struct Emit<'a> {
    pub lines: &'a Lines<'a>,
    pub budget: usize,
    /// Row ranges of the tree's `ERROR` and `MISSING` nodes, by start, with the running
    /// maximum of their ends (for "does a range hold an error").
    errors: Vec<(u32, u32)>,
    max_end: Vec<u32>,
    pub chunks: Vec<Chunk>,
    /// The last top-level chunk (a gap of only brackets joins it).
    last_top: Option<usize>,
    /// The first row of a gap of only brackets at the file's start (joins the next chunk).
    pending_start: Option<u32>,
}

impl<'a> Emit<'a> {
    pub(crate) fn new(lines: &'a Lines<'a>, budget: usize, mut errors: Vec<(u32, u32)>) -> Emit<'a> {
        errors.sort_unstable();
        let mut max_end = Vec::with_capacity(errors.len());
        let mut m = 0;
        for (i, e) in errors.iter().enumerate() {
            m = if i == 0 { e.1 } else { m.max(e.1) };
            max_end.push(m);
        }
        Emit { lines, budget, errors, max_end, chunks: Vec::new(), last_top: None, pending_start: None }
    }

    fn has_error(&self, a: u32, b: u32) -> bool {
        let i = self.errors.partition_point(|e| e.0 <= b);
        i > 0 && self.max_end[i - 1] >= a
    }

    /// The file's chunks: `items` and the module chunks between them.
    pub(crate) fn file(&mut self, items: Vec<Item>) {
        let mut cursor = 0u32;
        for it in items {
            if it.start > cursor {
                self.gap(cursor, it.start - 1);
            }
            cursor = it.end + 1;
            self.item(it, None);
        }
        if cursor < self.lines.len() {
            self.gap(cursor, self.lines.len() - 1);
        }
        // Only brackets: they join the last chunk, or are the file's one module chunk.
        if let Some(a) = self.pending_start.take() {
            match self.last_top {
                Some(i) => self.chunks[i].start_line = self.chunks[i].start_line.min(a + 1),
                None => {
                    let end = self.lines.trim(a, self.lines.len() - 1).map_or(a, |t| t.1);
                    self.plain(ChunkKind::Module, a, end, None, None);
                }
            }
        }
    }

    /// Rows between top-level chunks: module windows; only brackets join the chunk before.
    fn gap(&mut self, a: u32, b: u32) {
        let Some((a, b)) = self.lines.trim(a, b) else { return };
        if !self.lines.has_words(a, b) {
            match self.last_top {
                Some(i) => self.chunks[i].end_line = self.chunks[i].end_line.max(b + 1),
                None => self.pending_start = Some(a),
            }
            return;
        }
        for (s, e) in self.lines.windows(a, b, self.budget) {
            self.plain(ChunkKind::Module, s, e, None, None);
        }
    }

    /// Adds a plain chunk (module, error region, or a part of `of`).
    fn plain(&mut self, kind: ChunkKind, a: u32, b: u32, parent: Option<u32>, of: Option<&Item>) {
        let a = match (parent, self.pending_start.take()) {
            (None, Some(p)) => p.min(a),
            _ => a,
        };
        let chunk = Chunk {
            kind,
            name: of.map(|o| o.name.clone()).unwrap_or_default(),
            parent,
            container: of.map(|o| o.container.clone()).unwrap_or_default(),
            signature: of.map(|o| o.signature.clone()).unwrap_or_default(),
            doc: String::new(),
            start_line: a + 1,
            end_line: b + 1,
            signature_end_line: a,
            has_syntax_errors: self.has_error(a, b),
        };
        self.push(chunk);
    }

    fn push(&mut self, chunk: Chunk) -> u32 {
        if chunk.parent.is_none() {
            self.last_top = Some(self.chunks.len());
        }
        self.chunks.push(chunk);
        (self.chunks.len() - 1) as u32
    }

    pub(crate) fn item(&mut self, it: Item, parent: Option<u32>) {
        if it.error {
            for (s, e) in self.lines.windows(it.start, it.end, self.budget) {
                self.plain(ChunkKind::Lines, s, e, parent, None);
            }
            return;
        }
        let start = match (parent, self.pending_start.take()) {
            (None, Some(p)) => p.min(it.start),
            _ => it.start,
        };
        let chunk = Chunk {
            kind: it.kind,
            name: it.name.clone(),
            parent,
            container: it.container.clone(),
            signature: it.signature.clone(),
            doc: it.doc.clone(),
            start_line: start + 1,
            end_line: it.end + 1,
            signature_end_line: it.sig_end.clamp(it.node_start, it.end) + 1,
            has_syntax_errors: self.has_error(it.start, it.end),
        };
        let me = self.push(chunk);
        // The parts of an oversized definition's own text: its body rows outside its children.
        let mut parts = Vec::new();
        let own = self.lines.tokens(it.start, it.end)
            - it.children
                .iter()
                .map(|c| self.lines.tokens(c.start, c.end))
                .sum::<usize>()
                .min(self.lines.tokens(it.start, it.end));
        if own > self.budget && it.level < MAX_LEVEL {
            let mut row = it.sig_end.max(it.node_start) + 1;
            let mut holes: Vec<(u32, u32)> = it.children.iter().map(|c| (c.start, c.end)).collect();
            holes.push((it.end + 1, it.end + 1));
            for (hs, he) in holes {
                if hs > row {
                    if let Some((a, b)) = self.lines.trim(row, (hs - 1).min(it.end)) {
                        if self.lines.has_words(a, b) {
                            parts.extend(self.lines.windows(a, b, self.budget));
                        }
                    }
                }
                row = row.max(he + 1);
            }
        }
        let mut parts = parts.into_iter().peekable();
        let name_holder = it.shallow();
        for child in it.children {
            while let Some(&(a, b)) = parts.peek() {
                if a > child.start {
                    break;
                }
                self.plain(ChunkKind::Lines, a, b, Some(me), Some(&name_holder));
                parts.next();
            }
            self.item(child, Some(me));
        }
        for (a, b) in parts {
            self.plain(ChunkKind::Lines, a, b, Some(me), Some(&name_holder));
        }
    }
}

impl Item {
    /// The item's fields without its children.
    fn shallow(&self) -> Item {
        Item {
            kind: self.kind,
            name: self.name.clone(),
            container: self.container.clone(),
            signature: self.signature.clone(),
            sig_end: self.sig_end,
            doc: String::new(),
            start: self.start,
            node_start: self.node_start,
            end: self.end,
            level: self.level,
            children: Vec::new(),
            overload: false,
            error: false,
        }
    }
}
