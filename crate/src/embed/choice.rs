//! Which embedding model suits a vault: the `auto` setting.
//!
//! all-MiniLM-L6-v2 is English-only (on the Obsidian Help vault, embedding-only search:
//! R@10 .91 in English, .29 in Chinese, .41 in Japanese); multilingual-e5-small is a
//! little weaker in English and far better elsewhere (.89 / .79 / .88), at about twice
//! the cost per chunk. Latin script is not English either: on the help vault's Spanish dev
//! queries hybrid search had R@10 .78 with MiniLM and .93 with e5 (docs/ranking.md).
//! `auto` therefore picks the multilingual model when a meaningful share of the vault's text
//! is not English, else MiniLM: text in another script, and all the text of a note whose
//! detected (or pinned) language is not English.
//!
//! Letters are counted per note while indexing ([`ScriptCounts`], kept in the catalog with
//! the note's language) and summed over the vault ([`ScriptCounts::read_as`]). A CJK
//! character counts as three letters: one carries about as much as a short English word, and
//! a Chinese note has a fifth as many characters as its English translation. Hysteresis keeps a vault near the threshold from switching
//! (and re-embedding) back and forth.

use serde::{Deserialize, Serialize};

use super::{MINILM_L6_V2, MULTILINGUAL_E5_SMALL};

/// Letters of a text by script (CJK characters weighted, see the module notes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptCounts {
    pub latin: u64,
    pub other: u64,
}

const CJK_WEIGHT: u64 = 3;
/// `auto` moves to the multilingual model at this share of non-Latin text…
pub const SWITCH_TO_MULTILINGUAL: f64 = 0.10;
/// …and back to MiniLM only below this one.
pub const SWITCH_TO_ENGLISH: f64 = 0.05;

impl ScriptCounts {
    pub fn of(text: &str) -> ScriptCounts {
        let mut c = ScriptCounts::default();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                c.latin += b.is_ascii_alphabetic() as u64;
                i += 1;
                continue;
            }
            // A multi-byte character: `text` is valid UTF-8, so decoding from here is safe.
            let ch = text[i..].chars().next().expect("a char boundary");
            i += ch.len_utf8();
            let cp = ch as u32;
            if matches!(cp, 0x00C0..=0x024F | 0x1E00..=0x1EFF) && cp != 0xD7 && cp != 0xF7 {
                c.latin += 1;
            } else if crate::analyzer::is_cjk(ch) {
                c.other += CJK_WEIGHT;
            } else if crate::analyzer::is_word_char(ch) {
                // Letters and digits of other scripts, by the tokenizer's bit table
                // (measured: `char::is_alphabetic` here was 3 % of indexing the vault).
                c.other += 1;
            }
        }
        c
    }

    pub fn add(&mut self, o: &ScriptCounts) {
        self.latin += o.latin;
        self.other += o.other;
    }

    /// The counts as the English model reads them: a note in another language (its
    /// ISO 639-1 code, "" when undetected) has all its letters foreign, whatever its script.
    pub fn read_as(&self, lang: &str) -> ScriptCounts {
        match lang {
            "" | "en" => *self,
            _ => ScriptCounts { latin: 0, other: self.latin + self.other },
        }
    }

    /// The share of the letters in `other` (0 for a vault without letters).
    pub fn other_share(&self) -> f64 {
        let all = self.latin + self.other;
        if all == 0 {
            0.0
        } else {
            self.other as f64 / all as f64
        }
    }
}

/// The model setting: `auto` or a model id.
pub const AUTO: &str = "auto";

/// The outcome of choosing a model for a vault.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelChoice {
    /// The model to load.
    pub model: String,
    /// The setting it comes from (`auto` or a model id).
    pub setting: String,
    /// The share of the vault's text that is not English (another script, or a note in another
    /// language).
    pub non_english_share: f64,
    /// Why, in words (for the CLI, the settings tab and the status).
    pub reason: String,
}

/// Chooses the model for `setting` given the vault's script counts and the model its
/// vectors come from now (`current`). An unknown setting is an error.
pub fn choose(setting: &str, counts: &ScriptCounts, current: Option<&str>) -> Result<ModelChoice, String> {
    let share = counts.other_share();
    let pct = share * 100.0;
    let (model, reason) = if setting == AUTO {
        let multilingual = match current {
            Some(MULTILINGUAL_E5_SMALL) => share >= SWITCH_TO_ENGLISH,
            _ => share >= SWITCH_TO_MULTILINGUAL,
        };
        if multilingual {
            (MULTILINGUAL_E5_SMALL, format!("auto: {pct:.0}% of the vault's text is not in English"))
        } else {
            (MINILM_L6_V2, format!("auto: {pct:.0}% of the vault's text is not in English (English model)"))
        }
    } else if super::KNOWN_MODELS.contains(&setting) {
        (setting, "chosen in the settings".to_string())
    } else {
        return Err(format!("unknown embedding model `{setting}`: use auto, {}", super::KNOWN_MODELS.join(" or ")));
    };
    Ok(ModelChoice { model: model.to_string(), setting: setting.to_string(), non_english_share: share, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_script() {
        let c = ScriptCounts::of("Hello, wörld! 1234");
        assert_eq!(c, ScriptCounts { latin: 10, other: 0 });
        let c = ScriptCounts::of("中文 and 日本語のテキスト");
        assert_eq!(c.latin, 3);
        assert_eq!(c.other, 10 * CJK_WEIGHT);
        let c = ScriptCounts::of("Привет мир");
        assert_eq!(c, ScriptCounts { latin: 0, other: 9 });
        assert_eq!(ScriptCounts::of("").other_share(), 0.0);
        // A note in another language is foreign to the English model, whatever its script.
        let de = ScriptCounts::of("Ein Satz über Notizen");
        assert_eq!(de.read_as("de"), ScriptCounts { latin: 0, other: de.latin });
        assert_eq!(de.read_as("en"), de);
        assert_eq!(de.read_as(""), de, "an undetected language counts by script");
        assert_eq!(ScriptCounts::of("× ÷ — 🙂").latin, 0);
    }

    #[test]
    fn auto_picks_by_share_with_hysteresis() {
        let english = ScriptCounts { latin: 1000, other: 0 };
        let mixed = ScriptCounts { latin: 930, other: 70 }; // 7 %: between the thresholds
        let chinese = ScriptCounts { latin: 200, other: 800 };
        assert_eq!(choose(AUTO, &english, None).unwrap().model, MINILM_L6_V2);
        assert_eq!(choose(AUTO, &chinese, None).unwrap().model, MULTILINGUAL_E5_SMALL);
        assert_eq!(choose(AUTO, &mixed, None).unwrap().model, MINILM_L6_V2);
        // Between the thresholds a vault keeps the model it has.
        assert_eq!(choose(AUTO, &mixed, Some(MULTILINGUAL_E5_SMALL)).unwrap().model, MULTILINGUAL_E5_SMALL);
        assert_eq!(choose(AUTO, &mixed, Some(MINILM_L6_V2)).unwrap().model, MINILM_L6_V2);
        assert_eq!(choose(AUTO, &english, Some(MULTILINGUAL_E5_SMALL)).unwrap().model, MINILM_L6_V2);
        // An explicit setting wins; an unknown one is an error.
        assert_eq!(choose(MINILM_L6_V2, &chinese, None).unwrap().model, MINILM_L6_V2);
        assert!(choose("gpt-9", &english, None).unwrap_err().contains("unknown embedding model"));
    }
}
