//! The code chunker on arbitrary text in each of its languages and at any budget: it must
//! return (the parse work limit stops the parser), never panic, and keep the layout of
//! `CodeFile` (top-level chunks cover every non-blank line once, children inside their parent
//! and after it, no overlapping siblings) — the same check as the chunker's tests.
//!
//! Input: the language (first byte, modulo the 11 languages), the budget in tokens (next two
//! bytes, little-endian, 1..=4096), then the text (invalid UTF-8 replaced, as the core decodes).
#![no_main]

#[path = "../../crate/chunker/tests/common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use strata_chunker::{chunk, CodeFile, CodeLang};

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let lang = CodeLang::ALL[data[0] as usize % CodeLang::ALL.len()];
    let budget = 1 + u16::from_le_bytes([data[1], data[2]]) as usize % 4096;
    let text = String::from_utf8_lossy(&data[3..]);
    let file = chunk(lang, &text, budget);
    assert_eq!(file.lang, lang);
    common::check_layout(&text, &file);
    for c in &file.chunks {
        assert!(c.signature.len() <= 1024, "signature of {} bytes", c.signature.len());
    }
    assert_eq!(CodeFile::decode(&file.encode()).as_ref(), Ok(&file));
});
