//! The lexical query path and the snippet renderer: any query text (every operator, unbalanced
//! quotes and parentheses, field syntax, CJK) over the fixture vault must answer or give an
//! error, never panic.
#![no_main]

use std::cell::RefCell;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use strata_core::api::{NoteInput, NoteTexts, SearchMode, SearchRequest, SnippetHit, SnippetRequest, UpdateBatch};
use strata_core::{CoreConfig, Engine};

fn walk(dir: &Path, root: &Path, out: &mut Vec<NoteInput>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            let path = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push(NoteInput { path, bytes: std::fs::read(&p).unwrap(), mtime: 0.0, ctime: None });
        }
    }
}

struct Fixture {
    engine: Engine,
    notes: Vec<NoteInput>,
}

thread_local! {
    static FIXTURE: RefCell<Option<Fixture>> = const { RefCell::new(None) };
}

fuzz_target!(|data: &[u8]| {
    FIXTURE.with_borrow_mut(|f| search(f, data));
});

fn search(f: &mut Option<Fixture>, data: &[u8]) {
    let f = f.get_or_insert_with(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/vault");
        let mut notes = Vec::new();
        walk(&root, &root, &mut notes);
        let mut engine = Engine::create(CoreConfig::default()).unwrap();
        engine.update(UpdateBatch { upserts: notes.clone(), ..Default::default() }).unwrap();
        Fixture { engine, notes }
    });
    let query = String::from_utf8_lossy(data).into_owned();
    let req =
        SearchRequest { query: query.clone(), k: Some(20), mode: Some(SearchMode::Lexical), ..Default::default() };
    let Ok(r) = f.engine.search(&req) else { return };
    let texts: NoteTexts = f
        .notes
        .iter()
        .filter(|n| r.hits.iter().any(|h| h.path == n.path))
        .map(|n| (n.path.clone(), Some(serde_bytes::ByteBuf::from(n.bytes.clone()))))
        .collect();
    let hits = r.hits.iter().map(|h| SnippetHit { path: h.path.clone(), section_id: h.section_id.clone() }).collect();
    let _ = f.engine.snippets(&SnippetRequest { query, queries: None, hits, texts });
}
