//! A source file through the engine (feature `code`): arbitrary bytes upserted as a file of
//! one of the default code extensions, then searched by its definitions' names (with the
//! language and kind filters), read by symbol (each definition's name, its `Parent.name`, and a
//! symbol taken from the input), read whole, replaced by a shorter version and deleted. Nothing
//! may panic; the file is in the catalog exactly while it should be. One engine serves every
//! input (each leaves it empty again), as a plugin's engine lives through many edits.
//!
//! Input: the extension (first byte, modulo `DEFAULT_EXTENSIONS`), then the file's bytes.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use strata_chunker::{chunk, CodeLang, DEFAULT_EXTENSIONS};
use strata_core::api::{NoteInput, ReadRequest, SearchFilters, SearchMode, SearchRequest, UpdateBatch};
use strata_core::{CoreConfig, Engine};

fn upsert(e: &mut Engine, path: &str, bytes: &[u8]) {
    let note = NoteInput { path: path.into(), bytes: bytes.to_vec(), mtime: 1.0, ctime: None };
    e.update(UpdateBatch { upserts: vec![note], commit: true, ..Default::default() }).unwrap();
}

fn read_symbol(e: &Engine, path: &str, symbol: &str, bytes: &[u8]) {
    let req = ReadRequest {
        path: path.into(),
        symbol: Some(symbol.into()),
        bytes: Some(bytes.to_vec()),
        max_chars: Some(2000),
        ..Default::default()
    };
    let _ = e.read(&req);
}

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

fuzz_target!(|data: &[u8]| {
    ENGINE.with_borrow_mut(|e| run(e.get_or_insert_with(|| Engine::create(CoreConfig::default()).unwrap()), data));
});

fn run(e: &mut Engine, data: &[u8]) {
    let Some((&ext, bytes)) = data.split_first() else { return };
    let ext = DEFAULT_EXTENSIONS[ext as usize % DEFAULT_EXTENSIONS.len()];
    let lang = CodeLang::from_extension(ext).unwrap();
    let path = format!("src/fuzz.{ext}");
    let budget = CoreConfig::default().chunk_budget;
    upsert(e, &path, bytes);
    let Some(info) = e.note(&path) else { return };

    let text = String::from_utf8_lossy(bytes);
    let file = chunk(lang, &text, budget);
    let mut symbols: Vec<String> = Vec::new();
    for c in file.chunks.iter().filter(|c| !c.name.is_empty()).take(8) {
        let name = match c.parent.map(|p| &file.chunks[p as usize].name) {
            Some(p) if !p.is_empty() => format!("{p}.{}", c.name),
            _ => c.name.clone(),
        };
        symbols.push(c.name.clone());
        symbols.push(name);
        let filters =
            SearchFilters { lang: Some(lang.name().into()), kind: Some(c.kind.name().into()), ..Default::default() };
        let req = SearchRequest {
            query: c.name.clone(),
            k: Some(5),
            mode: Some(SearchMode::Lexical),
            filters: Some(filters),
            ..Default::default()
        };
        let _ = e.search(&req);
    }
    let tail = &bytes[bytes.len().saturating_sub(24)..];
    symbols.push(String::from_utf8_lossy(tail).into_owned());
    for s in &symbols {
        read_symbol(e, &path, s, bytes);
    }
    let whole = ReadRequest { path: path.clone(), whole: true, bytes: Some(bytes.to_vec()), ..Default::default() };
    let _ = e.read(&whole);
    let _ = e.search(&SearchRequest { query: info.title.clone(), k: Some(5), ..Default::default() });

    // A shorter version (the first half of the lines) replaces it; the index's sections answer
    // a read by symbol with the old bytes given (stale) and with the new ones.
    let half = text.lines().take(text.lines().count() / 2).collect::<Vec<_>>().join("\n");
    upsert(e, &path, half.as_bytes());
    for s in symbols.iter().take(4) {
        read_symbol(e, &path, s, bytes);
        read_symbol(e, &path, s, half.as_bytes());
    }
    e.update(UpdateBatch { deletes: vec![path.clone()], commit: true, ..Default::default() }).unwrap();
    assert!(e.note(&path).is_none(), "{path} still indexed after its delete");
}
