//! Vault-relative paths: validation (hostile paths never reach the index), the
//! indexing policy (extensions, hidden and excluded folders) and folder helpers.

use crate::config::CoreConfig;
use crate::error::{CoreError, Result};

/// Validates a vault-relative path and returns it in canonical form ("/"-separated,
/// no "." segments). Refuses absolute paths, "..", empty segments and control chars.
pub fn normalize(path: &str) -> Result<String> {
    let p = path.replace('\\', "/");
    if p.is_empty() {
        return Err(CoreError::BadRequest("empty path".into()));
    }
    if p.starts_with('/') || p.as_bytes().get(1) == Some(&b':') {
        return Err(CoreError::BadRequest(format!("absolute paths are not allowed: {path}")));
    }
    if p.chars().any(|c| c.is_control()) {
        return Err(CoreError::BadRequest(format!("path contains control characters: {path:?}")));
    }
    let mut parts = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => continue,
            ".." => return Err(CoreError::BadRequest(format!("paths may not leave the vault (\"..\"): {path}"))),
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return Err(CoreError::BadRequest(format!("not a file path: {path}")));
    }
    Ok(parts.join("/"))
}

/// Why a path is not indexed, or `None` when it is.
pub fn exclusion_reason(path: &str, config: &CoreConfig) -> Option<String> {
    let p = match normalize(path) {
        Ok(p) => p,
        Err(e) => return Some(e.message().to_string()),
    };
    let segments: Vec<&str> = p.split('/').collect();
    if segments.iter().any(|s| s.starts_with('.')) {
        return Some("hidden file or folder".into());
    }
    let config_dir = config.config_dir.trim_matches('/');
    if !config_dir.is_empty() && in_folder(&p, config_dir) {
        return Some("Obsidian config folder".into());
    }
    for folder in &config.exclude_folders {
        let f = folder.trim_matches('/');
        if !f.is_empty() && in_folder(&p, f) {
            return Some(format!("excluded folder {f}"));
        }
    }
    if code_language(&p, config).is_some() {
        let folders = &segments[..segments.len() - 1];
        for f in &config.code_exclude_folders {
            let f = f.trim_matches('/');
            let skipped =
                if f.contains('/') { in_folder(&p, f) } else { folders.iter().any(|s| s.eq_ignore_ascii_case(f)) };
            if !f.is_empty() && skipped {
                return Some(format!("code in skipped folder {f}"));
            }
        }
        return None;
    }
    let ext = extension(&p).to_ascii_lowercase();
    if !config.extensions.iter().any(|e| e.trim_start_matches('.').eq_ignore_ascii_case(&ext)) {
        return Some("not an indexed extension".into());
    }
    None
}

/// The language a path is indexed in as code, or `None` for notes and unindexed files. A code
/// extension is code even when it is also listed among the note extensions: a Python comment is
/// not a Markdown heading.
pub fn code_language(path: &str, config: &CoreConfig) -> Option<strata_chunker::CodeLang> {
    if !config.code_enabled {
        return None;
    }
    let ext = extension(path);
    if !config.code_extensions.iter().any(|e| e.trim_start_matches('.').eq_ignore_ascii_case(ext)) {
        return None;
    }
    strata_chunker::CodeLang::from_extension(ext)
}

pub fn should_index(path: &str, config: &CoreConfig) -> bool {
    exclusion_reason(path, config).is_none()
}

/// True when `path` lies inside `folder` (whole segments: "a/b" is in "a", "ab/c" is not).
pub fn in_folder(path: &str, folder: &str) -> bool {
    let folder = folder.trim_matches('/');
    folder.is_empty()
        || (path.len() > folder.len() && path.starts_with(folder) && path.as_bytes()[folder.len()] == b'/')
}

pub fn extension(path: &str) -> &str {
    let name = file_name(path);
    match name.rfind('.') {
        Some(i) if i > 0 => &name[i + 1..],
        _ => "",
    }
}

pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// File name without its extension: the title of a note without a title or H1.
pub fn stem(path: &str) -> &str {
    let name = file_name(path);
    match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}

/// Folder of a path ("" at the vault root).
pub fn folder(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// Every folder prefix of a path: "a/b/c.md" → ["a", "a/b"]. Indexed for folder filters.
pub fn folder_prefixes(path: &str) -> Vec<String> {
    let f = folder(path);
    if f.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut acc = String::new();
    for seg in f.split('/') {
        if !acc.is_empty() {
            acc.push('/');
        }
        acc.push_str(seg);
        out.push(acc.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_paths_are_refused() {
        for bad in ["../x.md", "a/../../x.md", "/etc/passwd", "C:/x.md", "", "a/\u{0}b.md"] {
            assert!(normalize(bad).is_err(), "{bad:?}");
        }
        assert_eq!(normalize("./a//b\\c.md").unwrap(), "a/b/c.md");
    }

    #[test]
    fn code_files_follow_the_code_settings() {
        let c = CoreConfig::default();
        assert!(should_index("src/app.py", &c));
        assert!(should_index("src/App.TSX", &c));
        assert!(should_index("package.json", &c));
        assert!(!should_index("web/node_modules/left-pad/index.js", &c));
        assert!(!should_index("crate/target/debug/build.rs", &c));
        assert!(should_index("notes/node_modules.md", &c));
        assert!(should_index("node_modules/notes/readme.md", &c), "only code is skipped in code folders");
        assert!(!should_index("src/app.rb", &c));
        assert_eq!(code_language("a/b.rs", &c), Some(strata_chunker::CodeLang::Rust));
        let off = CoreConfig { code_enabled: false, ..Default::default() };
        assert!(!should_index("src/app.py", &off));
        assert_eq!(code_language("a/b.rs", &off), None);
        let md_too = CoreConfig { extensions: vec!["md".into(), "py".into()], ..Default::default() };
        assert_eq!(code_language("a.py", &md_too), Some(strata_chunker::CodeLang::Python));
        let nested = CoreConfig { code_exclude_folders: vec!["web/gen".into()], ..Default::default() };
        assert!(!should_index("web/gen/x.ts", &nested));
        assert!(should_index("gen/x.ts", &nested));
    }

    #[test]
    fn policy_skips_hidden_config_and_other_extensions() {
        let c = CoreConfig { exclude_folders: vec!["Archive".into()], ..Default::default() };
        assert!(should_index("Notes/a.md", &c));
        assert!(should_index("Notes/A.MD", &c));
        assert!(!should_index(".obsidian/plugins/x.md", &c));
        assert!(!should_index(".trash/a.md", &c));
        assert!(!should_index("x/.git/a.md", &c));
        assert!(!should_index("Archive/old.md", &c));
        assert!(should_index("Archived/new.md", &c));
        assert!(!should_index("img.png", &c));
        assert!(!should_index("../escape.md", &c));
    }

    #[test]
    fn folder_helpers() {
        assert_eq!(folder_prefixes("a/b/c.md"), vec!["a", "a/b"]);
        assert!(folder_prefixes("c.md").is_empty());
        assert_eq!(stem("a/Note.v2.md"), "Note.v2");
        assert!(in_folder("a/b.md", "a"));
        assert!(!in_folder("ab/b.md", "a"));
    }
}
