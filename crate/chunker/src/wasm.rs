//! The code wasm's export: a file's chunks, postcard-encoded ([`CodeFile::encode`]), which the
//! core decodes with the same types.

use wasm_bindgen::prelude::*;

use crate::CodeLang;

/// The chunks of `text` in the language named `lang` ("python", "ts", "c++" — a name,
/// extension or info string, as [`CodeLang::from_name`]); an unknown language is an error.
#[wasm_bindgen(js_name = chunkCode)]
pub fn chunk_code(lang: &str, text: &str, budget_tokens: u32) -> Result<Vec<u8>, JsError> {
    let l = CodeLang::from_name(lang)
        .ok_or_else(|| JsError::new(&format!("[bad-request] unknown code language: {lang}")))?;
    Ok(crate::chunk(l, text, budget_tokens as usize).encode())
}
