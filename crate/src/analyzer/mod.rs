//! The lexical index's text analyzer: a tokenizer for text in any script, its filters
//! (normalisation, stemming in the text's language, accent folding) and the query rewriting
//! that goes with it ([`query`]).
//!
//! Alphabetic text is split into words (combining marks stay inside their word: Devanagari,
//! Thai or Hebrew vowel signs). Runs of Han, Kana and Hangul characters become overlapping
//! bigrams ("全文检索" → 全文, 文检, 检索; a lone character stays a unigram); runs of Thai,
//! Lao, Khmer and Burmese, written without spaces, are split into words by ICU4X's segmenter
//! ([`segment`]). The analyzer then normalises (NFKC, Arabic and Hebrew marks), stems in the
//! language set in its [`LangSlot`], and folds accents. With tantivy's default tokenizer a
//! Chinese, Japanese or Thai query finds nothing, because a whole run becomes one token.

mod char_tables;
pub mod filters;
pub mod identifiers;
pub mod query;
pub mod segment;

use crate::language::Stem;
pub use filters::{ExactSink, LangSlot, WordList};
use filters::{ExactWords, LanguageStemmer, Normalize};
pub use query::{drop_stopwords, plain_syntax, query_parts, spread_identifier_paths, spread_query, QueryOp, QueryPart};
use segment::is_sea;

use tantivy::tokenizer::{AsciiFoldingFilter, RemoveLongFilter, TextAnalyzer, Token, TokenStream, Tokenizer};

/// Name under which the analyzer is registered on the index.
pub const TOKENIZER_NAME: &str = "strata";

/// Name under which the exact-form field's analyzer ([`exact_analyzer`]) is registered.
pub const EXACT_TOKENIZER_NAME: &str = "strata_exact";

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
        // Latin, Greek, Cyrillic, Arabic, Indic…: a bit table of the same Unicode lookup
        // (measured: the lookup was ~5 % of indexing the 34-language vault).
        char_tables::ALNUM[c as usize / 64] >> (c as u32 % 64) & 1 == 1
    } else {
        !is_cjk(c) && c.is_alphanumeric()
    }
}

/// Code points below this (none of them CJK) are classified by [`char_tables`].
const TABLE_END: u32 = char_tables::END;

/// A combining mark (Unicode category M): part of the word it follows (vowel signs of Indic
/// scripts, Hebrew points, Arabic harakat, combining accents), never a separator.
#[inline]
fn is_mark(c: char) -> bool {
    if c.is_ascii() {
        false
    } else if (c as u32) < TABLE_END {
        char_tables::MARK[c as usize / 64] >> (c as u32 % 64) & 1 == 1
    } else {
        unicode_normalization::char::is_combining_mark(c)
    }
}

#[derive(Clone, Default)]
pub struct CjkBigramTokenizer {
    buf: TokenBuf,
}

/// The tokens of one text, handed out in order from a [`TokenBuf`] (both tokenizers' stream).
pub struct CjkTokenStream<'a> {
    tokens: &'a mut [Token],
    index: usize,
}

impl<'a> CjkTokenStream<'a> {
    pub(crate) fn over(buf: &'a mut TokenBuf) -> CjkTokenStream<'a> {
        CjkTokenStream { tokens: &mut buf.tokens[..buf.len], index: usize::MAX }
    }
}

impl Tokenizer for CjkBigramTokenizer {
    type TokenStream<'a> = CjkTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CjkTokenStream<'a> {
        // A huge note leaves many slots behind: keep a bounded number for the next texts.
        self.buf.tokens.truncate(KEPT_SLOTS);
        self.buf.len = 0;
        tokenize_into(text, &mut self.buf);
        CjkTokenStream::over(&mut self.buf)
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
pub(crate) const KEPT_SLOTS: usize = 1 << 16;

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
        self.slot_at(from, to, self.len)
    }

    /// The next token at `position` (the code analyzer puts an identifier and its first part at
    /// one position).
    pub(crate) fn slot_at(&mut self, from: usize, to: usize, position: usize) -> &mut String {
        let index = self.len;
        self.len += 1;
        if index == self.tokens.len() {
            self.tokens.push(Token::default());
        }
        let t = &mut self.tokens[index];
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

/// A character that continues a word: a letter or digit, or a combining mark, outside the
/// scripts that are split otherwise (CJK bigrams, segmented SEA runs).
#[inline]
pub(crate) fn continues_word(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else {
        (is_word_char(c) || is_mark(c)) && !is_sea(c)
    }
}

/// Splits `text` into word tokens, CJK bigrams and the words of SEA runs, in order, positions
/// consecutive.
pub fn tokenize_into(text: &str, tokens: &mut TokenBuf) {
    let mut iter = text.char_indices().peekable();
    while let Some(&(start, c)) = iter.peek() {
        if !c.is_ascii() && is_sea(c) {
            let mut end = start;
            while let Some(&(i, c)) = iter.peek() {
                if !is_sea(c) {
                    break;
                }
                end = i + c.len_utf8();
                iter.next();
            }
            segment::words(&text[start..end], |a, b| tokens.push_word(text, start + a, start + b));
        } else if is_word_char(c) {
            let mut end = start;
            while let Some(&(i, c)) = iter.peek() {
                if !continues_word(c) {
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

/// Longest token kept, in bytes (longer ones are not words: hashes, base64, URLs' tails).
pub(crate) const MAX_TOKEN_BYTES: usize = 48;

/// The index's analyzer: stems in the language its `slot` holds when a text is analysed, and
/// collects the words its stemmer changes into `sink` ([`ExactSink`]).
pub fn analyzer(slot: LangSlot, sink: ExactSink) -> TextAnalyzer {
    build(slot, Some(sink))
}

/// An analyzer for text in one language (queries).
pub fn analyzer_for(stem: Stem) -> TextAnalyzer {
    build(LangSlot::fixed(stem), None)
}

fn build(slot: LangSlot, sink: Option<ExactSink>) -> TextAnalyzer {
    TextAnalyzer::builder(CjkBigramTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(Normalize)
        .filter(LanguageStemmer { slot, sink })
        .filter(AsciiFoldingFilter)
        .build()
}

/// The exact-form field's analyzer: the words of the section being indexed that its stemmer
/// changed ([`ExactSink`]), folded like every term ([`ExactReplay`]). The query side
/// looks a quoted phrase's words up there ([`exact_terms`]), so `"running"` does not find
/// "runs".
pub fn exact_analyzer(sink: ExactSink) -> TextAnalyzer {
    TextAnalyzer::builder(ExactReplay { sink, words: WordList::default(), buf: TokenBuf::default() })
        .filter(AsciiFoldingFilter)
        .build()
}

/// The exact-form field's tokenizer: ignores its text and hands out the words its sink
/// collected from the section's other fields (the field records documents only: a word is
/// recorded once per section).
#[derive(Clone, Default)]
pub struct ExactReplay {
    sink: ExactSink,
    words: WordList,
    buf: TokenBuf,
}

impl Tokenizer for ExactReplay {
    type TokenStream<'a> = CjkTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, _text: &'a str) -> CjkTokenStream<'a> {
        self.buf.tokens.truncate(KEPT_SLOTS);
        self.buf.len = 0;
        self.sink.take_into(&mut self.words);
        for (i, w) in self.words.words().enumerate() {
            self.buf.slot_at(0, 0, i).push_str(w);
        }
        CjkTokenStream::over(&mut self.buf)
    }
}

/// The exact-form terms of a query's `text`: its words a stemmer may change (three letters or
/// more, no digit; not CJK or Thai-like runs, which are never stemmed), lower-cased,
/// normalised and folded like every term, each once.
pub fn exact_terms(text: &str) -> Vec<String> {
    let mut a = TextAnalyzer::builder(CjkBigramTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(Normalize)
        .filter(ExactWords)
        .filter(AsciiFoldingFilter)
        .build();
    let mut stream = a.token_stream(text);
    let mut out: Vec<String> = Vec::new();
    while stream.advance() {
        if !out.contains(&stream.token().text) {
            out.push(stream.token().text.clone());
        }
    }
    out
}

/// The terms `analyzer_for(stem)` makes of `text`.
pub fn terms(text: &str, stem: Stem) -> Vec<String> {
    let mut a = analyzer_for(stem);
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

    #[test]
    fn word_char_table_matches_unicode() {
        // Fails when a toolchain's Unicode moves a character: `char_tables` says how to
        // write the tables again.
        for cp in 0..0x1_0000u32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(is_word_char(c), !is_cjk(c) && c.is_alphanumeric(), "U+{cp:04X}");
                assert_eq!(is_mark(c), unicode_normalization::char::is_combining_mark(c), "U+{cp:04X}");
            }
        }
    }

    fn en(text: &str) -> Vec<String> {
        terms(text, Stem::ENGLISH)
    }

    #[test]
    fn latin_words_are_lowercased_folded_and_stemmed() {
        assert_eq!(en("Searching Café notes"), vec!["search", "cafe", "note"]);
    }

    #[test]
    fn chinese_runs_become_bigrams() {
        assert_eq!(en("全文检索"), vec!["全文", "文检", "检索"]);
    }

    #[test]
    fn japanese_mixed_with_latin() {
        assert_eq!(en("Obsidianで検索する"), vec!["obsidian", "で検", "検索", "索す", "する"]);
    }

    #[test]
    fn lone_cjk_char_is_a_unigram_and_korean_works() {
        assert_eq!(en("a 书 b"), vec!["a", "书", "b"]);
        assert_eq!(en("검색엔진"), vec!["검색", "색엔", "엔진"]);
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
        let mut a = analyzer_for(Stem::ENGLISH);
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

    fn lang(text: &str, code: &str) -> Vec<String> {
        terms(text, crate::language::stem_of(crate::language::parse(code).unwrap()))
    }

    #[test]
    fn inflected_forms_share_a_stem_in_their_language() {
        assert_eq!(lang("синхронизации", "ru"), lang("синхронизация", "ru"));
        assert_eq!(lang("Synchronisierung", "de"), lang("synchronisierungen", "de"));
        assert_eq!(lang("notas", "es"), lang("nota", "es"));
        assert_eq!(lang("synchronisation", "fr"), lang("synchronisations", "fr"));
        // No stemmer: the word as written (lower-cased, folded).
        assert_eq!(lang("Đồng bộ", "vi"), vec!["dong", "bo"]);
        // English stems ASCII words only, as before languages were detected.
        assert_eq!(en("naïve searching"), vec!["naive", "search"]);
    }

    fn all_terms(a: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = a.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn the_exact_field_gets_the_words_its_stemmer_changed_while_a_section_is_added() {
        let sink = ExactSink::default();
        let mut text = analyzer(LangSlot::fixed(Stem::ENGLISH), sink.clone());
        let mut exact = exact_analyzer(sink.clone());
        // Not collecting (a snippet's analysis): nothing is kept.
        assert_eq!(all_terms(&mut text, "Searching notes"), vec!["search", "note"]);
        assert!(all_terms(&mut exact, "").is_empty());
        sink.begin();
        all_terms(&mut text, "Searching Notes");
        // "cafés", "the" and "search" are their own stems (English stems ASCII words only).
        all_terms(&mut text, "notes on the Cafés search");
        assert_eq!(all_terms(&mut exact, ""), vec!["searching", "notes", "notes"]);
        assert!(all_terms(&mut exact, "").is_empty(), "handed out once");
        sink.end();
    }

    #[test]
    fn exact_terms_are_the_words_a_stemmer_may_change_as_written() {
        assert_eq!(
            exact_terms("Searching the NOTES, notes and 2024 全文检索 ab"),
            vec!["searching", "the", "notes", "and"]
        );
        assert_eq!(exact_terms("Синхронизации"), vec!["синхронизации"]);
        // Folded and normalised like the stemmed terms.
        assert_eq!(exact_terms("Café ＡＢＣ"), vec!["cafe", "abc"]);
        // Thai and CJK are never stemmed: their terms are exact already.
        assert!(exact_terms("สำรองข้อมูล 全文").is_empty());
    }

    #[test]
    fn marks_stay_inside_words() {
        // Devanagari vowel signs and Hebrew points are combining marks, not separators.
        assert_eq!(lang("खोज", "hi").len(), 1);
        assert_eq!(terms("שָׁלוֹם", Stem::NONE), vec!["שלום"]);
        assert_eq!(terms("שָׁלוֹם", Stem::NONE), terms("שלום", Stem::NONE));
    }

    #[test]
    fn arabic_is_normalised() {
        // Harakat and tatweel go; alef and ya variants become one letter.
        assert_eq!(terms("مُـحَمَّد", Stem::NONE), terms("محمد", Stem::NONE));
        assert_eq!(terms("أحمد إلى", Stem::NONE), terms("احمد الي", Stem::NONE));
    }

    #[test]
    fn compatibility_forms_are_folded() {
        assert_eq!(en("ＯＢＳＩＤＩＡＮ"), vec!["obsidian"]);
        assert_eq!(en("ﬁle"), en("file"));
        // A decomposed accent is the composed one.
        assert_eq!(en("cafe\u{301}"), en("café"));
    }

    #[test]
    fn thai_is_segmented_into_words() {
        let title = terms("สำรองข้อมูลไฟล์ Obsidian ของคุณ", Stem::NONE);
        let query = terms("สำรองข้อมูล", Stem::NONE);
        assert_eq!(query, vec!["สำรอง", "ข้อมูล"]);
        assert!(query.iter().all(|q| title.contains(q)), "{title:?}");
        assert!(title.contains(&"obsidian".to_string()));
    }
}
