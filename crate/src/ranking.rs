//! Every constant that shapes a ranking, in one place, one line each. What was measured to
//! choose them is in the docs (docs/ranking.md), not here, so the two cannot drift apart.
//! Grouped in pipeline order: sections, lexical retrieval, vector retrieval, fusion, queries.

// ---- sections -----------------------------------------------------------------------------

/// A section is split by heading level while it has more estimated tokens than this
/// (`CoreConfig::chunk_budget`'s default).
pub const SECTION_BUDGET: usize = 512;
/// A part with fewer estimated tokens than this is merged into a neighbour
/// (`CoreConfig::chunk_min`'s default).
pub const SECTION_MIN: usize = 100;
/// Sections are split at most this deep (depth 0 is the whole note).
pub const SECTION_MAX_DEPTH: u8 = 3;
/// A note's lead (embedded as its lead vector) is its opening lines up to about this many
/// estimated tokens (whole lines, stopping at the first heading).
pub const LEAD_TOKENS: usize = 64;
/// At most this many bytes of the lead are embedded (a note can be one long line).
pub const LEAD_MAX_BYTES: usize = 2048;

// ---- lexical retrieval (BM25) -------------------------------------------------------------

/// A word of a language stemmed by prefix (`language::Stem::PREFIX`) is cut to this many characters.
pub const PREFIX_STEM_CHARS: usize = 6;

/// Field boost of the title (and of the file name when it differs).
pub const BOOST_TITLE: f32 = 8.0;
/// Field boost of the frontmatter aliases.
pub const BOOST_ALIASES: f32 = 6.0;
/// Field boost of the heading path and the headings inside the section.
pub const BOOST_HEADINGS: f32 = 4.0;
/// Field boost of the tags.
pub const BOOST_TAGS: f32 = 2.0;
/// Field boost of the section's own lines.
pub const BOOST_BODY: f32 = 1.0;
/// Field boost of a code section's breadcrumb, name and signature (identifiers whole and split).
pub const BOOST_SYMBOL: f32 = 4.0;
/// Field boost of a code section's own lines.
pub const BOOST_CODE: f32 = 1.0;
/// Boost of a quoted phrase found in a code section's string literal, a run of its words
/// standing for one of the literal's interpolated values (`lexical::search`).
pub const BOOST_LITERAL_PHRASE: f32 = 4.0;
/// Boost of each run of a free-text query's words found together in a code section's string
/// literal (a pasted message meets the line that prints it; `lexical::search`): pairs of
/// adjacent words for a query that reads like a message, runs of [`LITERAL_PLAIN_RUN`] for one
/// of plain words. Large: a literal's match outranks identifiers that share the message's
/// common words (`find`, `error`, `get`).
pub const BOOST_LITERAL_RUN: f32 = 20.0;
/// Words in a row a query of plain words must share with a string literal to be lifted by it.
pub const LITERAL_PLAIN_RUN: usize = 5;
/// A quoted phrase's run of words standing for an interpolated value is at most this long.
pub const LITERAL_HOLE_WORDS: usize = 6;
/// A quoted phrase of more words is matched in literals as written only (no run standing for
/// a value: the variants grow with the square of its length).
pub const LITERAL_HOLE_PHRASE_MAX: usize = 24;
/// English function words dropped from free-text queries (never inside quotes, never when
/// nothing else would remain).
pub const QUERY_STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "do", "does", "for", "from",
    "get", "give", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
    "our", "so", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "we", "what",
    "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
];
/// A CJK run of a free-text query also adds its n-grams of this many characters as phrases.
pub const CJK_PHRASE_CHARS: usize = 3;
/// Lexical mode asks BM25 for this many candidates per hit wanted…
pub const LEXICAL_POOL_PER_HIT: usize = 4;
/// …plus this many.
pub const LEXICAL_POOL_EXTRA: usize = 20;

// ---- vector retrieval ---------------------------------------------------------------------

/// The int8 scan re-ranks at least this many candidates with the f16 vectors…
pub const RERANK_MIN: usize = 40;
/// …and at least this many per result wanted.
pub const RERANK_PER_HIT: usize = 4;
/// A note's vector score: this share from its lead vector's cosine, the rest from its best
/// section's.
pub const LEAD_WEIGHT: f32 = 0.6;
/// Vector hits ask the scan for this many vectors per note wanted…
pub const VECTOR_POOL_PER_NOTE: usize = 2;
/// …plus this many.
pub const VECTOR_POOL_EXTRA: usize = 20;
/// Similar notes ask the scan for this many vectors per note wanted…
pub const SIMILAR_POOL_PER_NOTE: usize = 8;
/// …plus this many.
pub const SIMILAR_POOL_EXTRA: usize = 20;
/// Sections listed per similar note.
pub const SIMILAR_SECTIONS: usize = 3;

// ---- fusion -------------------------------------------------------------------------------

/// Hybrid and semantic search take this many candidates per list per hit wanted…
pub const FUSION_POOL_PER_HIT: usize = 4;
/// …plus this many…
pub const FUSION_POOL_EXTRA: usize = 30;
/// …but at least this many (so the first results do not depend on how many were asked for)…
pub const FUSION_POOL_MIN: usize = 150;
/// …and at most this many.
pub const FUSION_POOL_MAX: usize = 400;
/// Reciprocal Rank Fusion of several query strings: a list's rank r (0 = best) scores weight / (RRF_K + r + 1).
pub const RRF_K: f32 = 60.0;
/// RRF of the lexical and vector lists: their rank constant (the pools hold most of a small vault, so ranks deep in both lists must not outweigh a first-page rank in one).
pub const FUSION_RRF_K: f32 = 15.0;
/// RRF bonus for a list's first hit (times the list's weight, at RRF_K; at another constant k, times (RRF_K + 1) / (k + 1), the same share of a first hit's score).
pub const RRF_TOP1_BONUS: f32 = 0.05;
/// RRF bonus for a list's second and third hits (likewise).
pub const RRF_TOP3_BONUS: f32 = 0.02;
/// A list keeps its first hit first when its second hit's calibrated score is below this share of the first's (lexical: BM25; vector: the height above the query's background).
pub const CONFIDENT_SECOND: f32 = 0.4;
/// Weights (lexical, vector) of a query with no particular shape.
pub const WEIGHTS_DEFAULT: (f32, f32) = (1.0, 1.0);
/// Weights of an exact-term query (quoted phrase, `#tag`, `field:value`, identifier).
pub const WEIGHTS_EXACT: (f32, f32) = (0.85, 0.15);
/// Weights of a natural-language question (at least [`QUESTION_MIN_WORDS`] words).
pub const WEIGHTS_QUESTION: (f32, f32) = (0.4, 0.6);
/// Weights when the lexical evidence is weak (flat BM25 scores).
pub const WEIGHTS_WEAK_LEXICAL: (f32, f32) = (0.4, 0.6);
/// Weights when the lists barely overlap, or there is no lexical hit.
pub const WEIGHTS_LOW_OVERLAP: (f32, f32) = (0.25, 0.75);
/// Weights of a mostly-CJK query with an English-only model (the bigram index carries it).
pub const WEIGHTS_CJK_ENGLISH_MODEL: (f32, f32) = (0.85, 0.15);
/// A query of at least this many words is a natural-language question.
pub const QUESTION_MIN_WORDS: usize = 6;
/// Lexical evidence is weak when the 10th BM25 score exceeds this share of the 1st.
pub const WEAK_LEXICAL_RATIO: f32 = 0.8;
/// The lists overlap little when less than this share of their first [`OVERLAP_TOP`] is common.
pub const LOW_OVERLAP: f32 = 0.1;
/// How many of each list's first hits the overlap compares.
pub const OVERLAP_TOP: usize = 10;
/// BM25 saturation for the strong-signal test: norm = s / (s + LEX_HALF).
pub const LEX_HALF: f32 = 8.0;
/// Strong signal: the saturated top score is at least this…
pub const STRONG_TOP: f32 = 0.85;
/// …and at least this far above the second.
pub const STRONG_GAP: f32 = 0.15;

// ---- weaker matches -----------------------------------------------------------------------

/// The query's background similarity: the vector score of the note at this rank (0-based) of
/// its vector list, or of its median note in a smaller vault.
pub const WEAK_BACKGROUND_RANK: usize = 59;
/// A note is a weaker match when neither list's evidence for it stands out: its vector score
/// stands less than the model's gap above the background, and the lexical side did not find it
/// or its best section holds less than the model's share of the query's information
/// (`Lexical::coverage`). With all-MiniLM-L6-v2 (measured on the dev and out-of-vault queries:
/// no answer lost in en; answers' sections held 0.39 and more, out-of-vault hits up to 0.37)…
pub const WEAK_GAP_MINILM: f32 = 0.12;
pub const WEAK_COVER_MINILM: f32 = 0.3;
/// …and with multilingual-e5-small (its cosines crowd near 0.8: answers stand 0.02 and more
/// above the background, out-of-vault notes up to 0.05; a share of 0.15 lost an answer).
pub const WEAK_GAP_E5: f32 = 0.015;
pub const WEAK_COVER_E5: f32 = 0.1;

// ---- several query strings ----------------------------------------------------------------

/// RRF weight of the original query among several query strings.
pub const QUERY_WEIGHT_ORIGINAL: f32 = 2.0;
/// RRF weight of each expansion.
pub const QUERY_WEIGHT_EXPANSION: f32 = 1.0;
/// Further query strings (expansions) used at most.
pub const MAX_QUERIES: usize = 5;
