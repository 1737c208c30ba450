//! Shared by the chunker's tests: fixtures, a one-line description of each chunk, and the
//! layout invariants every chunked file keeps.

#![allow(dead_code)]

use strata_chunker::{chunk, CodeFile, CodeLang};

pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Chunks a fixture (checking the invariants) at `budget` tokens.
pub fn chunk_fixture(name: &str, lang: CodeLang, budget: usize) -> (String, CodeFile) {
    let text = fixture(name);
    let file = chunk(lang, &text, budget);
    check_layout(&text, &file);
    (text, file)
}

/// "kind name <parent in container start-end ERR" per chunk.
pub fn describe(file: &CodeFile) -> Vec<String> {
    file.chunks
        .iter()
        .map(|c| {
            let mut s = format!("{} {}", c.kind.name(), c.name);
            if let Some(p) = c.parent {
                s += &format!(" <{}", file.chunks[p as usize].name);
            }
            if !c.container.is_empty() {
                s += &format!(" in {}", c.container);
            }
            s += &format!(" {}-{}", c.start_line, c.end_line);
            if c.has_syntax_errors {
                s += " ERR";
            }
            s
        })
        .collect()
}

/// The chunk named `name` (the first one).
pub fn named<'a>(file: &'a CodeFile, name: &str) -> &'a strata_chunker::Chunk {
    file.chunks.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no chunk {name}"))
}

/// Top-level chunks cover every non-blank line exactly once; children lie inside their parent,
/// come after it (pre-order) and do not overlap their siblings; lines are in the file.
pub fn check_layout(text: &str, file: &CodeFile) {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len() as u32;
    let mut cover = vec![0u32; lines.len() + 2];
    let mut last_end: Vec<Option<u32>> = vec![None; file.chunks.len() + 1];
    for (i, c) in file.chunks.iter().enumerate() {
        assert!(c.start_line >= 1 && c.start_line <= c.end_line && c.end_line <= n, "chunk {i} {c:?} outside 1..={n}");
        let slot = match c.parent {
            None => {
                for l in c.start_line..=c.end_line {
                    cover[l as usize] += 1;
                }
                file.chunks.len()
            }
            Some(p) => {
                let p = p as usize;
                assert!(p < i, "chunk {i}: parent {p} comes after it");
                let parent = &file.chunks[p];
                assert!(
                    parent.start_line <= c.start_line && c.end_line <= parent.end_line,
                    "chunk {i} {c:?} outside its parent {parent:?}"
                );
                p
            }
        };
        if let Some(e) = last_end[slot] {
            assert!(c.start_line > e, "chunk {i} {c:?} overlaps its previous sibling (ending {e})");
        }
        last_end[slot] = Some(c.end_line);
        last_end[i] = None;
    }
    for (i, line) in lines.iter().enumerate() {
        let l = i + 1;
        if line.trim().is_empty() {
            assert!(cover[l] <= 1, "line {l} covered {} times", cover[l]);
        } else {
            assert_eq!(cover[l], 1, "line {l} {line:?} covered {} times", cover[l]);
        }
    }
}

/// A file's chunks from the language of its name.
pub fn lang_of(name: &str) -> CodeLang {
    CodeLang::from_extension(name.rsplit('.').next().unwrap()).unwrap()
}
