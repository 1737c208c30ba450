//! Code through the engine: source files chunked into definitions (the native chunker,
//! feature `code`), found by what they do and by their names, filtered by language and kind,
//! read by symbol; large fenced blocks of notes; only the edited definition re-embedded.

use super::*;

fn file(path: &str, text: &str) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime: 1000.0, ctime: None }
}

fn engine_with(files: &[NoteInput]) -> (Engine, UpdateReport) {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    let report = e.update(UpdateBatch { upserts: files.to_vec(), commit: true, ..Default::default() }).unwrap();
    (e, report)
}

fn search(e: &mut Engine, q: &str, filters: Option<SearchFilters>) -> Vec<Hit> {
    let req =
        SearchRequest { query: q.into(), k: Some(5), mode: Some(SearchMode::Lexical), filters, ..Default::default() };
    e.search(&req).unwrap().hits
}

const SESSION_PY: &str = r#""""Sessions: cookies and redirects."""
import os
from typing import Optional


class SessionRedirectMixin:
    """Follows redirects for a session."""

    max_redirects = 30

    def rebuild_auth(self, prepared_request, response):
        """Strips the Authorization header when a redirect leaves the original host."""
        headers = prepared_request.headers
        if "Authorization" in headers and self.should_strip_auth(response.url):
            del headers["Authorization"]

    def should_strip_auth(self, old_url, new_url=None):
        return old_url != new_url


def validate_user_token(token: str) -> bool:
    """Checks that a bearer token has not expired."""
    return bool(token) and not token.startswith("expired")
"#;

#[test]
fn code_files_are_skipped_in_dependency_folders_and_over_their_size_limit() {
    let big = format!("x = 1\n{}", "# filler line\n".repeat(100_000));
    let (e, report) = engine_with(&[
        file("node_modules/pkg/index.js", "module.exports = 1;\n"),
        file("src/big.py", &big),
        file("src/ok.py", "def f():\n    return 1\n"),
    ]);
    assert!(e.catalog.get("src/ok.py").is_some());
    assert!(e.catalog.get("node_modules/pkg/index.js").is_none());
    let reason = |p: &str| report.skipped.iter().find(|s| s.path == p).map(|s| s.reason.clone()).unwrap_or_default();
    assert!(reason("node_modules/pkg/index.js").contains("node_modules"), "{report:?}");
    assert!(reason("src/big.py").contains("maxCodeBytes"), "{report:?}");
}

#[test]
fn binary_code_files_are_skipped() {
    let (e, report) = engine_with(&[file("src/blob.c", "int x;\u{0}\u{0}\u{1}garbage")]);
    assert!(e.catalog.get("src/blob.c").is_none());
    assert!(report.skipped.iter().any(|s| s.path == "src/blob.c" && s.reason.contains("binary")), "{report:?}");
}

#[test]
fn without_syntax_a_code_file_is_one_section() {
    let mut e = Engine::create(CoreConfig { code_syntax: false, ..Default::default() }).unwrap();
    e.update(UpdateBatch { upserts: vec![file("src/session.py", SESSION_PY)], commit: true, ..Default::default() })
        .unwrap();
    let note = e.catalog.get("src/session.py").unwrap();
    assert_eq!(note.sections.len(), 1);
    assert_eq!(note.sections[0].embed_key, Some(crate::sections::embed_key(SESSION_PY.trim())));
    let hits = search(&mut e, "authorization header redirect", None);
    assert_eq!(hits.first().map(|h| h.path.as_str()), Some("src/session.py"));
}

#[cfg(feature = "code")]
mod syntax {
    use super::*;
    use crate::sections::Section;

    const STORE_TS: &str = r#"import { readFile } from "node:fs/promises";

    /** Keeps notes in memory, keyed by path. */
    export class NoteCache {
      private notes = new Map<string, string>();

      /** Drops every cached note whose path starts with the folder. */
      evictFolder(folder: string): number {
        let n = 0;
        for (const p of [...this.notes.keys()]) if (p.startsWith(folder)) { this.notes.delete(p); n++; }
        return n;
      }
    }

    export function parseFrontmatterDate(value: string): Date | undefined {
      const d = new Date(value);
      return Number.isNaN(d.getTime()) ? undefined : d;
    }
    "#;

    fn code_section<'a>(e: &'a Engine, path: &str, name: &str) -> &'a Section {
        let note = e.catalog.get(path).unwrap();
        note.sections.iter().find(|s| s.code.as_ref().is_some_and(|c| c.name == name)).unwrap_or_else(|| {
            panic!("{name} in {:?}", note.sections.iter().map(|s| &s.heading_path).collect::<Vec<_>>())
        })
    }

    #[test]
    fn definitions_are_sections_with_breadcrumbs() {
        let (e, report) = engine_with(&[file("src/auth/session.py", SESSION_PY), file("web/store.ts", STORE_TS)]);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let m = code_section(&e, "src/auth/session.py", "rebuild_auth");
        assert_eq!(m.heading_path, "SessionRedirectMixin > rebuild_auth");
        assert_eq!(m.depth, 2);
        assert_eq!(m.code.as_ref().unwrap().kind().name(), "method");
        assert!(m.code.as_ref().unwrap().signature.starts_with("def rebuild_auth("));
        let class = code_section(&e, "src/auth/session.py", "SessionRedirectMixin");
        assert_eq!(class.depth, 1);
        assert!(class.embed_key.is_some(), "a class with methods has its own vector (declaration and fields)");
        let note = e.catalog.get("src/auth/session.py").unwrap();
        assert_eq!(note.title, "session.py");
        // A definition's vector is made from its path, breadcrumb, kind, doc and signature.
        let embed = note.embed_text(SESSION_PY, class);
        assert_eq!(
            embed,
            "src/auth/session.py\nSessionRedirectMixin (class)\nFollows redirects for a session.\nclass SessionRedirectMixin:"
        );
        // The file's lead: its path, module doc and top-level definitions.
        let lead = note.lead_text(SESSION_PY);
        assert!(lead.starts_with("src/auth/session.py\n"), "{lead}");
        assert!(lead.ends_with("\nSessionRedirectMixin, validate_user_token"), "{lead}");
        assert!(!lead.contains("import os"), "{lead}");
        let method = note.embed_text(SESSION_PY, m);
        assert!(method.starts_with("src/auth/session.py\nSessionRedirectMixin > rebuild_auth (method)\n"), "{method}");
        assert!(method.ends_with("def rebuild_auth(self, prepared_request, response):"), "{method}");
        assert!(!method.contains("del headers"), "no body: {method}");
        let evict = code_section(&e, "web/store.ts", "evictFolder");
        assert_eq!(evict.heading_path, "NoteCache > evictFolder");
    }

    #[test]
    fn code_is_found_by_behaviour_and_by_name_with_its_definition() {
        let files = [
            file("src/auth/session.py", SESSION_PY),
            file("web/store.ts", STORE_TS),
            file("notes/Tokens.md", "# Tokens\n\nWe rotate tokens every month.\n"),
        ];
        let (mut e, _) = engine_with(&files);
        let q = "authorization header when a redirect leaves the host";
        let hits = search(&mut e, q, None);
        let h = &hits[0];
        assert_eq!(h.path, "src/auth/session.py");
        assert_eq!(h.heading_path, "SessionRedirectMixin > rebuild_auth");
        let code = h.code.as_ref().unwrap();
        assert_eq!((code.lang.as_str(), code.kind.as_str(), code.name.as_str()), ("python", "method", "rebuild_auth"));
        // The identifier split into words, and written whole in another style.
        let hits = search(&mut e, "evict folder", None);
        assert_eq!(hits[0].code.as_ref().map(|c| c.name.as_str()), Some("evictFolder"));
        // Highlighted inside the identifier: the snippet is analysed as code.
        let snippet = super::super::snippets(&e, "evict folder", &hits[..1], &files).remove(0).unwrap();
        let words: Vec<String> = snippet
            .highlights
            .iter()
            .map(|(a, b)| {
                String::from_utf16_lossy(&snippet.text.encode_utf16().collect::<Vec<_>>()[*a as usize..*b as usize])
            })
            .collect();
        assert!(words.iter().any(|w| w.to_lowercase().contains("evict")), "{words:?} in {snippet:?}");
        let hits = search(&mut e, "validateUserToken", None);
        assert_eq!(hits[0].code.as_ref().map(|c| c.name.as_str()), Some("validate_user_token"));
        let hits = search(&mut e, "parse_frontmatter_date", None);
        assert_eq!(hits[0].code.as_ref().map(|c| c.name.as_str()), Some("parseFrontmatterDate"));
        assert!(search(&mut e, "tokens", None).iter().any(|h| h.path == "notes/Tokens.md"));
    }

    #[test]
    fn language_and_kind_filters() {
        let (mut e, _) = engine_with(&[
            file("src/auth/session.py", SESSION_PY),
            file("web/store.ts", STORE_TS),
            file("notes/Cache.md", "# Cache\n\nThe note cache evicts a folder at once.\n"),
        ]);
        let f = |lang: Option<&str>, kind: Option<&str>| {
            Some(SearchFilters { lang: lang.map(Into::into), kind: kind.map(Into::into), ..Default::default() })
        };
        let ts = search(&mut e, "cache folder", f(Some("ts"), None));
        assert!(!ts.is_empty() && ts.iter().all(|h| h.path == "web/store.ts"), "{ts:?}");
        let classes = search(&mut e, "cache", f(None, Some("class")));
        assert!(classes.iter().all(|h| h.code.as_ref().is_some_and(|c| c.kind == "class")), "{classes:?}");
        assert_eq!(classes[0].code.as_ref().unwrap().name, "NoteCache");
        let words = search(&mut e, "token lang:python kind:function", None);
        assert_eq!(words[0].code.as_ref().map(|c| c.name.as_str()), Some("validate_user_token"));
        let bad = SearchRequest { query: "x lang:cobol".into(), ..Default::default() };
        assert!(e.search(&bad).is_err());
    }

    #[test]
    fn read_by_symbol_gives_the_definition_with_context_and_imports() {
        let (e, _) = engine_with(&[file("src/auth/session.py", SESSION_PY)]);
        let read = |symbol: &str| {
            e.read(&ReadRequest {
                path: "src/auth/session.py".into(),
                symbol: Some(symbol.into()),
                bytes: Some(SESSION_PY.as_bytes().to_vec()),
                ..Default::default()
            })
        };
        let r = read("SessionRedirectMixin.rebuild_auth").unwrap();
        assert!(r.text.contains("def rebuild_auth"), "{}", r.text);
        assert!(!r.text.contains("def validate_user_token"));
        assert_eq!(r.code.as_ref().unwrap().kind, "method");
        assert!(r.imports.as_deref().unwrap().contains("from typing import Optional"));
        let sec = code_section(&e, "src/auth/session.py", "rebuild_auth");
        assert!(r.start_line < sec.start_line && r.end_line > sec.end_line, "context lines around it");
        assert_eq!(r.section_id, Some(section_id("src/auth/session.py", sec.order)));
        assert_eq!(read("validate_user_token").unwrap().code.unwrap().kind, "function");
        assert_eq!(read("sessionredirectmixin::rebuild_auth").unwrap().code.unwrap().name, "rebuild_auth");
        let err = read("no_such_thing").unwrap_err().to_string();
        assert!(err.contains("rebuild_auth"), "lists the definitions: {err}");
    }

    #[test]
    fn an_edit_to_one_function_changes_only_its_keys() {
        let (mut e, _) = engine_with(&[file("src/auth/session.py", SESSION_PY)]);
        let keys = |e: &Engine| -> Vec<(String, Option<[u8; 32]>)> {
            let n = e.catalog.get("src/auth/session.py").unwrap();
            n.sections.iter().map(|s| (s.heading_path.clone(), s.embed_key)).collect()
        };
        let mut edit = |from: &str, to: &str| {
            let before = keys(&e);
            e.update(UpdateBatch {
                upserts: vec![file("src/auth/session.py", &SESSION_PY.replace(from, to))],
                commit: true,
                ..Default::default()
            })
            .unwrap();
            let after = keys(&e);
            assert_eq!(before.len(), after.len());
            before.iter().zip(&after).filter(|(a, b)| a.1 != b.1).map(|(a, _)| a.0.clone()).collect::<Vec<_>>()
        };
        // A definition is embedded by its description: its body can change without a new vector.
        let changed = edit("return old_url != new_url", "return old_url.host != new_url.host");
        assert!(changed.is_empty(), "{changed:?}");
        let changed = edit(
            "def should_strip_auth(self, old_url, new_url=None):",
            "def should_strip_auth(self, old_url, new_url):",
        );
        assert_eq!(changed, ["SessionRedirectMixin > should_strip_auth"]);
    }

    #[test]
    fn large_fenced_blocks_of_notes_are_chunked_small_ones_stay() {
        let mut body = String::from("class Exporter:\n    \"\"\"Writes notes to PDF.\"\"\"\n\n");
        for i in 0..40 {
            body.push_str(&format!(
                "    def export_page_{i}(self, page):\n        \"\"\"Renders page {i} with margins and a header.\"\"\"\n        return self.render(page, margin={i}, header=True)\n\n"
            ));
        }
        let note = format!(
            "# Export\n\nHow the exporter works.\n\n```python\n{body}```\n\nAfter the block.\n\n## Small\n\n```python\ndef tiny():\n    pass\n```\n"
        );
        let (mut e, report) = engine_with(&[file("notes/Export.md", &note)]);
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let n = e.catalog.get("notes/Export.md").unwrap();
        let m = n.sections.iter().find(|s| s.code.as_ref().is_some_and(|c| c.name == "export_page_7")).unwrap();
        // Under the note's section that holds the block (here the whole note: its "Small" part
        // is merged into it).
        assert_eq!(m.heading_path, "Exporter > export_page_7");
        let holder = &n.sections[n.sections[m.parent.unwrap() as usize].parent.unwrap() as usize];
        assert!(holder.code.is_none() && holder.start_line <= 5 && holder.end_line >= 50);
        assert!(n.sections.iter().all(|s| s.code.as_ref().is_none_or(|c| c.name != "tiny")));
        let hits = search(&mut e, "export_page_7", None);
        assert_eq!(hits[0].code.as_ref().map(|c| c.name.as_str()), Some("export_page_7"));
        // The prose around the block is still the section's.
        let hits = search(&mut e, "after the block", None);
        assert!(hits[0].code.is_none(), "{:?}", hits[0]);
    }

    #[test]
    fn fenced_blocks_wait_for_the_chunker_and_are_chunked_when_passed_again() {
        let mut body = String::from("def helper():\n    return 0\n\n");
        for i in 0..60 {
            body.push_str(&format!(
                "def step_{i}(x):\n    \"\"\"Step {i} of the pipeline.\"\"\"\n    return x + {i}\n\n"
            ));
        }
        let note = file("notes/Pipeline.md", &format!("# Pipeline\n\n```python\n{body}```\n"));
        let mut e = Engine::create(CoreConfig::default()).unwrap();
        crate::code_sections::tests::CHUNKER_OFF.set(true);
        let r = e.update(UpdateBatch { upserts: vec![note.clone()], commit: true, ..Default::default() }).unwrap();
        crate::code_sections::tests::CHUNKER_OFF.set(false);
        assert_eq!(r.code_chunker_needed, ["notes/Pipeline.md"]);
        assert!(r.warnings.is_empty(), "no warning: the host loads the chunker and passes the note again");
        let n = e.catalog.get("notes/Pipeline.md").unwrap();
        assert!(n.sections.iter().all(|s| s.code.is_none()), "the block stays whole meanwhile");
        // Passed again, unchanged, with the chunker: indexed again, its block chunked.
        let r = e.update(UpdateBatch { upserts: vec![note.clone()], commit: true, ..Default::default() }).unwrap();
        assert!(r.code_chunker_needed.is_empty() && r.updated == 1, "{r:?}");
        let n = e.catalog.get("notes/Pipeline.md").unwrap();
        assert!(n.sections.iter().any(|s| s.code.as_ref().is_some_and(|c| c.name == "step_42")));
        // And then it is unchanged as usual.
        let r = e.update(UpdateBatch { upserts: vec![note], commit: true, ..Default::default() }).unwrap();
        assert_eq!(r.unchanged, 1);
    }

    #[test]
    fn syntax_errors_are_reported_and_the_rest_is_indexed() {
        let broken = "def good():\n    return 1\n\ndef broken(:\n    return (\n\ndef also_good():\n    return 2\n";
        let (mut e, report) = engine_with(&[file("src/broken.py", broken)]);
        assert!(
            report.warnings.iter().any(|w| w.path == "src/broken.py" && w.message.contains("syntax-error")),
            "{report:?}"
        );
        assert!(search(&mut e, "also_good", None).first().is_some_and(|h| h.path == "src/broken.py"));
    }
}
