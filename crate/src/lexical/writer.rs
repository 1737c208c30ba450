//! A thread-free commit layer over tantivy.
//!
//! tantivy's `IndexWriter` cannot run on wasm32 (`index.writer(..)` fails with "the
//! number of hardware threads is not known for the target platform";
//! `writer_with_num_threads(1, ..)` with "Failed to spawn segment updater thread").
//! This layer does what the writer does, synchronously:
//! - added documents go to a `SegmentWriter`; each commit finalises one new segment
//!   (more only when a batch exceeds the memory budget);
//! - deletes (by note path) become alive-bitset `.del` files on the older segments;
//! - a tiered merge policy (`merge_filtered_segments`) folds small segments together
//!   and rewrites segments with many deleted documents;
//! - `meta.json` is replaced last and the reader (`ReloadPolicy::Manual`) reloaded.
//!
//! All files live in a [`MemDir`]; [`super::Lexical`] exports the raw bytes (with tantivy's
//! footer) for persistence and loads them back on open.

use std::collections::HashSet;
use std::path::PathBuf;

use tantivy::directory::TerminatingWrite;
use tantivy::fastfield::write_alive_bitset;
use tantivy::index::{IndexSettings, SegmentComponent, SegmentMeta};
use tantivy::indexer::{merge_filtered_segments, AddOperation, SegmentWriter};
use tantivy::schema::IndexRecordOption;
use tantivy::{BitSet, DocSet, Index, IndexMeta, Segment, Term, TERMINATED};

use super::memdir::MemDir;
use super::schema::SectionDocument;
use crate::error::{CoreError, Result};

/// Memory budget of one segment writer before it is finalised into a segment.
pub const SEGMENT_MEMORY_BUDGET: usize = 48 * 1024 * 1024;
/// A tier (segments within a factor of `TIER_FACTOR` in size) is merged at this count.
pub const MERGE_AT_TIER_COUNT: usize = 8;
pub const TIER_FACTOR: f64 = 8.0;
/// A segment whose deleted share exceeds this is rewritten without its dead documents.
pub const MAX_DELETED_SHARE: f64 = 0.25;

pub fn index_settings() -> IndexSettings {
    IndexSettings { docstore_compress_dedicated_thread: false, ..IndexSettings::default() }
}

/// Staged changes that the next [`Committer::commit`] applies.
#[derive(Default)]
pub struct Staged {
    writer: Option<(SegmentWriter, Segment)>,
    segments: Vec<SegmentMeta>,
    pub paths: HashSet<String>,
    pub deletes: HashSet<String>,
}

impl Staged {
    pub fn is_empty(&self) -> bool {
        self.writer.is_none() && self.segments.is_empty() && self.deletes.is_empty()
    }
}

pub struct Committer<'a> {
    pub index: &'a Index,
    pub ram: &'a MemDir,
    pub path_field: tantivy::schema::Field,
}

impl Committer<'_> {
    pub fn add(&self, staged: &mut Staged, opstamp: u64, doc: SectionDocument) -> Result<()> {
        if staged.writer.is_none() {
            let segment = self.index.new_segment();
            let writer = SegmentWriter::for_segment(SEGMENT_MEMORY_BUDGET, segment.clone())?;
            staged.writer = Some((writer, segment));
        }
        let (writer, _) = staged.writer.as_mut().expect("writer just set");
        writer.add_document(AddOperation { opstamp, document: doc })?;
        if writer.mem_usage() >= SEGMENT_MEMORY_BUDGET {
            self.finish_writer(staged)?;
        }
        Ok(())
    }

    pub fn finish_writer(&self, staged: &mut Staged) -> Result<()> {
        if let Some((writer, segment)) = staged.writer.take() {
            let max_doc = writer.max_doc();
            writer.finalize()?;
            if max_doc > 0 {
                let meta = segment.with_max_doc(max_doc).meta().clone();
                meta.untrack_temp_docstore();
                staged.segments.push(meta);
            }
        }
        Ok(())
    }

    /// Applies staged adds and deletes on top of `segments`; returns the new segment list.
    pub fn apply(&self, segments: &[SegmentMeta], staged: &mut Staged, opstamp: u64) -> Result<Vec<SegmentMeta>> {
        self.finish_writer(staged)?;
        let mut out = Vec::with_capacity(segments.len() + staged.segments.len());
        for meta in segments {
            if staged.deletes.is_empty() {
                out.push(meta.clone());
                continue;
            }
            out.push(self.delete_in_segment(meta, &staged.deletes, opstamp)?);
        }
        out.append(&mut staged.segments);
        staged.deletes.clear();
        staged.paths.clear();
        Ok(out)
    }

    fn delete_in_segment(&self, meta: &SegmentMeta, paths: &HashSet<String>, opstamp: u64) -> Result<SegmentMeta> {
        let segment = self.index.segment(meta.clone());
        let reader = tantivy::SegmentReader::open(&segment)?;
        let max_doc = reader.max_doc();
        let mut alive = BitSet::with_max_value_and_full(max_doc);
        if let Some(a) = reader.alive_bitset() {
            for doc in 0..max_doc {
                if !a.is_alive(doc) {
                    alive.remove(doc);
                }
            }
        }
        let inverted = reader.inverted_index(self.path_field)?;
        let mut removed = 0u32;
        for path in paths {
            let term = Term::from_field_text(self.path_field, path);
            if let Some(mut postings) = inverted.read_postings(&term, IndexRecordOption::Basic)? {
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if alive.contains(doc) {
                        alive.remove(doc);
                        removed += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
        if removed == 0 {
            return Ok(meta.clone());
        }
        let num_deleted = max_doc - alive.len() as u32;
        let segment = segment.with_delete_meta(num_deleted, opstamp);
        let mut file = segment.open_write(SegmentComponent::Delete)?;
        write_alive_bitset(&alive, &mut file)?;
        file.terminate()?;
        let meta = segment.meta().clone();
        meta.untrack_temp_docstore();
        Ok(meta)
    }

    /// Groups of segments the merge policy wants merged (each group becomes one segment).
    pub fn merge_candidates(segments: &[SegmentMeta]) -> Vec<Vec<SegmentMeta>> {
        let mut groups = Vec::new();
        let mut rest = Vec::new();
        for s in segments {
            let share = s.num_deleted_docs() as f64 / s.max_doc().max(1) as f64;
            if share > MAX_DELETED_SHARE {
                groups.push(vec![s.clone()]);
            } else {
                rest.push(s.clone());
            }
        }
        let tier = |s: &SegmentMeta| {
            let alive = s.num_docs().max(1) as f64;
            (alive.ln() / TIER_FACTOR.ln()).floor() as i64
        };
        let mut tiers: std::collections::BTreeMap<i64, Vec<SegmentMeta>> = Default::default();
        for s in rest {
            tiers.entry(tier(&s)).or_default().push(s);
        }
        for (_, group) in tiers {
            if group.len() >= MERGE_AT_TIER_COUNT {
                groups.push(group);
            }
        }
        groups
    }

    /// Merges `group` into one new segment (dropping deleted documents) and returns its
    /// meta. The merged segment is written among this index's files (`MemDir::merge_view`);
    /// when the merge fails, what it wrote is deleted.
    pub fn merge(&self, group: &[SegmentMeta]) -> Result<Option<SegmentMeta>> {
        let segments: Vec<Segment> = group.iter().map(|m| self.index.segment(m.clone())).collect();
        let mut alive = Vec::with_capacity(segments.len());
        let mut total_alive = 0u32;
        for s in &segments {
            let r = tantivy::SegmentReader::open(s)?;
            total_alive += r.num_docs();
            alive.push(r.alive_bitset().cloned());
        }
        if total_alive == 0 {
            return Ok(None);
        }
        let view = self.ram.merge_view();
        let merged = merge_filtered_segments(&segments, self.index.settings().clone(), alive, view.clone())
            .map_err(CoreError::from)
            .and_then(|merged| {
                let metas = merged.load_metas()?;
                let seg =
                    metas.segments.first().ok_or_else(|| CoreError::Internal("merge produced no segment".into()))?;
                Ok((seg.id(), seg.max_doc()))
            });
        match merged {
            Ok((id, max_doc)) => {
                let meta = self.index.new_segment_meta(id, max_doc);
                meta.untrack_temp_docstore();
                Ok(Some(meta))
            }
            Err(e) => {
                use tantivy::Directory;
                for p in view.created() {
                    let _ = self.ram.delete(&p);
                }
                Err(e)
            }
        }
    }
}

pub fn read_raw(dir: &MemDir, path: &std::path::Path) -> Result<Vec<u8>> {
    use tantivy::Directory;
    let slice = dir.open_read(path)?;
    Ok(slice.read_bytes()?.as_slice().to_vec())
}

fn index_meta(index: &Index, segments: Vec<SegmentMeta>, opstamp: u64) -> IndexMeta {
    IndexMeta {
        index_settings: index.settings().clone(),
        persisted_custom_extensions: Vec::new(),
        segments,
        schema: index.schema(),
        opstamp,
        payload: None,
    }
}

/// Serialises the index meta for `segments`, as tantivy's own `meta.json`.
pub fn meta_json(index: &Index, segments: Vec<SegmentMeta>, opstamp: u64) -> Result<String> {
    serde_json::to_string(&index_meta(index, segments, opstamp))
        .map_err(|e| CoreError::Internal(format!("meta.json: {e}")))
}

/// Files of the given segments (relative paths inside the directory). tantivy's list
/// is a superset meant for garbage collection (it names a `.del` file for every
/// segment and the temporary store); keep only the files that exist.
pub fn segment_files(index: &Index, dir: &MemDir, segments: &[SegmentMeta]) -> HashSet<PathBuf> {
    use tantivy::Directory;
    index_meta(index, segments.to_vec(), 0)
        .list_segment_files()
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".temp"))
        .filter(|p| dir.exists(p).unwrap_or(false))
        .collect()
}
