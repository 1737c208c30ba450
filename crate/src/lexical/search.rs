//! Query building (lenient tantivy syntax, CJK bigram spreading, field boosts, quoted phrases
//! as written, filters) and BM25 retrieval of section hits.

use std::collections::HashMap;
use tantivy::collector::TopDocs;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, Occur, PhraseQuery, Query, QueryParser,
    TermQuery,
};

use tantivy::columnar::{Column, StrColumn};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::snippet::SnippetGenerator;
use tantivy::Term;

use super::schema::tag_terms;
use super::Lexical;
use crate::analyzer::identifiers::{code_analyzer, literal_analyzer, CODE_TOKENIZER_NAME, PLACEHOLDER};
use crate::analyzer::{self, drop_stopwords, plain_syntax, query_parts, spread_query, QueryOp, TOKENIZER_NAME};
use crate::error::Result;
use crate::language::{self, Stem};
use crate::ranking::{
    BOOST_ALIASES, BOOST_BODY, BOOST_CODE, BOOST_HEADINGS, BOOST_LITERAL_PHRASE, BOOST_LITERAL_RUN, BOOST_SYMBOL,
    BOOST_TAGS, BOOST_TITLE, LITERAL_HOLE_PHRASE_MAX, LITERAL_HOLE_WORDS, LITERAL_PLAIN_RUN, QUERY_STOPWORDS,
    SECTION_MAX_DEPTH,
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
    /// The section's document (for [`Lexical::coverage`]).
    pub addr: tantivy::DocAddress,
}

pub struct LexResults {
    pub hits: Vec<LexHit>,
    pub query: Box<dyn Query>,
}

impl Lexical {
    /// The query of `text`: stemmed in each of `langs` ([`Self::analysed`]), and each quoted
    /// phrase's words also required as written ([`Self::written`]: a quoted "running" does not
    /// find "runs"). A phrase with none of the words a stemmer may change needs nothing more.
    fn user_query(&self, text: &str, langs: &[Lang], literals: bool) -> Box<dyn Query> {
        let schema = self.index.schema();
        // In a vault with code, `Type::method` and `module.function` are also their parts.
        let spread;
        let text = if literals {
            spread = analyzer::spread_identifier_paths(text);
            &spread
        } else {
            text
        };
        let message = reads_like_message(text);
        let text = &plain_syntax(text, |f| schema.get_field(f).is_ok());
        let parts = query_parts(text);
        let exact: Vec<Vec<String>> =
            parts.iter().map(|p| if p.phrase { analyzer::exact_terms(&p.text) } else { Vec::new() }).collect();
        // With code literals in the index: a quoted phrase may also be found in a literal, a
        // run of its words standing for an interpolated value; a free-text query that reads
        // like a pasted message lifts the sections whose literals share its word pairs.
        let in_literals: Vec<Option<Box<dyn Query>>> =
            parts.iter().map(|p| if literals && p.phrase { self.literal_phrase(&p.text) } else { None }).collect();
        let query = if in_literals.iter().all(Option::is_none) && exact.iter().all(Vec::is_empty) {
            self.analysed(text, langs)
        } else {
            self.with_exact(&parts, &exact, langs, &in_literals)
        };
        // Not for a query with required words (no pasted message), nor for one of quoted
        // phrases only (those must match as phrases). Its exclusions apply.
        if !literals || parts.iter().any(|p| p.op == QueryOp::Must) || parts.iter().all(|p| p.phrase) {
            return query;
        }
        let Some(pairs) = self.literal_runs(text, message) else { return query };
        let mut lifted: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, pairs)];
        for p in parts.iter().filter(|p| p.op == QueryOp::MustNot) {
            lifted.push((Occur::MustNot, self.analysed(&p.text, langs)));
        }
        Box::new(BooleanQuery::new(vec![(Occur::Should, query), (Occur::Should, Box::new(BooleanQuery::new(lifted)))]))
    }

    /// [`Self::user_query`] with its quoted phrases as clauses of their own: each phrase's
    /// words also required as written (`exact`), or its match in a literal (`in_literals`).
    fn with_exact(
        &self,
        parts: &[analyzer::QueryPart],
        exact: &[Vec<String>],
        langs: &[Lang],
        in_literals: &[Option<Box<dyn Query>>],
    ) -> Box<dyn Query> {
        // Each phrase with exact words is its own clause, the rest of the query another; the
        // operators (`+`, `-`) apply at the top level, as the query parser applies them.
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut rest: Vec<&str> = Vec::new();
        for (i, (part, exact)) in parts.iter().zip(exact).enumerate() {
            let occur = match part.op {
                QueryOp::Should => Occur::Should,
                QueryOp::Must => Occur::Must,
                QueryOp::MustNot => Occur::MustNot,
            };
            let in_literal = in_literals.get(i).and_then(|q| q.as_ref());
            if exact.is_empty() && part.op == QueryOp::Should && in_literal.is_none() {
                rest.push(&part.text);
                continue;
            }
            let analysed = self.analysed(&part.text, langs);
            let mut query: Box<dyn Query> = if exact.is_empty() {
                analysed
            } else {
                let mut all: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, analysed)];
                for t in exact {
                    all.push((Occur::Must, Box::new(ConstScoreQuery::new(self.written(t), 0.0))));
                }
                Box::new(BooleanQuery::new(all))
            };
            if let Some(lit) = in_literal {
                // The literals are not stemmed: a match there is as written already.
                query = Box::new(BooleanQuery::new(vec![(Occur::Should, query), (Occur::Should, lit.box_clone())]));
            }
            clauses.push((occur, query));
        }
        if !rest.is_empty() {
            clauses.push((Occur::Should, self.analysed(&rest.join(" "), langs)));
        }
        Box::new(BooleanQuery::new(clauses))
    }

    /// A quoted phrase in the code sections' string literals: as written, or with one run of
    /// up to [`LITERAL_HOLE_WORDS`] of its words standing for a placeholder (the value a
    /// message was printed with: `"invalid path: /etc/ssl/ca.pem here"` finds
    /// `f"invalid path: {loc} here"`). None for a phrase of fewer than two words.
    fn literal_phrase(&self, phrase: &str) -> Option<Box<dyn Query>> {
        let terms = literal_terms(phrase.trim_matches('"'));
        if terms.len() < 2 {
            return None;
        }
        let field = self.fields.literal;
        let term = |t: &str| Term::from_field_text(field, t);
        let hole = term(&PLACEHOLDER.to_string());
        let n = terms.len();
        let mut variants: Vec<Box<dyn Query>> =
            vec![Box::new(PhraseQuery::new(terms.iter().map(|t| term(t)).collect()))];
        // A longer phrase (a pasted paragraph) is matched as written only: its variants would
        // grow with the square of its length.
        let holes = if n <= LITERAL_HOLE_PHRASE_MAX { n } else { 0 };
        for i in 0..holes {
            for j in i..n.min(i + LITERAL_HOLE_WORDS) {
                if i == 0 && j == n - 1 {
                    continue;
                }
                let mut with_hole: Vec<(usize, Term)> =
                    terms[..i].iter().enumerate().map(|(k, t)| (k, term(t))).collect();
                with_hole.push((i, hole.clone()));
                with_hole.extend(terms[j + 1..].iter().enumerate().map(|(k, t)| (i + 1 + k, term(t))));
                variants.push(Box::new(PhraseQuery::new_with_offset(with_hole)));
            }
        }
        Some(Box::new(BoostQuery::new(Box::new(DisjunctionMaxQuery::new(variants)), BOOST_LITERAL_PHRASE)))
    }

    /// A free-text query's runs of words as phrases in the code sections' string literals,
    /// lifting the sections whose literals printed it. A query that reads like a pasted
    /// message (`message`: [`reads_like_message`], of the query as typed) lifts a section for
    /// each pair of its adjacent words (not both stop words) found together in a literal, a
    /// word with a digit also standing for a placeholder (the value it was printed with); a
    /// query of plain words needs a run of [`LITERAL_PLAIN_RUN`] words (a question shares pairs
    /// with literals by chance, five words in a row seldom). None for a query of fewer than
    /// three words.
    fn literal_runs(&self, text: &str, message: bool) -> Option<Box<dyn Query>> {
        let terms = literal_terms(text);
        if terms.len() < 3 {
            return None;
        }
        let field = self.fields.literal;
        let term = |t: &str| Term::from_field_text(field, t);
        let hole = PLACEHOLDER.to_string();
        let mut runs: Vec<Vec<&str>> = Vec::new();
        if message {
            let stop = |w: &str| w.chars().count() < 2 || QUERY_STOPWORDS.contains(&w);
            let value = |w: &str| w.chars().any(|c| c.is_ascii_digit());
            for w in terms.windows(2) {
                let (a, b) = (w[0].as_str(), w[1].as_str());
                if !(stop(a) && stop(b)) {
                    runs.push(vec![a, b]);
                }
                if value(b) && !value(a) && !stop(a) {
                    runs.push(vec![a, &hole]);
                }
                if value(a) && !value(b) && !stop(b) {
                    runs.push(vec![&hole, b]);
                }
            }
        } else {
            runs.extend(terms.windows(LITERAL_PLAIN_RUN).map(|w| w.iter().map(String::as_str).collect()));
        }
        runs.sort();
        runs.dedup();
        if runs.is_empty() {
            return None;
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = runs
            .into_iter()
            .map(|r| (Occur::Should, Box::new(PhraseQuery::new(r.into_iter().map(term).collect())) as Box<dyn Query>))
            .collect();
        Some(Box::new(BoostQuery::new(Box::new(BooleanQuery::new(clauses)), BOOST_LITERAL_RUN)))
    }

    /// Whether any committed code section has a string literal (see `Lexical::has_literals`).
    pub(super) fn count_literals(&self) -> bool {
        self.reader
            .searcher()
            .segment_readers()
            .iter()
            .any(|r| r.inverted_index(self.fields.literal).is_ok_and(|ii| ii.terms().num_terms() > 0))
    }

    /// Sections where the word `term` (an [`analyzer::exact_terms`] term) is written as it is:
    /// the exact-form field holds it where the section's stemmer changed it; where the stemmer
    /// left it alone, the stemmed fields hold it as it is (and so do the sections where another
    /// word has it as its stem: a quoted "note" also finds "notes", a quoted "notes" finds
    /// "notes" only).
    fn written(&self, term: &str) -> Box<dyn Query> {
        let f = &self.fields;
        let fields = [f.exact, f.title, f.aliases, f.headings, f.tags, f.body, f.code, f.symbol, f.literal];
        Box::new(any_term(fields.map(|field| (field, term))))
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
        let user: Box<dyn Query> = if q.text.trim().is_empty() {
            Box::new(AllQuery)
        } else {
            self.user_query(&q.text, &q.langs, self.has_literals)
        };
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
            hits.push(LexHit { score, path, order, addr });
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

/// Whether a query reads like a pasted message or log line rather than a question: it holds
/// punctuation that prose questions do not (`:`, double quotes, backticks, brackets, `=`, `<`,
/// `/`; not the apostrophes of "doesn't"), or a number (a word that starts with a digit: `42`,
/// `12.6`, not the `int8` or `sha256` of a question about code).
pub fn reads_like_message(text: &str) -> bool {
    text.chars().any(|c| ":\"`()[]{}=<>/\\".contains(c))
        || text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w.starts_with(|c: char| c.is_ascii_digit()))
}

/// The terms a literal's text has for `text` (the literal analyzer's), one a position: the
/// first (an identifier whole, where it also has parts).
fn literal_terms(text: &str) -> Vec<String> {
    let mut a = literal_analyzer();
    let mut stream = a.token_stream(text);
    let mut out: Vec<String> = Vec::new();
    let mut last = usize::MAX;
    while stream.advance() {
        let t = stream.token();
        if t.position != last {
            last = t.position;
            out.push(t.text.clone());
        }
    }
    out
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
