//! The text as lines: byte offsets, blank lines, token estimates and windows of at most a
//! budget of tokens. Rows are 0-based here; the chunks' lines are 1-based.

/// At most this many bytes of a signature (cut at a character boundary).
pub(crate) const SIGNATURE_MAX_BYTES: usize = 300;
/// At most this many bytes of a doc comment or docstring.
pub(crate) const DOC_MAX_BYTES: usize = 2048;

/// Tokens are estimated as the core estimates Latin text (`strata_core::token_estimate`): one
/// per four non-whitespace characters, counted here in bytes (code is nearly all ASCII, and a
/// multi-byte character then counts a little under one token, as the core counts CJK). One pass
/// over the bytes, no decoding.
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Byte offset of each row's first byte; one more entry: the end of the text.
    starts: Vec<usize>,
    /// Running count of non-whitespace bytes before each row (same length as `starts`).
    ink: Vec<u64>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut ink = vec![0u64];
        let mut count = 0u64;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
                ink.push(count);
            } else if !matches!(b, b' ' | b'\t' | b'\r' | 0x0B | 0x0C) {
                count += 1;
            }
        }
        // A final line without a newline; a text ending in "\n" has no empty last row.
        if *starts.last().expect("one start") < bytes.len() {
            starts.push(bytes.len());
            ink.push(count);
        }
        Lines { text, starts, ink }
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The number of rows (0 for an empty text).
    pub(crate) fn len(&self) -> u32 {
        (self.starts.len() - 1) as u32
    }

    /// A row's text without its line break.
    pub(crate) fn row(&self, r: u32) -> &'a str {
        let r = r as usize;
        let s = &self.text[self.starts[r]..self.starts[r + 1]];
        s.strip_suffix('\n').map(|s| s.strip_suffix('\r').unwrap_or(s)).unwrap_or(s)
    }

    pub(crate) fn is_blank(&self, r: u32) -> bool {
        self.ink[r as usize + 1] == self.ink[r as usize]
    }

    /// The estimated tokens of rows `a..=b`.
    pub(crate) fn tokens(&self, a: u32, b: u32) -> usize {
        if b < a {
            return 0;
        }
        ((self.ink[b as usize + 1] - self.ink[a as usize]) as usize).div_ceil(4)
    }

    /// Rows `a..=b` without their leading and trailing blank rows; None when all are blank.
    pub(crate) fn trim(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        if self.len() == 0 {
            return None;
        }
        let mut a = a;
        let mut b = b.min(self.len().saturating_sub(1));
        while a <= b && self.is_blank(a) {
            a += 1;
        }
        while b > a && self.is_blank(b) {
            b -= 1;
        }
        (a <= b && !self.is_blank(a)).then_some((a, b))
    }

    /// Rows `a..=b` has a letter or digit (not only braces and punctuation).
    pub(crate) fn has_words(&self, a: u32, b: u32) -> bool {
        (a..=b).any(|r| self.row(r).bytes().any(|c| c.is_ascii_alphanumeric() || c >= 0x80))
    }

    /// Rows `a..=b` cut into windows of at most `budget` tokens (a single longer row is a
    /// window of its own), each trimmed of blank rows, of about equal size: as many windows as
    /// the budget needs, each aiming at the average. A window ends before the best row near its
    /// aim to start the next one: the least indented (the start of a statement at the outermost
    /// level there, so a body is cut between its inner blocks), after a blank row rather than
    /// not, never a row opening with a closing bracket; then the closest to the aim.
    pub(crate) fn windows(&self, a: u32, b: u32, budget: usize) -> Vec<(u32, u32)> {
        let budget = budget.max(1);
        let mut out = Vec::new();
        let Some((mut start, b)) = self.trim(a, b) else { return out };
        let total = self.tokens(start, b);
        let aim = total.div_ceil(total.div_ceil(budget).max(1)).clamp(1, budget);
        while start <= b {
            let reach = |limit: usize| {
                let mut end = start;
                while end < b && self.tokens(start, end + 1) <= limit {
                    end += 1;
                }
                end
            };
            let end = reach(budget);
            if end == b {
                out.extend(self.trim(start, b));
                break;
            }
            let target = reach(aim) + 1;
            let from = start + (target - start).div_ceil(2);
            let cut = (from.max(start + 1)..=end + 1)
                .min_by_key(|&c| (self.cut_cost(c), c.abs_diff(target)))
                .unwrap_or(end + 1);
            out.extend(self.trim(start, cut - 1));
            start = cut;
            while start <= b && self.is_blank(start) {
                start += 1;
            }
        }
        out
    }

    /// How bad a place row `c` is to start a window (lower is better).
    fn cut_cost(&self, c: u32) -> u32 {
        if self.is_blank(c) {
            return u32::MAX / 2;
        }
        let line = self.row(c);
        let indent: u32 = line
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .map(|b| if b == b'\t' { 4 } else { 1 })
            .sum::<u32>()
            .min(200);
        let closing = matches!(line.trim_start().bytes().next(), Some(b'}' | b')' | b']'));
        let after_blank = c > 0 && self.is_blank(c - 1);
        indent * 4 + if after_blank { 0 } else { 2 } + if closing { 1000 } else { 0 }
    }
}

/// `s` with runs of whitespace as one space, trimmed, at most `max` bytes.
pub(crate) fn collapse(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max));
    for word in s.split_whitespace() {
        if !out.is_empty() {
            if out.len() + 1 > max {
                break;
            }
            out.push(' ');
        }
        if out.len() + word.len() > max {
            out.push_str(truncate(word, max - out.len()));
            break;
        }
        out.push_str(word);
    }
    out.trim_end().to_string()
}

/// The longest prefix of `s` of at most `max` bytes ending at a character boundary.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_tokens() {
        let l = Lines::new("ab\n\n  cdefgh\r\nx");
        assert_eq!(l.len(), 4);
        assert_eq!(l.row(2), "  cdefgh");
        assert!(l.is_blank(1));
        assert_eq!(l.tokens(0, 3), 3);
        assert_eq!(Lines::new("").len(), 0);
        assert_eq!(Lines::new("a\n").len(), 1);
    }

    #[test]
    fn windows_cut_at_the_outermost_statement() {
        let text = "fn a() {\n    let x = 1111;\n    let y = 2222;\n}\nfn b() {\n    let z = 3333;\n}\n";
        let l = Lines::new(text);
        assert_eq!(l.windows(0, 6, 10), vec![(0, 3), (4, 6)]);
        assert_eq!(l.windows(0, 6, 1000), vec![(0, 6)]);
    }

    #[test]
    fn collapse_and_truncate() {
        assert_eq!(collapse("def  f(a,\n    b):", 300), "def f(a, b):");
        assert_eq!(collapse("abc def", 5), "abc d");
        assert_eq!(truncate("héllo", 2), "h");
    }
}
