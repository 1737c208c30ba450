//! Token estimates for the section budget, without a model tokenizer: CJK characters
//! count about one token each, other text about one token per four characters.

use crate::analyzer::is_cjk;

pub fn estimate_tokens(text: &str) -> usize {
    let mut cjk = 0usize;
    let mut other = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            // ASCII without decoding; the same whitespace as `char::is_whitespace`.
            other += !matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') as usize;
            i += 1;
            continue;
        }
        let c = text[i..].chars().next().expect("a char boundary");
        i += c.len_utf8();
        if is_cjk(c) {
            cjk += 1;
        } else if !c.is_whitespace() {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_is_about_four_chars_per_token() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd efgh"), 2);
    }

    #[test]
    fn ascii_fast_path_agrees_with_char_whitespace() {
        let text = "a\u{0B}b\u{0C}c\r\nd\te f\u{A0}g\u{2003}h";
        let slow = text.chars().filter(|c| !c.is_whitespace()).count().div_ceil(4);
        assert_eq!(estimate_tokens(text), slow);
    }

    #[test]
    fn cjk_counts_one_per_char() {
        assert_eq!(estimate_tokens("全文检索"), 4);
        assert_eq!(estimate_tokens("検索 abcd"), 3);
    }
}
