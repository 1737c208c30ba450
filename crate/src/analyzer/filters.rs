//! Token filters: normalisation of compatibility forms and of Arabic and Hebrew marks, and
//! stemming in the language of the text being analysed (memoised).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

use crate::language::Stem;
use rustc_hash::FxHashMap;

/// NFKC for tokens that are not in it (full-width Latin, ligatures, decomposed accents), and
/// the usual search normalisation of Arabic (no diacritics or tatweel; one alef, one ya) and
/// Hebrew (no points or cantillation). Runs before stemming, on lower-cased tokens.
#[derive(Clone, Default)]
pub struct Normalize;

impl TokenFilter for Normalize {
    type Tokenizer<T: Tokenizer> = NormalizeFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> NormalizeFilter<T> {
        NormalizeFilter { inner: tokenizer }
    }
}

#[derive(Clone)]
pub struct NormalizeFilter<T> {
    inner: T,
}

pub struct NormalizeStream<S> {
    tail: S,
}

impl<T: Tokenizer> Tokenizer for NormalizeFilter<T> {
    type TokenStream<'a> = NormalizeStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        NormalizeStream { tail: self.inner.token_stream(text) }
    }
}

/// Arabic harakat, superscript alef and tatweel; Hebrew points and cantillation marks.
fn is_dropped_mark(c: char) -> bool {
    matches!(c as u32, 0x064B..=0x065F | 0x0670 | 0x0640 | 0x0591..=0x05BD | 0x05BF | 0x05C1 | 0x05C2 | 0x05C4 | 0x05C5 | 0x05C7)
}

fn arabic_letter(c: char) -> char {
    match c {
        'أ' | 'إ' | 'آ' | 'ٱ' => 'ا',
        'ى' => 'ي',
        _ => c,
    }
}

/// Compatibility characters folded by NFKC: full-width and half-width forms, Latin and
/// Hebrew presentation forms (ligatures), Arabic presentation forms. NFKC is not applied to
/// every word: it would decompose Thai SARA AM and Lao AM, which the segmenter reads whole.
fn is_compat_form(c: char) -> bool {
    matches!(c as u32, 0xFB00..=0xFDFF | 0xFE70..=0xFEFF | 0xFF00..=0xFFEF)
}

/// The normalised form of a lower-cased word, or None when it is already normal.
pub fn normalize_word(word: &str) -> Option<String> {
    if word.is_ascii() {
        return None;
    }
    let mut s = if word.chars().any(is_compat_form) {
        Some(word.nfkc().flat_map(char::to_lowercase).collect::<String>())
    } else if is_nfc_quick(word.chars()) != IsNormalized::Yes {
        Some(word.nfc().collect::<String>())
    } else {
        None
    };
    let cur = s.as_deref().unwrap_or(word);
    if cur.chars().any(|c| matches!(c as u32, 0x0590..=0x06FF)) {
        let out: String = cur.chars().filter(|c| !is_dropped_mark(*c)).map(arabic_letter).collect();
        if out != cur {
            s = Some(out);
        }
    }
    s
}

impl<S: TokenStream> TokenStream for NormalizeStream<S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(n) = normalize_word(&token.text) {
            token.text = n;
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// The language the analyzer stems the next text in. The index's analyzer shares one slot with
/// every copy tantivy makes of it (a segment writer clones the analyzer): `Lexical` sets it to
/// each section's language before the section is added, and tantivy's segment writer tokenizes
/// synchronously inside that call (the writer layer is thread-free). Query analyzers own a slot
/// fixed to the query language.
#[derive(Clone, Default)]
pub struct LangSlot(Arc<AtomicU8>);

impl LangSlot {
    pub fn fixed(stem: Stem) -> LangSlot {
        let s = LangSlot::default();
        s.set(stem);
        s
    }

    pub fn set(&self, stem: Stem) {
        self.0.store(stem.0, Ordering::Relaxed);
    }

    pub fn get(&self) -> Stem {
        Stem(self.0.load(Ordering::Relaxed))
    }
}

/// Snowball stemming in the slot's language, memoised per language: the stemmer runs once per
/// distinct word (tantivy's `Stemmer` runs on every token; on the help vault that was a third
/// of the indexing time). CJK bigrams, numbers and words of one or two letters are left alone.
#[derive(Clone)]
pub struct LanguageStemmer {
    pub slot: LangSlot,
}

/// Cache entries kept per analyzer before it is cleared.
const STEM_CACHE_MAX: usize = 100_000;

impl TokenFilter for LanguageStemmer {
    type Tokenizer<T: Tokenizer> = StemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> StemmerFilter<T> {
        StemmerFilter { inner: tokenizer, slot: self.slot, cache: FxHashMap::default() }
    }
}

#[derive(Clone)]
pub struct StemmerFilter<T> {
    inner: T,
    slot: LangSlot,
    cache: FxHashMap<(u8, String), String>,
}

pub struct StemmerStream<'a, S> {
    tail: S,
    stem: Stem,
    stemmer: Option<frostem::Stemmer>,
    cache: &'a mut FxHashMap<(u8, String), String>,
    key: (u8, String),
}

impl<T: Tokenizer> Tokenizer for StemmerFilter<T> {
    type TokenStream<'a> = StemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        if self.cache.len() > STEM_CACHE_MAX {
            self.cache.clear();
        }
        let stem = self.slot.get();
        StemmerStream {
            tail: self.inner.token_stream(text),
            stem,
            stemmer: stem.algorithm().map(frostem::Stemmer::new),
            cache: &mut self.cache,
            key: (stem.0, String::new()),
        }
    }
}

/// Whether a token is a word the stemmer should see.
fn stemmable(t: &str, ascii_only: bool) -> bool {
    if ascii_only {
        t.len() > 3 && t.bytes().all(|b| b.is_ascii_lowercase())
    } else {
        // The tokenizer's tables, not `char::is_alphabetic` (Unicode's slow lookup: 2.6 % of
        // indexing the 34-language vault natively); a word with a digit is not stemmed.
        t.chars().nth(2).is_some() && t.chars().all(|c| !c.is_ascii_digit() && super::continues_word(c))
    }
}

impl<S: TokenStream> TokenStream for StemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        if self.stem == Stem::PREFIX {
            let token = self.tail.token_mut();
            if stemmable(&token.text, false) {
                if let Some((cut, _)) = token.text.char_indices().nth(crate::ranking::PREFIX_STEM_CHARS) {
                    token.text.truncate(cut);
                }
            }
            return true;
        }
        let Some(stemmer) = self.stemmer else { return true };
        let token = self.tail.token_mut();
        if !stemmable(&token.text, self.stem.ascii_only()) {
            return true;
        }
        self.key.1.clear();
        self.key.1.push_str(&token.text);
        if let Some(stem) = self.cache.get(&self.key) {
            if *stem != token.text {
                token.text.clone_from(stem);
            }
            return true;
        }
        let stem = stemmer.stem(&token.text).into_owned();
        self.cache.insert(self.key.clone(), stem.clone());
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
