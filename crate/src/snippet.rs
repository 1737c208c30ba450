//! Snippets for display: whitespace collapsed, highlight ranges converted from byte
//! offsets to JavaScript (UTF-16) offsets.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    for (i, c) in fragment.char_indices() {
        map[i] = utf16;
        if c.is_whitespace() {
            if !last_space {
                text.push(' ');
                utf16 += 1;
            }
            last_space = true;
        } else {
            text.push(c);
            utf16 += c.len_utf16() as u32;
            last_space = false;
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

/// The first characters of a section as a snippet without highlights (title-only hits).
pub fn leading_snippet(text: &str, max_chars: usize) -> Snippet {
    let body: String = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && *l != "---")
        .collect::<Vec<_>>()
        .join(" ");
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
        let s = make_snippet(frag, &[frag.find("hit").unwrap()..frag.len()]);
        assert_eq!(s.highlights, vec![(3, 6)]);
    }

    #[test]
    fn leading_snippet_skips_headings() {
        let s = leading_snippet("# Title\n\nFirst line\nsecond", 12);
        assert_eq!(s.text, "First line s");
    }
}
