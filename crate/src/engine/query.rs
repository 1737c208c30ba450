//! Notes by a property expression (`expr`): the frontmatter and file facts of the catalog,
//! filtered, sorted and paged, without reading a note.

use std::cell::OnceCell;
use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::Engine;
use crate::api::*;
use crate::catalog::NoteEntry;
use crate::clock::now_ms;
use crate::dates;
use crate::error::{CoreError, Result};
use crate::expr::{self, Context, Expr, ExprError, Field, Subject, Val};
use crate::paths;

/// `query` page sizes.
pub const QUERY_DEFAULT_LIMIT: usize = 100;
pub const QUERY_MAX_LIMIT: usize = 1000;

/// A catalog entry seen by an expression; its frontmatter JSON is decoded once, when a
/// property is first asked for.
pub(super) struct NoteSubject<'a> {
    pub note: &'a NoteEntry,
    frontmatter: OnceCell<Map<String, Value>>,
}

impl<'a> NoteSubject<'a> {
    pub fn new(note: &'a NoteEntry) -> Self {
        NoteSubject { note, frontmatter: OnceCell::new() }
    }

    fn frontmatter(&self) -> &Map<String, Value> {
        self.frontmatter.get_or_init(|| {
            if self.note.frontmatter.len() <= 2 {
                Map::new()
            } else {
                serde_json::from_str(&self.note.frontmatter).unwrap_or_default()
            }
        })
    }
}

impl Subject for NoteSubject<'_> {
    fn value(&self, field: &Field) -> Option<Val<'_>> {
        let n = self.note;
        Some(match field {
            Field::Path => Val::Str(&n.path),
            Field::Name => Val::Str(paths::stem(&n.path)),
            Field::Folder => Val::Str(paths::folder(&n.path)),
            Field::Tags => Val::Tags(&n.tags),
            Field::Mtime => Val::Instant(n.mtime),
            Field::Size => Val::Num(n.size as f64),
            Field::Title => Val::Str(&n.title),
            Field::Prop(key) => {
                let fm = self.frontmatter();
                let v = match fm.get(key) {
                    Some(v) => v,
                    None => {
                        fm.iter()
                            .find(|(k, _)| k.eq_ignore_ascii_case(key) || k.to_lowercase() == key.to_lowercase())?
                            .1
                    }
                };
                Val::Json(v)
            }
        })
    }
}

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
        let mut matching: Vec<NoteSubject> = self
            .catalog
            .entries()
            .map(NoteSubject::new)
            .filter(|s| filter.as_ref().is_none_or(|e| e.matches(s, &ctx)))
            .collect();
        if !sort.is_empty() {
            // Each note's sort values are made once (dates parsed, text lower-cased), not at
            // every comparison.
            let keys: Vec<Vec<expr::SortValue>> = matching
                .iter()
                .map(|s| {
                    sort.iter().map(|k| expr::sort_value(s.value(&k.field).as_ref(), ctx.offset_minutes)).collect()
                })
                .collect();
            let mut order: Vec<usize> = (0..matching.len()).collect();
            order.sort_by(|&a, &b| {
                sort.iter()
                    .enumerate()
                    .map(|(i, k)| expr::cmp_sort_values(&keys[a][i], &keys[b][i], k.descending))
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
                    .then_with(|| matching[a].note.path.cmp(&matching[b].note.path))
            });
            let mut slots: Vec<Option<NoteSubject>> = matching.into_iter().map(Some).collect();
            matching = order.into_iter().filter_map(|i| slots[i].take()).collect();
        }
        let mut fields: Vec<Field> = Vec::new();
        if let Some(e) = &filter {
            e.fields(&mut fields);
        }
        for k in &sort {
            if !fields.contains(&k.field) {
                fields.push(k.field.clone());
            }
        }
        let limit = req.limit.unwrap_or(QUERY_DEFAULT_LIMIT).min(QUERY_MAX_LIMIT);
        let notes = matching
            .iter()
            .skip(req.offset.unwrap_or(0))
            .take(limit)
            .map(|s| QueryHit {
                path: s.note.path.clone(),
                title: s.note.title.clone(),
                mtime: s.note.mtime,
                fields: fields.iter().map(|f| (f.name(), expr::to_json(s.value(f)))).collect(),
            })
            .collect();
        Ok(QueryResponse { total: matching.len(), notes, took_ms: now_ms() - t0 })
    }
}
