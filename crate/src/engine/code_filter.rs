//! The code filters of a search: languages and kinds, from the request's filters
//! (comma-separated) and from `lang:…` / `kind:…` words of the query, which are taken out of it.

use strata_chunker::{ChunkKind, CodeLang};

use crate::api::{SearchFilters, SearchRequest};
use crate::error::{CoreError, Result};
use crate::sections::Section;

/// The request with its code filters normalised to canonical names ("py" → "python",
/// "fn" → "function") and its query without the `lang:`/`kind:` words. Unknown names are an
/// error that lists the known ones.
pub(super) fn normalize(req: &SearchRequest) -> Result<Option<SearchRequest>> {
    let has_words = req.query.split_whitespace().any(|w| filter_word(w).is_some());
    let f = req.filters.as_ref();
    if !has_words && f.is_none_or(|f| f.lang.is_none() && f.kind.is_none()) {
        return Ok(None);
    }
    let mut langs: Vec<&str> = Vec::new();
    let mut kinds: Vec<&str> = Vec::new();
    let mut add = |key: &str, values: &str| -> Result<()> {
        for v in values.split(',').map(str::trim).filter(|v| !v.is_empty()) {
            if key == "lang" {
                let l =
                    CodeLang::from_name(v).ok_or_else(|| unknown("language", v, CodeLang::ALL.map(|l| l.name())))?;
                langs.push(l.name());
            } else {
                let k = ChunkKind::from_name(v).ok_or_else(|| unknown("kind", v, ChunkKind::ALL.map(|k| k.name())))?;
                kinds.push(k.name());
            }
        }
        Ok(())
    };
    if let Some(l) = f.and_then(|f| f.lang.as_deref()) {
        add("lang", l)?;
    }
    if let Some(k) = f.and_then(|f| f.kind.as_deref()) {
        add("kind", k)?;
    }
    let mut rest = Vec::new();
    for w in req.query.split_whitespace() {
        match filter_word(w) {
            Some((key, value)) => add(key, value)?,
            None => rest.push(w),
        }
    }
    langs.dedup();
    kinds.dedup();
    let mut out = req.clone();
    if has_words {
        out.query = rest.join(" ");
    }
    let filters = out.filters.get_or_insert_with(SearchFilters::default);
    filters.lang = (!langs.is_empty()).then(|| langs.join(","));
    filters.kind = (!kinds.is_empty()).then(|| kinds.join(","));
    Ok(Some(out))
}

fn filter_word(w: &str) -> Option<(&'static str, &str)> {
    let (key, value) = w.split_once(':')?;
    let key = match key.to_ascii_lowercase().as_str() {
        "lang" => "lang",
        "kind" => "kind",
        _ => return None,
    };
    (!value.is_empty()).then_some((key, value))
}

fn unknown<const N: usize>(what: &str, value: &str, known: [&str; N]) -> CoreError {
    CoreError::BadRequest(format!("unknown code {what} `{value}` (one of: {})", known.join(", ")))
}

/// The filter's values ("python,go" → ["python", "go"]).
pub(super) fn values(filter: Option<&str>) -> Vec<String> {
    filter.map(|f| f.split(',').map(str::to_string).collect()).unwrap_or_default()
}

/// Whether a section passes normalised code filters: a code section of one of the languages
/// and kinds; with a filter set, notes' sections never pass.
pub(super) fn section_passes(sec: &Section, f: &SearchFilters) -> bool {
    if f.lang.is_none() && f.kind.is_none() {
        return true;
    }
    let Some(code) = &sec.code else { return false };
    let lang_ok = f.lang.as_deref().is_none_or(|l| l.split(',').any(|l| l == code.lang().name()));
    let kind_ok = f.kind.as_deref().is_none_or(|k| k.split(',').any(|k| k == code.kind().name()));
    lang_ok && kind_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str, lang: Option<&str>, kind: Option<&str>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            filters: Some(SearchFilters {
                lang: lang.map(Into::into),
                kind: kind.map(Into::into),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn query_words_and_filters_are_normalised() {
        let r = normalize(&req("parse tokens lang:py kind:fn", None, None)).unwrap().unwrap();
        assert_eq!(r.query, "parse tokens");
        let f = r.filters.unwrap();
        assert_eq!(f.lang.as_deref(), Some("python"));
        assert_eq!(f.kind.as_deref(), Some("function"));
        let r = normalize(&req("x", Some("ts, go"), Some("class,method"))).unwrap().unwrap();
        assert_eq!(r.query, "x");
        assert_eq!(r.filters.as_ref().unwrap().lang.as_deref(), Some("typescript,go"));
        assert!(normalize(&req("plain words: here", None, None)).unwrap().is_none());
    }

    #[test]
    fn unknown_names_are_errors_that_list_the_known() {
        let e = normalize(&req("x lang:cobol", None, None)).unwrap_err().to_string();
        assert!(e.contains("cobol") && e.contains("python"), "{e}");
        assert!(normalize(&req("x", None, Some("widget"))).is_err());
    }
}
