//! Words of Thai, Lao, Khmer and Burmese, which are written without spaces between words:
//! ICU4X's word segmenter with its dictionaries for these four scripts (1.04 MB of data).
//!
//! Measured against ICU4X's LSTM models (310 KB) on the Thai help vault: the LSTM segments
//! ~100 KB/s (the dictionary ~60 MB/s: the 34-language vault's Thai and Khmer notes would add
//! seconds to a full index) and splits a word differently by context ("ข้อมูล", data, is one
//! word in "สำรองข้อมูลไฟล์" and two alone), so a query would miss the note it names. The
//! Chinese/Japanese dictionary (2 MB), which Strata's bigrams make unnecessary, is not linked:
//! [`SeaOnly`] serves the segmenter every data key but that one.

use icu_provider::prelude::*;
use icu_segmenter::options::WordBreakOptions;
use icu_segmenter::provider::{
    Baked, SegmenterBreakGraphemeClusterV1, SegmenterBreakWordOverrideV1, SegmenterBreakWordV1,
    SegmenterDictionaryAutoV2, SegmenterDictionaryExtendedV2,
};
use icu_segmenter::WordSegmenter;

/// Whether `c` belongs to a script written without spaces that the segmenter splits.
#[inline]
pub fn is_sea(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0E7F      // Thai
        | 0x0E80..=0x0EFF    // Lao
        | 0x1000..=0x109F    // Myanmar
        | 0xA9E0..=0xA9FF    // Myanmar extended-B
        | 0xAA60..=0xAA7F    // Myanmar extended-A
        | 0x1780..=0x17FF    // Khmer
        | 0x19E0..=0x19FF    // Khmer symbols
    )
}

/// ICU4X's compiled data without the Chinese/Japanese dictionary.
struct SeaOnly;

macro_rules! from_baked {
    ($($marker:ty),*) => {$(
        impl DataProvider<$marker> for SeaOnly {
            fn load(&self, req: DataRequest) -> Result<DataResponse<$marker>, DataError> {
                Baked.load(req)
            }
        }
    )*};
}
from_baked!(
    SegmenterBreakWordV1,
    SegmenterBreakWordOverrideV1,
    SegmenterDictionaryExtendedV2,
    SegmenterBreakGraphemeClusterV1
);

impl DataProvider<SegmenterDictionaryAutoV2> for SeaOnly {
    fn load(&self, req: DataRequest) -> Result<DataResponse<SegmenterDictionaryAutoV2>, DataError> {
        Err(DataErrorKind::IdentifierNotFound.with_req(SegmenterDictionaryAutoV2::INFO, req))
    }
}

thread_local! {
    static SEGMENTER: Option<WordSegmenter> =
        WordSegmenter::try_new_dictionary_unstable(&SeaOnly, WordBreakOptions::default()).ok();
}

/// Calls `word(from, to)` with the byte ranges (within `run`) of the words of a run of
/// [`is_sea`] characters; spans without a letter (spaces, punctuation, signs) are skipped.
pub fn words(run: &str, mut word: impl FnMut(usize, usize)) {
    SEGMENTER.with(|seg| {
        let Some(seg) = seg else {
            // Unreachable with the compiled data; the run stays one word rather than none.
            word(0, run.len());
            return;
        };
        let mut prev = 0;
        for b in seg.as_borrowed().segment_str(run) {
            if b > prev {
                if run[prev..b].chars().any(char::is_alphanumeric) {
                    word(prev, b);
                }
                prev = b;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        words(s, |a, b| out.push(&s[a..b]));
        out
    }

    #[test]
    fn thai_and_khmer_sentences_split_into_words() {
        // "back up your Obsidian files" and the query that must find it.
        assert_eq!(split("สำรองข้อมูล"), vec!["สำรอง", "ข้อมูล"]);
        let title = split("สำรองข้อมูลไฟล์");
        assert!(title.starts_with(&["สำรอง", "ข้อมูล"]), "{title:?}");
        assert_eq!(split("ทุกสองสัปดาห์"), vec!["ทุก", "สอง", "สัปดาห์"]);
        let km = split("ការធ្វើសមកាលកម្ម");
        assert!(km.len() >= 2 && km.concat() == "ការធ្វើសមកាលកម្ម", "{km:?}");
        // A word is split the same alone and in a sentence (what a query needs).
        assert_eq!(split("ข้อมูล"), vec!["ข้อมูล"]);
        assert!(is_sea('ก') && is_sea('ក') && is_sea('က') && !is_sea('a') && !is_sea('中'));
    }
}
