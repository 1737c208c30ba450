//! A note's outline: where its frontmatter ends and where each heading's section runs, from
//! the same Markdown parse that indexing and `read` use (pulldown-cmark), so a tool that edits
//! a note by heading never disagrees with them on setext headings, a `#` line inside fenced
//! code, or a `---` block that is not frontmatter.
//!
//! Lines are 1-based and inclusive, as in every other answer of the core (`read`, hits,
//! sections). Each heading carries the links written in its own lines (up to the next heading
//! of any level), the links above the first heading are the outline's `links_before`.

use serde::{Deserialize, Serialize};

use crate::markdown;

/// A note's structure (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Outline {
    /// Lines of the note (a final line break does not open another line).
    pub line_count: u32,
    /// The line of the frontmatter's closing fence (`---` or `...`); null without frontmatter.
    pub frontmatter_end: Option<u32>,
    /// The first line after the frontmatter (1 without frontmatter).
    pub body_start_line: u32,
    /// Headings in document order (none inside code blocks or the frontmatter).
    pub headings: Vec<OutlineHeading>,
    /// Links above the first heading.
    pub links_before: Vec<OutlineLink>,
}

/// One heading of an [`Outline`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OutlineHeading {
    /// 1 to 6 (`#` to `######`; a setext heading is 1 with `===`, 2 with `---`).
    pub level: u8,
    /// The heading's text as it renders (markup and closing `#`s removed, trimmed).
    pub text: String,
    /// The heading's first line.
    pub line: u32,
    /// The last line of its section, subsections included: the line before the next heading of
    /// the same or a higher level, else the note's last line.
    pub end_line: u32,
    /// Heading texts from the top level down to this one (its own text last).
    pub path: Vec<String>,
    /// The links of its own lines (from the heading to the next heading of any level).
    pub links: Vec<OutlineLink>,
}

/// A link (wikilink, embed, or Markdown link to a vault file) of an [`Outline`], at its line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OutlineLink {
    pub target: String,
    /// The heading the link points to (`[[Note#Heading]]`).
    pub heading: Option<String>,
    pub alias: Option<String>,
    pub embed: bool,
    pub line: u32,
}

/// The outline of a note's bytes: decoded as indexing decodes them (invalid UTF-8 replaced,
/// which keeps every line break, so line numbers stay those of the file; a BOM removed).
pub fn outline_bytes(bytes: &[u8]) -> Outline {
    outline(&markdown::decode(bytes).text)
}

/// The outline of a note's text.
pub fn outline(text: &str) -> Outline {
    let parsed = markdown::parse("", text);
    let mut o = from_parsed(&parsed.headings, parsed.line_count, parsed.body_start_line);
    for (link, &line) in parsed.links.into_iter().zip(&parsed.link_lines) {
        let markdown::Link { target, heading, alias, embed } = link;
        let link = OutlineLink { target, heading, alias, embed, line };
        // The last heading at or above the link's line holds it.
        match o.headings.iter().rposition(|h| h.line <= line) {
            Some(i) => o.headings[i].links.push(link),
            None => o.links_before.push(link),
        }
    }
    o
}

/// The outline of a note already parsed by [`markdown::parse`].
pub fn from_parsed(headings: &[markdown::Heading], line_count: u32, body_start_line: u32) -> Outline {
    let mut out = Vec::with_capacity(headings.len());
    let mut chain: Vec<&markdown::Heading> = Vec::new();
    for (i, h) in headings.iter().enumerate() {
        while chain.last().is_some_and(|c| c.level >= h.level) {
            chain.pop();
        }
        chain.push(h);
        let end_line =
            headings[i + 1..].iter().find(|n| n.level <= h.level).map(|n| n.line - 1).unwrap_or(line_count).max(h.line);
        out.push(OutlineHeading {
            level: h.level,
            text: h.text.clone(),
            line: h.line,
            end_line,
            path: chain.iter().map(|c| c.text.clone()).collect(),
            links: Vec::new(),
        });
    }
    Outline {
        line_count,
        // The parser sets the body's start only at the end of a frontmatter block.
        frontmatter_end: (body_start_line > 1).then(|| body_start_line - 1),
        body_start_line,
        headings: out,
        links_before: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (level, text, line, end line) of each heading.
    fn shape(o: &Outline) -> Vec<(u8, &str, u32, u32)> {
        o.headings.iter().map(|h| (h.level, h.text.as_str(), h.line, h.end_line)).collect()
    }

    #[test]
    fn atx_headings_and_nested_sections() {
        let o = outline("# A\ntext\n## B\nb\n### C\nc\n## D\nd\n# E\ne\n");
        assert_eq!(o.line_count, 10);
        assert_eq!(o.frontmatter_end, None);
        assert_eq!(o.body_start_line, 1);
        assert_eq!(shape(&o), vec![(1, "A", 1, 8), (2, "B", 3, 6), (3, "C", 5, 6), (2, "D", 7, 8), (1, "E", 9, 10)]);
        assert_eq!(o.headings[2].path, vec!["A", "B", "C"]);
        assert_eq!(o.headings[3].path, vec!["A", "D"]);
        assert_eq!(o.headings[4].path, vec!["E"]);
    }

    #[test]
    fn closing_hashes_and_markup_are_not_text() {
        let o = outline("## Title with `code` and *emphasis* ##\n");
        assert_eq!(shape(&o), vec![(2, "Title with code and emphasis", 1, 1)]);
    }

    #[test]
    fn setext_headings() {
        let o = outline("Top\n===\n\nintro\n\nSub\n---\nbody\n");
        assert_eq!(shape(&o), vec![(1, "Top", 1, 8), (2, "Sub", 6, 8)]);
    }

    #[test]
    fn hash_lines_in_code_blocks_are_not_headings() {
        let text =
            "# Real\n```sh\n# a comment\n## another\n```\n~~~\n# tilde fence\n~~~\n    # indented code\n## Also real\n";
        let o = outline(text);
        assert_eq!(shape(&o), vec![(1, "Real", 1, 10), (2, "Also real", 10, 10)]);
    }

    #[test]
    fn frontmatter_ends_at_its_closing_fence() {
        let o = outline("---\ntitle: x\ntags: [a]\n---\n# H\nbody\n");
        assert_eq!(o.frontmatter_end, Some(4));
        assert_eq!(o.body_start_line, 5);
        assert_eq!(shape(&o), vec![(1, "H", 5, 6)]);
        // A `---` line later on is a thematic break (or a setext underline), not frontmatter.
        let o = outline("# H\n\n---\n\ntext\n");
        assert_eq!(o.frontmatter_end, None);
        assert_eq!(shape(&o), vec![(1, "H", 1, 5)]);
        // Frontmatter only.
        let o = outline("---\na: 1\n---\n");
        assert_eq!((o.frontmatter_end, o.line_count, o.headings.len()), (Some(3), 3, 0));
    }

    #[test]
    fn crlf_lines_count_like_lf() {
        let lf = outline("---\na: 1\n---\n# A\nx\n## B\ny\n");
        let crlf = outline("---\r\na: 1\r\n---\r\n# A\r\nx\r\n## B\r\ny\r\n");
        assert_eq!(lf, crlf);
        assert_eq!(shape(&crlf), vec![(1, "A", 4, 7), (2, "B", 6, 7)]);
    }

    #[test]
    fn no_headings_and_empty_notes() {
        let o = outline("just text\nmore\n");
        assert_eq!((o.line_count, o.headings.len(), o.frontmatter_end), (2, 0, None));
        assert_eq!(
            outline(""),
            Outline { line_count: 0, frontmatter_end: None, body_start_line: 1, ..Default::default() }
        );
    }

    #[test]
    fn invalid_utf8_keeps_lines() {
        let o = outline_bytes(b"# Caf\xe9\nbad \xff\xfe bytes\n## Next\nend\n");
        assert_eq!(o.line_count, 4);
        assert_eq!(shape(&o), vec![(1, "Caf\u{FFFD}", 1, 4), (2, "Next", 3, 4)]);
        // A BOM is not a line's text.
        let o = outline_bytes(b"\xef\xbb\xbf# Title\nx\n");
        assert_eq!(shape(&o), vec![(1, "Title", 1, 2)]);
    }

    #[test]
    fn a_heading_on_the_last_line_ends_there() {
        let o = outline("text\n# Last");
        assert_eq!(shape(&o), vec![(1, "Last", 2, 2)]);
    }

    #[test]
    fn links_under_the_heading_whose_lines_hold_them() {
        let text = "---\nup: \"[[Fm]]\"\n---\nSee [[Intro]].\n# A [[InHeading]]\ntext [[B#Part|the part]]\n## A1\n![[pic.png]] and [md](Other.md)\n```\n[[Not a link]]\n```\n# C\n[web](https://example.com) [[D]]\n";
        let o = outline(text);
        let links = |ls: &[OutlineLink]| ls.iter().map(|l| (l.target.clone(), l.line)).collect::<Vec<_>>();
        assert_eq!(links(&o.links_before), [("Intro".to_string(), 4)]);
        assert_eq!(links(&o.headings[0].links), [("InHeading".to_string(), 5), ("B".to_string(), 6)]);
        assert_eq!(o.headings[0].links[1].heading.as_deref(), Some("Part"));
        assert_eq!(o.headings[0].links[1].alias.as_deref(), Some("the part"));
        assert_eq!(links(&o.headings[1].links), [("pic.png".to_string(), 8), ("Other.md".to_string(), 8)]);
        assert!(o.headings[1].links[0].embed && !o.headings[1].links[1].embed);
        assert_eq!(links(&o.headings[2].links), [("D".to_string(), 13)]);
    }
}
