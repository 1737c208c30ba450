//! The language of notes, sections and queries, and what the lexical analyzer does for each.
//!
//! Detection is whatlang's (trigram profiles over the script whatlang finds first); a note can
//! pin its language with a frontmatter `lang` (or `language`) property. The language picks the
//! Snowball stemmer ([`Stem`]) the analyzer applies to the note's sections and to a query;
//! languages without one (Hebrew, Vietnamese, Chinese, Japanese, Korean, Thai…) are not stemmed.

use frostem::Algorithm;
use whatlang::Lang;

/// A stemming profile: an index into [`STEMMERS`] (0: no stemming). It is what the analyzer
/// needs to know of a language, and what crosses into the analyzer's language slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Stem(pub u8);

impl Stem {
    pub const NONE: Stem = Stem(0);
    /// English: the stemming of text whose language is unknown (as before languages were detected).
    pub const ENGLISH: Stem = Stem(1);
    /// No Snowball stemmer, but inflected by suffixes (Ukrainian): a word is cut to its first
    /// [`crate::ranking::PREFIX_STEM_CHARS`] characters; an ASCII word (a name, an English
    /// term) is stemmed in English, as a Latin-script query is analysed.
    pub const PREFIX: Stem = Stem(STEMMERS.len() as u8);

    pub fn algorithm(self) -> Option<Algorithm> {
        if self == Stem::PREFIX {
            return Some(Algorithm::English);
        }
        STEMMERS.get(self.0 as usize).copied().flatten()
    }

    /// English stems ASCII words only (the behaviour the English dev queries were tuned on);
    /// so does [`Stem::PREFIX`] for the words it does not cut.
    pub fn ascii_only(self) -> bool {
        self == Stem::ENGLISH || self == Stem::PREFIX
    }
}

/// The Snowball stemmers, indexed by [`Stem`].
pub const STEMMERS: [Option<Algorithm>; 32] = [
    None,
    Some(Algorithm::English),
    Some(Algorithm::Russian),
    Some(Algorithm::German),
    Some(Algorithm::French),
    Some(Algorithm::Spanish),
    Some(Algorithm::Portuguese),
    Some(Algorithm::Italian),
    Some(Algorithm::Dutch),
    Some(Algorithm::Swedish),
    Some(Algorithm::Norwegian),
    Some(Algorithm::Danish),
    Some(Algorithm::Finnish),
    Some(Algorithm::Hungarian),
    Some(Algorithm::Romanian),
    Some(Algorithm::Turkish),
    Some(Algorithm::Arabic),
    Some(Algorithm::Greek),
    Some(Algorithm::Indonesian),
    Some(Algorithm::Catalan),
    Some(Algorithm::Czech),
    Some(Algorithm::Polish),
    Some(Algorithm::Persian),
    Some(Algorithm::Hindi),
    Some(Algorithm::Nepali),
    Some(Algorithm::Tamil),
    Some(Algorithm::Lithuanian),
    Some(Algorithm::Estonian),
    Some(Algorithm::Serbian),
    Some(Algorithm::Armenian),
    Some(Algorithm::Esperanto),
    Some(Algorithm::Yiddish),
];

/// whatlang's language → its stemming profile. A Latin-script language without a Snowball
/// stemmer (Vietnamese, Slovenian, Croatian, Latvian…) gets English stemming of its ASCII
/// words: the English terms such notes carry ("plugins", "slides") match their singulars, and
/// its own words (with diacritics) are left as written.
pub fn stem_of(lang: Lang) -> Stem {
    let i = match lang {
        Lang::Eng => 1,
        Lang::Rus => 2,
        Lang::Deu => 3,
        Lang::Fra => 4,
        Lang::Spa => 5,
        Lang::Por => 6,
        Lang::Ita => 7,
        Lang::Nld => 8,
        Lang::Swe => 9,
        Lang::Nob => 10,
        Lang::Dan => 11,
        Lang::Fin => 12,
        Lang::Hun => 13,
        Lang::Ron => 14,
        Lang::Tur => 15,
        Lang::Ara => 16,
        Lang::Ell => 17,
        Lang::Ind => 18,
        Lang::Cat => 19,
        Lang::Ces | Lang::Slk => 20,
        Lang::Pol => 21,
        Lang::Pes => 22,
        Lang::Hin => 23,
        Lang::Nep => 24,
        Lang::Tam => 25,
        Lang::Lit => 26,
        Lang::Est => 27,
        Lang::Srp => 28,
        Lang::Hye => 29,
        Lang::Epo => 30,
        Lang::Yid => 31,
        Lang::Ukr => Stem::PREFIX.0,
        l if lang_uses_script(l, whatlang::Script::Latin) => 1,
        _ => 0,
    };
    Stem(i)
}

/// ISO 639-1 codes of the languages whatlang knows (for the frontmatter pin and for display).
const ISO_639_1: &[(&str, Lang)] = &[
    ("af", Lang::Afr),
    ("ak", Lang::Aka),
    ("am", Lang::Amh),
    ("ar", Lang::Ara),
    ("az", Lang::Aze),
    ("be", Lang::Bel),
    ("bg", Lang::Bul),
    ("bn", Lang::Ben),
    ("ca", Lang::Cat),
    ("cs", Lang::Ces),
    ("cy", Lang::Cym),
    ("da", Lang::Dan),
    ("de", Lang::Deu),
    ("el", Lang::Ell),
    ("en", Lang::Eng),
    ("eo", Lang::Epo),
    ("es", Lang::Spa),
    ("et", Lang::Est),
    ("fa", Lang::Pes),
    ("fi", Lang::Fin),
    ("fr", Lang::Fra),
    ("gu", Lang::Guj),
    ("he", Lang::Heb),
    ("hi", Lang::Hin),
    ("hr", Lang::Hrv),
    ("hu", Lang::Hun),
    ("hy", Lang::Hye),
    ("id", Lang::Ind),
    ("it", Lang::Ita),
    ("ja", Lang::Jpn),
    ("jv", Lang::Jav),
    ("ka", Lang::Kat),
    ("km", Lang::Khm),
    ("kn", Lang::Kan),
    ("ko", Lang::Kor),
    ("la", Lang::Lat),
    ("lt", Lang::Lit),
    ("lv", Lang::Lav),
    ("mk", Lang::Mkd),
    ("ml", Lang::Mal),
    ("mr", Lang::Mar),
    ("my", Lang::Mya),
    ("nb", Lang::Nob),
    ("ne", Lang::Nep),
    ("nl", Lang::Nld),
    ("no", Lang::Nob),
    ("or", Lang::Ori),
    ("pa", Lang::Pan),
    ("pl", Lang::Pol),
    ("pt", Lang::Por),
    ("ro", Lang::Ron),
    ("ru", Lang::Rus),
    ("si", Lang::Sin),
    ("sk", Lang::Slk),
    ("sl", Lang::Slv),
    ("sn", Lang::Sna),
    ("sr", Lang::Srp),
    ("sv", Lang::Swe),
    ("ta", Lang::Tam),
    ("te", Lang::Tel),
    ("th", Lang::Tha),
    ("tk", Lang::Tuk),
    ("tl", Lang::Tgl),
    ("tr", Lang::Tur),
    ("uk", Lang::Ukr),
    ("ur", Lang::Urd),
    ("uz", Lang::Uzb),
    ("vi", Lang::Vie),
    ("yi", Lang::Yid),
    ("zh", Lang::Cmn),
    ("zu", Lang::Zul),
];

/// The code a language is recorded and shown with: ISO 639-1 where it has one.
pub fn code(lang: Lang) -> &'static str {
    ISO_639_1.iter().find(|(_, l)| *l == lang).map(|(c, _)| *c).unwrap_or(lang.code())
}

/// A language from a recorded code or a user's pin: `ru`, `pt-BR`, `zh_TW`, `rus`, `Russian`.
pub fn parse(value: &str) -> Option<Lang> {
    let v = value.trim().to_ascii_lowercase();
    let base = v.split(['-', '_']).next().unwrap_or("");
    if base.is_empty() {
        return None;
    }
    ISO_639_1
        .iter()
        .find(|(c, _)| *c == base)
        .map(|(_, l)| *l)
        .or_else(|| Lang::from_code(base))
        .or_else(|| Lang::all().iter().copied().find(|l| l.eng_name().eq_ignore_ascii_case(&v)))
}

/// Bytes of a text sampled for detection: enough for whatlang's trigrams to settle (on the
/// help vault, 93 % of the notes are detected with a confidence of .9 or more from 512 bytes,
/// as from 1 KB), at a bounded cost per note (whatlang reads ~10 MB/s: a 2 KB sample of each
/// note and of each long section doubled the full-index time of the 34-language vault).
const SAMPLE_BYTES: usize = 512;
/// A section is detected on its own (not given its note's language) from this many bytes.
pub const SECTION_MIN_BYTES: usize = 240;

/// At most `len` bytes of `text` from `start` (both moved back to character boundaries).
fn sample_at(text: &str, start: usize, len: usize) -> &str {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(start);
    &text[from..floor(from + len)]
}

fn sample(text: &str) -> &str {
    sample_at(text, 0, SAMPLE_BYTES)
}

/// whatlang's confidence from which a detection is taken (its own `is_reliable` wants 0.9
/// and more, which a paragraph of Russian, with Ukrainian and Bulgarian close by, rarely gets).
pub const MIN_CONFIDENCE: f64 = 0.5;

fn confident(info: &whatlang::Info) -> bool {
    info.confidence() >= MIN_CONFIDENCE
}

/// The language of a note's or section's text when whatlang is confident of it.
pub fn detect_text(text: &str) -> Option<Lang> {
    detect_with_confidence(text).map(|(l, _)| l)
}

fn detect_with_confidence(text: &str) -> Option<(Lang, f64)> {
    detect_sample(sample(text))
}

/// Samples detected, at most, before [`DETECTED`] starts over (about 40 bytes each).
const MEMO_ENTRIES: usize = 16 * 1024;

thread_local! {
    /// whatlang's answers by the xxh3 hash and length of the sample it read: a note indexed
    /// again after an edit (its opening unchanged), its long sections, the snippets of the
    /// notes a search returns again, and notes of the same text cost a lookup instead of
    /// whatlang's ~50 µs. A pure function's answers, so nothing indexed or found changes.
    static DETECTED: std::cell::RefCell<Memo> = std::cell::RefCell::new(Memo::default());
}

#[derive(Default)]
struct Memo {
    answers: rustc_hash::FxHashMap<(u64, usize), Option<(Lang, f64)>>,
    /// whatlang's runs (the samples that were not in the memo).
    runs: u64,
}

/// whatlang's confident answer for a sample, memoised.
fn detect_sample(sample: &str) -> Option<(Lang, f64)> {
    let key = (xxhash_rust::xxh3::xxh3_64(sample.as_bytes()), sample.len());
    if let Some(hit) = DETECTED.with_borrow(|m| m.answers.get(&key).copied()) {
        return hit;
    }
    let answer = whatlang::detect(sample).filter(confident).map(|i| (i.lang(), i.confidence()));
    DETECTED.with_borrow_mut(|m| m.remember(key, answer));
    answer
}

impl Memo {
    fn remember(&mut self, key: (u64, usize), answer: Option<(Lang, f64)>) {
        if self.answers.len() >= MEMO_ENTRIES {
            self.answers.clear();
        }
        self.answers.insert(key, answer);
        self.runs += 1;
    }
}

/// A note's language, and whether its sections may be in others (detected one by one then).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoteLanguage {
    pub lang: Option<Lang>,
    /// Pinned, or the same language at its start and at its end: its sections are not
    /// detected one by one.
    pub settled: bool,
}

/// Notes from this size are sampled twice (whatlang's cost is mostly per call, ~50 µs: it
/// scores 300 trigrams of each of the script's languages, 40 for Latin).
const MIXED_CHECK_BYTES: usize = 8 * 1024;

/// The language a note is analysed in: its frontmatter pin, else what its text says. A long
/// note is sampled at its start and at its end: when the two disagree, the note mixes
/// languages (an original and its translation, a summary in another language) and its long
/// sections are detected on their own.
pub fn note_language(pin: Option<&str>, body: &str) -> NoteLanguage {
    if let Some(l) = pin.and_then(parse) {
        return NoteLanguage { lang: Some(l), settled: true };
    }
    if body.len() < MIXED_CHECK_BYTES {
        let lang = detect_with_confidence(body).map(|(l, _)| l);
        return NoteLanguage { lang, settled: lang.is_some() };
    }
    let half = SAMPLE_BYTES / 2;
    let head = detect_with_confidence(sample_at(body, 0, half));
    let end = detect_with_confidence(sample_at(body, body.len().saturating_sub(half), half));
    match (head, end) {
        (Some((a, _)), Some((b, _))) if a == b => NoteLanguage { lang: Some(a), settled: true },
        (Some((a, ca)), Some((b, cb))) => NoteLanguage { lang: Some(if ca >= cb { a } else { b }), settled: false },
        (one, other) => NoteLanguage { lang: one.or(other).map(|(l, _)| l), settled: false },
    }
}

/// The language a section is analysed in when it is not its note's: a long section of a note
/// whose language is not settled, detected on its own. None: the note's.
pub fn section_language(note: &NoteLanguage, sections: usize, body: &str) -> Option<Lang> {
    if note.settled || sections < 2 || body.len() < SECTION_MIN_BYTES {
        return None;
    }
    detect_text(body).filter(|l| Some(*l) != note.lang)
}

/// The language a text of a note is analysed in (a snippet's section): `langs` is the
/// catalog's record of the note's languages ("de", "en de"); with more than one, the text
/// says which, as it did when the note was indexed.
pub fn text_stem(langs: &str, text: &str) -> Stem {
    let mut codes = langs.split_whitespace();
    let first = codes.next().and_then(parse);
    if codes.next().is_some() && text.len() >= SECTION_MIN_BYTES {
        if let Some(l) = detect_text(text).filter(|l| langs.split_whitespace().any(|c| parse(c) == Some(*l))) {
            return stem_of(l);
        }
    }
    first.map_or(Stem::ENGLISH, stem_of)
}

/// The languages a query is analysed in (distinct, most likely first): the query's own
/// language when whatlang is confident; otherwise the vault's main languages written in the
/// query's script (`vault`: languages by share of notes, largest first), and English for Latin
/// script (notes whose language is unknown are stemmed as English). None: analysed unstemmed.
pub fn query_languages(query: &str, vault: &[(Lang, f64)]) -> Vec<Lang> {
    let info = whatlang::detect(query);
    let mut out: Vec<Lang> = Vec::new();
    match info {
        Some(i) if confident(&i) => out.push(i.lang()),
        _ => {
            let script = info.as_ref().map(|i| i.script());
            for (lang, share) in vault.iter().take(MAX_QUERY_LANGUAGES) {
                if *share >= MIN_VAULT_SHARE && script.is_none_or(|s| lang_uses_script(*lang, s)) {
                    out.push(*lang);
                }
            }
            if script.is_none_or(|s| s == whatlang::Script::Latin) && !out.contains(&Lang::Eng) {
                out.push(Lang::Eng);
            }
        }
    }
    out
}

/// Words dropped from a query in `lang` (when it has others): NLTK's list of the language;
/// English keeps the list its dev queries were tuned with.
pub fn stop_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Eng => crate::ranking::QUERY_STOPWORDS,
        l => stop_words::lookup(code(l)).unwrap_or(&[]),
    }
}

/// At most this many of the vault's languages analyse an unsure query.
pub const MAX_QUERY_LANGUAGES: usize = 6;
/// A language with less than this share of the vault's notes is not one of its main languages.
pub const MIN_VAULT_SHARE: f64 = 0.02;

fn lang_uses_script(lang: Lang, script: whatlang::Script) -> bool {
    use whatlang::Script as S;
    match script {
        S::Latin => matches!(
            lang,
            Lang::Eng
                | Lang::Deu
                | Lang::Fra
                | Lang::Spa
                | Lang::Por
                | Lang::Ita
                | Lang::Nld
                | Lang::Swe
                | Lang::Nob
                | Lang::Dan
                | Lang::Fin
                | Lang::Hun
                | Lang::Ron
                | Lang::Tur
                | Lang::Ind
                | Lang::Cat
                | Lang::Ces
                | Lang::Slk
                | Lang::Pol
                | Lang::Lit
                | Lang::Est
                | Lang::Epo
                | Lang::Vie
                | Lang::Lav
                | Lang::Slv
                | Lang::Hrv
                | Lang::Afr
                | Lang::Aze
                | Lang::Uzb
                | Lang::Tgl
                | Lang::Cym
                | Lang::Lat
                | Lang::Jav
                | Lang::Zul
                | Lang::Sna
                | Lang::Aka
                | Lang::Tuk
        ),
        S::Cyrillic => matches!(lang, Lang::Rus | Lang::Ukr | Lang::Bel | Lang::Bul | Lang::Mkd | Lang::Srp),
        S::Arabic => matches!(lang, Lang::Ara | Lang::Pes | Lang::Urd),
        S::Devanagari => matches!(lang, Lang::Hin | Lang::Mar | Lang::Nep),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_has_a_stemmer_and_every_language_a_code() {
        assert!(STEMMERS[0].is_none());
        assert!(STEMMERS[1..].iter().all(Option::is_some));
        for l in Lang::all() {
            assert_eq!(parse(code(*l)), Some(*l), "{l:?}");
        }
    }

    #[test]
    fn pins_accept_codes_regions_and_names() {
        assert_eq!(parse("ru"), Some(Lang::Rus));
        assert_eq!(parse("pt-BR"), Some(Lang::Por));
        assert_eq!(parse("zh_TW"), Some(Lang::Cmn));
        assert_eq!(parse("deu"), Some(Lang::Deu));
        assert_eq!(parse("German"), Some(Lang::Deu));
        assert_eq!(parse("klingon"), None);
        assert_eq!(parse(""), None);
        let pinned = note_language(Some("de"), "This note is written in English, plainly.");
        assert_eq!(pinned, NoteLanguage { lang: Some(Lang::Deu), settled: true });
    }

    #[test]
    fn notes_are_detected_by_their_text() {
        let ru = "Синхронизация заметок между устройствами выполняется автоматически, если включена настройка.";
        let de = "Die Synchronisierung der Notizen zwischen den Geräten erfolgt automatisch, wenn sie aktiviert ist.";
        let th = "สำรองข้อมูลไฟล์ Obsidian ของคุณเป็นประจำเพื่อป้องกันการสูญหาย";
        assert_eq!(note_language(None, ru).lang, Some(Lang::Rus));
        assert_eq!(note_language(None, de).lang, Some(Lang::Deu));
        assert_eq!(note_language(None, th), NoteLanguage { lang: Some(Lang::Tha), settled: true });
        assert_eq!(note_language(None, "ok").lang, None);
        // A note in two languages leaves its sections to be detected one by one.
        let en = "Syncing notes between devices happens automatically when the setting is turned on. ";
        let mixed = format!("{}\n\n## Deutsch\n\n{}", en.repeat(60), format!("{de} ").repeat(60));
        let n = note_language(None, &mixed);
        assert!(!n.settled && n.lang.is_some(), "{n:?}");
        assert!(note_language(None, &en.repeat(120)).settled);
    }

    #[test]
    fn memoised_detections_are_whatlangs_answers() {
        let whatlang_says = |t: &str| whatlang::detect(sample(t)).filter(confident).map(|i| (i.lang(), i.confidence()));
        let en = "Syncing notes between devices happens automatically when the setting is turned on. ";
        let de = "Die Synchronisierung der Notizen zwischen den Geräten erfolgt automatisch, wenn sie aktiviert ist.";
        let texts: [&str; 6] = [
            "Синхронизация заметок между устройствами выполняется автоматически, если включена настройка.",
            de,
            "สำรองข้อมูลไฟล์ Obsidian ของคุณเป็นประจำเพื่อป้องกันการสูญหาย",
            "ok",
            &en.repeat(20),
            // The same opening, another ending: the sample (its first 512 bytes) is the key.
            &format!("{}{}", en.repeat(20), de.repeat(20)),
        ];
        let runs = || DETECTED.with_borrow(|m| m.runs);
        let first: Vec<_> = texts.iter().map(|t| detect_with_confidence(t)).collect();
        let after_first = runs();
        for (t, got) in texts.iter().copied().zip(&first) {
            assert_eq!(*got, whatlang_says(t), "{t}");
            assert_eq!(detect_with_confidence(t), *got, "{t}");
            assert_eq!(detect_text(t), got.map(|(l, _)| l));
        }
        assert_eq!(runs(), after_first, "the second detections were answered from the memo");
        // A long note detected again (its head and its end) runs whatlang no more.
        let long = format!("{}\n\n{}", en.repeat(60), de.repeat(60));
        let n = note_language(None, &long);
        let before = runs();
        assert_eq!(note_language(None, &long), n);
        assert_eq!(runs(), before);
        // The memo is bounded: it starts over when full.
        let mut m = Memo::default();
        for i in 0..MEMO_ENTRIES + 3 {
            m.remember((i as u64, 1), None);
        }
        assert_eq!(m.answers.len(), 3);
        assert_eq!(m.runs, MEMO_ENTRIES as u64 + 3);
    }

    #[test]
    fn unsure_queries_use_the_vaults_languages_of_their_script() {
        let vault = [(Lang::Deu, 0.5), (Lang::Rus, 0.3), (Lang::Eng, 0.2)];
        let langs = query_languages("sync", &vault);
        assert_eq!(langs, vec![Lang::Deu, Lang::Eng], "a Latin query is not analysed as Russian");
        assert_eq!(query_languages("синхронизации", &vault)[0], Lang::Rus);
        assert_eq!(query_languages("Wie synchronisiere ich meine Notizen zwischen Geräten", &vault), vec![Lang::Deu]);
        assert_eq!(query_languages("x", &[]), vec![Lang::Eng]);
        assert!(stop_words(Lang::Rus).contains(&"чтобы") && stop_words(Lang::Eng).contains(&"the"));
        assert!(stop_words(Lang::Tha).is_empty());
    }
}
