//! Score fusion of the lexical (BM25) and vector rankings (the constants are in `ranking`).
//!
//! - Reciprocal Rank Fusion: score = Σ weight / (k + rank + 1), plus a bonus for a list's
//!   first three hits; k = FUSION_RRF_K for the lexical and vector lists, RRF_K across query
//!   strings.
//! - Confident first hits: a list whose first hit stands out from its second (each list's scores
//!   calibrated on their own scale) keeps that hit first.
//! - Linear fusion (an option): per-query max normalisation, each list weighted by the same
//!   dynamic weights as RRF.
//! - Dynamic weights (lexical/vector) by the query's shape: exact-term queries (quoted phrases,
//!   IDs, `#tags`, `field:`) lean lexical; long natural-language questions lean semantic; weak
//!   lexical evidence (top 1 close to top 10) or little overlap between the two lists shifts
//!   to vectors.
//! - Strong signal: a saturated BM25 top score far enough ahead of the second, reported so
//!   clients can skip query expansion.
//! - [`NoteEvidence`]: what each list said about a note, and the explain string of its score.

use std::collections::HashMap;
use std::hash::Hash;

use crate::ranking::{
    CONFIDENT_SECOND, FUSION_RRF_K, LEX_HALF, LOW_OVERLAP, QUESTION_MIN_WORDS, RRF_K, RRF_TOP1_BONUS, RRF_TOP3_BONUS,
    STRONG_GAP, STRONG_TOP, WEAK_BACKGROUND_RANK, WEAK_COVER_E5, WEAK_COVER_MINILM, WEAK_GAP_E5, WEAK_GAP_MINILM,
    WEAK_LEXICAL_RATIO, WEIGHTS_CJK_ENGLISH_MODEL, WEIGHTS_DEFAULT, WEIGHTS_EXACT, WEIGHTS_LOW_OVERLAP,
    WEIGHTS_QUESTION, WEIGHTS_WEAK_LEXICAL,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum FusionMethod {
    #[default]
    Rrf,
    Linear,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Weights {
    pub lex: f32,
    pub vec: f32,
}

/// Saturating normalisation of a BM25 score into [0, 1).
pub fn lex_saturate(score: f32) -> f32 {
    let s = score.max(0.0);
    s / (s + LEX_HALF)
}

/// True for queries that ask for exact terms: quoted phrases, `#tags`, `field:value`,
/// identifiers (words mixing letters and digits, or with `_`/`-`/`.` inside).
pub fn is_exact_query(query: &str) -> bool {
    query.contains('"')
        || query.split_whitespace().any(|w| {
            w.starts_with('#')
                || (w.contains(':') && !w.ends_with(':'))
                || (w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(|c| c.is_alphabetic()))
                || w.trim_matches(|c: char| !c.is_alphanumeric()).contains(['_', '.'])
        })
}

/// Words of a query as its shape is judged: whitespace-separated words, a CJK run's characters
/// by pairs, and the words of a Thai, Lao, Khmer or Burmese run (written without spaces: a
/// whole question in Thai is one "word" between spaces).
fn word_count(query: &str) -> usize {
    use crate::analyzer::{is_cjk, segment};
    let cjk = query.chars().filter(|c| is_cjk(*c)).count();
    let mut n = cjk / 2;
    for w in query.split_whitespace().filter(|w| !w.chars().all(is_cjk)) {
        if w.chars().any(segment::is_sea) {
            let mut words = 0;
            segment::words(w, |_, _| words += 1);
            n += words.max(1);
        } else {
            n += 1;
        }
    }
    n
}

/// Strong signal: the best lexical hit is clearly ahead.
pub fn strong_signal(lex_scores: &[f32]) -> bool {
    let Some(&top) = lex_scores.first() else { return false };
    let second = lex_scores.get(1).copied().unwrap_or(0.0);
    let (t, s) = (lex_saturate(top), lex_saturate(second));
    t >= STRONG_TOP && t - s >= STRONG_GAP
}

/// Chooses fusion weights for a query from its shape and the evidence of both lists.
/// Returns the weights and a short reason for the explain string.
pub fn dynamic_weights(
    query: &str,
    lex_scores: &[f32],
    overlap: f32,
    multilingual_model: bool,
) -> (Weights, &'static str) {
    let w = |(lex, vec): (f32, f32)| Weights { lex, vec };
    let cjk = query.chars().filter(|c| crate::analyzer::is_cjk(*c)).count();
    if !multilingual_model && cjk * 2 >= query.chars().filter(|c| !c.is_whitespace()).count().max(1) {
        return (w(WEIGHTS_CJK_ENGLISH_MODEL), "CJK query, English-only model");
    }
    if is_exact_query(query) {
        return (w(WEIGHTS_EXACT), "exact-term query");
    }
    if let (Some(&top), Some(&tenth)) = (lex_scores.first(), lex_scores.get(9)) {
        if top > 0.0 && tenth / top > WEAK_LEXICAL_RATIO {
            return (w(WEIGHTS_WEAK_LEXICAL), "weak lexical evidence");
        }
    }
    if lex_scores.is_empty() || overlap < LOW_OVERLAP {
        return (w(WEIGHTS_LOW_OVERLAP), "little lexical agreement");
    }
    if word_count(query) >= QUESTION_MIN_WORDS {
        return (w(WEIGHTS_QUESTION), "natural-language question");
    }
    (w(WEIGHTS_DEFAULT), "balanced")
}

/// Share of the first `n` items of `a` that also appear in the first `n` of `b`.
pub fn overlap<K: Eq + Hash>(a: &[K], b: &[K], n: usize) -> f32 {
    let n = n.min(a.len()).min(b.len());
    if n == 0 {
        return 0.0;
    }
    let set: std::collections::HashSet<&K> = b.iter().take(n).collect();
    a.iter().take(n).filter(|k| set.contains(k)).count() as f32 / n as f32
}

/// What makes a weaker match with a model's scores (`is_weak`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WeakMargins {
    /// A vector score less than this above the query's background is weak.
    pub gap: f32,
    /// A lexical hit whose section holds less than this share of the query is weak.
    pub cover: f32,
}

/// The weaker-match margins of a model ([`WEAK_GAP_MINILM`], [`WEAK_GAP_E5`] and their cover
/// shares); none (no cut-off) for a model not measured.
pub fn weak_margins(model_id: &str) -> Option<WeakMargins> {
    match model_id {
        "all-MiniLM-L6-v2" => Some(WeakMargins { gap: WEAK_GAP_MINILM, cover: WEAK_COVER_MINILM }),
        "multilingual-e5-small" => Some(WeakMargins { gap: WEAK_GAP_E5, cover: WEAK_COVER_E5 }),
        _ => None,
    }
}

/// The query's background similarity: the score at [`WEAK_BACKGROUND_RANK`] of its vector
/// list (best first), or its median in a smaller vault (the least similar notes of a small vault
/// sit further below the rest than a large vault's note at that rank); `None` for an empty list.
pub fn background(vec_scores: &[f32]) -> Option<f32> {
    vec_scores.get(WEAK_BACKGROUND_RANK.min(vec_scores.len() / 2)).copied()
}

/// Whether a note is a weaker match: neither list's evidence for it stands out. The lexical
/// side's is the share of the query's information its best section holds (`lex_cover`,
/// `Lexical::coverage`; `None`: the lexical side did not find it), weak below the margins'
/// `cover` (a note that matched only a query's common words); the vector side's is its score's
/// height above the query's background, weak below their `gap` (in a vault where nothing
/// answers the query, every note's score sits near the background), or no score. No cut-off
/// without a background or margins (a model not measured).
pub fn is_weak(
    lex_cover: Option<f32>,
    vec_score: Option<f32>,
    background: Option<f32>,
    margins: Option<WeakMargins>,
) -> bool {
    let (Some(bg), Some(m)) = (background, margins) else { return false };
    lex_cover.is_none_or(|c| c < m.cover) && vec_score.is_none_or(|v| v - bg < m.gap)
}

/// Reciprocal Rank Fusion of weighted ranked lists (rank 0 = best), with [`RRF_K`].
/// Every list gets the top-rank bonuses (multi-query fusion: an expansion's best hit
/// should be able to enter the first results).
pub fn rrf<K: Eq + Hash + Clone>(lists: &[(f32, &[K])]) -> HashMap<K, f32> {
    rrf_with(lists, false, RRF_K)
}

/// Lexical + vector fusion, with [`FUSION_RRF_K`]: both pools hold most of a small vault, so with
/// [`RRF_K`] a note ranked 30th in both lists would outrank one ranked 4th in one list and absent
/// from the other (no query word in it). The top-rank bonuses go to the list(s) with the largest
/// weight only; a list the query shape says to trust less should not put its first hit above the
/// other list's third.
pub fn rrf_trusted<K: Eq + Hash + Clone>(lists: &[(f32, &[K])]) -> HashMap<K, f32> {
    rrf_with(lists, true, FUSION_RRF_K)
}

fn rrf_with<K: Eq + Hash + Clone>(lists: &[(f32, &[K])], trusted_only: bool, k: f32) -> HashMap<K, f32> {
    let mut out: HashMap<K, f32> = HashMap::new();
    let top = lists.iter().map(|(w, _)| *w).fold(0.0f32, f32::max);
    // The bonuses keep their share of a first hit's score at any k.
    let scale = (RRF_K + 1.0) / (k + 1.0);
    for (weight, list) in lists {
        let bonus = !trusted_only || *weight >= top;
        for (rank, key) in list.iter().enumerate() {
            let mut s = weight / (k + rank as f32 + 1.0);
            if !bonus {
            } else if rank == 0 {
                s += RRF_TOP1_BONUS * weight * scale;
            } else if rank < 3 {
                s += RRF_TOP3_BONUS * weight * scale;
            }
            *out.entry(key.clone()).or_default() += s;
        }
    }
    out
}

/// How far a lexical list's first hit stands out: its second's BM25 over its first's (0 with a
/// single hit); `None` for an empty list.
pub fn lex_second_share(scores: &[f32]) -> Option<f32> {
    let &first = scores.first()?;
    (first > 0.0).then(|| scores.get(1).map_or(0.0, |s| s / first))
}

/// How far a vector list's first hit stands out: its second's height above the query's
/// background over its first's; `None` when the first does not stand above the background.
pub fn vec_second_share(scores: &[f32], background: Option<f32>) -> Option<f32> {
    let (&first, &second, bg) = (scores.first()?, scores.get(1)?, background?);
    (first > bg).then(|| ((second - bg) / (first - bg)).max(0.0))
}

/// Lets a confident list keep its first hit first: of each `(share, key)` (a list's
/// [`lex_second_share`] or [`vec_second_share`] and its first hit), those below
/// [`CONFIDENT_SECOND`] are confident; when they name one note, it is lifted above every fused
/// score. Two confident lists that disagree are left to the fusion (their scores are on scales
/// that do not compare).
pub fn keep_confident_first<K: Eq + Hash + Clone>(fused: &mut HashMap<K, f32>, firsts: &[(f32, K)]) {
    let mut confident = firsts.iter().filter(|(share, _)| *share < CONFIDENT_SECOND).map(|(_, key)| key);
    let Some(first) = confident.next() else { return };
    if confident.any(|key| key != first) {
        return;
    }
    let max = fused.values().copied().fold(f32::EPSILON, f32::max);
    // Above the best fused score by 1 % of it.
    fused.insert(first.clone(), max * 1.01);
}

/// Linear fusion of max-normalised scores.
pub fn linear<K: Eq + Hash + Clone>(lex: &[(K, f32)], vec: &[(K, f32)], w: Weights) -> HashMap<K, f32> {
    let max = |l: &[(K, f32)]| l.iter().map(|(_, s)| *s).fold(0.0f32, f32::max);
    let (ml, mv) = (max(lex), max(vec));
    let mut out: HashMap<K, f32> = HashMap::new();
    let total = (w.lex + w.vec).max(f32::EPSILON);
    for (k, s) in lex {
        if ml > 0.0 {
            *out.entry(k.clone()).or_default() += w.lex / total * s / ml;
        }
    }
    for (k, s) in vec {
        if mv > 0.0 {
            *out.entry(k.clone()).or_default() += w.vec / total * s.max(0.0) / mv;
        }
    }
    out
}

/// Where one ranked list (lexical or vector) put a note.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// 0-based rank of the note in the list.
    pub rank: usize,
    /// The note's section that list ranked it by (its order in the note).
    pub order: u32,
    /// The list's raw score: BM25, or the vector score (a cosine).
    pub score: f32,
    /// `score` divided by the list's best score.
    pub norm: f32,
}

/// What one fused search learned about a note: each list's evidence (from the first query that
/// found it there), the vector score's parts and the weights the lists were fused with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NoteEvidence {
    pub lex: Option<Evidence>,
    pub vec: Option<Evidence>,
    /// The vector score's parts: the best section's cosine and the lead's.
    pub vec_section: Option<f32>,
    pub vec_lead: Option<f32>,
    pub weights: Weights,
    /// The share of the query its best lexical section holds (`Lexical::coverage`), where
    /// measured.
    pub cover: Option<f32>,
}

impl NoteEvidence {
    /// The section a hit shows: that of the list that ranked the note better (ties: lexical).
    pub fn shown_order(&self) -> u32 {
        match (self.lex, self.vec) {
            (Some(l), Some(v)) => {
                if v.rank < l.rank {
                    v.order
                } else {
                    l.order
                }
            }
            (Some(l), None) => l.order,
            (None, Some(v)) => v.order,
            (None, None) => 0,
        }
    }

    /// How the fused score was made, for the hit's score breakdown:
    /// `lex #2 (7.31, holds 0.45 of the query) · vec #1 (0.512, background 0.471: section 0.480,
    /// lead 0.533) · RRF weights 1.00/1.00 (balanced)`.
    pub fn explain(&self, method: FusionMethod, reason: &str, background: Option<f32>) -> String {
        let cover = self.cover.map(|c| format!(", holds {c:.2} of the query")).unwrap_or_default();
        let lex =
            self.lex.map(|l| format!("lex #{} ({:.2}{cover})", l.rank + 1, l.score)).unwrap_or_else(|| "lex –".into());
        let parts: Vec<String> = [("section", self.vec_section), ("lead", self.vec_lead)]
            .into_iter()
            .filter_map(|(name, cos)| Some(format!("{name} {:.3}", cos?)))
            .collect();
        let bg = background.map(|b| format!(", background {b:.3}")).unwrap_or_default();
        let vec = self
            .vec
            .map(|v| format!("vec #{} ({:.3}{bg}: {})", v.rank + 1, v.score, parts.join(", ")))
            .unwrap_or_else(|| "vec –".into());
        let method = match method {
            FusionMethod::Rrf => "RRF",
            FusionMethod::Linear => "linear",
        };
        format!("{lex} · {vec} · {method} weights {:.2}/{:.2} ({reason})", self.weights.lex, self.weights.vec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weaker_matches_are_weak_in_both_lists() {
        let scores: Vec<f32> = (0..200).map(|i| 0.9 - i as f32 * 0.002).collect();
        let bg = background(&scores);
        assert_eq!(bg, Some(scores[WEAK_BACKGROUND_RANK]));
        assert_eq!(background(&[0.5, 0.4, 0.3, 0.2, 0.1]), Some(0.3), "a small vault: the median");
        assert_eq!(background(&[0.5]), Some(0.5));
        assert_eq!(background(&[]), None);
        let m = weak_margins("multilingual-e5-small");
        assert!(is_weak(None, Some(scores[56]), bg, m), "near the background");
        assert!(!is_weak(None, Some(scores[0]), bg, m), "stands out");
        assert!(!is_weak(Some(0.9), Some(scores[56]), bg, m), "the lexical side found most of the query");
        assert!(is_weak(Some(0.05), Some(scores[56]), bg, m), "the lexical side found little of the query");
        assert!(!is_weak(Some(0.05), Some(scores[0]), bg, m), "little of the query's words, but close in meaning");
        assert!(is_weak(Some(0.05), None, bg, m), "little of the query's words, no vector score");
        assert!(!is_weak(None, Some(0.1), bg, weak_margins("another-model")), "no cut-off for a model not measured");
        assert!(!is_weak(None, Some(0.1), None, m), "no cut-off without a background");
    }

    #[test]
    fn rrf_rewards_agreement_and_top_ranks() {
        let a = ["x", "y", "z"];
        let b = ["y", "x", "w"];
        let f = rrf(&[(1.0, &a[..]), (1.0, &b[..])]);
        assert!(f["x"] > f["z"] && f["y"] > f["w"]);
        assert!((f["x"] - f["y"]).abs() < 1e-6, "symmetric ranks give equal scores");
        let top1 = 1.0 / 61.0 + 0.05;
        let f1 = rrf(&[(1.0, &["only"][..])]);
        assert!((f1["only"] - top1).abs() < 1e-6);
    }

    #[test]
    fn only_the_trusted_list_gets_the_top_rank_bonus() {
        let lex = ["l1", "l2"];
        let vec = ["v1", "v2", "v3", "v4"];
        let f = rrf_trusted(&[(0.3, &lex[..]), (0.7, &vec[..])]);
        let first = 1.0 / (FUSION_RRF_K + 1.0);
        assert!((f["l1"] - 0.3 * first).abs() < 1e-6, "no bonus for the weaker list");
        let all = rrf(&[(0.3, &lex[..]), (0.7, &vec[..])]);
        assert!(
            (all["l1"] - 0.3 * (1.0 / 61.0 + RRF_TOP1_BONUS)).abs() < 1e-6,
            "multi-query fusion: RRF_K, every list's bonus"
        );
        let bonus = RRF_TOP1_BONUS * (RRF_K + 1.0) / (FUSION_RRF_K + 1.0);
        assert!((f["v1"] - 0.7 * (first + bonus)).abs() < 1e-6, "the bonus keeps its share of a first hit's score");
        assert!(f["v3"] > f["l1"], "the weaker list's first hit stays below the trusted list's third");
    }

    #[test]
    fn a_first_page_rank_in_one_list_outranks_deep_ranks_in_both() {
        // A vault of 60 notes, every one in both pools: "answer" is 4th by vector and has none of
        // the query's words; "filler" is 30th in both lists.
        let notes: Vec<String> = (0..60).map(|i| format!("n{i}")).collect();
        let mut vec: Vec<String> = notes.clone();
        vec.insert(3, "answer".into());
        let mut lex = notes.clone();
        let filler = |l: &mut Vec<String>| {
            let i = l.iter().position(|n| n == "n40").expect("there");
            let f = l.remove(i);
            l.insert(29, f);
        };
        filler(&mut vec);
        filler(&mut lex);
        let f = rrf_trusted(&[(0.4, &lex[..]), (0.6, &vec[..])]);
        assert!(f["answer"] > f["n40"]);
        let old = rrf_with(&[(0.4, &lex[..]), (0.6, &vec[..])], true, RRF_K);
        assert!(old["answer"] < old["n40"], "with RRF_K the agreement deep down won");
    }

    #[test]
    fn a_confident_list_keeps_its_first_hit_first() {
        assert_eq!(lex_second_share(&[50.0, 10.0, 5.0]), Some(0.2));
        assert_eq!(lex_second_share(&[50.0]), Some(0.0), "a single hit stands out");
        assert_eq!(lex_second_share(&[]), None);
        let share = vec_second_share(&[0.90, 0.84, 0.83], Some(0.82)).expect("above the background");
        assert!((share - 0.25).abs() < 1e-4, "{share}");
        assert_eq!(vec_second_share(&[0.80, 0.79], Some(0.82)), None, "not above the background");
        assert_eq!(vec_second_share(&[0.90], Some(0.82)), None);

        let mut fused: HashMap<&str, f32> = [("a", 0.10), ("b", 0.08), ("c", 0.05)].into_iter().collect();
        keep_confident_first(&mut fused, &[(0.6, "b"), (0.5, "c")]);
        assert_eq!(fused["a"], 0.10, "no list is confident: unchanged");
        keep_confident_first(&mut fused, &[(0.1, "b"), (0.3, "c")]);
        assert_eq!((fused["a"], fused["b"]), (0.10, 0.08), "two confident lists that disagree: left to the fusion");
        keep_confident_first(&mut fused, &[(0.6, "b"), (0.3, "c")]);
        let mut order: Vec<(&str, f32)> = fused.into_iter().collect();
        order.sort_by(|x, y| y.1.total_cmp(&x.1));
        assert_eq!(
            order.iter().map(|x| x.0).collect::<Vec<_>>(),
            ["c", "a", "b"],
            "the confident list's first hit first"
        );
        let mut same: HashMap<&str, f32> = [("a", 0.10), ("b", 0.08)].into_iter().collect();
        keep_confident_first(&mut same, &[(0.2, "b"), (0.3, "b")]);
        assert!(same["b"] > same["a"], "both lists confident about the same note");
    }

    #[test]
    fn a_question_without_spaces_counts_its_words() {
        // "how to make a note show as a presentation", in Thai: one run, nine words.
        let th = "วิธีทำโน้ตให้แสดงเป็นงานนำเสนอ";
        assert!(word_count(th) >= QUESTION_MIN_WORDS, "{}", word_count(th));
        assert_eq!(dynamic_weights(th, &[10.0, 9.0, 8.0], 0.5, true).1, "natural-language question");
        assert_eq!(word_count("sync settings"), 2);
        assert_eq!(word_count("同步设置"), 2);
    }

    #[test]
    fn weights_follow_query_shape() {
        assert_eq!(dynamic_weights("\"exact phrase\"", &[10.0, 1.0], 0.5, false).0, Weights { lex: 0.85, vec: 0.15 });
        assert_eq!(dynamic_weights("#project/alpha", &[10.0], 0.5, false).1, "exact-term query");
        assert_eq!(dynamic_weights("ERR_42 crash", &[10.0], 0.5, false).1, "exact-term query");
        let scores: Vec<f32> = (0..10).map(|i| 10.0 - i as f32).collect();
        assert_eq!(
            dynamic_weights("how do I keep my notes in sync across devices", &scores, 0.3, false).1,
            "natural-language question"
        );
        let flat = vec![5.0f32; 10];
        assert_eq!(dynamic_weights("sync devices", &flat, 0.5, false).1, "weak lexical evidence");
        assert_eq!(dynamic_weights("sync devices", &scores, 0.5, false).1, "balanced");
        // Lists with almost nothing in common lean on the vector list, whatever the query's length.
        let apart = dynamic_weights("sync devices", &scores, 0.0, false);
        assert_eq!((apart.0, apart.1), (Weights { lex: 0.25, vec: 0.75 }, "little lexical agreement"));
        assert_eq!(
            dynamic_weights("how do I keep my notes in sync across devices", &scores, 0.0, false).1,
            "little lexical agreement"
        );
        assert_eq!(dynamic_weights("sync", &[], 0.0, false).0, Weights { lex: 0.25, vec: 0.75 }, "no lexical hit");
        assert_eq!(dynamic_weights("给笔记设置别名", &scores, 0.5, false).1, "CJK query, English-only model");
        assert_eq!(dynamic_weights("给笔记设置别名", &scores, 0.5, true).1, "balanced");
    }

    #[test]
    fn strong_signal_needs_a_high_clear_top() {
        assert!(strong_signal(&[80.0, 10.0]));
        assert!(!strong_signal(&[80.0, 75.0]));
        assert!(!strong_signal(&[5.0]));
        assert!(!strong_signal(&[]));
    }

    #[test]
    fn linear_normalises_per_query() {
        let f = linear(&[("a", 20.0), ("b", 10.0)], &[("b", 0.9), ("c", 0.45)], Weights { lex: 0.7, vec: 0.3 });
        assert!((f["a"] - 0.7).abs() < 1e-6);
        assert!((f["b"] - (0.35 + 0.3)).abs() < 1e-6);
        assert!((f["c"] - 0.15).abs() < 1e-6);
    }

    #[test]
    fn evidence_shows_the_better_ranked_section_and_explains_itself() {
        let lex = Evidence { rank: 1, order: 3, score: 7.314, norm: 0.9 };
        let vec = Evidence { rank: 0, order: 5, score: 0.5121, norm: 1.0 };
        let e = NoteEvidence {
            lex: Some(lex),
            vec: Some(vec),
            vec_section: Some(0.48),
            vec_lead: Some(0.5333),
            weights: Weights { lex: 1.0, vec: 1.0 },
            cover: None,
        };
        assert_eq!(e.shown_order(), 5);
        assert_eq!(
            NoteEvidence { vec: Some(Evidence { rank: 1, ..vec }), ..e.clone() }.shown_order(),
            3,
            "a tie goes to lexical"
        );
        assert_eq!(
            e.explain(FusionMethod::Rrf, "balanced", None),
            "lex #2 (7.31) · vec #1 (0.512: section 0.480, lead 0.533) · RRF weights 1.00/1.00 (balanced)"
        );
        assert_eq!(
            NoteEvidence { cover: Some(0.451), ..e.clone() }.explain(FusionMethod::Rrf, "balanced", Some(0.4712)),
            "lex #2 (7.31, holds 0.45 of the query) · vec #1 (0.512, background 0.471: section 0.480, lead 0.533) · \
             RRF weights 1.00/1.00 (balanced)"
        );
        let only_lex = NoteEvidence { vec: None, vec_section: None, vec_lead: None, ..e };
        assert_eq!(only_lex.shown_order(), 3);
        assert!(only_lex.explain(FusionMethod::Linear, "x", None).contains("vec – · linear"));
        assert_eq!(NoteEvidence::default().shown_order(), 0);
    }

    #[test]
    fn overlap_share() {
        assert_eq!(overlap(&[1, 2, 3, 4], &[4, 3, 9, 8], 4), 0.5);
        assert_eq!(overlap::<i32>(&[], &[1], 10), 0.0);
    }
}
