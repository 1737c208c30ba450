//! The catalog: one entry per indexed note (path, content hash, size, mtime, ctime, title,
//! frontmatter JSON, aliases, tags, links, sections, tasks).
//!
//! It is persisted as a base file plus small delta files (upserts and removals since
//! the base), so a one-note edit writes a few hundred bytes, not the whole catalog.
//! When the deltas grow past a share of the base, the next flush writes a new base.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::api::AccessInfo;
use crate::embed::choice::ScriptCounts;
use crate::error::{CoreError, Result};
use crate::markdown::Link;
use crate::sections::Section;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoteEntry {
    pub path: String,
    pub hash: String,
    pub size: u64,
    pub mtime: f64,
    /// The file's creation time (ms since the epoch) as the host gave it; None when it did not
    /// know it (`file.ctime` is then missing, never guessed).
    pub ctime: Option<f64>,
    pub title: String,
    /// Frontmatter as a JSON object string ("{}" when absent or broken).
    pub frontmatter: String,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub links: PackedLinks,
    pub sections: Vec<Section>,
    pub line_count: u32,
    /// First line after the frontmatter.
    pub body_start_line: u32,
    /// Key of the note's lead vector ([`NoteEntry::lead_text`]: its folders and title, then
    /// the lines that open it): many notes are named by their file name only, and their
    /// sections never say what the note is about.
    #[serde(with = "serde_bytes")]
    pub lead_key: Option<[u8; 32]>,
    /// Last line of the note's lead (`sections::lead_end_line`; 0: none).
    pub lead_end_line: u32,
    /// Letters by script, for choosing the embedding model (`embed::choice`).
    pub script: ScriptCounts,
    /// The note's languages, space-separated (ISO 639-1 where there is one; "" unknown): its
    /// own first (its frontmatter `lang`, else detected: `language::note_language`), in which
    /// its sections are stemmed, then those of long sections written in another (stemmed in
    /// theirs).
    pub lang: String,
    /// The note's task list items (`tasks::extract`): empty for most notes.
    pub tasks: Vec<crate::tasks::Task>,
    /// A code file indexed in line windows by a bulk index, waiting for the code pass to replace
    /// them with its definitions (`engine::code_pass`). Its windows are never embedded.
    pub code_pending: bool,
}

/// A note's links, kept encoded in the catalog: only [`crate::Engine::note`] reads them, one
/// note at a time, and decoding every link of the vault at each open cost more than the rest
/// of a note's entry (links were 2.8 of the help vault's 7.2 MB catalog, 61k of them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PackedLinks(#[serde(with = "serde_bytes")] Vec<u8>);

impl PackedLinks {
    pub fn pack(links: &[Link]) -> Self {
        if links.is_empty() {
            return Self::default();
        }
        Self(postcard::to_allocvec(links).unwrap_or_default())
    }

    pub fn unpack(&self) -> Vec<Link> {
        if self.0.is_empty() {
            return Vec::new();
        }
        postcard::from_bytes(&self.0).unwrap_or_default()
    }
}

/// A note's folders and title ("Linking notes > Aliases"), which open its lead vector's text.
/// They depend on the path, so a rename re-embeds that one short text, never a section.
pub fn title_text(path: &str, title: &str) -> String {
    let folder = crate::paths::folder(path);
    if folder.is_empty() {
        title.to_string()
    } else {
        format!("{} > {title}", folder.replace('/', " > "))
    }
}

impl NoteEntry {
    /// Every vector key of the note: the lead's (None), then its leaves' (their order). None for
    /// a code file waiting for its definitions: its windows' vectors would be thrown away.
    pub fn vector_keys(&self) -> impl Iterator<Item = (Option<u32>, [u8; 32])> + '_ {
        let sections = if self.code_pending { &[][..] } else { &self.sections[..] };
        self.lead_key
            .filter(|_| !self.code_pending)
            .map(|k| (None, k))
            .into_iter()
            .chain(sections.iter().filter_map(|s| s.embed_key.map(|k| (Some(s.order), k))))
    }

    /// The vectors a code file waiting for its definitions stands for until then (its windows'
    /// and its lead's): what the embedding coverage counts as to come.
    pub fn deferred_vectors(&self) -> usize {
        if !self.code_pending {
            return 0;
        }
        self.lead_key.iter().count() + self.sections.iter().filter(|s| s.embed_key.is_some()).count()
    }
}

impl NoteEntry {
    /// The text of the note's lead vector, from the note's text (the indexed version).
    pub fn lead_text(&self, note_text: &str) -> String {
        if let Some(lead) = crate::code_sections::lead_text(&self.path, &self.sections) {
            return lead;
        }
        crate::sections::lead_text(
            note_text,
            &title_text(&self.path, &self.title),
            self.body_start_line,
            self.lead_end_line,
        )
    }

    /// The text embedded for one of the note's sections (Markdown or code).
    pub fn embed_text(&self, note_text: &str, section: &Section) -> String {
        match section.code {
            Some(_) => crate::code_sections::embed_text(&self.path, note_text, &self.sections, section.order as usize),
            None => crate::sections::embed_text(note_text, section, self.body_start_line),
        }
    }

    pub fn section(&self, order: u32) -> Option<&Section> {
        self.sections.get(order as usize).filter(|s| s.order == order)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CatalogFile {
    base: bool,
    upserts: Vec<NoteEntry>,
    removes: Vec<String>,
    /// Retrieval usage (memory notes): all of it in a base, the changed entries in a delta.
    access: Vec<(String, AccessInfo)>,
}

/// A [`CatalogFile`] to write, borrowing the catalog's entries: the same bytes as the owned one,
/// without a clone of every entry beside the catalog while a base is written.
#[derive(Serialize)]
struct CatalogFileRef<'a> {
    base: bool,
    upserts: Vec<&'a NoteEntry>,
    removes: Vec<&'a String>,
    access: Vec<(&'a String, AccessInfo)>,
}

#[derive(Default)]
pub struct Catalog {
    notes: BTreeMap<String, NoteEntry>,
    /// Retrieval usage per indexed note (dropped with the note, moved with a rename).
    access: BTreeMap<String, AccessInfo>,
    /// Paths changed or removed since the last flush, each with whether the files written so
    /// far hold an entry for it (it was in the catalog when first changed since).
    dirty: BTreeMap<String, bool>,
    /// Entries of the files written so far that a later one replaced or removed: what a new
    /// base would drop.
    superseded: usize,
    /// Paths whose usage changed since the last flush.
    access_dirty: BTreeSet<String>,
    /// Bytes of the current base file (0: none written yet), and the deltas written on top of it.
    base_bytes: u64,
    deltas: usize,
    /// Notes per language code (`NoteEntry::lang`), kept as notes come and go.
    lang_counts: HashMap<String, usize>,
    /// The vault's languages by share of notes, sorted when first asked after a change.
    languages: std::sync::OnceLock<Vec<(whatlang::Lang, f64)>>,
    /// While tracked ([`Catalog::track_changes`]): the paths inserted or removed since, each
    /// with whether it was in the catalog before its first change.
    changes: Option<BTreeMap<String, bool>>,
}

/// Write a new base when this share of the entries written is dead (or at this many files).
const COMPACT_SHARE: f64 = 0.25;
const COMPACT_FILES: usize = 64;

pub struct CatalogWrite {
    pub bytes: Vec<u8>,
    pub is_base: bool,
}

impl Catalog {
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    pub fn get(&self, path: &str) -> Option<&NoteEntry> {
        self.notes.get(path)
    }

    pub fn get_mut(&mut self, path: &str) -> Option<&mut NoteEntry> {
        // Callers change a note's file facts here, never its languages (a new text is `insert`).
        self.mark_dirty(path);
        self.notes.get_mut(path)
    }

    fn mark_dirty(&mut self, path: &str) {
        if !self.dirty.contains_key(path) {
            self.dirty.insert(path.to_string(), self.notes.contains_key(path));
        }
    }

    /// The languages of the vault's notes with their share of the notes whose language is
    /// known, largest first.
    pub fn languages(&self) -> &[(whatlang::Lang, f64)] {
        self.languages.get_or_init(|| {
            let total = self.lang_counts.values().sum::<usize>().max(1) as f64;
            let mut out: Vec<(whatlang::Lang, f64)> = self
                .lang_counts
                .iter()
                .filter(|(_, n)| **n > 0)
                .filter_map(|(code, n)| Some((crate::language::parse(code)?, *n as f64 / total)))
                .collect();
            out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.code().cmp(b.0.code())));
            out
        })
    }

    /// Counts (`sign` 1) or uncounts (-1) a note's languages.
    fn count_languages(&mut self, langs: &str, sign: isize) {
        for code in langs.split_whitespace() {
            let n = self.lang_counts.entry(code.to_string()).or_default();
            *n = n.saturating_add_signed(sign);
        }
        self.languages.take();
    }

    /// The vault's letters as the English model reads them: a note whose language (its first)
    /// is not English counts as foreign whatever its script (`embed::choice`).
    pub fn script_counts(&self) -> ScriptCounts {
        let mut c = ScriptCounts::default();
        for n in self.notes.values() {
            c.add(&n.script.read_as(n.lang.split(' ').next().unwrap_or("")));
        }
        c
    }

    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.notes.keys()
    }

    pub fn entries(&self) -> impl Iterator<Item = &NoteEntry> {
        self.notes.values()
    }

    pub fn section_count(&self) -> usize {
        self.notes.values().map(|n| n.sections.len()).sum()
    }

    /// Starts (or stops) recording the paths inserted and removed, for
    /// [`Catalog::take_changes`].
    pub fn track_changes(&mut self, on: bool) {
        self.changes = on.then(BTreeMap::new);
    }

    /// The paths inserted or removed since [`Catalog::track_changes`], each with whether it was
    /// in the catalog before (None when untracked); tracking stops.
    pub fn take_changes(&mut self) -> Option<BTreeMap<String, bool>> {
        self.changes.take()
    }

    fn note_change(&mut self, path: &str, existed: bool) {
        if let Some(c) = &mut self.changes {
            if !c.contains_key(path) {
                c.insert(path.to_string(), existed);
            }
        }
    }

    pub fn insert(&mut self, entry: NoteEntry) {
        self.note_change(&entry.path, self.notes.contains_key(&entry.path));
        self.mark_dirty(&entry.path);
        self.count_languages(&entry.lang, 1);
        if let Some(old) = self.notes.insert(entry.path.clone(), entry) {
            self.count_languages(&old.lang, -1);
        }
    }

    pub fn remove(&mut self, path: &str) -> Option<NoteEntry> {
        if self.notes.contains_key(path) {
            self.mark_dirty(path);
        }
        let e = self.notes.remove(path);
        if e.is_some() {
            self.note_change(path, true);
        }
        if let Some(old) = &e {
            let langs = old.lang.clone();
            self.count_languages(&langs, -1);
            self.access.remove(path);
            self.access_dirty.remove(path);
        }
        e
    }

    pub fn access(&self, path: &str) -> Option<AccessInfo> {
        self.access.get(path).copied()
    }

    /// Counts one retrieval of an indexed note at `now` (ms since epoch).
    pub fn record_access(&mut self, path: &str, now: f64) -> bool {
        if !self.notes.contains_key(path) {
            return false;
        }
        let a = self.access.entry(path.to_string()).or_default();
        a.count = a.count.saturating_add(1);
        a.last = a.last.max(now);
        self.access_dirty.insert(path.to_string());
        true
    }

    /// Carries a note's usage over to its new path (the caller re-inserts the entry).
    pub fn move_access(&mut self, from: &str, to: &str, usage: Option<AccessInfo>) {
        self.access.remove(from);
        if let Some(a) = usage {
            self.access.insert(to.to_string(), a);
            self.access_dirty.insert(to.to_string());
        }
    }

    /// Paths by content hash (for detecting moves).
    pub fn by_hash(&self) -> HashMap<&str, Vec<&str>> {
        let mut m: HashMap<&str, Vec<&str>> = HashMap::new();
        for n in self.notes.values() {
            m.entry(n.hash.as_str()).or_default().push(n.path.as_str());
        }
        m
    }

    pub fn is_dirty(&self) -> bool {
        !self.dirty.is_empty() || !self.access_dirty.is_empty()
    }

    /// Serialises what changed since the last call: a delta, or a new base when the
    /// deltas have grown too large (or `force_base`).
    pub fn take_write(&mut self, force_base: bool) -> Result<Option<CatalogWrite>> {
        if !self.is_dirty() && !force_base {
            return Ok(None);
        }
        // Deltas of new notes replace nothing: a vault that grows (a first index, persisted as
        // it goes) is written as deltas, not as a new base of every note each time they outgrow
        // a share of the last one.
        let superseded = self.superseded + self.dirty.values().filter(|held| **held).count();
        let want_base = force_base
            || self.base_bytes == 0
            || self.deltas >= COMPACT_FILES
            || superseded as f64 > (self.notes.len() + superseded) as f64 * COMPACT_SHARE;
        let file = if want_base {
            CatalogFileRef {
                base: true,
                upserts: self.notes.values().collect(),
                removes: Vec::new(),
                access: self.access.iter().map(|(p, a)| (p, *a)).collect(),
            }
        } else {
            let mut f = CatalogFileRef { base: false, upserts: Vec::new(), removes: Vec::new(), access: Vec::new() };
            for p in self.dirty.keys() {
                match self.notes.get(p) {
                    Some(e) => f.upserts.push(e),
                    None => f.removes.push(p),
                }
            }
            f.access = self
                .access_dirty
                .iter()
                .chain(self.dirty.keys())
                .filter_map(|p| self.access.get(p).map(|a| (p, *a)))
                .collect();
            f
        };
        // Encoded into a buffer of its exact size: grown by doubling, it held up to twice a
        // base's bytes, and its old block beside the new one at each step.
        let fail = |e: postcard::Error| CoreError::Internal(format!("catalog encode: {e}"));
        let size = postcard::serialize_with_flavor(&file, postcard::ser_flavors::Size::default()).map_err(fail)?;
        let mut bytes = vec![0; size];
        let used = postcard::to_slice(&file, &mut bytes).map_err(fail)?.len();
        bytes.truncate(used);
        self.account(bytes.len(), want_base);
        self.superseded = if want_base { 0 } else { superseded };
        self.dirty.clear();
        self.access_dirty.clear();
        Ok(Some(CatalogWrite { bytes, is_base: want_base }))
    }

    /// Tracks the files that decide, with the superseded entries, when the next write is a base.
    fn account(&mut self, bytes: usize, base: bool) {
        if base {
            self.base_bytes = bytes as u64;
            self.deltas = 0;
        } else {
            self.deltas += 1;
        }
    }

    /// Rebuilds the catalog from a base file and its deltas, in order.
    pub fn load(files: &[&[u8]]) -> Result<Catalog> {
        let mut c = Catalog::default();
        for (i, bytes) in files.iter().enumerate() {
            let f: CatalogFile =
                postcard::from_bytes(bytes).map_err(|e| CoreError::Corrupt(format!("catalog file {i}: {e}")))?;
            if i == 0 && !f.base {
                return Err(CoreError::Corrupt("catalog does not start with a base".into()));
            }
            if f.base {
                c.notes.clear();
                c.access.clear();
                c.superseded = 0;
            }
            c.account(bytes.len(), f.base);
            for p in f.removes {
                c.superseded += usize::from(c.notes.remove(&p).is_some());
                c.access.remove(&p);
            }
            for e in f.upserts {
                c.superseded += usize::from(c.notes.insert(e.path.clone(), e).is_some());
            }
            for (p, a) in f.access {
                if c.notes.contains_key(&p) {
                    c.access.insert(p, a);
                }
            }
        }
        for n in c.notes.values() {
            check_section_order(n)?;
        }
        let langs: Vec<String> = c.notes.values().map(|n| n.lang.clone()).collect();
        for l in langs {
            c.count_languages(&l, 1);
        }
        Ok(c)
    }
}

/// A note's sections in pre-order, as the engine walks them: each at its position, its parent
/// before it, so every walk up the tree ends. A damaged catalog that breaks this (a parent
/// chain that loops) is corrupt.
fn check_section_order(n: &NoteEntry) -> Result<()> {
    for (i, s) in n.sections.iter().enumerate() {
        if s.order as usize != i || s.parent.is_some_and(|p| p >= s.order) {
            return Err(CoreError::Corrupt(format!("catalog: {}: section {i} out of order", n.path)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
