//! Property expressions: a small language over a note's frontmatter and its file facts, for
//! `query`, the task filters and search filters.
//!
//! ```text
//! status = draft AND (priority >= 2 OR tags contains urgent) AND file.mtime >= today-7d
//! NOT reviewed exists        due < 2026-12-01        owner != "Ana"        draft !exists
//! ```
//!
//! Comparisons: `=`, `!=`, `<`, `<=`, `>`, `>=` on numbers and dates (ISO dates compare by
//! day, date-times by instant; `today`, `now`, `today-7d`, `now-12h` relative to the host's
//! date), `=`/`!=` on text (case-insensitive) and booleans, `contains` on lists (an element
//! equal to the value; a tag or its nested tags for `file.tags`) and on text (a substring),
//! `exists` / `!exists`. Combined with AND / OR / NOT (`&&`, `||`, `!`) and parentheses. A
//! list matches a comparison when one of its elements does; a missing key or a value of
//! another type matches nothing (but `!=` and `!exists`). Built-in fields: `file.path`,
//! `file.name`, `file.folder`, `file.tags`, `file.mtime`, `file.ctime`, `file.size`, `file.title`.
//! `file.ctime`, the creation time, is the host's (Obsidian's, the file system's birth time): a
//! note whose host did not know it has none, a missing field like a missing key.
//! A bad expression is an error that names its position (`ExprError`), never a panic.

use std::cmp::Ordering;

use serde_json::Value;

use crate::dates;

mod parse;

pub use parse::{parse, parse_sort};

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Cmp { field: Field, op: Op, value: Literal },
    Exists { field: Field, exists: bool },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Field {
    Path,
    Name,
    Folder,
    Tags,
    Mtime,
    /// The creation time, when the host gave it.
    Ctime,
    Size,
    Title,
    /// A frontmatter key.
    Prop(String),
}

impl Field {
    /// How the field is written in an expression.
    pub fn name(&self) -> String {
        match self {
            Field::Path => "file.path".into(),
            Field::Name => "file.name".into(),
            Field::Folder => "file.folder".into(),
            Field::Tags => "file.tags".into(),
            Field::Mtime => "file.mtime".into(),
            Field::Ctime => "file.ctime".into(),
            Field::Size => "file.size".into(),
            Field::Title => "file.title".into(),
            Field::Prop(k) => k.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
}

/// A value as written, with what it reads as.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    pub text: String,
    /// `text` lower-cased, for comparisons that ignore case.
    pub lower: String,
    pub number: Option<f64>,
    /// A date (days since 1970-01-01): compared by day.
    pub day: Option<i32>,
    /// A date-time (ms since the epoch): compared by instant.
    pub instant: Option<f64>,
    pub boolean: Option<bool>,
}

/// An error in an expression: what is wrong and where (a 0-based character offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub message: String,
    pub position: usize,
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at character {})", self.message, self.position + 1)
    }
}

/// What relative dates are relative to.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// The host's date (days since 1970-01-01).
    pub today: Option<i32>,
    /// Now (ms since the epoch).
    pub now: Option<f64>,
    /// The host's offset from UTC, in minutes.
    pub offset_minutes: i32,
}

/// A field's value for one note.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'a> {
    Json(&'a Value),
    Str(&'a str),
    Num(f64),
    /// ms since the epoch.
    Instant(f64),
    Tags(&'a [String]),
}

/// What an expression is evaluated against: a note.
pub trait Subject {
    fn value(&self, field: &Field) -> Option<Val<'_>>;
}

impl Expr {
    pub fn matches(&self, s: &dyn Subject, ctx: &Context) -> bool {
        match self {
            Expr::And(a, b) => a.matches(s, ctx) && b.matches(s, ctx),
            Expr::Or(a, b) => a.matches(s, ctx) || b.matches(s, ctx),
            Expr::Not(e) => !e.matches(s, ctx),
            Expr::Exists { field, exists } => present(s.value(field)) == *exists,
            Expr::Cmp { field, op: Op::Ne, value } => {
                !compare(s.value(field).as_ref(), Op::Eq, value, ctx.offset_minutes)
            }
            Expr::Cmp { field, op, value } => compare(s.value(field).as_ref(), *op, value, ctx.offset_minutes),
        }
    }

    /// The fields the expression names, in order, once each.
    pub fn fields(&self, out: &mut Vec<Field>) {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.fields(out);
                b.fields(out);
            }
            Expr::Not(e) => e.fields(out),
            Expr::Cmp { field, .. } | Expr::Exists { field, .. } => {
                if !out.contains(field) {
                    out.push(field.clone());
                }
            }
        }
    }
}

fn present(v: Option<Val>) -> bool {
    match v {
        None | Some(Val::Json(Value::Null)) => false,
        Some(Val::Json(Value::String(s))) => !s.trim().is_empty(),
        Some(Val::Json(Value::Array(a))) => !a.is_empty(),
        Some(Val::Tags(t)) => !t.is_empty(),
        Some(_) => true,
    }
}

fn ordered(o: Option<Ordering>, op: Op) -> bool {
    let Some(o) = o else { return false };
    match op {
        Op::Eq => o == Ordering::Equal,
        Op::Ne => o != Ordering::Equal,
        Op::Lt => o == Ordering::Less,
        Op::Le => o != Ordering::Greater,
        Op::Gt => o == Ordering::Greater,
        Op::Ge => o != Ordering::Less,
        Op::Contains => false,
    }
}

/// Compares an instant with a literal: by day when the literal is a date, by instant otherwise.
fn cmp_instant(ms: f64, lit: &Literal, offset: i32) -> Option<Ordering> {
    if let Some(day) = lit.day {
        return Some(dates::day_of_ms(ms, offset).cmp(&day));
    }
    ms.partial_cmp(&lit.instant?)
}

fn compare(v: Option<&Val>, op: Op, lit: &Literal, offset: i32) -> bool {
    match v {
        None => false,
        Some(Val::Json(j)) => compare_json(j, op, lit, offset),
        Some(Val::Str(s)) => compare_str(s, op, lit, offset),
        Some(Val::Num(n)) => ordered(lit.number.and_then(|x| n.partial_cmp(&x)), op),
        Some(Val::Instant(ms)) => match lit.number {
            Some(x) if lit.day.is_none() && lit.instant.is_none() => ordered(ms.partial_cmp(&x), op),
            _ => ordered(cmp_instant(*ms, lit, offset), op),
        },
        Some(Val::Tags(tags)) => tags.iter().any(|t| match op {
            Op::Contains | Op::Eq => {
                let want = lit.lower.trim_start_matches('#');
                eq_lower(t, want)
                    || (op == Op::Contains
                        && t.len() > want.len()
                        && t.is_char_boundary(want.len())
                        && t.as_bytes()[want.len()] == b'/'
                        && eq_lower(&t[..want.len()], want))
            }
            _ => compare_str(t, op, lit, offset),
        }),
    }
}

/// `s` equals `lower` (already lower-cased) case-insensitively; no allocation for ASCII text.
pub fn eq_lower(s: &str, lower: &str) -> bool {
    if s.is_ascii() {
        s.len() == lower.len() && s.eq_ignore_ascii_case(lower)
    } else {
        s.to_lowercase() == lower
    }
}

/// `s` contains `lower` (already lower-cased) case-insensitively; no allocation for ASCII text.
pub fn contains_lower(s: &str, lower: &str) -> bool {
    if s.is_ascii() && lower.is_ascii() {
        let (h, n) = (s.as_bytes(), lower.as_bytes());
        n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
    } else {
        s.to_lowercase().contains(lower)
    }
}

fn compare_json(v: &Value, op: Op, lit: &Literal, offset: i32) -> bool {
    match v {
        Value::Array(items) => items.iter().any(|i| {
            let op = if op == Op::Contains { Op::Eq } else { op };
            !i.is_array() && compare_json(i, op, lit, offset)
        }),
        Value::Number(n) => ordered(n.as_f64().zip(lit.number).and_then(|(a, b)| a.partial_cmp(&b)), op),
        Value::String(s) => compare_str(s, op, lit, offset),
        Value::Bool(b) => matches!(op, Op::Eq) && lit.boolean == Some(*b),
        Value::Null | Value::Object(_) => false,
    }
}

fn compare_str(s: &str, op: Op, lit: &Literal, offset: i32) -> bool {
    let s = s.trim();
    if op == Op::Contains {
        return contains_lower(s, &lit.lower);
    }
    if lit.day.is_some() || lit.instant.is_some() {
        if let Some(ms) = dates::parse_datetime(s, offset) {
            return ordered(cmp_instant(ms, lit, offset), op);
        }
    }
    if let (Some(x), Ok(n)) = (lit.number, s.parse::<f64>()) {
        return ordered(n.partial_cmp(&x), op);
    }
    match op {
        Op::Eq => eq_lower(s, &lit.lower),
        // Text has no order here: `<` on text is a type mismatch.
        _ => false,
    }
}

/// One sort key: a field, descending or not.
#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    pub field: Field,
    pub descending: bool,
}

/// A sort field's value made comparable once: (kind, number, text), kinds ordered numbers <
/// dates < text (case-insensitive); None when missing.
pub type SortValue = Option<(u8, f64, String)>;

/// Orders two sort values; a missing value after every present one (whatever the direction).
pub fn cmp_sort_values(a: &SortValue, b: &SortValue, descending: bool) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => {
            let o = x.partial_cmp(y).unwrap_or(Ordering::Equal);
            if descending {
                o.reverse()
            } else {
                o
            }
        }
    }
}

/// Orders two values of a sort field (see [`sort_value`] and [`cmp_sort_values`]).
pub fn sort_cmp(a: Option<&Val>, b: Option<&Val>, descending: bool, offset: i32) -> Ordering {
    cmp_sort_values(&sort_value(a, offset), &sort_value(b, offset), descending)
}

/// The sortable form of a value.
pub fn sort_value(v: Option<&Val>, offset: i32) -> SortValue {
    let text = |s: &str| {
        let s = s.trim();
        if let Some(ms) = dates::parse_datetime(s, offset) {
            return Some((1, ms, String::new()));
        }
        match s.parse::<f64>() {
            Ok(n) => Some((0, n, String::new())),
            Err(_) => (!s.is_empty()).then(|| (2, 0.0, s.to_lowercase())),
        }
    };
    match v? {
        Val::Num(n) => Some((0, *n, String::new())),
        Val::Instant(ms) => Some((1, *ms, String::new())),
        Val::Str(s) => text(s),
        Val::Tags(t) => t.first().and_then(|s| text(s)),
        Val::Json(j) => match j {
            Value::Number(n) => Some((0, n.as_f64()?, String::new())),
            Value::String(s) => text(s),
            Value::Bool(b) => Some((2, 0.0, b.to_string())),
            Value::Array(items) => sort_value(items.first().map(Val::Json).as_ref(), offset),
            _ => None,
        },
    }
}

/// A value for an answer (`QueryHit::fields`).
pub fn to_json(v: Option<Val>) -> Value {
    match v {
        None => Value::Null,
        Some(Val::Json(j)) => j.clone(),
        Some(Val::Str(s)) => Value::String(s.to_string()),
        Some(Val::Num(n)) => serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null),
        Some(Val::Instant(ms)) => serde_json::Number::from_f64(ms).map(Value::Number).unwrap_or(Value::Null),
        Some(Val::Tags(t)) => Value::Array(t.iter().map(|s| Value::String(s.clone())).collect()),
    }
}

#[cfg(test)]
mod tests;
