//! Which definition a hybrid or semantic hit on source code shows. A note's hit shows the
//! section of the list that ranked the note better; in a source file that picks the wrong
//! definition for half the questions whose file is found (the lexical list's best section is a
//! function that repeats the question's words, the vector list's best the one nearest in
//! meaning). Here both lists' evidence is weighed per section: each candidate's BM25 and cosine,
//! each divided by the file's best, mixed with the query's fusion weights. A query that reads
//! like a pasted message keeps the lexical choice: the definition whose string literal holds it.

use std::collections::HashMap;

use super::search::{lift, note_matches};
use super::where_filter::WhereFilter;
use crate::api::SearchFilters;
use crate::catalog::NoteEntry;
use crate::fusion::Weights;
use crate::vectors::{FlatIndex, Key, VectorIndex};

/// The section of source-code note `note` to show, given the first query's lexical section hits
/// in it (`lex`: section order and BM25) and its vector `qv`, weighed by `w`; `None` when the
/// note holds no code sections or no candidate passes the filters (the caller keeps its choice).
pub(super) fn pick(
    note: &NoteEntry,
    lex: &[(u32, f32)],
    qv: Option<&[f32]>,
    vectors: Option<&FlatIndex>,
    w: Weights,
    filters: &SearchFilters,
    filter: Option<&WhereFilter>,
) -> Option<u32> {
    if note.sections.iter().all(|s| s.code.is_none()) || filter.is_some_and(|f| !f.allows(note)) {
        return None;
    }
    let cosine = |key: &Option<Key>| -> f32 {
        match (key, qv, vectors) {
            (Some(k), Some(q), Some(v)) => v.score(k, q).unwrap_or(0.0).max(0.0),
            _ => 0.0,
        }
    };
    // Each candidate as shown (lifted to the maximum depth, filtered): its best BM25 and cosine,
    // indexed by section order (a file may hold thousands of definitions).
    let mut cands: Vec<(u32, f32, f32)> = Vec::new();
    let mut at: HashMap<u32, usize> = HashMap::new();
    let mut add = |order: u32, bm25: f32, cos: f32| {
        let Some(sec) = note.section(order).and_then(|s| lift(note, s, filters.max_depth)) else { return };
        if !note_matches(note, sec, filters) {
            return;
        }
        let i = *at.entry(sec.order).or_insert_with(|| {
            cands.push((sec.order, 0.0, 0.0));
            cands.len() - 1
        });
        cands[i].1 = cands[i].1.max(bm25);
        cands[i].2 = cands[i].2.max(cos);
    };
    for s in note.sections.iter().filter(|s| s.embed_key.is_some()) {
        add(s.order, 0.0, cosine(&s.embed_key));
    }
    for &(order, bm25) in lex {
        add(order, bm25, 0.0);
    }
    let best_lex = cands.iter().map(|c| c.1).fold(0.0, f32::max);
    let best_cos = cands.iter().map(|c| c.2).fold(0.0, f32::max);
    // A side with no evidence in this file leaves the choice to the other.
    let w = match (best_lex > 0.0, best_cos > 0.0) {
        (false, _) => Weights { lex: 0.0, vec: 1.0 },
        (true, false) => Weights { lex: 1.0, vec: 0.0 },
        _ => w,
    };
    let part = |x: f32, best: f32| if best > 0.0 { x / best } else { 0.0 };
    let score = |c: &(u32, f32, f32)| w.lex * part(c.1, best_lex) + w.vec * part(c.2, best_cos);
    // Ties: the earlier section (the file before its definitions, a class before its methods).
    cands.iter().max_by(|a, b| score(a).total_cmp(&score(b)).then(b.0.cmp(&a.0))).map(|c| c.0)
}
