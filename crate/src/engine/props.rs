//! Frontmatter properties for the structured queries: the catalog keeps each note's
//! frontmatter as JSON text, and a property expression names a few keys. Those keys are decoded
//! once into columns (one value per note, in the catalog's order) and kept, so that queries read
//! values instead of parsing JSON (at 100k notes, decoding one key of every note takes about
//! 100 ms; reading its column, a few). An update decodes the notes it changed and moves the
//! others' values to their new places (`PropCache::update`), so the first query after an edit
//! is as fast as the next.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use crate::catalog::{Catalog, NoteEntry};
use crate::expr::{self, Field, Subject, Val};
use crate::paths;

/// Columns kept at most; past it the cache starts over.
const MAX_COLUMNS: usize = 16;

/// Columns a warm-up builds at most (the most common properties): half the cache, so that the
/// properties a later query names fit beside them.
const WARM_COLUMNS: usize = MAX_COLUMNS / 2;

/// One property's values, note by note in the catalog's order (None: the note lacks it). Boxed:
/// 8 bytes a note without the property, not a `Value`'s 72.
type Column = Arc<Vec<Option<Box<Value>>>>;

/// The decoded property columns of the current index state (kept up to date by every update).
#[derive(Default)]
pub(super) struct PropCache {
    columns: Mutex<HashMap<String, Column>>,
}

impl PropCache {
    /// Forgets every column.
    pub fn clear(&mut self) {
        self.columns.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Whether any column is kept (an update then reports its changes: [`PropCache::update`]).
    pub fn has_columns(&mut self) -> bool {
        !self.columns.get_mut().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    /// Brings the columns to `catalog` after an update that inserted or removed the paths of
    /// `changes` (each with whether it was in the catalog before): one pass in the catalog's
    /// order, decoding the changed notes and moving every other value to its new place.
    pub fn update(&mut self, catalog: &Catalog, changes: &BTreeMap<String, bool>) {
        let cache = self.columns.get_mut().unwrap_or_else(|e| e.into_inner());
        if cache.is_empty() || changes.is_empty() {
            return;
        }
        let keys: Vec<String> = cache.keys().cloned().collect();
        let quoted = quoted_keys(&keys);
        let mut old: Vec<std::vec::IntoIter<Option<Box<Value>>>> = keys
            .iter()
            .map(|k| {
                let col = cache.remove(k).unwrap_or_default();
                Arc::try_unwrap(col).unwrap_or_else(|shared| (*shared).clone()).into_iter()
            })
            .collect();
        let skip_old = |old: &mut Vec<std::vec::IntoIter<Option<Box<Value>>>>| {
            for it in old.iter_mut() {
                it.next();
            }
        };
        let mut cols: Vec<Vec<Option<Box<Value>>>> = keys.iter().map(|_| Vec::with_capacity(catalog.len())).collect();
        let mut pending = changes.iter().peekable();
        for n in catalog.entries() {
            // Changed paths before this one are no longer in the catalog: removed.
            while let Some((_, existed)) = pending.next_if(|(p, _)| p.as_str() < n.path.as_str()) {
                if *existed {
                    skip_old(&mut old);
                }
            }
            match pending.next_if(|(p, _)| **p == n.path) {
                Some((_, existed)) => {
                    if *existed {
                        skip_old(&mut old);
                    }
                    let mut found = select(&n.frontmatter, &keys, &quoted);
                    for (j, k) in keys.iter().enumerate() {
                        cols[j].push(take_key(&mut found, k).map(Box::new));
                    }
                }
                None => {
                    for (j, it) in old.iter_mut().enumerate() {
                        cols[j].push(it.next().flatten());
                    }
                }
            }
        }
        for (_, existed) in pending {
            if *existed {
                skip_old(&mut old);
            }
        }
        // Every old value used once, every note given one: else decode again when asked.
        let in_step = old.iter_mut().all(|it| it.next().is_none()) && cols.iter().all(|c| c.len() == catalog.len());
        debug_assert!(in_step, "property columns out of step with the catalog");
        if !in_step {
            return;
        }
        for (k, col) in keys.into_iter().zip(cols) {
            cache.insert(k, Arc::new(col));
        }
    }

    /// Decodes the columns of the most common properties of `catalog` (up to [`WARM_COLUMNS`],
    /// those already kept counted) so that a later query finds them: one pass counting every
    /// note's keys, one decoding the chosen ones. Returns how many columns it built.
    pub fn warm(&self, catalog: &Catalog) -> usize {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for n in catalog.entries() {
            if n.frontmatter.len() <= 2 {
                continue;
            }
            let mut de = serde_json::Deserializer::from_str(&n.frontmatter);
            let keys = serde::de::DeserializeSeed::deserialize(KeyNames, &mut de).unwrap_or_default();
            for k in keys {
                *counts.entry(k).or_default() += 1;
            }
        }
        let mut common: Vec<(String, usize)> = counts.into_iter().collect();
        common.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut cache = self.columns.lock().unwrap_or_else(|e| e.into_inner());
        let room = WARM_COLUMNS.saturating_sub(cache.len());
        let missing: Vec<String> =
            common.into_iter().map(|(k, _)| k).filter(|k| !cache.contains_key(k)).take(room).collect();
        let built = missing.len();
        for (k, col) in decode_columns(catalog, &missing) {
            cache.insert(k, col);
        }
        built
    }

    /// The columns of the properties `fields` name, decoded from `catalog` where not cached.
    pub fn columns(&self, catalog: &Catalog, fields: &[Field]) -> Columns {
        let mut names: Vec<String> = Vec::new();
        let mut lower: Vec<String> = Vec::new();
        for f in fields {
            if let Field::Prop(k) = f {
                if !names.contains(k) {
                    names.push(k.clone());
                    lower.push(k.to_lowercase());
                }
            }
        }
        let mut cache = self.columns.lock().unwrap_or_else(|e| e.into_inner());
        let mut missing: Vec<String> = lower.iter().filter(|k| !cache.contains_key(*k)).cloned().collect();
        missing.dedup();
        if !missing.is_empty() {
            if cache.len() + missing.len() > MAX_COLUMNS {
                cache.clear();
                missing = lower.clone();
                missing.sort();
                missing.dedup();
            }
            for (k, col) in decode_columns(catalog, &missing) {
                cache.insert(k, col);
            }
        }
        let data = lower.iter().map(|k| cache[k].clone()).collect();
        Columns { names, data }
    }
}

/// The quick tests of `keys` (lower-cased) in a note's frontmatter JSON: each key quoted, or
/// None for a key JSON escapes, or whose case does not fold in ASCII (no quick test).
fn quoted_keys(keys: &[String]) -> Vec<Option<String>> {
    keys.iter()
        .map(|k| {
            let plain = k.is_ascii() && !k.chars().any(|c| c == '"' || c == '\\' || c.is_control());
            plain.then(|| format!("\"{k}\""))
        })
        .collect()
}

/// The properties `keys` (lower-cased, `quoted` their quick tests) of one note's frontmatter
/// JSON, the other values skipped; nothing parsed when the JSON mentions none of them.
fn select(json: &str, keys: &[String], quoted: &[Option<String>]) -> Map<String, Value> {
    let mentioned = json.len() > 2 && quoted.iter().any(|q| q.as_deref().is_none_or(|q| expr::contains_lower(json, q)));
    if !mentioned {
        return Map::new();
    }
    let mut de = serde_json::Deserializer::from_str(json);
    serde::de::DeserializeSeed::deserialize(Select(keys), &mut de).unwrap_or_default()
}

/// Decodes the properties `keys` (lower-cased) of every note, in one pass over the catalog.
fn decode_columns(catalog: &Catalog, keys: &[String]) -> Vec<(String, Column)> {
    let quoted = quoted_keys(keys);
    let mut cols: Vec<Vec<Option<Box<Value>>>> = keys.iter().map(|_| Vec::with_capacity(catalog.len())).collect();
    for n in catalog.entries() {
        let mut found = select(&n.frontmatter, keys, &quoted);
        for (j, k) in keys.iter().enumerate() {
            cols[j].push(take_key(&mut found, k).map(Box::new));
        }
    }
    keys.iter().cloned().zip(cols.into_iter().map(Arc::new)).collect()
}

/// Takes the value of `key` (lower-cased) from a note's selected properties: the key as
/// written first, then any other case of it.
fn take_key(found: &mut Map<String, Value>, key: &str) -> Option<Value> {
    let name = found
        .keys()
        .find(|name| *name == key)
        .or_else(|| found.keys().find(|name| expr::eq_lower(name, key)))
        .cloned()?;
    found.remove(&name)
}

/// The property columns a request reads, by the names its expression and sort use.
#[derive(Debug, PartialEq)]
pub(super) struct Columns {
    names: Vec<String>,
    data: Vec<Column>,
}

impl Columns {
    fn value(&self, name: &str, index: usize) -> Option<&Value> {
        let j = self.names.iter().position(|n| n == name)?;
        self.data[j].get(index)?.as_deref()
    }
}

/// Decodes a JSON object keeping only the keys named (case-insensitively); the other values
/// are skipped without being built.
struct Select<'k>(&'k [String]);

impl<'de> serde::de::DeserializeSeed<'de> for Select<'_> {
    type Value = Map<String, Value>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Select<'_> {
    type Value = Map<String, Value>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> std::result::Result<Self::Value, A::Error> {
        let mut out = Map::new();
        while let Some(Key(k)) = m.next_key()? {
            if self.0.iter().any(|w| expr::eq_lower(&k, w)) {
                let v: Value = m.next_value()?;
                out.insert(k.into_owned(), v);
            } else {
                m.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

/// The keys of a JSON object, lower-cased and each once; the values skipped.
struct KeyNames;

impl<'de> serde::de::DeserializeSeed<'de> for KeyNames {
    type Value = Vec<String>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyNames {
    type Value = Vec<String>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> std::result::Result<Self::Value, A::Error> {
        let mut out: Vec<String> = Vec::new();
        while let Some(Key(k)) = m.next_key()? {
            m.next_value::<serde::de::IgnoredAny>()?;
            let k = k.to_lowercase();
            if !out.contains(&k) {
                out.push(k);
            }
        }
        Ok(out)
    }
}

/// An object key, borrowed from the JSON when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_string<E>(self, v: String) -> std::result::Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
        }
        d.deserialize_str(V)
    }
}

/// A catalog entry seen by an expression: its file facts, and its properties from the
/// request's columns (`index`: its place in the catalog's order).
pub(super) struct NoteSubject<'a> {
    pub note: &'a NoteEntry,
    index: usize,
    columns: &'a Columns,
}

impl<'a> NoteSubject<'a> {
    pub fn new(note: &'a NoteEntry, index: usize, columns: &'a Columns) -> Self {
        NoteSubject { note, index, columns }
    }
}

impl Subject for NoteSubject<'_> {
    fn value(&self, field: &Field) -> Option<Val<'_>> {
        match field {
            Field::Prop(key) => Some(Val::Json(self.columns.value(key, self.index)?)),
            _ => file_value(self.note, field),
        }
    }
}

/// A built-in field of a note (None for a property).
fn file_value<'a>(n: &'a NoteEntry, field: &Field) -> Option<Val<'a>> {
    Some(match field {
        Field::Path => Val::Str(&n.path),
        Field::Name => Val::Str(paths::stem(&n.path)),
        Field::Folder => Val::Str(paths::folder(&n.path)),
        Field::Tags => Val::Tags(&n.tags),
        Field::Mtime => Val::Instant(n.mtime),
        Field::Ctime => Val::Instant(n.ctime?),
        Field::Size => Val::Num(n.size as f64),
        Field::Title => Val::Str(&n.title),
        Field::Prop(_) => return None,
    })
}

/// The property keys an expression reads (lower-cased), with their quick tests: what one note
/// at a time is decoded for ([`OneNote`]).
pub(super) struct NoteKeys {
    keys: Vec<String>,
    quoted: Vec<Option<String>>,
}

impl NoteKeys {
    pub fn of(fields: &[Field]) -> Self {
        let mut keys: Vec<String> = Vec::new();
        for f in fields {
            if let Field::Prop(k) = f {
                let k = k.to_lowercase();
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let quoted = quoted_keys(&keys);
        NoteKeys { keys, quoted }
    }
}

/// A catalog entry seen by an expression with its own properties decoded (only the keys named):
/// for the few notes of a search's candidates, where columns of the whole catalog would cost
/// more than they save.
pub(super) struct OneNote<'a> {
    note: &'a NoteEntry,
    props: Map<String, Value>,
}

impl<'a> OneNote<'a> {
    pub fn new(note: &'a NoteEntry, keys: &NoteKeys) -> Self {
        let props = if keys.keys.is_empty() { Map::new() } else { select(&note.frontmatter, &keys.keys, &keys.quoted) };
        OneNote { note, props }
    }
}

impl Subject for OneNote<'_> {
    fn value(&self, field: &Field) -> Option<Val<'_>> {
        match field {
            // The key as written first, then any other case of it.
            Field::Prop(key) => self
                .props
                .get(key)
                .or_else(|| {
                    let lower = key.to_lowercase();
                    self.props.iter().find(|(name, _)| expr::eq_lower(name, &lower)).map(|e| e.1)
                })
                .map(Val::Json),
            _ => file_value(self.note, field),
        }
    }
}
