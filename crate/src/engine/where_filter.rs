//! The `where` filter of search: a property expression (the language of `query`, see `expr`)
//! that a hit's note must match. It is compiled once per search and evaluated per candidate
//! note, once each: lexical candidates come from tantivy's ranking (asked for more while the
//! filter leaves too few), vector candidates from the scan (`note_matches`).

use std::cell::RefCell;
use std::collections::HashMap;

use super::props::{NoteKeys, OneNote};
use super::query::{compile, context};
use super::Engine;
use crate::api::SearchFilters;
use crate::catalog::NoteEntry;
use crate::error::Result;
use crate::expr::{Context, Expr, Field};
use crate::lexical::search::{LexQuery, LexResults};

/// Each further lexical pass asks for this many times the candidates of the previous one.
const GROWTH: usize = 8;

/// A search's compiled `where` expression and its verdicts so far, by note path.
pub(super) struct WhereFilter {
    expr: Expr,
    ctx: Context,
    keys: NoteKeys,
    seen: RefCell<HashMap<String, bool>>,
}

impl WhereFilter {
    /// The filters' expression compiled (None when absent or blank); a bad one is a request
    /// error naming its position.
    pub fn compile(filters: Option<&SearchFilters>) -> Result<Option<WhereFilter>> {
        let Some(f) = filters.filter(|f| f.where_.as_deref().is_some_and(|w| !w.trim().is_empty())) else {
            return Ok(None);
        };
        let ctx = context(f.today.as_deref(), f.now, f.utc_offset_minutes)?;
        let Some(expr) = compile(f.where_.as_deref(), &ctx)? else { return Ok(None) };
        let mut fields: Vec<Field> = Vec::new();
        expr.fields(&mut fields);
        Ok(Some(WhereFilter { expr, ctx, keys: NoteKeys::of(&fields), seen: RefCell::new(HashMap::new()) }))
    }

    /// Whether a note matches the expression (its properties decoded at its first question).
    pub fn allows(&self, note: &NoteEntry) -> bool {
        if let Some(&v) = self.seen.borrow().get(&note.path) {
            return v;
        }
        let v = self.expr.matches(&OneNote::new(note, &self.keys), &self.ctx);
        self.seen.borrow_mut().insert(note.path.clone(), v);
        v
    }
}

impl Engine {
    /// Lexical hits whose notes pass `filter`, `q.limit` of them at most: while the filter
    /// leaves fewer and tantivy had more, it is asked again for `GROWTH` times as many.
    pub(super) fn lex_search_where(&self, q: &LexQuery, filter: Option<&WhereFilter>) -> Result<LexResults> {
        let Some(w) = filter else { return self.lex.search(q) };
        let want = q.limit.max(1);
        let mut limit = want.saturating_mul(2);
        loop {
            let mut r = self.lex.search(&LexQuery { limit, ..q.clone() })?;
            let exhausted = r.hits.len() < limit;
            r.hits.retain(|h| self.catalog.get(&h.path).is_some_and(|n| w.allows(n)));
            if r.hits.len() >= want || exhausted {
                r.hits.truncate(want);
                return Ok(r);
            }
            limit = limit.saturating_mul(GROWTH);
        }
    }
}
