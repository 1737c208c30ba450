//! The lexical index's files in memory: what tantivy's `RamDirectory` does, without its copies.
//!
//! `RamDirectory` copies every file it is given (`atomic_write` takes a slice), so an open held
//! each segment file twice while it moved in, and a merge, written into a directory of its own
//! (tantivy's `merge_filtered_segments` creates an index there), was copied twice more into the
//! index's: at 100k notes a first index merges segments of a few hundred MB. Here an open moves
//! the files in, and a merge writes its segment straight into the index's files through a view
//! ([`MemDir::merge_view`]) whose `meta.json` and tantivy's dot files (`.managed.json`, locks)
//! are its own.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, FileHandle, FileSlice, TerminatingWrite, WatchCallback, WatchCallbackList, WatchHandle, WritePtr,
};
use tantivy::Directory;

type Files = Arc<RwLock<HashMap<PathBuf, FileSlice>>>;

#[derive(Clone, Default)]
pub struct MemDir {
    /// The segment files.
    shared: Files,
    /// `meta.json` and the dot files: this view's own.
    own: Files,
    watchers: Arc<WatchCallbackList>,
    /// Files created through this view, in order.
    created: Arc<Mutex<Vec<PathBuf>>>,
}

impl std::fmt::Debug for MemDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemDir")
    }
}

fn is_own(path: &Path) -> bool {
    path == Path::new("meta.json") || path.to_string_lossy().starts_with('.')
}

impl MemDir {
    /// A view of the same segment files with a `meta.json` and dot files of its own, for
    /// building a merged segment in place.
    pub fn merge_view(&self) -> MemDir {
        MemDir { shared: self.shared.clone(), ..MemDir::default() }
    }

    /// The files created through this view.
    pub fn created(&self) -> Vec<PathBuf> {
        self.created.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn files(&self, path: &Path) -> &Files {
        if is_own(path) {
            &self.own
        } else {
            &self.shared
        }
    }

    /// Adds a file, moving its bytes in.
    pub fn insert(&self, path: &Path, bytes: Vec<u8>) {
        self.files(path).write().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), FileSlice::from(bytes));
    }

    /// Bytes of the segment files.
    pub fn total_mem_usage(&self) -> usize {
        self.shared.read().unwrap_or_else(|e| e.into_inner()).values().map(|f| f.num_bytes().get_bytes() as usize).sum()
    }
}

impl Directory for MemDir {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(self.open_read(path)?))
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        let files = self.files(path).read().unwrap_or_else(|e| e.into_inner());
        files.get(path).cloned().ok_or_else(|| OpenReadError::FileDoesNotExist(path.to_path_buf()))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        let mut files = self.files(path).write().unwrap_or_else(|e| e.into_inner());
        files.remove(path).map(|_| ()).ok_or_else(|| DeleteError::FileDoesNotExist(path.to_path_buf()))
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.files(path).read().unwrap_or_else(|e| e.into_inner()).contains_key(path))
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        if self.exists(path).unwrap_or(false) {
            return Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()));
        }
        self.created.lock().unwrap_or_else(|e| e.into_inner()).push(path.to_path_buf());
        let writer = MemWriter { path: path.to_path_buf(), files: self.files(path).clone(), data: Vec::new() };
        Ok(BufWriter::new(Box::new(writer)))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let bytes = self
            .open_read(path)?
            .read_bytes()
            .map_err(|e| OpenReadError::IoError { io_error: Arc::new(e), filepath: path.to_path_buf() })?;
        Ok(bytes.as_slice().to_vec())
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.insert(path, data.to_vec());
        if path == Path::new("meta.json") {
            drop(self.watchers.broadcast());
        }
        Ok(())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(self.watchers.subscribe(watch_callback))
    }
}

/// A file being written: its bytes join the directory when it is terminated.
struct MemWriter {
    path: PathBuf,
    files: Files,
    data: Vec<u8>,
}

impl Write for MemWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TerminatingWrite for MemWriter {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        let mut data = std::mem::take(&mut self.data);
        data.shrink_to_fit();
        self.files.write().unwrap_or_else(|e| e.into_inner()).insert(self.path.clone(), FileSlice::from(data));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_view_shares_segment_files_but_not_meta_or_dot_files() {
        let dir = MemDir::default();
        dir.insert(Path::new("a.idx"), b"segment".to_vec());
        dir.atomic_write(Path::new("meta.json"), b"index").unwrap();
        dir.atomic_write(Path::new(".managed.json"), b"[]").unwrap();
        let view = dir.merge_view();
        assert!(!view.exists(Path::new("meta.json")).unwrap());
        assert!(!view.exists(Path::new(".managed.json")).unwrap());
        view.atomic_write(Path::new("meta.json"), b"merge").unwrap();
        let mut w = view.open_write(Path::new("b.idx")).unwrap();
        w.write_all(b"merged").unwrap();
        w.terminate().unwrap();
        assert_eq!(dir.atomic_read(Path::new("meta.json")).unwrap(), b"index");
        assert_eq!(dir.atomic_read(Path::new("b.idx")).unwrap(), b"merged");
        assert_eq!(view.atomic_read(Path::new("a.idx")).unwrap(), b"segment");
        assert_eq!(view.created(), vec![PathBuf::from("b.idx")]);
        assert!(dir.created().is_empty());
        assert!(view.open_write(Path::new("a.idx")).is_err(), "a file is written once");
        assert_eq!(dir.total_mem_usage(), "segment".len() + "merged".len());
        dir.delete(Path::new("a.idx")).unwrap();
        assert!(!view.exists(Path::new("a.idx")).unwrap());
    }
}
