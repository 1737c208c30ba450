//! Hybrid and semantic search: vector hits per note (its lead and its best section), fused
//! with the lexical hits per note (RRF or linear, weighted by the query's shape), over one
//! query or several (expansions).

use std::collections::{HashMap, HashSet};

use super::search::{lift, note_matches, Scores};
use super::where_filter::WhereFilter;
use super::{Engine, KeyMap, MAX_K};
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::clock::now_ms;
use crate::error::{CoreError, Result};
use crate::fusion::{self, Evidence, NoteEvidence};
use crate::lexical::search::LexQuery;
use crate::ranking::{
    FUSION_POOL_EXTRA, FUSION_POOL_MAX, FUSION_POOL_MIN, FUSION_POOL_PER_HIT, LEAD_WEIGHT, MAX_QUERIES, OVERLAP_TOP,
    QUERY_WEIGHT_EXPANSION, QUERY_WEIGHT_ORIGINAL, VECTOR_POOL_EXTRA, VECTOR_POOL_PER_NOTE,
};
use crate::sections::Section;
use crate::vectors::{Key, VectorIndex};

// A note's fused score is its best section's, with no bonus for further matching sections
// (docs/ranking.md says what was tried).

impl Engine {
    pub(super) fn key_map(&mut self) -> &KeyMap {
        if self.key_map.is_none() {
            let mut m: HashMap<Key, Vec<(String, Option<u32>)>> = HashMap::new();
            for n in self.catalog.entries() {
                for (order, k) in n.vector_keys() {
                    m.entry(k).or_default().push((n.path.clone(), order));
                }
            }
            self.key_map = Some(m);
        }
        self.key_map.as_ref().expect("built")
    }

    /// Vector hits per note as (path, section order, score), best first, filtered, `limit`
    /// long at most. A note's score is `LEAD_WEIGHT` × its lead's cosine + the rest × its
    /// best section's (the one shown); either alone when the note has only that one embedded
    /// or passing the filters. The scan's candidates name the notes; a component they leave
    /// out is scored from the stored vector.
    fn vector_hits(
        &mut self,
        query: &str,
        filters: &SearchFilters,
        filter: Option<&WhereFilter>,
        limit: usize,
    ) -> Result<Vec<VecHit>> {
        let qv = self.semantic.query_vector(query)?;
        self.key_map(); // built once per catalog change, borrowed (not cloned) per query
        let map = self.key_map.as_ref().expect("built");
        let Some(vectors) = self.semantic.vectors() else { return Ok(Vec::new()) };
        // Only vectors of texts in this vault's notes: the shared vectors also hold texts edited
        // away (and texts of notes still syncing in), which must not fill the pool.
        let referenced = |k: &Key| map.contains_key(k);
        let raw: Vec<(Key, f32)> = vectors
            .search(&qv, limit * VECTOR_POOL_PER_NOTE + VECTOR_POOL_EXTRA, Some(&referenced))
            .map_err(|e| CoreError::Internal(format!("vector search: {e}")))?;
        // A leaf's section as a hit: lifted for overview searches, filtered.
        let shown = |note: &'_ NoteEntry, order: u32| -> Option<u32> {
            let sec = lift(note, note.section(order)?, filters.max_depth)?;
            (note_matches(note, sec, filters) && filter.is_none_or(|w| w.allows(note))).then_some(sec.order)
        };
        // Each note the scan met, in the order it met them.
        let mut found: Vec<NoteCosines> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (key, score) in &raw {
            for (path, order) in map.get(key).into_iter().flatten() {
                let Some(note) = self.catalog.get(path) else { continue };
                let i = *index.entry(path.as_str()).or_insert_with(|| {
                    found.push(NoteCosines { path: path.as_str(), best: None, lead: None });
                    found.len() - 1
                });
                let e = &mut found[i];
                match order {
                    None => e.lead = Some(e.lead.map_or(*score, |s| s.max(*score))),
                    Some(o) => {
                        if e.best.is_none_or(|(_, s)| *score > s) {
                            if let Some(shown) = shown(note, *o) {
                                e.best = Some((shown, *score));
                            }
                        }
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(found.len());
        for NoteCosines { path, mut best, mut lead } in found {
            let Some(note) = self.catalog.get(path) else { continue };
            if lead.is_none() {
                lead = note.lead_key.and_then(|k| vectors.score(&k, &qv));
            }
            if best.is_none() {
                for s in note.sections.iter().filter(|s| s.embed_key.is_some()) {
                    let Some(score) = vectors.score(&s.embed_key.expect("a leaf"), &qv) else { continue };
                    if best.is_none_or(|(_, b)| score > b) {
                        if let Some(shown) = shown(note, s.order) {
                            best = Some((shown, score));
                        }
                    }
                }
            }
            let (order, score) = match (best, lead) {
                (Some((o, b)), Some(l)) => (o, (1.0 - LEAD_WEIGHT) * b + LEAD_WEIGHT * l),
                (Some((o, b)), None) => (o, b),
                // Only the lead: the whole note, if it passes the filters.
                (None, Some(l)) => match shown(note, 0) {
                    Some(o) => (o, l),
                    None => continue,
                },
                (None, None) => continue,
            };
            out.push(VecHit { path: path.to_string(), order, score, section: best.map(|b| b.1), lead });
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
        out.truncate(limit);
        Ok(out)
    }

    /// Hybrid and semantic search: rankings fused per note (RRF by default), one hit per
    /// note (its best section), several query strings fused by RRF (original × 2).
    pub(super) fn search_fused(
        &mut self,
        req: &SearchRequest,
        mode: SearchMode,
        filter: Option<&WhereFilter>,
    ) -> Result<SearchResponse> {
        let t0 = now_ms();
        if !self.semantic.can_search() {
            return Err(CoreError::Unavailable(crate::semantic::HOW_TO_ENABLE.into()));
        }
        let k = req.k.unwrap_or(10).clamp(1, MAX_K);
        let filters = req.filters.clone().unwrap_or_default();
        let mut queries: Vec<(String, f32)> = Vec::new();
        if !req.query.trim().is_empty() {
            queries.push((req.query.clone(), QUERY_WEIGHT_ORIGINAL));
        }
        for q in req.queries.iter().flatten().take(MAX_QUERIES) {
            if !q.trim().is_empty() && !queries.iter().any(|(x, _)| x == q) {
                let w = if queries.is_empty() { QUERY_WEIGHT_ORIGINAL } else { QUERY_WEIGHT_EXPANSION };
                queries.push((q.clone(), w));
            }
        }
        if queries.is_empty() {
            return Err(CoreError::BadRequest("an empty query needs mode \"lexical\" (filters only)".into()));
        }
        let method = req.fusion.unwrap_or_default();
        let depth = req.filters.as_ref().map(|f| (f.min_depth, f.max_depth)).unwrap_or((None, None));
        // Candidates per list: the same for every k up to FUSION_POOL_MIN's worth, so the first
        // results do not depend on how many were asked for (the plugin asks 30, the bridge 10).
        let pool = (k * FUSION_POOL_PER_HIT + FUSION_POOL_EXTRA).clamp(FUSION_POOL_MIN, FUSION_POOL_MAX);

        // note path → per-note evidence, accumulated over queries.
        let mut notes: HashMap<String, NoteEvidence> = HashMap::new();
        let mut per_query: Vec<HashMap<String, f32>> = Vec::new();
        let mut strong = false;
        let mut weights_used = None;
        // The query's background similarity, for weaker matches (`fusion::is_weak`).
        let mut background = None;
        // The first query's lexical section hits per note and its vector, for the definition a
        // source file's hit shows (`code_pick`).
        let mut first_lex: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        let mut first_qv: Option<Vec<f32>> = None;
        // The first query's best lexical section per note, for how much of the query it holds.
        let mut first_addr: HashMap<String, tantivy::DocAddress> = HashMap::new();
        let mut first_langs = Vec::new();
        let message = crate::lexical::search::reads_like_message(&req.query);
        for (qi, (q, _)) in queries.iter().enumerate() {
            let lex: Vec<SectionScore> = if mode == SearchMode::Hybrid {
                let langs = self.query_languages(q);
                if qi == 0 {
                    first_langs = langs.clone();
                }
                let r = self.lex_search_where(
                    &LexQuery {
                        text: q.clone(),
                        folder: filters.folder.clone(),
                        tag: filters.tag.clone(),
                        property: filters.property.as_ref().map(|p| (p.key.clone(), p.value.clone())),
                        min_depth: depth.0,
                        max_depth: None,
                        code_langs: super::code_filter::values(filters.lang.as_deref()),
                        kinds: super::code_filter::values(filters.kind.as_deref()),
                        limit: pool,
                        langs,
                    },
                    filter,
                )?;
                r.hits
                    .into_iter()
                    .filter_map(|h| {
                        let note = self.catalog.get(&h.path)?;
                        let order = lift(note, note.section(h.order)?, depth.1)?.order;
                        Some(SectionScore { path: h.path, order, score: h.score, addr: h.addr })
                    })
                    .collect()
            } else {
                Vec::new()
            };
            // Vector hits are one per note already.
            let vec_notes = self.vector_hits(q, &filters, filter, pool)?;
            let lex_notes = best_per_note(&lex);
            if qi == 0 {
                for h in &lex {
                    first_lex.entry(h.path.clone()).or_default().push((h.order, h.score));
                }
                first_addr = lex_notes.iter().map(|h| (h.path.clone(), h.addr)).collect();
                // The vector `vector_hits` just made (the semantic space caches the last query's).
                first_qv = self.semantic.query_vector(q).ok();
                background = fusion::background(&vec_notes.iter().map(|h| h.score).collect::<Vec<_>>());
                strong = fusion::strong_signal(&lex_notes.iter().map(|x| x.score).collect::<Vec<_>>());
            }
            let lex_keys: Vec<String> = lex_notes.iter().map(|x| x.path.clone()).collect();
            let vec_keys: Vec<String> = vec_notes.iter().map(|h| h.path.clone()).collect();
            let (w, why) = if mode == SearchMode::Semantic {
                (fusion::Weights { lex: 0.0, vec: 1.0 }, "semantic only")
            } else {
                let ov = fusion::overlap(&lex_keys, &vec_keys, OVERLAP_TOP);
                let multilingual = self.semantic.serving_spec().is_some_and(|s| s.multilingual);
                fusion::dynamic_weights(q, &lex_notes.iter().map(|x| x.score).collect::<Vec<_>>(), ov, multilingual)
            };
            if qi == 0 {
                weights_used = Some(FusionWeights { lex: w.lex, vec: w.vec, reason: why.to_string(), method });
            }
            let fused: HashMap<String, f32> = match method {
                fusion::FusionMethod::Rrf => {
                    let mut fused = fusion::rrf_trusted(&[(w.lex, &lex_keys[..]), (w.vec, &vec_keys[..])]);
                    // A list whose first hit stands out keeps it first (each list calibrated on its
                    // own scale: BM25 against its first, cosines above the query's background).
                    let lex_scores: Vec<f32> = lex_notes.iter().map(|x| x.score).collect();
                    let vec_scores: Vec<f32> = vec_notes.iter().map(|h| h.score).collect();
                    let firsts: Vec<(f32, String)> = [
                        fusion::lex_second_share(&lex_scores).zip(lex_keys.first()),
                        fusion::vec_second_share(&vec_scores, fusion::background(&vec_scores)).zip(vec_keys.first()),
                    ]
                    .into_iter()
                    .flatten()
                    .map(|(share, key)| (share, key.clone()))
                    .collect();
                    fusion::keep_confident_first(&mut fused, &firsts);
                    fused
                }
                fusion::FusionMethod::Linear => fusion::linear(
                    &lex_notes.iter().map(|x| (x.path.clone(), x.score)).collect::<Vec<_>>(),
                    &vec_notes.iter().map(|h| (h.path.clone(), h.score)).collect::<Vec<_>>(),
                    w,
                ),
            };
            let lex_max = lex_notes.first().map(|x| x.score).unwrap_or(0.0).max(f32::EPSILON);
            let vec_max = vec_notes.first().map(|h| h.score).unwrap_or(0.0).max(f32::EPSILON);
            for (rank, h) in lex_notes.iter().enumerate() {
                let e = notes.entry(h.path.clone()).or_default();
                if qi == 0 || e.lex.is_none() {
                    e.lex = Some(Evidence { rank, order: h.order, score: h.score, norm: h.score / lex_max });
                }
            }
            for (rank, h) in vec_notes.iter().enumerate() {
                let e = notes.entry(h.path.clone()).or_default();
                if qi == 0 || e.vec.is_none() {
                    e.vec = Some(Evidence { rank, order: h.order, score: h.score, norm: h.score / vec_max });
                    e.vec_section = h.section;
                    e.vec_lead = h.lead;
                }
            }
            if qi == 0 {
                for e in notes.values_mut() {
                    e.weights = w;
                }
            }
            per_query.push(fused);
        }

        // Across queries: RRF of each query's fused ranking (original weighted 2).
        let final_scores: HashMap<String, f32> = if per_query.len() == 1 {
            per_query.pop().expect("one")
        } else {
            let ranked: Vec<Vec<String>> = per_query
                .iter()
                .map(|m| {
                    let mut v: Vec<(&String, &f32)> = m.iter().collect();
                    v.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
                    v.into_iter().map(|(p, _)| p.clone()).collect()
                })
                .collect();
            let lists: Vec<(f32, &[String])> = ranked.iter().zip(&queries).map(|(r, (_, w))| (*w, &r[..])).collect();
            fusion::rrf(&lists)
        };
        let mut ranked: Vec<(String, f32)> = final_scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(k);
        // Weaker matches after the matches, each group in rank order. In hybrid mode only: in
        // semantic mode every note is found by the vector side alone, and the margins would cut
        // answers of a model weak in the vault's language (measured: de with all-MiniLM-L6-v2
        // R@10 .689 → .556; hybrid lost none).
        let margins = match mode {
            SearchMode::Hybrid => self.semantic.serving_spec().and_then(|s| fusion::weak_margins(&s.model_id)),
            _ => None,
        };
        // The lexical side's evidence: how much of the query each note's best section holds (a
        // query of exact terms or a pasted message is matched as written: any hit holds it).
        let as_written = fusion::is_exact_query(&req.query) || message;
        if margins.is_some() && !req.query.trim().is_empty() {
            let with: Vec<(&String, tantivy::DocAddress)> = ranked
                .iter()
                .filter(|(p, _)| notes[p].lex.is_some())
                .filter_map(|(p, _)| Some((p, *first_addr.get(p)?)))
                .collect();
            let shares = if as_written {
                vec![1.0; with.len()]
            } else {
                let addrs: Vec<tantivy::DocAddress> = with.iter().map(|(_, a)| *a).collect();
                self.lex.coverage(&req.query, &first_langs, &addrs)?
            };
            for ((path, _), share) in with.into_iter().zip(shares) {
                if let Some(e) = notes.get_mut(path) {
                    e.cover = Some(share);
                }
            }
        }
        // A note the lexical side found through an expansion only is held to its vector score.
        let weak = |path: &String| {
            let e = &notes[path];
            let cover = e.lex.map(|_| e.cover.unwrap_or(if first_addr.contains_key(path) { 1.0 } else { 0.0 }));
            fusion::is_weak(cover, e.vec.map(|v| v.score), background, margins)
        };
        ranked.sort_by_key(|(p, _)| weak(p));

        let coverage = self.semantic.coverage(&self.catalog);
        let mut scored: Vec<(&NoteEntry, &Section, Scores)> = Vec::new();
        for (path, final_score) in &ranked {
            let Some(note) = self.catalog.get(path) else { continue };
            let e = &notes[path];
            // The section shown: in source code, the definition both lists' evidence points to;
            // elsewhere, that of the list that ranked the note better.
            let lex_here = first_lex.get(path).map_or(&[][..], Vec::as_slice);
            let vectors = self.semantic.vectors();
            let w = if message {
                fusion::Weights { lex: 1.0, vec: 0.0 }
            } else {
                weights_used.as_ref().map_or(e.weights, |w| fusion::Weights { lex: w.lex, vec: w.vec })
            };
            let code = super::code_pick::pick(note, lex_here, first_qv.as_deref(), vectors, w, &filters, filter);
            let Some(sec) = note.section(code.unwrap_or_else(|| e.shown_order())) else { continue };
            let reason = weights_used.as_ref().map(|w| w.reason.as_str()).unwrap_or("");
            scored.push((
                note,
                sec,
                Scores {
                    final_score: *final_score,
                    lex_score: e.lex.map(|l| l.score).unwrap_or(0.0),
                    lex_norm: e.lex.map(|l| l.norm).unwrap_or(0.0),
                    vec_score: e.vec.map(|v| v.score).unwrap_or(0.0),
                    vec_norm: e.vec.map(|v| v.norm).unwrap_or(0.0),
                    rrf_score: *final_score,
                    explain: e.explain(method, reason, background),
                },
            ));
        }
        let mut hits = self.make_hits(scored);
        for h in &mut hits {
            h.weak = weak(&h.path);
        }
        Ok(SearchResponse {
            hits,
            mode,
            took_ms: now_ms() - t0,
            strong_signal: strong,
            weights: weights_used,
            notice: (coverage < 1.0).then(|| {
                format!("semantic results cover {:.0}% of the vault so far; embedding continues", coverage * 100.0)
            }),
            semantic_coverage: Some(coverage),
        })
    }
}

/// The cosines the scan found for a note: its best section's (the section shown, lifted and
/// filtered, and the cosine) and its lead's.
struct NoteCosines<'a> {
    path: &'a str,
    best: Option<(u32, f32)>,
    lead: Option<f32>,
}

/// A note's vector evidence (`Engine::vector_hits`).
struct VecHit {
    path: String,
    /// The section shown: the best-matching one (lifted and filtered), else the whole note.
    order: u32,
    /// `LEAD_WEIGHT` × lead + the rest × section, or the one of them there is.
    score: f32,
    section: Option<f32>,
    lead: Option<f32>,
}

/// A lexical hit: a note's section (lifted to the maximum depth) and its BM25 score.
#[derive(Clone)]
struct SectionScore {
    path: String,
    order: u32,
    score: f32,
    addr: tantivy::DocAddress,
}

/// One entry per note in rank order: its best section and score.
fn best_per_note(list: &[SectionScore]) -> Vec<SectionScore> {
    let mut seen: HashSet<&str> = HashSet::new();
    list.iter().filter(|h| seen.insert(h.path.as_str())).cloned().collect()
}
