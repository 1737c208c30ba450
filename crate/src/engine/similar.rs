//! Similar notes: the notes nearest to a note or a section by vector, with the sections
//! that match.

use super::search::is_ancestor;
use super::{parse_section_id, section_id, Engine, MAX_K};
use crate::api::*;
use crate::clock::now_ms;
use crate::error::{CoreError, Result};
use crate::paths;
use crate::ranking::{SIMILAR_POOL_EXTRA, SIMILAR_POOL_PER_NOTE, SIMILAR_SECTIONS};
use crate::vectors::{Key, VectorIndex};

impl Engine {
    /// Notes nearest to a note or a section, by vector, with the sections that match.
    pub fn similar(&mut self, req: &SimilarRequest) -> Result<SimilarResponse> {
        let t0 = now_ms();
        let k = req.k.unwrap_or(10).clamp(1, MAX_K);
        let (path, only) = match (&req.path, &req.section_id) {
            (_, Some(id)) => {
                let (p, o) =
                    parse_section_id(id).ok_or_else(|| CoreError::BadRequest(format!("not a section id: {id}")))?;
                (paths::normalize(p)?, Some(o))
            }
            (Some(p), None) => (paths::normalize(p)?, None),
            (None, None) => return Err(CoreError::BadRequest("similar needs a path or a section id".into())),
        };
        if self.catalog.get(&path).is_none() {
            return Err(CoreError::BadRequest(format!("not in the index: {path}")));
        }
        self.key_map(); // built once per catalog change, borrowed (not cloned) per query
        let map = self.key_map.as_ref().expect("built");
        let note = self.catalog.get(&path).expect("checked");
        let vectors =
            self.semantic.vectors().ok_or_else(|| CoreError::Unavailable(crate::semantic::HOW_TO_ENABLE.into()))?;
        // The source: the leaves of the note (or of the section), averaged.
        let leaves: Vec<Key> = note
            .sections
            .iter()
            .filter(|s| match only {
                None => true,
                Some(o) => s.order == o || is_ancestor(note, note.section(o).unwrap_or(s), s),
            })
            .filter_map(|s| s.embed_key)
            .collect();
        let mut sum: Vec<f32> = Vec::new();
        for key in &leaves {
            if let Some(v) = vectors.get(key) {
                if sum.is_empty() {
                    sum = vec![0.0; v.len()];
                }
                for (a, b) in sum.iter_mut().zip(&v) {
                    *a += b;
                }
            }
        }
        if sum.is_empty() {
            return Err(CoreError::Unavailable(format!(
                "{path} has no embedded sections yet; embedding is in progress or the model is missing"
            )));
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
        sum.iter_mut().for_each(|x| *x /= norm);
        // Only vectors of texts in this vault's notes (see `vector_hits`).
        let referenced = |k: &Key| map.contains_key(k);
        let raw = vectors
            .search(&sum, k * SIMILAR_POOL_PER_NOTE + SIMILAR_POOL_EXTRA, Some(&referenced))
            .map_err(|e| CoreError::Internal(format!("vector search: {e}")))?;
        let mut by_note: Vec<NearNote> = Vec::new();
        for (key, score) in raw {
            for (p, order) in map.get(&key).into_iter().flatten() {
                if *p == path {
                    continue;
                }
                // A lead vector ranks its note but is not one of the sections that match.
                let secs = match by_note.iter_mut().find(|n| n.path == *p) {
                    Some(n) => &mut n.sections,
                    None => {
                        by_note.push(NearNote { path: p.clone(), score, sections: Vec::new() });
                        &mut by_note.last_mut().expect("pushed").sections
                    }
                };
                if let Some(order) = order {
                    if secs.len() < SIMILAR_SECTIONS {
                        secs.push((*order, score));
                    }
                }
            }
            if by_note.len() >= k {
                break;
            }
        }
        by_note.truncate(k);
        let hits = by_note
            .into_iter()
            .filter_map(|NearNote { path: p, score, sections: secs }| {
                let n = self.catalog.get(&p)?;
                Some(SimilarHit {
                    path: p.clone(),
                    title: n.title.clone(),
                    score,
                    sections: secs
                        .into_iter()
                        .filter_map(|(o, s)| {
                            let sec = n.section(o)?;
                            Some(SimilarSection {
                                section_id: section_id(&p, o),
                                heading_path: sec.heading_path.clone(),
                                start_line: sec.start_line,
                                end_line: sec.end_line,
                                score: s,
                            })
                        })
                        .collect(),
                })
            })
            .collect();
        Ok(SimilarResponse { source: path, hits, took_ms: now_ms() - t0 })
    }
}

/// A note near the source: its best vector's score and its sections that match (section
/// order, score), best first.
struct NearNote {
    path: String,
    score: f32,
    sections: Vec<(u32, f32)>,
}
