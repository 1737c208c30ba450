//! Query building (lenient tantivy syntax, CJK bigram spreading, field boosts, quoted phrases
//! as written, filters) and BM25 retrieval of section hits.

use std::collections::HashMap;
use tantivy::collector::TopDocs;
use tantivy::query::{
    AllQuery, BooleanQuery, ConstScoreQuery, DisjunctionMaxQuery, Occur, Query, QueryParser, TermQuery,
};

use tantivy::columnar::{Column, StrColumn};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::snippet::SnippetGenerator;
use tantivy::Term;

use super::schema::tag_terms;
use super::Lexical;
use crate::analyzer::identifiers::{code_analyzer, CODE_TOKENIZER_NAME};
use crate::analyzer::{self, drop_stopwords, plain_syntax, query_parts, spread_query, QueryOp, TOKENIZER_NAME};
use crate::error::Result;
use crate::language::{self, Stem};
use crate::ranking::{
    BOOST_ALIASES, BOOST_BODY, BOOST_CODE, BOOST_HEADINGS, BOOST_SYMBOL, BOOST_TAGS, BOOST_TITLE, SECTION_MAX_DEPTH,
};
use tantivy::tokenizer::TokenizerManager;
use whatlang::Lang;

/// Characters in a snippet fragment.
pub const SNIPPET_CHARS: usize = 180;

#[derive(Debug, Default, Clone)]
pub struct LexQuery {
    pub text: String,
    pub folder: Option<String>,
    pub tag: Option<String>,
    pub property: Option<(String, String)>,
    pub min_depth: Option<u8>,
    pub max_depth: Option<u8>,
    /// Code languages and kinds ("python", "function"): any of them.
    pub code_langs: Vec<String>,
    pub kinds: Vec<String>,
    pub limit: usize,
    /// The languages the text is analysed in (empty: English), see `language::query_languages`.
    pub langs: Vec<Lang>,
}

#[derive(Debug, Clone)]
pub struct LexHit {
    pub score: f32,
    pub path: String,
    pub order: u32,
}

pub struct LexResults {
    pub hits: Vec<LexHit>,
    pub query: Box<dyn Query>,
}

impl Lexical {
    /// The query of `text`: stemmed in each of `langs` ([`Self::analysed`]), and each quoted
    /// phrase's words also required as written ([`Self::written`]: a quoted "running" does not
    /// find "runs"). A phrase with none of the words a stemmer may change needs nothing more.
    fn user_query(&self, text: &str, langs: &[Lang]) -> Box<dyn Query> {
        let schema = self.index.schema();
        let text = &plain_syntax(text, |f| schema.get_field(f).is_ok());
        let parts = query_parts(text);
        let exact: Vec<Vec<String>> =
            parts.iter().map(|p| if p.phrase { analyzer::exact_terms(&p.text) } else { Vec::new() }).collect();
        if exact.iter().all(Vec::is_empty) {
            return self.analysed(text, langs);
        }
        // Each phrase with exact words is its own clause, the rest of the query another; the
        // operators (`+`, `-`) apply at the top level, as the query parser applies them.
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut rest: Vec<&str> = Vec::new();
        for (part, exact) in parts.iter().zip(&exact) {
            let occur = match part.op {
                QueryOp::Should => Occur::Should,
                QueryOp::Must => Occur::Must,
                QueryOp::MustNot => Occur::MustNot,
            };
            if exact.is_empty() && part.op == QueryOp::Should {
                rest.push(&part.text);
                continue;
            }
            let analysed = self.analysed(&part.text, langs);
            if exact.is_empty() {
                clauses.push((occur, analysed));
                continue;
            }
            let mut all: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, analysed)];
            for t in exact {
                all.push((Occur::Must, Box::new(ConstScoreQuery::new(self.written(t), 0.0))));
            }
            clauses.push((occur, Box::new(BooleanQuery::new(all))));
        }
        if !rest.is_empty() {
            clauses.push((Occur::Should, self.analysed(&rest.join(" "), langs)));
        }
        Box::new(BooleanQuery::new(clauses))
    }

    /// Sections where the word `term` (an [`analyzer::exact_terms`] term) is written as it is:
    /// the exact-form field holds it where the section's stemmer changed it; where the stemmer
    /// left it alone, the stemmed fields hold it as it is (and so do the sections where another
    /// word has it as its stem: a quoted "note" also finds "notes", a quoted "notes" finds
    /// "notes" only).
    fn written(&self, term: &str) -> Box<dyn Query> {
        let f = &self.fields;
        Box::new(any_term([f.exact, f.title, f.aliases, f.headings, f.tags, f.body].map(|field| (field, term))))
    }

    /// The query of `text` analysed in each of `langs` (its stop words dropped, stemmed; one
    /// analysis per distinct result), the best-scoring analysis counting for each section (a
    /// disjunction-max: a word whose stem is the same in two languages is not counted twice).
    fn analysed(&self, text: &str, langs: &[Lang]) -> Box<dyn Query> {
        let langs = if langs.is_empty() { &[Lang::Eng][..] } else { langs };
        let mut seen: Vec<Vec<String>> = Vec::new();
        let mut parsed: Vec<Box<dyn Query>> = Vec::new();
        for &lang in langs {
            let stem = language::stem_of(lang);
            let text = spread_query(&drop_stopwords(text, language::stop_words(lang)));
            let analysed = analyzer::terms(&text, stem);
            if seen.contains(&analysed) {
                continue;
            }
            seen.push(analysed);
            parsed.push(self.parse_in(&text, stem));
        }
        if parsed.len() == 1 {
            parsed.pop().expect("one")
        } else {
            Box::new(DisjunctionMaxQuery::new(parsed))
        }
    }

    fn parse_in(&self, text: &str, stem: Stem) -> Box<dyn Query> {
        let f = &self.fields;
        let tokenizers = TokenizerManager::new();
        tokenizers.register(TOKENIZER_NAME, analyzer::analyzer_for(stem));
        tokenizers.register(CODE_TOKENIZER_NAME, code_analyzer());
        let fields = vec![f.title, f.aliases, f.headings, f.tags, f.body, f.code, f.symbol];
        let mut parser = QueryParser::new(self.index.schema(), fields, tokenizers);
        parser.set_field_boost(f.title, BOOST_TITLE);
        parser.set_field_boost(f.aliases, BOOST_ALIASES);
        parser.set_field_boost(f.headings, BOOST_HEADINGS);
        parser.set_field_boost(f.tags, BOOST_TAGS);
        parser.set_field_boost(f.body, BOOST_BODY);
        parser.set_field_boost(f.code, BOOST_CODE);
        parser.set_field_boost(f.symbol, BOOST_SYMBOL);
        // Lenient: a stray quote or bracket never errors, it degrades to plain terms.
        let (query, _errors) = parser.parse_query_lenient(text);
        query
    }

    fn filter_query(&self, q: &LexQuery) -> Vec<(Occur, Box<dyn Query>)> {
        let f = &self.fields;
        let term = |field, text: &str| -> Box<dyn Query> {
            Box::new(ConstScoreQuery::new(
                Box::new(TermQuery::new(Term::from_field_text(field, text), IndexRecordOption::Basic)),
                0.0,
            ))
        };
        let mut out = Vec::new();
        if let Some(folder) = q.folder.as_deref().map(|s| s.trim_matches('/')).filter(|s| !s.is_empty()) {
            out.push((Occur::Must, term(f.folder, &folder.to_lowercase())));
        }
        if let Some(tag) = q.tag.as_deref() {
            if let Some(t) = tag_terms(tag).pop() {
                out.push((Occur::Must, term(f.tag, &t)));
            }
        }
        if let Some((k, v)) = &q.property {
            let t = format!("{}={}", k.trim().to_lowercase(), v.trim().to_lowercase());
            out.push((Occur::Must, term(f.prop, &t)));
        }
        let any_of = |field, values: &[String]| -> Box<dyn Query> {
            Box::new(ConstScoreQuery::new(Box::new(any_term(values.iter().map(|v| (field, v.as_str())))), 0.0))
        };
        if !q.code_langs.is_empty() {
            out.push((Occur::Must, any_of(f.code_lang, &q.code_langs)));
        }
        if !q.kinds.is_empty() {
            out.push((Occur::Must, any_of(f.kind, &q.kinds)));
        }
        let lo = q.min_depth.unwrap_or(0);
        let hi = q.max_depth.unwrap_or(SECTION_MAX_DEPTH);
        if lo > 0 || hi < SECTION_MAX_DEPTH {
            let depths: Vec<(Occur, Box<dyn Query>)> = (lo..=hi)
                .map(|d| {
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(Term::from_field_u64(f.depth, d as u64), IndexRecordOption::Basic))
                            as Box<dyn Query>,
                    )
                })
                .collect();
            out.push((Occur::Must, Box::new(ConstScoreQuery::new(Box::new(BooleanQuery::new(depths)), 0.0))));
        }
        out
    }

    pub fn search(&self, q: &LexQuery) -> Result<LexResults> {
        let user: Box<dyn Query> =
            if q.text.trim().is_empty() { Box::new(AllQuery) } else { self.user_query(&q.text, &q.langs) };
        let filters = self.filter_query(q);
        let query: Box<dyn Query> = if filters.is_empty() {
            user.box_clone()
        } else {
            let mut clauses = vec![(Occur::Must, user.box_clone())];
            clauses.extend(filters);
            Box::new(BooleanQuery::new(clauses))
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&*query, &TopDocs::with_limit(q.limit.max(1)).order_by_score())?;
        // Path and section order come from fast-field columns: no docstore block is
        // decompressed to list hits.
        let mut columns: HashMap<u32, (Option<StrColumn>, Column<u64>)> = HashMap::new();
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            if let std::collections::hash_map::Entry::Vacant(v) = columns.entry(addr.segment_ord) {
                let ff = searcher.segment_reader(addr.segment_ord).fast_fields();
                v.insert((ff.str("path")?, ff.u64("order")?));
            }
            let (paths, orders) = &columns[&addr.segment_ord];
            let mut path = String::new();
            if let Some(ord) = paths.as_ref().and_then(|c| c.term_ords(addr.doc_id).next()) {
                paths.as_ref().expect("column").ord_to_str(ord, &mut path)?;
            }
            let order = orders.first(addr.doc_id).unwrap_or(0) as u32;
            hits.push(LexHit { score, path, order });
        }
        Ok(LexResults { hits, query: user })
    }

    /// A snippet generator of `query` for the body field, or with `code` for code sections'
    /// text (analysed by the code analyzer).
    pub fn snippet_generator(&self, query: &dyn Query, code: bool) -> Result<SnippetGenerator> {
        let searcher = self.reader.searcher();
        let field = if code { self.fields.code } else { self.fields.body };
        let mut g = SnippetGenerator::create(&searcher, query, field)?;
        g.set_max_num_chars(SNIPPET_CHARS);
        Ok(g)
    }
}

/// Documents holding any of `terms` (a field and a term's text each).
fn any_term<'a>(terms: impl IntoIterator<Item = (Field, &'a str)>) -> BooleanQuery {
    let any: Vec<(Occur, Box<dyn Query>)> = terms
        .into_iter()
        .map(|(field, text)| {
            let q = TermQuery::new(Term::from_field_text(field, text), IndexRecordOption::Basic);
            (Occur::Should, Box::new(q) as Box<dyn Query>)
        })
        .collect();
    BooleanQuery::new(any)
}
