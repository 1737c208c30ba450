//! Search: the mode's dispatch, lexical search (BM25 section hits, lifted to a maximum depth,
//! overlapping hits of a note collapsed), hits, and their snippets from the notes' current text.

use std::collections::HashMap;

use super::read::matching_section;
use super::where_filter::WhereFilter;
use super::{parse_section_id, section_id, Engine, MAX_K};
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::clock::now_ms;
use crate::error::Result;
use crate::fusion;
use crate::hash::sha256_hex;
use crate::lexical::search::{LexQuery, SNIPPET_CHARS};
use crate::markdown;
use crate::paths;
use crate::ranking::{LEXICAL_POOL_EXTRA, LEXICAL_POOL_PER_HIT};
use crate::sections::Section;
use crate::snippet::{leading_snippet, make_snippet};
use tantivy::snippet::SnippetGenerator;

impl Engine {
    /// Searches in the requested mode. Hybrid (the default) needs a loaded model; without
    /// one the answer is lexical and says so (`semanticUnavailable`).
    pub fn search(&mut self, req: &SearchRequest) -> Result<SearchResponse> {
        let normalized = super::code_filter::normalize(req)?;
        let req = normalized.as_ref().unwrap_or(req);
        let mode = req.mode.unwrap_or_default();
        let filter = WhereFilter::compile(req.filters.as_ref())?;
        let filter = filter.as_ref();
        match mode {
            SearchMode::Lexical => self.search_lexical(req, filter),
            SearchMode::Semantic => self.search_fused(req, mode, filter),
            SearchMode::Hybrid => {
                if self.semantic.can_search() {
                    self.search_fused(req, mode, filter)
                } else {
                    let mut r = self.search_lexical(req, filter)?;
                    r.mode = SearchMode::Lexical;
                    r.notice = Some(crate::semantic::HOW_TO_ENABLE.to_string());
                    Ok(r)
                }
            }
        }
    }

    fn search_lexical(&self, req: &SearchRequest, filter: Option<&WhereFilter>) -> Result<SearchResponse> {
        let t0 = now_ms();
        let mode = SearchMode::Lexical;
        let k = req.k.unwrap_or(10).clamp(1, MAX_K);
        let filters = req.filters.clone().unwrap_or_default();
        let q = LexQuery {
            text: req.query.clone(),
            folder: filters.folder.clone(),
            tag: filters.tag.clone(),
            property: filters.property.as_ref().map(|p| (p.key.clone(), p.value.clone())),
            min_depth: filters.min_depth,
            // Deeper hits are lifted to their ancestor at the maximum depth instead.
            max_depth: None,
            code_langs: super::code_filter::values(filters.lang.as_deref()),
            kinds: super::code_filter::values(filters.kind.as_deref()),
            limit: k * LEXICAL_POOL_PER_HIT + LEXICAL_POOL_EXTRA,
            langs: self.query_languages(&req.query),
        };
        let results = self.lex_search_where(&q, filter)?;
        let mut kept: Vec<(f32, &NoteEntry, &Section)> = Vec::new();
        for h in &results.hits {
            let Some(note) = self.catalog.get(&h.path) else { continue };
            let Some(sec) = note.section(h.order) else { continue };
            let Some(sec) = lift(note, sec, filters.max_depth) else { continue };
            // Collapse overlapping hits of one note: a section whose ancestor or
            // descendant already ranks higher adds nothing new.
            let overlaps = kept.iter().any(|(_, n, s)| {
                n.path == note.path && (s.order == sec.order || is_ancestor(note, s, sec) || is_ancestor(note, sec, s))
            });
            if !overlaps {
                kept.push((h.score, note, sec));
            }
            if kept.len() >= k * 2 {
                break;
            }
        }
        match req.depth_order.unwrap_or_default() {
            DepthOrder::Relevance => {}
            DepthOrder::Shallow => kept.sort_by_key(|(_, _, s)| s.depth),
            DepthOrder::Deep => kept.sort_by_key(|(_, _, s)| std::cmp::Reverse(s.depth)),
        }
        kept.truncate(k);

        let max = kept.first().map(|k| k.0).unwrap_or(0.0).max(f32::EPSILON);
        let scored: Vec<(&NoteEntry, &Section, Scores)> = kept
            .iter()
            .map(|(score, note, sec)| {
                let sc = Scores {
                    final_score: *score,
                    lex_score: *score,
                    lex_norm: score / max,
                    vec_score: 0.0,
                    vec_norm: 0.0,
                    rrf_score: 0.0,
                    explain: format!("BM25 {score:.2}"),
                };
                (*note, *sec, sc)
            })
            .collect();
        let strong = fusion::strong_signal(&kept.iter().map(|k| k.0).collect::<Vec<_>>());
        let hits = self.make_hits(scored);
        Ok(SearchResponse {
            hits,
            mode,
            took_ms: now_ms() - t0,
            strong_signal: strong,
            weights: None,
            notice: None,
            semantic_coverage: None,
        })
    }

    /// Builds hits (snippets come from [`Engine::snippets`], with the notes' text).
    pub(super) fn make_hits(&self, scored: Vec<(&NoteEntry, &Section, Scores)>) -> Vec<Hit> {
        scored
            .into_iter()
            .map(|(note, sec, sc)| Hit {
                section_id: section_id(&note.path, sec.order),
                parent_id: sec.parent.map(|p| section_id(&note.path, p)),
                path: note.path.clone(),
                title: note.title.clone(),
                heading_path: sec.heading_path.clone(),
                depth: sec.depth,
                start_line: sec.start_line,
                end_line: sec.end_line,
                score: sc.final_score,
                lex_score: sc.lex_score,
                final_score: sc.final_score,
                lex_norm: sc.lex_norm,
                vec_score: sc.vec_score,
                vec_norm: sc.vec_norm,
                rrf_score: sc.rrf_score,
                explain: sc.explain,
                context: self.folder_context(&note.path),
                code: sec.code.as_deref().map(CodeInfo::of),
                weak: false,
                lang: note.lang.clone(),
            })
            .collect()
    }

    /// A snippet for each hit, in order, from the hit notes' current bytes (`texts`): the
    /// hit section's lines (without frontmatter) around the best-matching fragment, the
    /// terms of the search's query highlighted, or its first characters when no term is in
    /// it. A note edited since it was indexed gets the snippet of its section that stands for
    /// the hit in its current text (same heading path). None for a hit whose note is not
    /// in `texts` or not in the index.
    pub fn snippets(&self, req: &SnippetRequest) -> Result<Vec<Option<Snippet>>> {
        let query = snippet_query(&req.query, req.queries.as_deref());
        let generator = if query.trim().is_empty() {
            None
        } else {
            let q = self.lex.search(&LexQuery {
                text: query.to_string(),
                limit: 1,
                langs: self.query_languages(query),
                ..Default::default()
            })?;
            let code = req.hits.iter().any(|h| {
                parse_section_id(&h.section_id)
                    .and_then(|(p, o)| self.catalog.get(p)?.section(o))
                    .is_some_and(|s| s.code.is_some())
            });
            let code_generator = if code { Some(self.lex.snippet_generator(&*q.query, true)?) } else { None };
            Some((self.lex.snippet_generator(&*q.query, false)?, code_generator))
        };
        // path → the current text, and its sections when it is not the indexed version.
        let mut current: HashMap<&str, Option<(String, Option<NoteEntry>)>> = HashMap::new();
        let mut out = Vec::with_capacity(req.hits.len());
        for hit in &req.hits {
            out.push(self.hit_snippet(hit, &req.texts, &mut current, generator.as_ref()));
        }
        Ok(out)
    }

    fn hit_snippet<'r>(
        &self,
        hit: &'r SnippetHit,
        texts: &NoteTexts,
        current: &mut HashMap<&'r str, Option<(String, Option<NoteEntry>)>>,
        generators: Option<&(SnippetGenerator, Option<SnippetGenerator>)>,
    ) -> Option<Snippet> {
        let (path, order) = parse_section_id(&hit.section_id).filter(|(p, _)| *p == hit.path)?;
        let indexed = self.catalog.get(path)?;
        let hit_sec = indexed.section(order)?;
        if !current.contains_key(path) {
            let entry = texts.get(path).and_then(|b| b.as_ref()).map(|bytes| {
                let text = markdown::decode(bytes).text;
                let hash = sha256_hex(bytes);
                let fresh = (hash != indexed.hash).then(|| self.current_entry(path, &text, hash));
                (text, fresh)
            });
            current.insert(path, entry);
        }
        let (text, fresh) = current.get(path)?.as_ref()?;
        let (note, sec) = match fresh {
            None => (indexed, hit_sec),
            Some(f) => (f, matching_section(indexed, hit_sec, f).or(f.sections.first())?),
        };
        let body = markdown::slice_lines(text, body_start(note, sec), sec.end_line);
        // The body is tokenized as it was indexed: in its note's language, or as code.
        self.lex.set_text_language(crate::language::text_stem(&indexed.lang, body));
        let generator = generators.and_then(|(body, code)| if sec.code.is_some() { code.as_ref() } else { Some(body) });
        match generator.map(|g| g.snippet(body)) {
            Some(s) if !s.highlighted().is_empty() => Some(make_snippet(s.fragment(), s.highlighted())),
            _ => Some(leading_snippet(body, SNIPPET_CHARS)),
        }
    }
}

impl Engine {
    /// The languages a query is analysed in (see `language::query_languages`).
    pub(super) fn query_languages(&self, query: &str) -> Vec<whatlang::Lang> {
        crate::language::query_languages(query, self.catalog.languages())
    }
}

/// A hit's scores (see `Hit`).
pub(super) struct Scores {
    pub final_score: f32,
    pub lex_score: f32,
    pub lex_norm: f32,
    pub vec_score: f32,
    pub vec_norm: f32,
    pub rrf_score: f32,
    pub explain: String,
}

/// Applies search filters to a vector hit (the lexical side filters in tantivy).
pub(super) fn note_matches(note: &NoteEntry, sec: &Section, f: &SearchFilters) -> bool {
    if let Some(folder) = f.folder.as_deref().map(|s| s.trim_matches('/')).filter(|s| !s.is_empty()) {
        if !paths::in_folder(&note.path.to_lowercase(), &folder.to_lowercase()) {
            return false;
        }
    }
    if let Some(tag) = &f.tag {
        let want = tag.trim().trim_start_matches('#').to_lowercase();
        let ok = note.tags.iter().any(|t| {
            let t = t.to_lowercase();
            t == want || t.starts_with(&format!("{want}/"))
        });
        if !ok {
            return false;
        }
    }
    if let Some(p) = &f.property {
        let fm: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&note.frontmatter).unwrap_or_default();
        let want = format!("{}={}", p.key.trim().to_lowercase(), p.value.trim().to_lowercase());
        if !markdown::property_terms(&fm).contains(&want) {
            return false;
        }
    }
    if f.min_depth.is_some_and(|d| sec.depth < d) || f.max_depth.is_some_and(|d| sec.depth > d) {
        return false;
    }
    super::code_filter::section_passes(sec, f)
}

/// The section that stands for `sec` under a maximum depth: itself, or its ancestor at
/// that depth. None only for a broken section tree.
pub(super) fn lift<'a>(note: &'a NoteEntry, sec: &'a Section, max_depth: Option<u8>) -> Option<&'a Section> {
    let Some(max) = max_depth else { return Some(sec) };
    let mut cur = sec;
    while cur.depth > max {
        cur = note.section(cur.parent?)?;
    }
    Some(cur)
}

/// True when `a` is an ancestor of `b` in `note`'s section tree.
pub(super) fn is_ancestor(note: &NoteEntry, a: &Section, b: &Section) -> bool {
    let mut cur = b.parent;
    while let Some(p) = cur {
        if p == a.order {
            return true;
        }
        cur = note.section(p).and_then(|s| s.parent);
    }
    false
}

/// First line of a section's body for snippets (skips the frontmatter of depth 0).
pub(super) fn body_start(note: &NoteEntry, sec: &Section) -> u32 {
    // The first section of any depth can start at line 1, inside the frontmatter.
    sec.start_line.max(note.body_start_line).min(sec.end_line)
}

/// The query string whose terms snippets highlight: the query hybrid and semantic search
/// rank by first (the original, else the first expansion).
pub(super) fn snippet_query<'a>(query: &'a str, queries: Option<&'a [String]>) -> &'a str {
    if !query.trim().is_empty() {
        return query;
    }
    queries.into_iter().flatten().map(String::as_str).find(|q| !q.trim().is_empty()).unwrap_or("")
}
