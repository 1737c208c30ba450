//! How much of a query a section holds: the share of the query's information (the BM25 idf of
//! its terms) found in the section's text. A section that matched only a query's common words
//! ("step", "change", a frequent CJK pair) holds little of it, one that matched its rare words
//! holds most of it; a term no section has (a word from outside the vault) counts in full
//! against every section. It is the lexical side's evidence of a weaker match
//! (`fusion::is_weak`).

use std::collections::HashMap;

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocSet, Term};
use whatlang::Lang;

use super::Lexical;
use crate::analyzer::identifiers::code_analyzer;
use crate::analyzer::{self, drop_stopwords, query_parts, spread_query, QueryOp};
use crate::error::Result;
use crate::language;

impl Lexical {
    /// For each of `docs` (sections a search of `text` found), the share of `text`'s
    /// information it holds, in [0, 1]: the best over the analyses of `text` in each of `langs`
    /// (the text fields) and by the code analyzer (the code fields). Excluded words (`-word`)
    /// are not counted; a text with no term gives 1 (nothing to miss).
    pub fn coverage(&self, text: &str, langs: &[Lang], docs: &[DocAddress]) -> Result<Vec<f32>> {
        let words: Vec<String> =
            query_parts(text).into_iter().filter(|p| p.op != QueryOp::MustNot).map(|p| p.text).collect();
        let text = words.join(" ");
        let f = &self.fields;
        let langs = if langs.is_empty() { &[Lang::Eng][..] } else { langs };
        let mut analyses: Vec<(Vec<String>, &[Field])> = Vec::new();
        let text_fields = [f.title, f.aliases, f.headings, f.tags, f.body];
        for &lang in langs {
            let spread = spread_query(&drop_stopwords(&text, language::stop_words(lang)));
            analyses.push((analyzer::terms(&spread, language::stem_of(lang)), &text_fields));
        }
        // In a vault of notes only the code fields hold nothing: that analysis holds nothing.
        let code_fields = [f.code, f.symbol];
        let mut a = code_analyzer();
        let mut stream = a.token_stream(&text);
        let mut code_terms = Vec::new();
        while stream.advance() {
            code_terms.push(stream.token().text.clone());
        }
        analyses.push((code_terms, &code_fields));
        let searcher = self.reader.searcher();
        let n = searcher.num_docs() as f32;
        // The sections of each segment in document order, checked against each term's postings once.
        let mut by_segment: HashMap<u32, Vec<(u32, usize)>> = HashMap::new();
        for (i, d) in docs.iter().enumerate() {
            by_segment.entry(d.segment_ord).or_default().push((d.doc_id, i));
        }
        by_segment.values_mut().for_each(|ids| ids.sort_unstable());
        let mut best = vec![0.0f32; docs.len()];
        let mut seen: Vec<Vec<String>> = Vec::new();
        for (mut terms, fields) in analyses {
            terms.sort();
            terms.dedup();
            if terms.is_empty() {
                best.iter_mut().for_each(|b| *b = 1.0);
                continue;
            }
            if seen.contains(&terms) {
                continue;
            }
            // Each term's information: BM25's idf of its largest document frequency in the fields.
            let mut idf: Vec<f32> = Vec::with_capacity(terms.len());
            for t in &terms {
                let mut df = 0u64;
                for &field in fields.iter() {
                    df = df.max(searcher.doc_freq(&Term::from_field_text(field, t))?);
                }
                let df = df as f32;
                idf.push((1.0 + (n - df + 0.5) / (df + 0.5)).ln());
            }
            let total: f32 = idf.iter().sum();
            let mut held = vec![0.0f32; docs.len()];
            for (&seg, ids) in &by_segment {
                let reader = searcher.segment_reader(seg);
                for (t, w) in terms.iter().zip(&idf) {
                    let mut has = vec![false; ids.len()];
                    for &field in fields.iter() {
                        let index = reader.inverted_index(field)?;
                        let term = Term::from_field_text(field, t);
                        let Some(mut postings) = index.read_postings(&term, IndexRecordOption::Basic)? else {
                            continue;
                        };
                        for (j, &(doc, _)) in ids.iter().enumerate() {
                            if !has[j] && postings.doc() <= doc && postings.seek(doc) == doc {
                                has[j] = true;
                            }
                        }
                    }
                    for (j, &(_, i)) in ids.iter().enumerate() {
                        if has[j] {
                            held[i] += w;
                        }
                    }
                }
            }
            for (b, h) in best.iter_mut().zip(&held) {
                *b = b.max(h / total);
            }
            seen.push(terms);
        }
        Ok(best)
    }
}
