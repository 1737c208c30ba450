//! The depth-split section tree.
//!
//! Depth 0 is the whole note. A section is split by heading level only while it
//! exceeds the token budget: the shallowest heading level inside it that yields at
//! least two parts becomes its children (depth + 1). Parts smaller than the minimum are
//! merged into a neighbour; splitting stops at depth 3, where an oversized section is
//! kept whole. Every section records its heading path, 1-based inclusive line range,
//! token estimate and the SHA-256 of its text.

use serde::{Deserialize, Serialize};

use crate::hash::{sha256, KnownHash};
use crate::markdown::{Heading, LineIndex};
use crate::ranking::{LEAD_MAX_BYTES, LEAD_TOKENS, SECTION_MAX_DEPTH as MAX_DEPTH};
use crate::token_estimate::estimate_tokens;

pub const HEADING_SEPARATOR: &str = " > ";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Pre-order position in the note (0 = the whole note).
    pub order: u32,
    pub parent: Option<u32>,
    pub depth: u8,
    /// "A > B > C"; empty for the whole note and for text before the first heading.
    pub heading_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub tokens: u32,
    /// SHA-256 of the section's text (hex in the API). Serialised as one byte string, not
    /// as 32 separate bytes: the catalog decodes two of these per section at every open.
    #[serde(with = "serde_bytes")]
    pub hash: [u8; 32],
    /// SHA-256 of the text that is embedded for this section ([`embed_text`]); only
    /// leaves (sections without children) are embedded. Vectors are keyed by it, so
    /// unchanged text is never embedded twice, whatever the note's path.
    #[serde(with = "serde_bytes")]
    pub embed_key: Option<[u8; 32]>,
    /// What the section is in a source file or a large fenced code block ([`crate::code_sections`]);
    /// `None` for the sections of Markdown.
    pub code: Option<Box<SectionCode>>,
}

/// A code section's definition: its language, kind, name and signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionCode {
    /// `strata_chunker::CodeLang::id`.
    pub lang: u8,
    /// `strata_chunker::ChunkKind::id`.
    pub kind: u8,
    pub name: String,
    pub signature: String,
    /// The signature's last line: a class's embedded text keeps its methods' signatures.
    pub signature_end_line: u32,
    /// The doc comment or docstring without comment markers ("" when there is none): what a
    /// definition's vector is made from, with its path, breadcrumb and signature.
    pub doc: String,
    pub syntax_errors: bool,
}

impl SectionCode {
    pub fn lang(&self) -> strata_chunker::CodeLang {
        strata_chunker::CodeLang::from_id(self.lang).unwrap_or(strata_chunker::CodeLang::Python)
    }

    pub fn kind(&self) -> strata_chunker::ChunkKind {
        strata_chunker::ChunkKind::from_id(self.kind).unwrap_or(strata_chunker::ChunkKind::Lines)
    }
}

impl Section {
    /// The section has a vector of its own: Markdown leaves, and code sections with text of
    /// their own (a class's declaration, fields and docs, beside its methods).
    pub fn is_leaf(&self) -> bool {
        self.embed_key.is_some()
    }
}

/// The text embedded for a leaf section: its heading path (which names the context the
/// section's own lines lack), then its lines, without the frontmatter. Nothing here
/// depends on the note's path, so a rename or move keeps every key.
pub fn embed_text(note_text: &str, section: &Section, body_start_line: u32) -> String {
    let start = section.start_line.max(body_start_line);
    let body =
        if start > section.end_line { "" } else { crate::markdown::slice_lines(note_text, start, section.end_line) };
    if section.heading_path.is_empty() {
        body.trim().to_string()
    } else {
        format!("{}\n\n{}", section.heading_path, body.trim())
    }
}

/// The last line of the note's lead, or 0 when the body has none. The lead (embedded as one
/// more vector of the note, its *lead vector*, with the note's folders and title in front) is
/// the lines that open the note's body, up to its first heading (a heading that opens the body
/// belongs to the lead), whole lines until at least [`LEAD_TOKENS`] estimated tokens: most notes
/// say what they are about there; their sections, embedded separately, often do not.
pub fn lead_end_line(text: &str, headings: &[Heading], body_start_line: u32) -> u32 {
    let mut heading_lines = headings.iter().map(|h| h.line).peekable();
    let (mut end, mut tokens, mut started) = (0u32, 0usize, false);
    for (i, line) in text.lines().enumerate().skip(body_start_line.saturating_sub(1) as usize) {
        let n = i as u32 + 1;
        while heading_lines.next_if(|&l| l < n).is_some() {}
        let heading = heading_lines.peek() == Some(&n);
        if heading && started {
            break;
        }
        if line.trim().is_empty() && !heading {
            continue;
        }
        started = true;
        end = n;
        tokens += estimate_tokens(line);
        if tokens >= LEAD_TOKENS {
            break;
        }
    }
    end
}

/// The text of a note's lead vector: `title_path` (its folders and title), then the lead
/// (lines `body_start_line..=lead_end`, at most [`LEAD_MAX_BYTES`]).
pub fn lead_text(note_text: &str, title_path: &str, body_start_line: u32, lead_end: u32) -> String {
    // Only the lines up to the lead's end are walked (a line index would cover the whole note).
    let (first, mut start, mut end, mut pos) = (body_start_line.max(1), None, 0, 0);
    for (i, line) in note_text.split_inclusive('\n').enumerate().take(lead_end as usize) {
        if i as u32 + 1 == first {
            start = Some(pos);
        }
        pos += line.len();
        end = pos;
    }
    let lead = start.map_or("", |s| note_text[s..end].trim());
    let mut cut = lead.len().min(LEAD_MAX_BYTES);
    while !lead.is_char_boundary(cut) {
        cut -= 1;
    }
    let lead = lead[..cut].trim_end();
    if lead.is_empty() {
        title_path.to_string()
    } else {
        format!("{title_path}\n\n{lead}")
    }
}

pub fn embed_key(text: &str) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes()).into()
}

#[derive(Clone, Copy, Debug)]
pub struct SplitConfig {
    pub budget: usize,
    pub min: usize,
}

struct Ctx<'a> {
    text: &'a str,
    lines: LineIndex,
    /// `line_tokens[i]` = estimated tokens of lines 1..=i (prefix sums).
    line_tokens: Vec<usize>,
    headings: &'a [Heading],
    cfg: SplitConfig,
    out: Vec<Section>,
    body_start_line: u32,
    known: Option<KnownHash>,
}

#[derive(Clone, Copy)]
struct Part {
    start: u32,
    end: u32,
    /// Index into `headings` of the heading that opens this part, if any.
    heading: Option<usize>,
    /// Heading level that bounds this part's children (its own heading level; 0 at root).
    level: u8,
}

impl Ctx<'_> {
    fn text_of(&self, start: u32, end: u32) -> &str {
        &self.text[self.lines.byte_range(self.text, start, end)]
    }

    /// Estimated tokens of lines `start..=end`, from prefix sums (a line's estimate is
    /// rounded separately, so this can differ from estimating the whole range by a few).
    fn tokens(&self, start: u32, end: u32) -> usize {
        let n = self.line_tokens.len() - 1;
        let (s, e) = ((start as usize).clamp(1, n.max(1)), (end as usize).min(n));
        if n == 0 || e < s {
            return 0;
        }
        self.line_tokens[e] - self.line_tokens[s - 1]
    }

    fn heading_path(&self, heading: Option<usize>) -> String {
        let Some(mut i) = heading else {
            return String::new();
        };
        let mut chain = vec![self.headings[i].text.as_str()];
        let mut level = self.headings[i].level;
        while i > 0 {
            i -= 1;
            if self.headings[i].level < level {
                chain.push(self.headings[i].text.as_str());
                level = self.headings[i].level;
            }
        }
        chain.reverse();
        chain.join(HEADING_SEPARATOR)
    }

    fn emit(&mut self, part: Part, parent: Option<u32>, depth: u8) -> u32 {
        let order = self.out.len() as u32;
        let range = self.lines.byte_range(self.text, part.start, part.end);
        let hash = match self.known {
            Some(k) if range.start == 0 && range.end == k.len => k.hash,
            _ => sha256(self.text[range].as_bytes()),
        };
        let tokens = self.tokens(part.start, part.end);
        let section = Section {
            order,
            parent,
            depth,
            heading_path: if depth == 0 { String::new() } else { self.heading_path(part.heading) },
            start_line: part.start,
            end_line: part.end,
            tokens: tokens as u32,
            hash,
            embed_key: None,
            code: None,
        };
        self.out.push(section);
        order
    }

    fn split(&mut self, part: Part, parent: Option<u32>, depth: u8) {
        let order = self.emit(part, parent, depth);
        if depth >= MAX_DEPTH || self.out[order as usize].tokens as usize <= self.cfg.budget {
            return;
        }
        let Some(children) = self.children_of(part, depth) else {
            return;
        };
        for child in children {
            self.split(child, Some(order), depth + 1);
        }
    }

    /// The parts a section splits into, or None when no heading level gives two parts.
    fn children_of(&self, part: Part, depth: u8) -> Option<Vec<Part>> {
        // Headings strictly inside the part (not its own opening heading), deeper than it.
        let inner: Vec<usize> = (0..self.headings.len())
            .filter(|&i| {
                let h = &self.headings[i];
                h.line >= part.start && h.line <= part.end && Some(i) != part.heading && h.level > part.level
            })
            .collect();
        let mut levels: Vec<u8> = inner.iter().map(|&i| self.headings[i].level).collect();
        levels.sort_unstable();
        levels.dedup();
        for level in levels {
            let cuts: Vec<usize> = inner.iter().copied().filter(|&i| self.headings[i].level == level).collect();
            let mut parts = Vec::new();
            // Text before the first cut (for the root: after the frontmatter).
            let body_start = if depth == 0 { self.body_start(part) } else { part.start };
            let first = self.headings[cuts[0]].line;
            if first > body_start && !self.text_of(body_start, first - 1).trim().is_empty() {
                // The preamble is named by its shallowest heading (e.g. the note's H1).
                let named_by = inner
                    .iter()
                    .copied()
                    .filter(|&i| self.headings[i].line < first)
                    .min_by_key(|&i| (self.headings[i].level, self.headings[i].line));
                parts.push(Part {
                    start: body_start,
                    end: first - 1,
                    heading: named_by.or(part.heading.filter(|_| depth > 0)),
                    level,
                });
            }
            for (n, &c) in cuts.iter().enumerate() {
                let start = self.headings[c].line;
                let end = match cuts.get(n + 1) {
                    Some(&next) => self.headings[next].line - 1,
                    None => part.end,
                };
                parts.push(Part { start, end, heading: Some(c), level });
            }
            let parts = self.merge_small(parts);
            if parts.len() >= 2 {
                return Some(parts);
            }
        }
        None
    }

    fn body_start(&self, part: Part) -> u32 {
        self.body_start_line.max(part.start)
    }

    /// Merges parts under the minimum size: a small leading part (text before the first
    /// heading) into the next part, any other small part into the previous one.
    fn merge_small(&self, parts: Vec<Part>) -> Vec<Part> {
        let mut out: Vec<Part> = Vec::with_capacity(parts.len());
        let mut pending: Option<Part> = None;
        for p in parts {
            let mut p = p;
            if let Some(lead) = pending.take() {
                p.start = lead.start;
            }
            let small = self.tokens(p.start, p.end) < self.cfg.min;
            if small {
                if let Some(prev) = out.last_mut() {
                    prev.end = p.end;
                    continue;
                }
                pending = Some(p);
                continue;
            }
            out.push(p);
        }
        if let Some(lead) = pending {
            match out.last_mut() {
                Some(prev) => prev.end = lead.end,
                None => out.push(lead),
            }
        }
        out
    }
}

/// Builds the section tree of a note. `body_start_line` is the first line after the
/// frontmatter; `line_count` the number of lines.
pub fn build_sections(
    text: &str,
    headings: &[Heading],
    line_count: u32,
    body_start_line: u32,
    cfg: SplitConfig,
) -> Vec<Section> {
    build_sections_with(text, headings, line_count, body_start_line, cfg, None)
}

/// [`build_sections`] with the hash of a prefix of `text` already known.
pub fn build_sections_with(
    text: &str,
    headings: &[Heading],
    line_count: u32,
    body_start_line: u32,
    cfg: SplitConfig,
    known: Option<KnownHash>,
) -> Vec<Section> {
    let mut line_tokens = vec![0usize];
    for line in text.lines() {
        line_tokens.push(line_tokens.last().unwrap() + estimate_tokens(line));
    }
    let mut ctx =
        Ctx { text, line_tokens, lines: LineIndex::new(text), headings, cfg, out: Vec::new(), body_start_line, known };
    let root = Part { start: 1, end: line_count.max(1), heading: None, level: 0 };
    ctx.split(root, None, 0);
    let mut out = ctx.out;
    let mut has_child = vec![false; out.len()];
    for s in &out {
        if let Some(p) = s.parent {
            has_child[p as usize] = true;
        }
    }
    for (i, s) in out.iter_mut().enumerate() {
        if !has_child[i] {
            s.embed_key = Some(embed_key(&embed_text(text, s, body_start_line)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::parse;

    fn sections(text: &str, budget: usize, min: usize) -> Vec<Section> {
        let n = parse("t.md", text);
        build_sections(text, &n.headings, n.line_count, n.body_start_line, SplitConfig { budget, min })
    }

    #[test]
    fn the_lead_is_the_opening_text_up_to_the_first_heading() {
        let lead = |text: &str| {
            let n = parse("t.md", text);
            let end = lead_end_line(text, &n.headings, n.body_start_line);
            lead_text(text, "Folder > T", n.body_start_line, end)
        };
        assert_eq!(lead("---\ntitle: x\n---\n\nFirst paragraph.\n\n## A\nmore\n"), "Folder > T\n\nFirst paragraph.");
        // A heading that opens the body is part of the lead; the next one ends it.
        assert_eq!(lead("# T\n\nIntro.\n\n## A\nmore\n"), "Folder > T\n\n# T\n\nIntro.");
        assert_eq!(lead("## A\n## B\ntext\n"), "Folder > T\n\n## A");
        assert_eq!(lead(""), "Folder > T");
        // Whole lines until the token budget: a long first line is the whole lead.
        let long = format!("{}\nsecond line\n", "word ".repeat(80));
        assert_eq!(lead(&long), format!("Folder > T\n\n{}", "word ".repeat(80).trim()));
        // A one-line note of any size is cut at LEAD_MAX_BYTES, on a character boundary.
        let huge = "検索".repeat(5000);
        let t = lead(&huge);
        assert_eq!(t.len(), "Folder > T\n\n".len() + LEAD_MAX_BYTES / 3 * 3, "whole characters only");
        // `#` inside a code block is not a heading.
        assert_eq!(lead("```\n# not a heading\n```\n## A\n"), "Folder > T\n\n```\n# not a heading\n```");
    }

    #[test]
    fn a_known_whole_note_hash_gives_the_same_sections() {
        let long = format!("# A\n\n{}\n\n## B\n\n{}\n", para(400, "alpha"), para(400, "beta"));
        for text in ["", "one line", "# T\r\n\r\nbody\r\n\r\n", "---\ntitle: x\n---\nbody\n\n\n", long.as_str()] {
            let n = parse("t.md", text);
            let cfg = SplitConfig { budget: 512, min: 100 };
            let (_, known) = crate::hash::sha256_and_trimmed(text.as_bytes());
            let with = build_sections_with(text, &n.headings, n.line_count, n.body_start_line, cfg, Some(known));
            assert_eq!(with, build_sections(text, &n.headings, n.line_count, n.body_start_line, cfg), "{text:?}");
        }
        // A wrong known hash is only used for exactly its bytes: never for a shorter section.
        let text = "# T\n\nbody\n";
        let n = parse("t.md", text);
        let bogus = KnownHash { len: 3, hash: [9; 32] };
        let s = build_sections_with(
            text,
            &n.headings,
            n.line_count,
            n.body_start_line,
            SplitConfig { budget: 512, min: 100 },
            Some(bogus),
        );
        assert_ne!(s[0].hash, [9; 32]);
    }

    fn para(words: usize, word: &str) -> String {
        vec![word; words].join(" ")
    }

    #[test]
    fn small_note_is_one_section() {
        let s = sections("# Title\n\nshort text\n", 512, 100);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].depth, 0);
        assert_eq!((s[0].start_line, s[0].end_line), (1, 3));
        assert_eq!(s[0].hash, sha256(b"# Title\n\nshort text"));
        assert_eq!(s[0].embed_key, Some(embed_key("# Title\n\nshort text")));
    }

    #[test]
    fn large_note_splits_by_shallowest_useful_level() {
        // One H1 wrapping everything: splitting at H1 gives one part, so H2 is used.
        let text = format!(
            "---\ntitle: x\n---\n# Doc\nintro {}\n## A\n{}\n## B\n{}\n### B1\n{}\n### B2\n{}\n",
            para(120, "lorem"),
            para(300, "alpha"),
            para(150, "beta"),
            para(300, "gamma"),
            para(300, "delta")
        );
        let s = sections(&text, 512, 100);
        let view: Vec<(u8, &str, Option<u32>)> =
            s.iter().map(|x| (x.depth, x.heading_path.as_str(), x.parent)).collect();
        assert_eq!(
            view,
            vec![
                (0, "", None),
                (1, "Doc", Some(0)),
                (1, "Doc > A", Some(0)),
                (1, "Doc > B", Some(0)),
                (2, "Doc > B", Some(3)),
                (2, "Doc > B > B1", Some(3)),
                (2, "Doc > B > B2", Some(3)),
            ]
        );
        let leaves: Vec<bool> = s.iter().map(|x| x.is_leaf()).collect();
        assert_eq!(leaves, vec![false, true, true, false, true, true, true]);
        // A leaf's embedded text starts with its heading path, not with the note's path.
        let t = embed_text(&text, &s[5], 1);
        assert!(t.starts_with("Doc > B > B1\n\n### B1"), "{}", &t[..40]);
        // The preamble starts after the frontmatter; ranges tile the parent.
        assert_eq!(s[1].start_line, 4);
        assert_eq!(s[1].end_line + 1, s[2].start_line);
        assert_eq!(s[3].end_line, s[0].end_line);
        assert_eq!(s[6].end_line, s[3].end_line);
    }

    #[test]
    fn small_parts_merge_into_neighbours() {
        let text = format!("## A\n{}\n## Tiny\nsee also\n## C\n{}\n", para(300, "alpha"), para(300, "gamma"));
        let s = sections(&text, 512, 100);
        let paths: Vec<&str> = s.iter().skip(1).map(|x| x.heading_path.as_str()).collect();
        assert_eq!(paths, vec!["A", "C"]);
        assert_eq!(s[1].end_line, 4, "Tiny merged into A");
    }

    #[test]
    fn oversized_section_without_headings_is_kept_whole() {
        let text = para(5000, "word");
        let s = sections(&text, 512, 100);
        assert_eq!(s.len(), 1);
        assert!(s[0].tokens > 512);
    }

    #[test]
    fn depth_is_capped_at_three() {
        let mut text = String::new();
        for h in 1..=6 {
            for k in 0..2 {
                text.push_str(&format!("{} H{h}{k}\n{}\n", "#".repeat(h), para(400, "w")));
            }
        }
        let s = sections(&text, 200, 10);
        assert!(s.iter().all(|x| x.depth <= MAX_DEPTH));
        assert!(s.iter().any(|x| x.depth == MAX_DEPTH));
    }

    #[test]
    fn code_block_with_hash_lines_is_not_split() {
        let code: String = (0..400).map(|i| format!("# comment {i}\n")).collect();
        let text = format!("## Code\n```sh\n{code}```\n## Next\n{}\n", para(300, "n"));
        let s = sections(&text, 256, 50);
        let code_sec = s.iter().find(|x| x.heading_path == "Code").unwrap();
        assert_eq!(code_sec.start_line, 1);
        assert_eq!(code_sec.end_line, 403);
    }

    #[test]
    fn cjk_counts_toward_budget() {
        let zh = "检".repeat(600);
        let text = format!("## 一\n{zh}\n## 二\n{zh}\n");
        let s = sections(&text, 512, 100);
        assert_eq!(s.len(), 3);
    }
}
