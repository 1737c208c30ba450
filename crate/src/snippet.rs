//! Snippets for display: Markdown syntax shown as the text it renders (see [`display_edits`]),
//! whitespace collapsed, highlight ranges converted from byte offsets to JavaScript (UTF-16)
//! offsets.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Snippet {
    pub text: String,
    /// [start, end) in UTF-16 code units of `text`.
    pub highlights: Vec<(u32, u32)>,
}

/// Builds a display snippet from `fragment` and byte ranges of highlighted terms.
pub fn make_snippet(fragment: &str, ranges: &[std::ops::Range<usize>]) -> Snippet {
    let mut text = String::with_capacity(fragment.len());
    // Byte offset in `fragment` → UTF-16 offset in `text`, for every char boundary.
    let mut map = vec![0u32; fragment.len() + 1];
    let mut utf16 = 0u32;
    let mut last_space = true;
    let edits = display_edits(fragment);
    let mut push = |c: char, text: &mut String, utf16: &mut u32| {
        if c.is_whitespace() {
            if !last_space {
                text.push(' ');
                *utf16 += 1;
            }
            last_space = true;
        } else {
            text.push(c);
            *utf16 += c.len_utf16() as u32;
            last_space = false;
        }
    };
    for (i, c) in fragment.char_indices() {
        map[i] = utf16;
        match edits[i] {
            Edit::Keep => push(c, &mut text, &mut utf16),
            Edit::Drop => {}
            Edit::Replace(with) => with.chars().for_each(|w| push(w, &mut text, &mut utf16)),
        }
    }
    map[fragment.len()] = utf16;
    let trimmed_end = text.trim_end().len();
    let text_len16 = text[..trimmed_end].encode_utf16().count() as u32;
    text.truncate(trimmed_end);
    let mut highlights: Vec<(u32, u32)> = ranges
        .iter()
        .filter(|r| r.start < r.end && r.end <= fragment.len())
        .filter(|r| fragment.is_char_boundary(r.start) && fragment.is_char_boundary(r.end))
        .map(|r| (map[r.start], map[r.end].min(text_len16)))
        .filter(|(s, e)| s < e)
        .collect();
    highlights.sort_unstable();
    Snippet { text, highlights }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Edit {
    Keep,
    Drop,
    Replace(&'static str),
}

/// What a snippet shows of each byte of `fragment` (at char starts): Markdown syntax becomes the
/// text it renders, as in Obsidian's reading view. Heading markers go and a heading's line end
/// becomes " — "; quote markers and callout types (`> [!note]`) go; table rules go, and so do a
/// row's outer pipes; a wikilink or embed shows its alias, else its target (`[[a|b]]` → `b`); a
/// Markdown link shows its text; `**`, `==` and `~~` go. Code (spans and fenced blocks) is shown
/// as written, and single `*`/`_` are left alone (arithmetic, snake_case): a note that explains
/// Markdown syntax writes it in code.
fn display_edits(fragment: &str) -> Vec<Edit> {
    let b = fragment.as_bytes();
    let mut e = vec![Edit::Keep; b.len()];
    let drop = |e: &mut Vec<Edit>, r: std::ops::Range<usize>| e[r].iter_mut().for_each(|x| *x = Edit::Drop);
    let mut fenced = false;
    let mut start = 0;
    for line in fragment.split_inclusive('\n') {
        let ls = start;
        start += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let le = ls + content.len();
        let mut p = ls + (content.len() - content.trim_start().len());
        let t = &fragment[p..le];
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            drop(&mut e, ls..le);
            continue;
        }
        if fenced {
            continue;
        }
        if !t.is_empty()
            && t.contains('-')
            && t.bytes().all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t'))
            && t.contains('|')
        {
            drop(&mut e, ls..le); // a table's rule row
            continue;
        }
        while b.get(p) == Some(&b'>') {
            let sp = fragment[p + 1..le].len() - fragment[p + 1..le].trim_start_matches(' ').len();
            drop(&mut e, p..p + 1 + sp);
            p += 1 + sp;
        }
        let rest = &fragment[p..le];
        if rest.starts_with("[!") {
            if let Some(end) = rest.find(']') {
                let end = end + 1 + usize::from(rest[end + 1..].starts_with(['+', '-']));
                let sp = rest[end..].len() - rest[end..].trim_start().len();
                drop(&mut e, p..p + end + sp);
            }
        }
        let hashes = rest.bytes().take_while(|&c| c == b'#').count();
        if (1..=6).contains(&hashes) && (rest.len() == hashes || rest.as_bytes()[hashes] == b' ') {
            drop(&mut e, p..(p + hashes + 1).min(le));
            if le < start {
                e[le] = Edit::Replace(" — ");
                drop(&mut e, le + 1..start);
            }
        } else if rest.starts_with('|') {
            drop(&mut e, p..p + 1);
            if rest.len() > 1 && rest.ends_with('|') {
                drop(&mut e, le - 1..le);
            }
        }
        inline_edits(fragment, p..le, &mut e);
    }
    e
}

/// The inline part of [`display_edits`] for one line.
fn inline_edits(s: &str, line: std::ops::Range<usize>, e: &mut [Edit]) {
    let b = s.as_bytes();
    let mut i = line.start;
    while i < line.end {
        let at = |pat: &str| s[i..line.end].starts_with(pat);
        if b[i] == b'`' {
            // A code span: shown as written, up to its closing backtick.
            i = s[i + 1..line.end].find('`').map_or(line.end, |n| i + 1 + n + 1);
        } else if at("[[") || at("![[") {
            // A link cut by the fragment's end has no "]]": its opener goes all the same.
            let open = if b[i] == b'!' { 3 } else { 2 };
            let close = s[i + open..line.end].find("]]").map_or(line.end, |n| i + open + n);
            e[i..i + open].iter_mut().for_each(|x| *x = Edit::Drop);
            link_target(s, i + open..close, e);
            e[close..(close + 2).min(line.end)].iter_mut().for_each(|x| *x = Edit::Drop);
            i = close + 2;
        } else if at("]]") && line.start == 0 && !s[..i].contains("[[") {
            // The fragment starts inside a link: what precedes the "]]" is its tail.
            link_target(s, 0..i, e);
            e[i..i + 2].iter_mut().for_each(|x| *x = Edit::Drop);
            i += 2;
        } else if b[i] == b'[' {
            // [text](target): the text.
            let link = s[i + 1..line.end].find("](").and_then(|n| {
                let mid = i + 1 + n;
                s[mid + 2..line.end].find(')').map(|m| (mid, mid + 2 + m))
            });
            match link {
                Some((mid, close)) if !s[i + 1..mid].contains('[') => {
                    e[i] = Edit::Drop;
                    e[mid..=close].iter_mut().for_each(|x| *x = Edit::Drop);
                    i = mid;
                }
                _ => i += 1,
            }
        } else if at("**") || at("==") || at("~~") {
            e[i..i + 2].iter_mut().for_each(|x| *x = Edit::Drop);
            i += 2;
        } else {
            i += s[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
}

/// A wikilink's inside as shown: its alias when it has one, else its target with " › " for `#`.
fn link_target(s: &str, inner: std::ops::Range<usize>, e: &mut [Edit]) {
    match s[inner.clone()].find('|') {
        Some(bar) => e[inner.start..=inner.start + bar].iter_mut().for_each(|x| *x = Edit::Drop),
        None => {
            for (k, c) in s[inner.clone()].char_indices() {
                if c == '#' {
                    e[inner.start + k] = Edit::Replace(" › ");
                }
            }
        }
    }
}

/// The first characters of a section as a snippet without highlights (title-only hits).
pub fn leading_snippet(text: &str, max_chars: usize) -> Snippet {
    let body: String = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && *l != "---")
        .collect::<Vec<_>>()
        .join("\n"); // lines kept apart for the Markdown display (tables, quotes)
    let cut: String = body.chars().take(max_chars).collect();
    make_snippet(&cut, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_whitespace_and_maps_offsets() {
        let frag = "a  b\n\nsearch 検索 x";
        let s_at = frag.find("search").unwrap();
        let k_at = frag.find("検索").unwrap();
        let s = make_snippet(frag, &[s_at..s_at + 6, k_at..k_at + "検索".len()]);
        assert_eq!(s.text, "a b search 検索 x");
        let u: Vec<u16> = s.text.encode_utf16().collect();
        let (a, b) = s.highlights[0];
        assert_eq!(String::from_utf16(&u[a as usize..b as usize]).unwrap(), "search");
        let (a, b) = s.highlights[1];
        assert_eq!(String::from_utf16(&u[a as usize..b as usize]).unwrap(), "検索");
    }

    #[test]
    fn astral_chars_count_two_utf16_units() {
        let frag = "😀 hit";
        let hit = frag.find("hit").unwrap()..frag.len();
        let s = make_snippet(frag, std::slice::from_ref(&hit));
        assert_eq!(s.highlights, vec![(3, 6)]);
    }

    fn shown(frag: &str) -> String {
        make_snippet(frag, &[]).text
    }

    #[test]
    fn markdown_syntax_shows_as_rendered_text() {
        assert_eq!(shown("## Hydration\nHydration is the weight"), "Hydration — Hydration is the weight");
        assert_eq!(
            shown("see [[Telescope care#Collimation]] and [[Observing log 2024|the log]]"),
            "see Telescope care › Collimation and the log"
        );
        assert_eq!(shown("![[diagram.png]] a [link](https://x.y/z) here"), "diagram.png a link here");
        assert_eq!(shown("> [!note]- Title\n> body **bold** ==mark== ~~old~~"), "Title body bold mark old");
        assert_eq!(shown("| Part | Price |\n|------|:-----:|\n| Chain | 9 |"), "Part | Price Chain | 9");
        // Code is shown as written; single emphasis characters are left alone.
        assert_eq!(
            shown("use `==text==` or `[[x]]`; 2 * 3 * 4; snake_case_name"),
            "use `==text==` or `[[x]]`; 2 * 3 * 4; snake_case_name"
        );
        assert_eq!(shown("```md\n## not a heading [[x]]\n```\nafter"), "## not a heading [[x]] after");
        // A fragment cut inside a link (at either end) shows the link's text.
        assert_eq!(shown("see [[Telescope care"), "see Telescope care");
        assert_eq!(shown("Cooking/Fermented hot sauce|hot sauce]]. - The night sky"), "hot sauce. - The night sky");
        assert_eq!(shown("care]] and more"), "care and more");
        // A '#' mid-line is no heading.
        assert_eq!(shown("#tag and # heading"), "#tag and # heading");
    }

    #[test]
    fn highlights_follow_the_shown_text() {
        let frag = "## Hydration\nto go with the [[Sourdough starter]] and **more**";
        let ranges: Vec<_> = ["Hydration", "Sourdough", "more"]
            .iter()
            .map(|w| frag.find(w).unwrap()..frag.find(w).unwrap() + w.len())
            .collect();
        let s = make_snippet(frag, &ranges);
        let u: Vec<u16> = s.text.encode_utf16().collect();
        let got: Vec<String> =
            s.highlights.iter().map(|&(a, b)| String::from_utf16(&u[a as usize..b as usize]).unwrap()).collect();
        assert_eq!(got, ["Hydration", "Sourdough", "more"]);
        assert_eq!(s.text, "Hydration — to go with the Sourdough starter and more");
    }

    #[test]
    fn any_text_and_ranges_never_panic() {
        // Markup pieces, multi-byte characters and line breaks in every order.
        let pieces = [
            "[[", "]]", "![[", "|", "#", "## ", "> ", "[!", "]", "(", ")", "](", "`", "```", "**", "==", "~~", "\n",
            "\r\n", "a", "検", "😀", " ", "-", ":",
        ];
        let mut seed = 0x2545_f491_u64;
        for _ in 0..4000 {
            let mut frag = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                frag.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let ranges: Vec<_> = (0..frag.len()).step_by(3).map(|a| a..(a + 4).min(frag.len())).collect();
            let s = make_snippet(&frag, &ranges);
            let n = s.text.encode_utf16().count() as u32;
            assert!(s.highlights.iter().all(|&(a, b)| a < b && b <= n), "{frag:?}");
            leading_snippet(&frag, 50);
        }
    }

    #[test]
    fn leading_snippet_shows_tables_as_text() {
        let s = leading_snippet("Intro.\n\n| Part | Price |\n|---|---|\n| Chain | 9 |", 200);
        assert_eq!(s.text, "Intro. Part | Price Chain | 9");
    }

    #[test]
    fn leading_snippet_skips_headings() {
        let s = leading_snippet("# Title\n\nFirst line\nsecond", 12);
        assert_eq!(s.text, "First line s");
    }
}
