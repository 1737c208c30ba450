//! JSON and YAML files: a `Key` chunk per top-level key (`scripts`, `dependencies`…), nested
//! into the value's keys only while a value exceeds the budget (down to three levels); an
//! oversized array, sequence or long scalar is cut into `Lines` windows under its key.

use tree_sitter::Node;

use crate::chunker::{last_row, Emit, Item, Walk, MAX_LEVEL};
use crate::lang::{named_children, text};
use crate::parse::parse;
use crate::source::{error_regions, windows};
use crate::text::{truncate, Lines, SIGNATURE_MAX_BYTES};
use crate::{ChunkKind, CodeFile, CodeLang};

pub(crate) fn chunk(lang: CodeLang, lines: &Lines, budget: usize) -> CodeFile {
    let Some(tree) = parse(lang, lines.text()) else { return windows(lang, lines, budget, Vec::new(), true) };
    let root = tree.root_node();
    let errors = error_regions(&tree);
    if root.is_error() {
        return windows(lang, lines, budget, errors, true);
    }
    let walk = Walk { lang, lines };
    let data = Data { walk, budget };
    // The top-level mappings: JSON's object, each YAML document's mapping.
    let mut items = Vec::new();
    for top in mappings(root) {
        items.extend(data.pairs(top, 1));
    }
    for e in &errors {
        items.push(Item::region(e.0, e.1, 1));
    }
    items.sort_by_key(|i| (i.start, std::cmp::Reverse(i.end)));
    let kept = without_overlaps(items);
    let error_count = errors.len() as u32;
    let mut emit = Emit::new(lines, budget, errors);
    emit.file(kept);
    CodeFile {
        lang,
        chunks: emit.chunks,
        error_regions: error_count,
        fallback: false,
        imports: None,
        literals: Vec::new(),
    }
}

/// The mappings at the top of the tree (through YAML's stream, documents and block nodes).
fn mappings(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![(root, 0u8)];
    while let Some((n, depth)) = stack.pop() {
        match n.kind() {
            "object" | "block_mapping" | "flow_mapping" => out.push(n),
            "document" | "stream" | "block_node" | "flow_node" if depth < 4 => {
                let mut kids: Vec<Node> = named_children(n).collect();
                kids.reverse();
                stack.extend(kids.into_iter().map(|k| (k, depth + 1)));
            }
            _ => {}
        }
    }
    out
}

/// Items in order without one that starts on a row an earlier one holds (`"a": 1, "b": 2` on
/// one line: "a" holds it); a comment above an item on such a row stays with the earlier one.
fn without_overlaps(items: Vec<Item>) -> Vec<Item> {
    let mut kept: Vec<Item> = Vec::with_capacity(items.len());
    for mut it in items {
        if let Some(last) = kept.last() {
            if it.start <= last.end {
                if it.node_start <= last.end {
                    continue;
                }
                it.start = it.node_start;
            }
        }
        kept.push(it);
    }
    kept
}

/// A mapping node inside a value (`"config": {…}`, `servers:\n  alpha: …`).
fn mapping_of(value: Node) -> Option<Node> {
    let mut n = value;
    for _ in 0..3 {
        match n.kind() {
            "object" | "block_mapping" | "flow_mapping" => return Some(n),
            "block_node" | "flow_node" => n = n.named_child(0)?,
            _ => return None,
        }
    }
    None
}

struct Data<'a> {
    walk: Walk<'a>,
    budget: usize,
}

impl Data<'_> {
    fn pairs(&self, mapping: Node, level: u8) -> Vec<Item> {
        without_overlaps(
            named_children(mapping)
                .filter(|p| matches!(p.kind(), "pair" | "block_mapping_pair" | "flow_pair"))
                .map(|p| self.pair(p, level))
                .collect(),
        )
    }

    fn pair(&self, pair: Node, level: u8) -> Item {
        let lines = self.walk.lines;
        let src = lines.text();
        let name = pair.child_by_field_name("key").map(|k| text(k, src)).unwrap_or("");
        let name = name.trim().trim_matches(|c| c == '"' || c == '\'');
        let (first, docs) = self.walk.leading(pair);
        let start = pair.start_position().row as u32;
        let end = last_row(pair).max(start);
        let (signature, sig_end) = self.walk.signature(pair, None);
        let signature = signature.trim_end_matches('[').trim_end().to_string();
        let doc = crate::chunker::clean_doc(&docs.iter().map(|d| text(*d, src)).collect::<Vec<_>>().join("\n"));
        let mut item = Item::region(first, end, level);
        item.error = false;
        item.kind = ChunkKind::Key;
        item.name = truncate(name, SIGNATURE_MAX_BYTES).to_string();
        item.signature = signature;
        item.sig_end = sig_end;
        item.doc = doc;
        item.node_start = start;
        // Nested keys only while the value is over the budget.
        if level < MAX_LEVEL && lines.tokens(first, end) > self.budget {
            if let Some(m) = pair.child_by_field_name("value").and_then(mapping_of) {
                item.children = self.pairs(m, level + 1);
            }
        }
        item
    }
}
