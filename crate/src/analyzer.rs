//! The lexical index's text analyzer: a tokenizer for mixed Latin/CJK text, its filters
//! (lower case, accent folding, cached English stemming) and the query rewriting that goes with
//! it (stop words dropped, CJK runs spread into bigrams and phrases).
//!
//! Latin (and every other alphabetic) text is split into words; runs of Han, Kana and
//! Hangul characters become overlapping bigrams ("全文检索" → 全文, 文检, 检索; a lone
//! character stays a unigram). The analyzer then lower-cases, folds accents and applies
//! English stemming. With tantivy's default tokenizer a Chinese or Japanese query finds
//! nothing, because a whole CJK run becomes one token.

use std::collections::HashMap;

use crate::ranking::{CJK_PHRASE_CHARS, QUERY_STOPWORDS};

use tantivy::tokenizer::{
    AsciiFoldingFilter, RemoveLongFilter, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer,
};

/// Name under which the analyzer is registered on the index.
pub const TOKENIZER_NAME: &str = "strata";

pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F      // Hiragana
        | 0x30A0..=0x30FF    // Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F  // CJK extensions B–F, compatibility supplement
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x3005 | 0x3006    // 々 〆
    )
}

/// A letter or digit outside the CJK ranges (what a Latin-style word is made of).
#[inline]
pub fn is_word_char(c: char) -> bool {
    // ASCII first: Unicode's alphabetic table lookup is slow, and CJK is checked by
    // ranges before it.
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else if (c as u32) < TABLE_END {
        // Latin, Greek, Cyrillic, Arabic, Indic…: a bit table built once from the same
        // Unicode lookup (measured: the lookup was ~5 % of indexing the 34-language vault).
        let table = ALNUM_TABLE.get_or_init(build_alnum_table);
        table[c as usize / 64] >> (c as u32 % 64) & 1 == 1
    } else {
        !is_cjk(c) && c.is_alphanumeric()
    }
}

/// Code points below this (none of them CJK) are classified by [`ALNUM_TABLE`].
const TABLE_END: u32 = 0x3000;
static ALNUM_TABLE: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();

fn build_alnum_table() -> Vec<u64> {
    let mut t = vec![0u64; TABLE_END as usize / 64];
    for cp in 0..TABLE_END {
        if char::from_u32(cp).is_some_and(|c| !is_cjk(c) && c.is_alphanumeric()) {
            t[cp as usize / 64] |= 1 << (cp % 64);
        }
    }
    t
}

#[derive(Clone, Default)]
pub struct CjkBigramTokenizer {
    buf: TokenBuf,
}

pub struct CjkTokenStream<'a> {
    tokens: &'a mut [Token],
    index: usize,
}

impl Tokenizer for CjkBigramTokenizer {
    type TokenStream<'a> = CjkTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CjkTokenStream<'a> {
        // A huge note leaves many slots behind: keep a bounded number for the next texts.
        self.buf.tokens.truncate(KEPT_SLOTS);
        self.buf.len = 0;
        tokenize_into(text, &mut self.buf);
        CjkTokenStream { tokens: &mut self.buf.tokens[..self.buf.len], index: usize::MAX }
    }
}

impl TokenStream for CjkTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.index = self.index.wrapping_add(1);
        self.index < self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.index]
    }
    fn token_mut(&mut self) -> &mut Token {
        // Filters (lower-casing, folding, stemming) rewrite the token text in place.
        &mut self.tokens[self.index]
    }
}

/// Token slots a tokenizer keeps between texts.
const KEPT_SLOTS: usize = 1 << 16;

/// Tokens of one text, the first `len` of `tokens`. The slots (and their strings) are reused
/// from text to text: tantivy keeps one tokenizer per field for a whole segment, so indexing
/// allocates no string per token once the buffer has grown.
#[derive(Clone, Default)]
pub struct TokenBuf {
    pub tokens: Vec<Token>,
    pub len: usize,
}

impl TokenBuf {
    /// A word, lower-cased here rather than by tantivy's `LowerCaser`, which also walked every
    /// CJK bigram through Unicode's case tables (measured: 1.1 % of indexing the help vault in
    /// a wasm profile, plus part of `to_lower`'s 2.4 %).
    fn push_word(&mut self, text: &str, from: usize, to: usize) {
        let t = self.slot(from, to);
        let word = &text[from..to];
        if word.is_ascii() {
            t.push_str(word);
            t.make_ascii_lowercase();
        } else {
            t.extend(word.chars().flat_map(char::to_lowercase));
        }
    }

    /// A CJK unigram or bigram: no case to fold.
    fn push_cjk(&mut self, text: &str, from: usize, to: usize) {
        self.slot(from, to).push_str(&text[from..to]);
    }

    /// The next token, its text empty, its string reused when there is one.
    fn slot(&mut self, from: usize, to: usize) -> &mut String {
        let position = self.len;
        self.len += 1;
        if position == self.tokens.len() {
            self.tokens.push(Token::default());
        }
        let t = &mut self.tokens[position];
        t.offset_from = from;
        t.offset_to = to;
        t.position = position;
        t.position_length = 1;
        t.text.clear();
        &mut t.text
    }

    pub fn as_slice(&self) -> &[Token] {
        &self.tokens[..self.len]
    }
}

/// Splits `text` into word tokens and CJK bigrams, in order, positions consecutive.
pub fn tokenize_into(text: &str, tokens: &mut TokenBuf) {
    let mut iter = text.char_indices().peekable();
    while let Some(&(start, c)) = iter.peek() {
        if is_word_char(c) {
            let mut end = start;
            while let Some(&(i, c)) = iter.peek() {
                if !is_word_char(c) {
                    break;
                }
                end = i + c.len_utf8();
                iter.next();
            }
            tokens.push_word(text, start, end);
        } else if !c.is_ascii() && is_cjk(c) {
            // Bigrams over the run: each token spans the previous char and this one.
            iter.next();
            let mut prev = (start, start + c.len_utf8());
            let mut single = true;
            while let Some(&(i, c)) = iter.peek() {
                if !is_cjk(c) {
                    break;
                }
                let end = i + c.len_utf8();
                tokens.push_cjk(text, prev.0, end);
                prev = (i, end);
                single = false;
                iter.next();
            }
            if single {
                tokens.push_cjk(text, prev.0, prev.1);
            }
        } else {
            iter.next();
        }
    }
}

/// Splits the CJK runs of a free-text query into space-separated bigrams, so the query
/// parser treats them as independent terms (OR, scored by BM25) instead of one phrase, plus
/// their [`CJK_PHRASE_CHARS`]-character n-grams as phrases. Quoted parts are left alone: a
/// quoted CJK string stays an exact phrase; so does a run right after `-` (excluded) or a
/// field's `:`, which a spread of bigrams would detach from its operator.
pub fn spread_cjk_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len() * 2);
    let mut in_quotes = false;
    let chars: Vec<char> = query.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            in_quotes = !in_quotes;
            out.push(c);
            i += 1;
            continue;
        }
        if !in_quotes && is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            let run = &chars[start..i];
            if out.ends_with('-') || out.ends_with(':') {
                out.push('"');
                out.extend(run);
                out.push('"');
                continue;
            }
            out.push(' ');
            if run.len() == 1 {
                out.push(run[0]);
            } else {
                for (n, pair) in run.windows(2).enumerate() {
                    if n > 0 {
                        out.push(' ');
                    }
                    out.push(pair[0]);
                    out.push(pair[1]);
                }
                for gram in run.windows(CJK_PHRASE_CHARS) {
                    out.push_str(" \"");
                    out.extend(gram);
                    out.push('"');
                }
            }
            out.push(' ');
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Removes English stop words from the unquoted, unfielded words of a query.
pub fn drop_stopwords(query: &str) -> String {
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut in_quotes = false;
    let mut keep: Vec<bool> = Vec::with_capacity(words.len());
    for w in &words {
        let quoted = in_quotes || w.starts_with('"');
        if w.matches('"').count() % 2 == 1 {
            in_quotes = !in_quotes;
        }
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        let is_stop =
            !quoted && !w.contains(':') && !w.starts_with(['-', '+']) && QUERY_STOPWORDS.contains(&bare.as_str());
        keep.push(!is_stop);
    }
    if !keep.iter().any(|k| *k) {
        return query.to_string();
    }
    words.iter().zip(keep).filter(|(_, k)| *k).map(|(w, _)| *w).collect::<Vec<_>>().join(" ")
}

/// English (Snowball) stemming of ASCII words longer than three letters, memoised.
/// tantivy's `Stemmer` runs the stemmer on every token, CJK bigrams included; on the
/// Obsidian Help vault that was a third of the indexing time.
#[derive(Clone, Default)]
pub struct CachedEnglishStemmer;

/// Cache entries kept per analyzer before it is cleared.
const STEM_CACHE_MAX: usize = 100_000;

impl TokenFilter for CachedEnglishStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter { inner: tokenizer, cache: HashMap::new() }
    }
}

#[derive(Clone)]
pub struct CachedStemmerFilter<T> {
    inner: T,
    cache: HashMap<String, String>,
}

pub struct CachedStemmerStream<'a, S> {
    tail: S,
    cache: &'a mut HashMap<String, String>,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        if self.cache.len() > STEM_CACHE_MAX {
            self.cache.clear();
        }
        CachedStemmerStream { tail: self.inner.token_stream(text), cache: &mut self.cache }
    }
}

thread_local! {
    static ENGLISH: frostem::Stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
}

impl<S: TokenStream> TokenStream for CachedStemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        let t = &token.text;
        if t.len() <= 3 || !t.bytes().all(|b| b.is_ascii_lowercase()) {
            return true;
        }
        if let Some(stem) = self.cache.get(t) {
            if stem != t {
                token.text.clone_from(stem);
            }
            return true;
        }
        let stem = ENGLISH.with(|s| s.stem(t).into_owned());
        self.cache.insert(std::mem::take(&mut token.text), stem.clone());
        token.text = stem;
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// The full analyzer: words (lower-cased by the tokenizer) + CJK bigrams, accent-folded,
/// English-stemmed.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CjkBigramTokenizer::default())
        .filter(RemoveLongFilter::limit(48))
        .filter(AsciiFoldingFilter)
        .filter(CachedEnglishStemmer)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_char_table_matches_unicode() {
        for cp in 0..0x1_0000u32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(is_word_char(c), !is_cjk(c) && c.is_alphanumeric(), "U+{cp:04X}");
            }
        }
    }

    fn terms(text: &str) -> Vec<String> {
        let mut a = analyzer();
        let mut stream = a.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn latin_words_are_lowercased_folded_and_stemmed() {
        assert_eq!(terms("Searching Café notes"), vec!["search", "cafe", "note"]);
    }

    #[test]
    fn chinese_runs_become_bigrams() {
        assert_eq!(terms("全文检索"), vec!["全文", "文检", "检索"]);
    }

    #[test]
    fn japanese_mixed_with_latin() {
        assert_eq!(terms("Obsidianで検索する"), vec!["obsidian", "で検", "検索", "索す", "する"]);
    }

    #[test]
    fn lone_cjk_char_is_a_unigram_and_korean_works() {
        assert_eq!(terms("a 书 b"), vec!["a", "书", "b"]);
        assert_eq!(terms("검색엔진"), vec!["검색", "색엔", "엔진"]);
    }

    #[test]
    fn positions_are_consecutive_and_offsets_point_into_text() {
        let text = "同步 sync 设置";
        let mut tokens = TokenBuf::default();
        tokenize_into(text, &mut tokens);
        assert_eq!(tokens.len, 3);
        for (i, t) in tokens.as_slice().iter().enumerate() {
            assert_eq!(t.position, i);
            assert_eq!(text[t.offset_from..t.offset_to].to_lowercase(), t.text);
        }
    }

    #[test]
    fn a_reused_buffer_gives_the_tokens_of_the_new_text_only() {
        let mut a = analyzer();
        let mut seen = Vec::new();
        for text in ["a longer first text with many words", "同步 sync", ""] {
            let mut stream = a.token_stream(text);
            let mut got = Vec::new();
            while stream.advance() {
                got.push((stream.token().text.clone(), stream.token().position, stream.token().offset_from));
            }
            seen.push(got);
        }
        assert_eq!(seen[1], vec![("同步".to_string(), 0, 0), ("sync".to_string(), 1, 7)]);
        assert!(seen[2].is_empty());
    }

    #[test]
    fn stopwords_leave_content_and_phrases() {
        assert_eq!(drop_stopwords("how do I make a note look like a slide"), "make note look like slide");
        assert_eq!(drop_stopwords("\"the end\" of it"), "\"the end\"");
        assert_eq!(drop_stopwords("the"), "the");
        assert_eq!(drop_stopwords("title:the -a x"), "title:the -a x");
    }

    #[test]
    fn query_spreading_keeps_quotes() {
        assert_eq!(spread_cjk_query("如何同步").trim(), "如何 何同 同步 \"如何同\" \"何同步\"");
        assert_eq!(spread_cjk_query("同步").trim(), "同步");
        // An excluded or fielded run stays whole, attached to its operator.
        assert_eq!(spread_cjk_query("sync -同步设置"), "sync -\"同步设置\"");
        assert_eq!(spread_cjk_query("title:同步设置 x"), "title:\"同步设置\" x");
        assert_eq!(spread_cjk_query("\"全文检索\" x"), "\"全文检索\" x");
        assert_eq!(spread_cjk_query("sync 设置").trim(), "sync  设置");
    }
}
