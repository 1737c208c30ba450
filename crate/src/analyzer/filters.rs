//! Token filters: normalisation of compatibility forms and of Arabic and Hebrew marks, and
//! stemming in the language of the text being analysed (memoised).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

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

/// The words of the section being indexed that its stemmer changed, as written: the index's
/// stemmer collects them while it analyses the section's text fields (each once per field),
/// and the exact-form field's tokenizer ([`super::ExactReplay`]) hands them out. tantivy indexes a
/// document's fields in field order and the exact field is the schema's last, so the text is
/// tokenized once. Collects only between [`ExactSink::begin`] and [`ExactSink::end`] (a
/// snippet's analysis collects nothing).
#[derive(Clone, Default)]
pub struct ExactSink(Arc<Mutex<Option<WordList>>>);

/// Words in one string (no allocation per word); `push` keeps each word once.
#[derive(Default, Debug)]
pub struct WordList {
    pub text: String,
    pub ends: Vec<usize>,
    /// The words' 64-bit hashes: each word is kept once (two words of one text sharing a hash
    /// would lose the second's exact form; at a text's few thousand words, never in practice).
    seen: rustc_hash::FxHashSet<u64>,
}

/// A clone starts empty: tantivy clones an analyzer per segment writer, and the lists are
/// scratch.
impl Clone for WordList {
    fn clone(&self) -> WordList {
        WordList::default()
    }
}

impl WordList {
    fn push(&mut self, word: &str) {
        use std::hash::BuildHasher;
        if self.seen.insert(rustc_hash::FxBuildHasher.hash_one(word)) {
            self.text.push_str(word);
            self.ends.push(self.text.len());
        }
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.seen.clear();
    }

    pub fn words(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(a, b)| &self.text[a..b])
    }
}

impl ExactSink {
    fn lock(&self) -> MutexGuard<'_, Option<WordList>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts collecting a section's words (any words left from before are dropped).
    pub fn begin(&self) {
        let mut g = self.lock();
        match g.as_mut() {
            Some(w) => w.clear(),
            None => *g = Some(WordList::default()),
        }
    }

    fn collecting(&self) -> bool {
        self.lock().is_some()
    }

    /// Adds a text's words, when collecting (a word in two of the section's fields comes twice:
    /// tantivy records a document once per term).
    fn append(&self, words: &WordList) {
        if let Some(w) = self.lock().as_mut() {
            let base = w.text.len();
            w.text.push_str(&words.text);
            w.ends.extend(words.ends.iter().map(|e| base + e));
        }
    }

    /// Stops collecting.
    pub fn end(&self) {
        *self.lock() = None;
    }

    /// Swaps the words collected so far with `out`'s (cleared first): `out` gets the words,
    /// the sink keeps collecting into `out`'s former buffers.
    pub fn take_into(&self, out: &mut WordList) {
        out.clear();
        if let Some(w) = self.lock().as_mut() {
            std::mem::swap(w, out);
        }
    }
}

/// Snowball stemming in the slot's language, memoised per language: the stemmer runs once per
/// distinct word (tantivy's `Stemmer` runs on every token; on the help vault that was a third
/// of the indexing time). CJK bigrams, numbers and words of one or two letters are left alone.
#[derive(Clone)]
pub struct LanguageStemmer {
    pub slot: LangSlot,
    /// Where the index's analyzer collects the exact forms (none for queries and code).
    pub sink: Option<ExactSink>,
}

/// Cache entries kept per analyzer before it is cleared.
const STEM_CACHE_MAX: usize = 100_000;

impl TokenFilter for LanguageStemmer {
    type Tokenizer<T: Tokenizer> = StemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> StemmerFilter<T> {
        StemmerFilter {
            inner: tokenizer,
            slot: self.slot,
            sink: self.sink,
            words: WordList::default(),
            cache: FxHashMap::default(),
        }
    }
}

#[derive(Clone)]
pub struct StemmerFilter<T> {
    inner: T,
    slot: LangSlot,
    sink: Option<ExactSink>,
    /// The exact forms of the text being analysed, reused from text to text.
    words: WordList,
    cache: FxHashMap<(u8, String), String>,
}

pub struct StemmerStream<'a, S> {
    tail: S,
    stem: Stem,
    stemmer: Option<frostem::Stemmer>,
    cache: &'a mut FxHashMap<(u8, String), String>,
    key: (u8, String),
    /// The sink and the text's words for it, when it is collecting (handed over on drop).
    exact: Option<(&'a ExactSink, &'a mut WordList)>,
}

impl<S> Drop for StemmerStream<'_, S> {
    fn drop(&mut self) {
        if let Some((sink, words)) = self.exact.take() {
            sink.append(words);
            words.clear();
        }
    }
}

impl<T: Tokenizer> Tokenizer for StemmerFilter<T> {
    type TokenStream<'a> = StemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        let StemmerFilter { inner, slot, sink, words, cache } = self;
        if cache.len() > STEM_CACHE_MAX {
            cache.clear();
        }
        let stem = slot.get();
        StemmerStream {
            tail: inner.token_stream(text),
            stem,
            stemmer: stem.algorithm().map(frostem::Stemmer::new),
            cache,
            key: (stem.0, String::new()),
            exact: sink.as_ref().filter(|s| s.collecting()).map(|s| (s, words)),
        }
    }
}

/// Keeps the words a stemmer may change (three letters or more, no digit), as they are: the
/// words of a quoted phrase that must be found as written. Shorter words, numbers, CJK bigrams
/// and Thai-like words are never stemmed: the stemmed fields match them as written already.
#[derive(Clone, Default)]
pub struct ExactWords;

impl TokenFilter for ExactWords {
    type Tokenizer<T: Tokenizer> = ExactWordsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> ExactWordsFilter<T> {
        ExactWordsFilter { inner: tokenizer }
    }
}

#[derive(Clone)]
pub struct ExactWordsFilter<T> {
    inner: T,
}

pub struct ExactWordsStream<S> {
    tail: S,
}

impl<T: Tokenizer> Tokenizer for ExactWordsFilter<T> {
    type TokenStream<'a> = ExactWordsStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        ExactWordsStream { tail: self.inner.token_stream(text) }
    }
}

impl<S: TokenStream> TokenStream for ExactWordsStream<S> {
    fn advance(&mut self) -> bool {
        while self.tail.advance() {
            if stemmable(&self.tail.token().text, false) {
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
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
    /// Stems the next word; a word its stem changes also goes to the exact-form sink, when it
    /// collects.
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if self.stem == Stem::PREFIX && !token.text.is_ascii() {
            if stemmable(&token.text, false) {
                if let Some((cut, _)) = token.text.char_indices().nth(crate::ranking::PREFIX_STEM_CHARS) {
                    if let Some((_, words)) = self.exact.as_mut() {
                        words.push(&token.text);
                    }
                    token.text.truncate(cut);
                }
            }
            return true;
        }
        let Some(stemmer) = self.stemmer else { return true };
        if !stemmable(&token.text, self.stem.ascii_only()) {
            return true;
        }
        self.key.1.clear();
        self.key.1.push_str(&token.text);
        let stem = match self.cache.get(&self.key) {
            Some(stem) if *stem == token.text => return true,
            Some(stem) => stem,
            None => {
                let stem = stemmer.stem(&token.text).into_owned();
                self.cache.insert(self.key.clone(), stem);
                &self.cache[&self.key]
            }
        };
        if *stem != token.text {
            if let Some((_, words)) = self.exact.as_mut() {
                words.push(&token.text);
            }
            token.text.clone_from(stem);
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
