//! The analyzer of code: identifiers are matched whole and by their parts. `validateUserToken`,
//! `validate_user_token` and `ValidateUserTOKEN` are indexed as the whole identifier
//! (lower-cased) and as `validate`, `user`, `token`, so a query that describes the function in
//! words finds it, and one that names it finds it first. Parts are stemmed in English like the
//! words of comments (the query side analyses the same way); text in other scripts (a comment
//! in Chinese) is tokenized as the Markdown analyzer does.

use tantivy::tokenizer::{AsciiFoldingFilter, RemoveLongFilter, TextAnalyzer, TokenStream, Tokenizer};

use super::filters::{ExactSink, LangSlot, LanguageStemmer, Normalize};
use super::{tokenize_into, CjkTokenStream, TokenBuf, KEPT_SLOTS, MAX_TOKEN_BYTES};
use crate::language::Stem;
pub use strata_chunker::PLACEHOLDER;

/// Name under which the code analyzer is registered on the index.
pub const CODE_TOKENIZER_NAME: &str = "strata-code";

#[derive(Clone, Default)]
pub struct CodeTokenizer {
    buf: TokenBuf,
    scratch: TokenBuf,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CjkTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CjkTokenStream<'a> {
        self.buf.tokens.truncate(KEPT_SLOTS);
        self.buf.len = 0;
        tokenize_code(text, &mut self.buf, &mut self.scratch);
        CjkTokenStream::over(&mut self.buf)
    }
}

/// A character of an identifier: ASCII letters, digits, `_` and `$`, and the letters and marks
/// of alphabetic scripts (`naïve`, `Größe`); CJK and Thai-like runs are not identifiers.
fn is_ident_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_' || c == '$'
    } else {
        super::continues_word(c)
    }
}

/// Splits `text` into identifiers (whole, then their parts when they have several) and, for
/// the text between them, the Markdown analyzer's tokens (CJK bigrams, segmented Thai). A
/// part's position is the identifier's plus the part's index, so `"user token"` is a phrase
/// inside `validateUserToken`.
pub fn tokenize_code(text: &str, out: &mut TokenBuf, scratch: &mut TokenBuf) {
    let mut iter = text.char_indices().peekable();
    let mut position = 0usize;
    while let Some(&(start, c)) = iter.peek() {
        if is_ident_char(c) {
            let mut end = start;
            while let Some(&(i, c)) = iter.peek() {
                if !is_ident_char(c) {
                    break;
                }
                end = i + c.len_utf8();
                iter.next();
            }
            position = push_identifier(text, start, end, position, out);
        } else if c.is_ascii() {
            iter.next();
        } else if c == PLACEHOLDER {
            // An interpolated value in a string literal: a term of its own, which a quoted
            // phrase's run of words can stand in for (`lexical::search`).
            iter.next();
            out.slot_at(start, start + c.len_utf8(), position).push(PLACEHOLDER);
            position += 1;
        } else {
            let mut end = start;
            while let Some(&(i, c)) = iter.peek() {
                if c.is_ascii() || is_ident_char(c) {
                    break;
                }
                end = i + c.len_utf8();
                iter.next();
            }
            scratch.tokens.truncate(KEPT_SLOTS);
            scratch.len = 0;
            tokenize_into(&text[start..end], scratch);
            for t in scratch.as_slice() {
                out.slot_at(start + t.offset_from, start + t.offset_to, position).push_str(&t.text);
                position += 1;
            }
        }
    }
}

/// Pushes an identifier `text[from..to]` at `position`; returns the next free position.
fn push_identifier(text: &str, from: usize, to: usize, position: usize, out: &mut TokenBuf) -> usize {
    let word = &text[from..to];
    let mut parts: Vec<(usize, usize)> = Vec::new();
    split_identifier(word, &mut parts);
    if parts.is_empty() {
        return position;
    }
    if parts.len() > 1 {
        let t = out.slot_at(from, to, position);
        t.extend(word.chars().filter(|c| *c != '_' && *c != '$').flat_map(char::to_lowercase));
    }
    for (k, (a, b)) in parts.iter().enumerate() {
        out.slot_at(from + a, from + b, position + k).extend(word[*a..*b].chars().flat_map(char::to_lowercase));
    }
    position + parts.len()
}

/// The parts of an identifier: split at `_` and `$`, at a lower-case letter or digit followed
/// by an upper-case one (`userToken`), and before the last capital of a run of capitals
/// followed by a lower-case letter (`HTTPServer` → HTTP, Server). Digits stay with the letters
/// before them (`sha256`, `utf8Decode` → utf8, Decode).
pub fn split_identifier(word: &str, parts: &mut Vec<(usize, usize)>) {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut start: Option<usize> = None;
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == '_' || c == '$' {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            continue;
        }
        match start {
            None => start = Some(i),
            Some(s) => {
                let prev = chars[k - 1].1;
                let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
                let boundary = c.is_uppercase()
                    && (prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower));
                if boundary && i > s {
                    parts.push((s, i));
                    start = Some(i);
                }
            }
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
}

/// The code fields' analyzer: identifiers whole and split, English stemming of the parts and
/// of comments' words, accents folded.
pub fn code_analyzer() -> TextAnalyzer {
    code_analyzer_into(None)
}

/// The index's code analyzer: also hands the words its stemmer changed, as written, to the
/// exact-form field (`sink`), so that a quoted phrase finds them in code as in notes.
pub fn code_analyzer_into(sink: Option<ExactSink>) -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(Normalize)
        .filter(LanguageStemmer { slot: LangSlot::fixed(Stem::ENGLISH), sink })
        .filter(AsciiFoldingFilter)
        .build()
}

/// Name under which the string literals' analyzer ([`literal_analyzer`]) is registered.
pub const LITERAL_TOKENIZER_NAME: &str = "strata-literal";

/// The string literals' analyzer: the code analyzer's words, not stemmed (a message is matched
/// as it was printed; a quoted phrase's words as written).
pub fn literal_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(Normalize)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The terms the code analyzer makes of `text`.
pub fn code_terms(text: &str) -> Vec<String> {
    let mut a = code_analyzer();
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(w: &str) -> Vec<&str> {
        let mut p = Vec::new();
        split_identifier(w, &mut p);
        p.into_iter().map(|(a, b)| &w[a..b]).collect()
    }

    #[test]
    fn identifiers_split_at_case_and_underscores() {
        assert_eq!(parts("validateUserToken"), ["validate", "User", "Token"]);
        assert_eq!(parts("validate_user_token"), ["validate", "user", "token"]);
        assert_eq!(parts("HTTPServerError"), ["HTTP", "Server", "Error"]);
        assert_eq!(parts("utf8Decode"), ["utf8", "Decode"]);
        assert_eq!(parts("__init__"), ["init"]);
        assert_eq!(parts("$el"), ["el"]);
        assert_eq!(parts("MAX_LEN"), ["MAX", "LEN"]);
        assert_eq!(parts("sha256"), ["sha256"]);
        assert!(parts("___").is_empty());
    }

    #[test]
    fn whole_identifiers_and_their_stemmed_parts_are_terms() {
        assert_eq!(code_terms("validateUserToken()"), ["validateusertoken", "valid", "user", "token"]);
        assert_eq!(
            code_terms("def validate_user_token(t):"),
            ["def", "validateusertoken", "valid", "user", "token", "t"]
        );
        // A plain word is one term, stemmed like prose.
        assert_eq!(code_terms("# Rebuilds the auth headers"), ["rebuild", "the", "auth", "header"]);
    }

    #[test]
    fn spellings_of_one_identifier_meet() {
        let camel = code_terms("validateUserToken");
        assert_eq!(code_terms("validate_user_token"), camel);
        assert_eq!(code_terms("ValidateUserToken"), camel);
    }

    #[test]
    fn other_scripts_in_code_are_tokenized_like_notes() {
        assert_eq!(code_terms("x = 1 # 全文检索"), ["x", "1", "全文", "文检", "检索"]);
        // Accented identifiers: split, folded; English stemming only touches ASCII words.
        assert_eq!(code_terms("naïveBayes"), ["naivebayes", "naive", "bay"]);
    }

    #[test]
    fn positions_make_parts_a_phrase() {
        let mut out = TokenBuf::default();
        let mut scratch = TokenBuf::default();
        tokenize_code("a validateUserToken b", &mut out, &mut scratch);
        let got: Vec<(String, usize)> = out.as_slice().iter().map(|t| (t.text.clone(), t.position)).collect();
        assert_eq!(
            got,
            [
                ("a".to_string(), 0),
                ("validateusertoken".to_string(), 1),
                ("validate".to_string(), 1),
                ("user".to_string(), 2),
                ("token".to_string(), 3),
                ("b".to_string(), 4)
            ]
        );
    }
}
