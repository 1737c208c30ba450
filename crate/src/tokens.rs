//! Token estimates for the section budget, without a model tokenizer: CJK characters
//! count about one token each, other text about one token per four characters.

use crate::cjk::is_cjk;

pub fn estimate_tokens(text: &str) -> usize {
    let mut cjk = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
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
    fn cjk_counts_one_per_char() {
        assert_eq!(estimate_tokens("全文检索"), 4);
        assert_eq!(estimate_tokens("検索 abcd"), 3);
    }
}
