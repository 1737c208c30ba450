//! Notes by a property expression (`expr`): the frontmatter and file facts of the catalog,
//! filtered, sorted and paged, without reading a note.

use std::cmp::Ordering;

use super::props::NoteSubject;
use super::Engine;
use crate::api::*;
use crate::clock::now_ms;
use crate::dates;
use crate::error::{CoreError, Result};
use crate::expr::{self, Context, Expr, ExprError, Field, Subject};

/// `query` page sizes.
pub const QUERY_DEFAULT_LIMIT: usize = 100;
pub const QUERY_MAX_LIMIT: usize = 1000;

/// The context of relative dates from a request's `today`, `now` and offset.
pub(super) fn context(today: Option<&str>, now: Option<f64>, offset_minutes: Option<i32>) -> Result<Context> {
    let today = match today.map(str::trim).filter(|s| !s.is_empty()) {
        Some(t) => Some(
            dates::parse_date(t)
                .ok_or_else(|| CoreError::BadRequest(format!("today: `{t}` is not a date (YYYY-MM-DD)")))?,
        ),
        None => None,
    };
    Ok(Context { today, now, offset_minutes: offset_minutes.unwrap_or(0).clamp(-14 * 60, 14 * 60) })
}

/// A bad expression as a request error: the message, then the expression with a caret under
/// the position.
pub(super) fn bad_expression(what: &str, src: &str, e: ExprError) -> CoreError {
    let caret = format!("{}^", " ".repeat(src.chars().take(e.position).map(|c| if is_wide(c) { 2 } else { 1 }).sum()));
    CoreError::BadRequest(format!("{what}: {e}\n  {src}\n  {caret}"))
}

/// East Asian wide characters take two columns in a terminal.
fn is_wide(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x20000..=0x3FFFD)
}

/// Parses a request's expression (None when absent or blank).
pub(super) fn compile(src: Option<&str>, ctx: &Context) -> Result<Option<Expr>> {
    match src.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => expr::parse(s, ctx).map(Some).map_err(|e| bad_expression("bad expression", s, e)),
        None => Ok(None),
    }
}

impl Engine {
    /// Decodes the most common properties of the indexed notes into the columns the queries
    /// read, so that the first property query after an open does not decode every note's
    /// frontmatter itself. For a host to call when idle after opening (never on the way to the
    /// first search); the updates that follow keep the columns. Returns how many it built.
    pub fn warm_queries(&self) -> usize {
        self.props.warm(&self.catalog)
    }

    /// Notes whose frontmatter and file facts match a property expression, sorted and paged,
    /// with the values of the fields the expression and the sort name.
    pub fn query(&self, req: &QueryRequest) -> Result<QueryResponse> {
        let t0 = now_ms();
        let ctx = context(req.today.as_deref(), req.now, req.utc_offset_minutes)?;
        let filter = compile(req.where_.as_deref(), &ctx)?;
        let sort = match req.sort.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(s) => expr::parse_sort(s).map_err(|e| bad_expression("bad sort", s, e))?,
            None => Vec::new(),
        };
        let mut fields: Vec<Field> = Vec::new();
        if let Some(e) = &filter {
            e.fields(&mut fields);
        }
        for k in &sort {
            if !fields.contains(&k.field) {
                fields.push(k.field.clone());
            }
        }
        let columns = self.props.columns(&self.catalog, &fields);
        let (offset, limit) = (req.offset.unwrap_or(0), req.limit.unwrap_or(QUERY_DEFAULT_LIMIT).min(QUERY_MAX_LIMIT));
        let hit = |s: &NoteSubject| QueryHit {
            path: s.note.path.clone(),
            title: s.note.title.clone(),
            mtime: s.note.mtime,
            fields: fields.iter().map(|f| (f.name(), expr::to_json(s.value(f)))).collect(),
        };
        let matching = self
            .catalog
            .entries()
            .enumerate()
            .map(|(i, n)| NoteSubject::new(n, i, &columns))
            .filter(|s| filter.as_ref().is_none_or(|e| e.matches(s, &ctx)));
        if sort.is_empty() {
            // In path order: count them all, keep the page.
            let mut total = 0;
            let mut notes = Vec::new();
            for s in matching {
                if total >= offset && notes.len() < limit {
                    notes.push(hit(&s));
                }
                total += 1;
            }
            return Ok(QueryResponse { total, notes, took_ms: now_ms() - t0 });
        }
        let matching: Vec<NoteSubject> = matching.collect();
        // Each note's sort values are made once (dates parsed, text lower-cased), not at every
        // comparison: `keys[i * width + j]` is note i's value of sort field j.
        let width = sort.len();
        let keys: Vec<expr::SortValue> = matching
            .iter()
            .flat_map(|s| sort.iter().map(|k| expr::sort_value(s.value(&k.field).as_ref(), ctx.offset_minutes)))
            .collect();
        let cmp = |a: &usize, b: &usize| {
            let (a, b) = (*a, *b);
            sort.iter()
                .enumerate()
                .map(|(j, k)| expr::cmp_sort_values(&keys[a * width + j], &keys[b * width + j], k.descending))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
                .then_with(|| matching[a].note.path.cmp(&matching[b].note.path))
        };
        let mut order: Vec<usize> = (0..matching.len()).collect();
        // Only the page is put in order: the notes before its end are selected first (linear).
        let end = offset.saturating_add(limit);
        if end < order.len() {
            order.select_nth_unstable_by(end, cmp);
            order.truncate(end);
        }
        order.sort_unstable_by(cmp);
        let notes = order.iter().skip(offset).take(limit).map(|&i| hit(&matching[i])).collect();
        Ok(QueryResponse { total: matching.len(), notes, took_ms: now_ms() - t0 })
    }
}
