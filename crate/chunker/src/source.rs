//! A source file (not JSON or YAML): parse, find the definitions, lay out the chunks; or, when
//! the parser cannot handle the file, line windows.

use tree_sitter::{Node, Tree};

use crate::chunker::{last_row, Emit, Walk};
use crate::lang::{is_import, is_preprocessor_block, named_children};
use crate::parse::parse;
use crate::text::Lines;
use crate::{CodeFile, CodeLang};

/// Lines longer than this are minified or generated code ([`minified`]).
pub const LONG_LINE_BYTES: usize = 500;

/// Bundled or minified code: at least half of the text on lines over [`LONG_LINE_BYTES`]. It is
/// not parsed: its definitions would share a few lines, and such files cost the parser the most
/// (measured on npm packages: 22 of 2,272 files, 37 % of the chunker's time).
pub fn minified(text: &str) -> bool {
    text.len() >= 2 * LONG_LINE_BYTES
        && 2 * text.split('\n').map(str::len).filter(|&n| n > LONG_LINE_BYTES).sum::<usize>() >= text.len()
}

pub(crate) fn chunk(lang: CodeLang, lines: &Lines, budget: usize) -> CodeFile {
    if minified(lines.text()) {
        return windows(lang, lines, budget, Vec::new(), true);
    }
    let Some(tree) = parse(lang, lines.text()) else { return windows(lang, lines, budget, Vec::new(), true) };
    let root = tree.root_node();
    let errors = error_regions(&tree);
    let walk = Walk { lang, lines };
    let items = walk.collect(root, 1, false);
    // Mostly damage (or nothing the grammar recognises at all): line windows.
    let damaged: usize =
        items.iter().filter(|i| i.error).map(|i| (i.start..=i.end).filter(|&r| !lines.is_blank(r)).count()).sum();
    let ink = (0..lines.len()).filter(|&r| !lines.is_blank(r)).count();
    if root.is_error() || 2 * damaged > ink {
        return windows(lang, lines, budget, errors, true);
    }
    let imports = imports(lang, root, lines.text());
    let literals = crate::literals::literals(lang, root, lines.text());
    let error_count = errors.len() as u32;
    let mut emit = Emit::new(lines, budget, errors);
    emit.file(items);
    CodeFile { lang, chunks: emit.chunks, error_regions: error_count, fallback: false, imports, literals }
}

/// The whole file as `Lines` windows of at most `budget` tokens.
pub(crate) fn windows(
    lang: CodeLang,
    lines: &Lines,
    budget: usize,
    errors: Vec<(u32, u32)>,
    fallback: bool,
) -> CodeFile {
    let error_count = errors.len() as u32;
    let mut emit = Emit::new(lines, budget, errors);
    if lines.len() > 0 {
        emit.item(crate::chunker::Item::region(0, lines.len() - 1, 1), None);
    }
    CodeFile { lang, chunks: emit.chunks, error_regions: error_count, fallback, imports: None, literals: Vec::new() }
}

/// Row ranges of the outermost `ERROR` nodes and of the `MISSING` nodes (a node the parser
/// inserted). Without recursion: a deeply nested text cannot exhaust the stack.
pub(crate) fn error_regions(tree: &Tree) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return out;
    }
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            let s = n.start_position().row as u32;
            out.push((s, last_row(n).max(s)));
            continue;
        }
        if n.has_error() {
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor).filter(|c| c.has_error() || c.is_missing()));
        }
    }
    out
}

/// The first and last line (1-based) of the file's imports.
fn imports(lang: CodeLang, root: Node, src: &str) -> Option<(u32, u32)> {
    let mut range: Option<(u32, u32)> = None;
    let mut nodes: Vec<(Node, u8)> = named_children(root).map(|n| (n, 0)).collect();
    let mut i = 0;
    while i < nodes.len() {
        let (n, depth) = nodes[i];
        i += 1;
        if is_import(lang, n, src) {
            let (s, e) = (n.start_position().row as u32 + 1, last_row(n) + 1);
            range = Some(range.map_or((s, e), |(a, b)| (a.min(s), b.max(e))));
        } else if depth < 3 && is_preprocessor_block(n.kind()) {
            nodes.extend(named_children(n).map(|c| (c, depth + 1)));
        }
    }
    range
}
