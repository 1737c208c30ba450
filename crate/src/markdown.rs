//! Markdown → a parsed note: frontmatter (as JSON), title, aliases, tags (frontmatter
//! and inline, nested `#a/b`), wikilinks and embeds, headings with 1-based lines,
//! callouts. Parsing is done by pulldown-cmark, so a `#` inside a code block is never a
//! heading and code blocks, tables and callouts stay whole inside their section.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, MetadataBlockKind, Options, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::paths;

/// Frontmatter blocks larger than this are not parsed (the body is still indexed).
const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;
/// YAML nesting deeper than this is cut (keeps hostile frontmatter harmless).
const MAX_YAML_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// 1-based line of the heading.
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Link {
    pub target: String,
    pub heading: Option<String>,
    pub alias: Option<String>,
    pub embed: bool,
}

#[derive(Debug, Clone, Default)]
pub struct ParsedNote {
    pub title: String,
    pub frontmatter: Map<String, Value>,
    /// Set when the frontmatter could not be parsed; the body is indexed all the same.
    pub frontmatter_error: Option<String>,
    pub aliases: Vec<String>,
    /// Tags without '#', in first-seen order, deduplicated case-insensitively.
    pub tags: Vec<String>,
    pub links: Vec<Link>,
    /// The line (1-based) where each of `links` starts, in the same order (not kept in the
    /// catalog: outlines parse the note's text).
    pub link_lines: Vec<u32>,
    pub headings: Vec<Heading>,
    /// Callout types in order of appearance (`> [!note]` → "note").
    pub callouts: Vec<String>,
    /// Number of lines of the note.
    pub line_count: u32,
    /// First line after the frontmatter (1-based).
    pub body_start_line: u32,
    /// Fenced code blocks at the start of their lines (not in quotes or lists), in order.
    pub code_blocks: Vec<CodeBlock>,
}

/// A fenced code block: its info string and the lines between its fences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    pub info: String,
    /// First and last line of the code (1-based, inclusive; `first > last` when empty).
    pub first_line: u32,
    pub last_line: u32,
}

/// Decoded note text and what went wrong while decoding.
pub struct Decoded {
    pub text: String,
    pub lossy: bool,
}

/// Decodes note bytes: UTF-8, invalid sequences replaced (lossy), BOM removed.
pub fn decode(bytes: &[u8]) -> Decoded {
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Decoded { text: s.to_string(), lossy: false },
        Err(_) => Decoded { text: String::from_utf8_lossy(bytes).into_owned(), lossy: true },
    }
}

/// True when the bytes look like a binary file rather than text (NUL bytes early on).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

/// Byte offsets of line starts, to map parser offsets to 1-based line numbers.
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        // A trailing newline does not open a new line.
        if starts.len() > 1 && *starts.last().unwrap() == text.len() {
            starts.pop();
        }
        LineIndex { starts, len: text.len() }
    }

    pub fn line_count(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            self.starts.len() as u32
        }
    }

    /// 1-based line containing byte `offset`.
    pub fn line_of(&self, offset: usize) -> u32 {
        match self.starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// Byte range of lines `start..=end` (1-based, inclusive), without the final newline.
    pub fn byte_range(&self, text: &str, start: u32, end: u32) -> std::ops::Range<usize> {
        let n = self.starts.len() as u32;
        if n == 0 || self.len == 0 {
            return 0..0;
        }
        let s = start.clamp(1, n);
        let e = end.clamp(s, n);
        let from = self.starts[(s - 1) as usize];
        let mut to = if e < n { self.starts[e as usize] } else { text.len() };
        while to > from && matches!(text.as_bytes()[to - 1], b'\n' | b'\r') {
            to -= 1;
        }
        from..to
    }
}

/// Lines `start..=end` of `text` (1-based, inclusive).
pub fn slice_lines(text: &str, start: u32, end: u32) -> &str {
    let idx = LineIndex::new(text);
    &text[idx.byte_range(text, start, end)]
}

/// The Markdown Obsidian writes: frontmatter, tables, wikilinks, GFM (callouts), task lists,
/// footnotes, math. Every parse of a note (its sections, its tasks) reads it the same way.
pub const PARSE_OPTIONS: Options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
    .union(Options::ENABLE_TABLES)
    .union(Options::ENABLE_WIKILINKS)
    .union(Options::ENABLE_GFM)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_MATH);

pub fn parse(path: &str, text: &str) -> ParsedNote {
    let lines = LineIndex::new(text);
    let mut note = ParsedNote { line_count: lines.line_count(), body_start_line: 1, ..Default::default() };

    let opts = PARSE_OPTIONS;

    let mut heading: Option<(u8, usize, String)> = None;
    let mut in_metadata = false;
    let mut metadata_text = String::new();
    let mut code_depth = 0usize;
    let mut fenced: Option<(String, std::ops::Range<usize>)> = None;
    let mut link_stack: Vec<(Link, String, usize)> = Vec::new();
    let mut first_h1: Option<String> = None;
    let mut inline_tags: Vec<String> = Vec::new();

    for (event, range) in Parser::new_ext(text, opts).into_offset_iter() {
        match event {
            Event::Start(Tag::MetadataBlock(MetadataBlockKind::YamlStyle)) => {
                in_metadata = true;
            }
            Event::End(TagEnd::MetadataBlock(_)) => {
                in_metadata = false;
                note.body_start_line = lines.line_of(range.end.saturating_sub(1)) + 1;
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((heading_level(level), range.start, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start, text)) = heading.take() {
                    let text = text.trim().to_string();
                    if level == 1 && first_h1.is_none() && !text.is_empty() {
                        first_h1 = Some(text.clone());
                    }
                    note.headings.push(Heading { level, text, line: lines.line_of(start) });
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                code_depth += 1;
                if let CodeBlockKind::Fenced(info) = kind {
                    let fence = text[range.clone()].lines().next().unwrap_or("");
                    let indent = fence.len() - fence.trim_start_matches(' ').len();
                    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
                    if indent <= 3 && text[line_start..range.start].trim().is_empty() {
                        fenced = Some((info.to_string(), range.clone()));
                    }
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                code_depth = code_depth.saturating_sub(1);
                if let Some((info, r)) = fenced.take() {
                    let first = lines.line_of(r.start) + 1;
                    let mut last = lines.line_of(r.end.saturating_sub(1).max(r.start));
                    let closing = text[lines.byte_range(text, last, last)].trim_start();
                    if last >= first && (closing.starts_with("```") || closing.starts_with("~~~")) {
                        last -= 1;
                    }
                    note.code_blocks.push(CodeBlock { info, first_line: first, last_line: last });
                }
            }
            Event::Start(Tag::BlockQuote(Some(kind))) => {
                // GFM alerts ([!NOTE], [!WARNING], …) arrive parsed; others as text.
                note.callouts.push(format!("{kind:?}").to_lowercase());
            }
            Event::Start(Tag::BlockQuote(None)) => {
                // Obsidian callouts: "> [!type] title" on the quote's first line.
                let first_line = text[range.clone()].lines().next().unwrap_or("");
                if let Some(kind) = callout_kind(first_line.trim_start().trim_start_matches('>')) {
                    note.callouts.push(kind);
                }
            }
            Event::Start(Tag::Link { link_type, dest_url, .. }) => {
                link_stack.push((make_link(link_type, &dest_url, false), String::new(), range.start));
            }
            Event::Start(Tag::Image { link_type, dest_url, .. }) => {
                link_stack.push((make_link(link_type, &dest_url, true), String::new(), range.start));
            }
            Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
                if let Some((mut link, label, start)) = link_stack.pop() {
                    let label = label.trim();
                    if !label.is_empty() && label != link.target && link.alias.is_none() {
                        link.alias = Some(label.to_string());
                    }
                    if is_note_link(&link) {
                        note.links.push(link);
                        note.link_lines.push(lines.line_of(start));
                    }
                }
            }
            Event::Text(t) => {
                if in_metadata {
                    metadata_text.push_str(&t);
                    continue;
                }
                if let Some((_, _, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
                if let Some((_, label, _)) = link_stack.last_mut() {
                    label.push_str(&t);
                }
                if code_depth == 0 {
                    scan_inline_tags(&t, &mut inline_tags);
                }
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                if let Some((_, _, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            _ => {}
        }
    }

    if !metadata_text.is_empty() {
        match parse_frontmatter(&metadata_text) {
            Ok(map) => note.frontmatter = map,
            Err(e) => note.frontmatter_error = Some(e),
        }
    }

    note.aliases = string_list(note.frontmatter.get("aliases").or(note.frontmatter.get("alias")));
    let mut tags = string_list(note.frontmatter.get("tags").or(note.frontmatter.get("tag")));
    tags.extend(inline_tags);
    note.tags = dedup_tags(tags);

    let fm_title =
        note.frontmatter.get("title").and_then(|v| v.as_str()).map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    note.title = fm_title.or(first_h1).unwrap_or_else(|| paths::stem(path).to_string());
    note
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn make_link(link_type: LinkType, dest: &str, embed: bool) -> Link {
    let dest = dest.trim();
    let (target, heading) = match dest.split_once('#') {
        Some((t, h)) => (t.to_string(), Some(h.to_string()).filter(|h| !h.is_empty())),
        None => (dest.to_string(), None),
    };
    let _ = link_type;
    Link { target, heading, alias: None, embed }
}

/// Wikilinks always count; Markdown links count when they point to a vault file.
fn is_note_link(link: &Link) -> bool {
    let t = &link.target;
    if t.is_empty() {
        return link.heading.is_some();
    }
    !(t.contains("://") || t.starts_with("mailto:"))
}

fn callout_kind(text: &str) -> Option<String> {
    let t = text.trim_start();
    let rest = t.strip_prefix("[!")?;
    let end = rest.find(']')?;
    let kind = rest[..end].trim().to_lowercase();
    (!kind.is_empty()).then_some(kind)
}

fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '/')
}

/// Obsidian inline tags: `#` at the start or after whitespace, then letters, digits,
/// `_`, `-`, `/`, with at least one non-digit.
pub fn scan_inline_tags(text: &str, out: &mut Vec<String>) {
    let mut prev: Option<char> = None;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if c == '#' && prev.is_none_or(|p| p.is_whitespace()) {
            let start = i + 1;
            let mut end = start;
            while let Some(&(j, d)) = iter.peek() {
                if !is_tag_char(d) {
                    break;
                }
                end = j + d.len_utf8();
                iter.next();
            }
            let tag = text[start..end].trim_end_matches('/');
            if !tag.is_empty() && tag.chars().any(|c| !c.is_ascii_digit()) && !tag.starts_with('/') {
                out.push(tag.to_string());
            }
            prev = text[..end].chars().last();
            continue;
        }
        prev = Some(c);
    }
}

fn dedup_tags(tags: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in tags {
        let t = t.trim().trim_start_matches('#').to_string();
        if t.is_empty() {
            continue;
        }
        if seen.insert(t.to_lowercase()) {
            out.push(t);
        }
    }
    out
}

/// A frontmatter value that may be a list or a comma/space separated string.
fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) => s.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect(),
        _ => Vec::new(),
    }
}

/// Parses a YAML frontmatter block into a JSON object.
pub fn parse_frontmatter(yaml: &str) -> Result<Map<String, Value>, String> {
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(format!("frontmatter is {} bytes, over the {} byte limit", yaml.len(), MAX_FRONTMATTER_BYTES));
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml).map_err(|e| format!("invalid YAML frontmatter: {e}"))?;
    match docs.into_iter().next() {
        None => Ok(Map::new()),
        Some(yaml_rust2::Yaml::Hash(h)) => {
            let mut map = Map::new();
            for (k, v) in h {
                map.insert(yaml_key(&k), yaml_to_json(v, 0));
            }
            Ok(map)
        }
        Some(yaml_rust2::Yaml::Null) => Ok(Map::new()),
        Some(_) => Err("frontmatter is not a key/value mapping".into()),
    }
}

fn yaml_key(k: &yaml_rust2::Yaml) -> String {
    use yaml_rust2::Yaml;
    match k {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        _ => "null".into(),
    }
}

fn yaml_to_json(y: yaml_rust2::Yaml, depth: usize) -> Value {
    use yaml_rust2::Yaml;
    if depth > MAX_YAML_DEPTH {
        return Value::Null;
    }
    match y {
        Yaml::String(s) => Value::String(s),
        Yaml::Integer(i) => Value::from(i),
        Yaml::Real(s) => {
            s.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Value::Number).unwrap_or(Value::String(s))
        }
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Array(a) => Value::Array(a.into_iter().map(|v| yaml_to_json(v, depth + 1)).collect()),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                m.insert(yaml_key(&k), yaml_to_json(v, depth + 1));
            }
            Value::Object(m)
        }
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

/// Flattens frontmatter properties into `key=value` strings (lower-cased) for the
/// property filter. Lists give one entry per item.
pub fn property_terms(frontmatter: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in frontmatter {
        let key = k.trim().to_lowercase();
        let mut push = |s: String| out.push(format!("{key}={}", s.trim().to_lowercase()));
        match v {
            Value::Array(items) => {
                for i in items {
                    if let Some(s) = scalar(i) {
                        push(s);
                    }
                }
            }
            other => {
                if let Some(s) = scalar(other) {
                    push(s);
                }
            }
        }
    }
    out
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "---\ntitle: Search Pipeline\naliases: [Pipeline, 検索]\ntags:\n  - design/search\n  - rust\nstatus: draft\n---\n# Overview\n\nSee [[Other note#Part|the other]] and ![[diagram.png]] #inline/tag here.\n\n```rust\n# not a heading\nlet x = \"#notatag\";\n```\n\n> [!warning] Careful\n> text\n\n> [!example]- Folded\n> more\n\n## Stage 5: RRF\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";

    #[test]
    fn parses_frontmatter_title_aliases_tags() {
        let n = parse("Design/pipeline.md", NOTE);
        assert_eq!(n.title, "Search Pipeline");
        assert_eq!(n.aliases, vec!["Pipeline", "検索"]);
        assert_eq!(n.tags, vec!["design/search", "rust", "inline/tag"]);
        assert_eq!(n.frontmatter["status"], "draft");
        assert!(n.frontmatter_error.is_none());
        assert_eq!(n.body_start_line, 9);
    }

    #[test]
    fn headings_have_lines_and_code_is_not_a_heading() {
        let n = parse("a.md", NOTE);
        let hs: Vec<(u8, &str, u32)> = n.headings.iter().map(|h| (h.level, h.text.as_str(), h.line)).collect();
        assert_eq!(hs, vec![(1, "Overview", 9), (2, "Stage 5: RRF", 24)]);
    }

    #[test]
    fn links_embeds_and_callouts() {
        let n = parse("a.md", NOTE);
        assert_eq!(n.links.len(), 2);
        assert_eq!(n.links[0].target, "Other note");
        assert_eq!(n.links[0].heading.as_deref(), Some("Part"));
        assert_eq!(n.links[0].alias.as_deref(), Some("the other"));
        assert!(!n.links[0].embed);
        assert_eq!(n.links[1].target, "diagram.png");
        assert!(n.links[1].embed);
        assert_eq!(n.callouts, vec!["warning", "example"]);
    }

    #[test]
    fn title_falls_back_to_h1_then_file_name() {
        assert_eq!(parse("x/My Note.md", "# Heading One\ntext").title, "Heading One");
        assert_eq!(parse("x/My Note.md", "just text").title, "My Note");
    }

    #[test]
    fn broken_frontmatter_is_reported_and_body_kept() {
        let n = parse("a.md", "---\ntitle: [unclosed\n---\n# Body\ntext #tag1\n");
        assert!(n.frontmatter_error.is_some());
        assert_eq!(n.title, "Body");
        assert_eq!(n.tags, vec!["tag1"]);
    }

    #[test]
    fn inline_tag_rules() {
        let mut out = Vec::new();
        scan_inline_tags("a #ok #123 b#no #a/b/ #日本語 (#x", &mut out);
        assert_eq!(out, vec!["ok", "a/b", "日本語"]);
    }

    #[test]
    fn lossy_decode_and_binary_detection() {
        let d = decode(b"ok \xff\xfe bad");
        assert!(d.lossy);
        assert!(d.text.contains('\u{FFFD}'));
        assert!(looks_binary(b"PK\x03\x04\x00\x00"));
        assert!(!looks_binary("全文".as_bytes()));
    }

    #[test]
    fn line_index_slices() {
        let t = "a\nb\nc\n";
        assert_eq!(LineIndex::new(t).line_count(), 3);
        assert_eq!(slice_lines(t, 2, 3), "b\nc");
        assert_eq!(slice_lines(t, 1, 1), "a");
        assert_eq!(slice_lines("", 1, 1), "");
    }

    #[test]
    fn property_terms_flatten() {
        let n = parse("a.md", NOTE);
        let p = property_terms(&n.frontmatter);
        assert!(p.contains(&"status=draft".to_string()));
        assert!(p.contains(&"tags=rust".to_string()));
    }
}
