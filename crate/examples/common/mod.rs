//! What the examples share: the vault's Markdown files, read from disk.

use std::path::Path;

/// The `.md` files under `dir` (hidden entries skipped) as (vault-relative path, bytes).
#[allow(dead_code)]
pub fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    walk_with(dir, root, &|name| name.ends_with(".md"), out)
}

/// The files under `dir` whose name `wanted` accepts (hidden entries skipped).
pub fn walk_with(dir: &Path, root: &Path, wanted: &dyn Fn(&str) -> bool, out: &mut Vec<(String, Vec<u8>)>) {
    let mut paths = Vec::new();
    paths_with(dir, root, wanted, &mut paths);
    out.extend(paths.into_iter().map(|rel| {
        let bytes = std::fs::read(root.join(&rel)).unwrap_or_default();
        (rel, bytes)
    }));
}

/// The vault-relative paths of the files under `dir` whose name `wanted` accepts (hidden entries
/// skipped), none of them read.
#[allow(dead_code)]
pub fn paths_with(dir: &Path, root: &Path, wanted: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with('.') {
            continue;
        }
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            paths_with(&p, root, wanted, out);
        } else if ft.is_file() && wanted(&name) {
            out.push(p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The files of an index folder (every file under it, hidden ones skipped), named by their path
/// in it, as the hosts hand them to `Engine::open` (the device's folder, the shared vectors).
#[allow(dead_code)]
pub fn index_files(dir: &Path) -> Vec<strata_core::api::IndexFile> {
    let mut read = Vec::new();
    walk_with(dir, dir, &|_| true, &mut read);
    read.into_iter().map(|(name, bytes)| strata_core::api::IndexFile { name, bytes }).collect()
}
