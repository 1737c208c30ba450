//! The query side of the analyzer: stop words dropped, and runs written without spaces
//! spread into the terms the index holds.

use super::is_cjk;
use super::segment::{self, is_sea};
use crate::ranking::CJK_PHRASE_CHARS;

/// Splits the runs of a free-text query that are written without spaces so the query parser
/// treats their parts as independent terms (OR, scored by BM25) instead of one phrase: CJK runs
/// into bigrams, plus their [`CJK_PHRASE_CHARS`]-character n-grams as phrases; Thai, Lao, Khmer
/// and Burmese runs into their words. Quoted parts are left alone: a quoted run stays an exact
/// phrase; so does a run right after `-` (excluded) or a field's `:`, which a spread would
/// detach from its operator.
pub fn spread_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len() * 2);
    let mut in_quotes = false;
    let chars: Vec<char> = query.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            in_quotes = !in_quotes;
            out.push(c);
            i += 1;
            continue;
        }
        let sea = !c.is_ascii() && is_sea(c);
        if !in_quotes && (sea || is_cjk(c)) {
            let start = i;
            while i < chars.len() && (if sea { is_sea(chars[i]) } else { is_cjk(chars[i]) }) {
                i += 1;
            }
            let run = &chars[start..i];
            if out.ends_with('-') || out.ends_with(':') {
                out.push('"');
                out.extend(run);
                out.push('"');
                continue;
            }
            out.push(' ');
            if sea {
                let run: String = run.iter().collect();
                segment::words(&run, |a, b| {
                    out.push_str(&run[a..b]);
                    out.push(' ');
                });
                continue;
            }
            if run.len() == 1 {
                out.push(run[0]);
            } else {
                for (n, pair) in run.windows(2).enumerate() {
                    if n > 0 {
                        out.push(' ');
                    }
                    out.push(pair[0]);
                    out.push(pair[1]);
                }
                for gram in run.windows(CJK_PHRASE_CHARS) {
                    out.push_str(" \"");
                    out.extend(gram);
                    out.push('"');
                }
            }
            out.push(' ');
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Keeps the query parser's syntax to what Strata documents (words, `"phrases"`, `-excluded`,
/// `+required`, `AND`/`OR`, `field:term`): outside double quotes, apostrophes, brackets and braces
/// become spaces, and so do a colon after a word that names no field (`is_field`) and the
/// dashes of a command line's `--flag`. The parser
/// read `'…'` as a phrase, so the elisions and contractions of natural language (`l'apparence de
/// l'appli`, `ім'я`) asked for phrases that matched nothing; `[[Daily notes]]` as a range
/// (every note matched); `{…}` and `Note: …` (an unknown field) found nothing. The index splits
/// words at these characters too, so the words meet as they were written.
pub fn plain_syntax(query: &str, is_field: impl Fn(&str) -> bool) -> String {
    if !query.contains(['\'', '[', ']', '{', '}', ':']) && !query.contains("--") && !query.contains("++") {
        return query.to_string();
    }
    let mut out = String::with_capacity(query.len());
    let mut in_quotes = false;
    let mut word_start = 0;
    let chars: Vec<char> = query.chars().collect();
    // A command line's `--flag` (pasted with a message: `'--dry'`) is the word `flag`, not an
    // exclusion: a run of two or more `-`/`+` that starts a word (after a space, or a character
    // made one). Whether the current run is such a flag, decided at its first character.
    let mut flag_run = false;
    let mut blank_before = true;
    for (i, &c) in chars.iter().enumerate() {
        if c == '"' {
            in_quotes = !in_quotes;
        }
        let dash = matches!(c, '-' | '+');
        if dash && !(i > 0 && matches!(chars[i - 1], '-' | '+')) {
            flag_run = blank_before && chars.get(i + 1).is_some_and(|n| matches!(n, '-' | '+'));
        }
        let plain = !in_quotes
            && match c {
                '\'' | '[' | ']' | '{' | '}' => true,
                ':' => !is_field(out[word_start..].trim_start_matches(['+', '-'])),
                '-' | '+' => flag_run,
                _ => false,
            };
        blank_before = plain || c.is_whitespace();
        out.push(if plain { ' ' } else { c });
        if c.is_whitespace() || plain {
            word_start = out.len();
        }
    }
    out
}

/// The identifier paths of a query about code (`Type::method`, `Type.method`,
/// `module.function`, `a::b::c`), each followed by its parts as loose words
/// (`Type.method Type method`): the whole still meets a definition's breadcrumb `Type > method`
/// as a phrase, and a module or file qualifier, which no breadcrumb holds, meets the file's name
/// beside the definition's. `::` is written `.` (the code analyzer splits at both; a colon would
/// read as a field). Quoted phrases, `+`/`-` parts and numbers (`12.6`) are left as they are.
pub fn spread_identifier_paths(query: &str) -> String {
    if !query.contains("::") && !query.contains('.') {
        return query.to_string();
    }
    let mut out = String::with_capacity(query.len() * 2);
    let mut in_quotes = false;
    for (i, word) in query.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let quoted = in_quotes || word.starts_with('"');
        in_quotes ^= word.matches('"').count() % 2 == 1;
        let core = word.trim_end_matches(['(', ')', ',', ';', '?', '!']);
        let parts: Vec<&str> = core.split("::").flat_map(|p| p.split('.')).collect();
        let ident = |p: &&str| {
            p.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
                && p.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        };
        if quoted || parts.len() < 2 || !parts.iter().all(ident) {
            out.push_str(word);
            continue;
        }
        out.push_str(&parts.join("."));
        for p in &parts {
            out.push(' ');
            out.push_str(p);
        }
    }
    out
}

/// How a top-level part of a query takes part in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryOp {
    Should,
    /// `+part`
    Must,
    /// `-part`
    MustNot,
}

/// A top-level part of a query: a word, a `field:value` or a phrase in quotes, with its
/// operator (not in `text`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryPart {
    pub op: QueryOp,
    pub text: String,
    /// A phrase in quotes with no field before it (`"…"`, `+"…"`, `-"…"`).
    pub phrase: bool,
}

/// Splits a query into its top-level parts; a quoted phrase is one part, spaces and all.
pub fn query_parts(query: &str) -> Vec<QueryPart> {
    let chars: Vec<char> = query.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let mut op = QueryOp::Should;
        if matches!(chars[i], '+' | '-') && chars.get(i + 1).is_some_and(|c| !c.is_whitespace()) {
            op = if chars[i] == '+' { QueryOp::Must } else { QueryOp::MustNot };
            i += 1;
        }
        let start = i;
        let mut in_quotes = false;
        while i < chars.len() && (in_quotes || !chars[i].is_whitespace()) {
            if chars[i] == '"' {
                in_quotes = !in_quotes;
            }
            i += 1;
        }
        let text: String = chars[start..i].iter().collect();
        let phrase = text.len() > 2 && text.starts_with('"') && text.ends_with('"') && text.matches('"').count() == 2;
        out.push(QueryPart { op, text, phrase });
    }
    out
}

/// Removes `stop` words from the unquoted, unfielded words of a query.
pub fn drop_stopwords(query: &str, stop: &[&str]) -> String {
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut in_quotes = false;
    let mut keep: Vec<bool> = Vec::with_capacity(words.len());
    for w in &words {
        let quoted = in_quotes || w.starts_with('"');
        if w.matches('"').count() % 2 == 1 {
            in_quotes = !in_quotes;
        }
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        let is_stop = !quoted && !w.contains(':') && !w.starts_with(['-', '+']) && stop.contains(&bare.as_str());
        keep.push(!is_stop);
    }
    if !keep.iter().any(|k| *k) {
        return query.to_string();
    }
    words.iter().zip(keep).filter(|(_, k)| *k).map(|(w, _)| *w).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::QUERY_STOPWORDS;

    #[test]
    fn stopwords_leave_content_and_phrases() {
        assert_eq!(
            drop_stopwords("how do I make a note look like a slide", QUERY_STOPWORDS),
            "make note look like slide"
        );
        assert_eq!(drop_stopwords("\"the end\" of it", QUERY_STOPWORDS), "\"the end\"");
        assert_eq!(drop_stopwords("the", QUERY_STOPWORDS), "the");
        assert_eq!(drop_stopwords("title:the -a x", QUERY_STOPWORDS), "title:the -a x");
    }

    #[test]
    fn query_spreading_keeps_quotes() {
        assert_eq!(spread_query("如何同步").trim(), "如何 何同 同步 \"如何同\" \"何同步\"");
        assert_eq!(spread_query("同步").trim(), "同步");
        // An excluded or fielded run stays whole, attached to its operator.
        assert_eq!(spread_query("sync -同步设置"), "sync -\"同步设置\"");
        assert_eq!(spread_query("title:同步设置 x"), "title:\"同步设置\" x");
        assert_eq!(spread_query("\"全文检索\" x"), "\"全文检索\" x");
        assert_eq!(spread_query("sync 设置").trim(), "sync  设置");
    }

    #[test]
    fn only_the_documented_syntax_reaches_the_parser() {
        let fields = |f: &str| ["title", "tags"].contains(&f);
        let plain = |q: &str| plain_syntax(q, fields);
        assert_eq!(plain("changer l'apparence de l'appli"), "changer l apparence de l appli");
        assert_eq!(plain("\"l'appli\" d'une"), "\"l'appli\" d une");
        assert_eq!(plain("ім'я"), "ім я");
        assert_eq!(plain("[[Daily notes]] {x}"), "  Daily notes    x ");
        assert_eq!(plain("title:sync -tags:a Note: todo https://x.org"), "title:sync -tags:a Note  todo https //x.org");
        assert_eq!(plain("\"a: [b]\" c"), "\"a: [b]\" c");
        assert_eq!(plain("no syntax"), "no syntax");
        assert_eq!(spread_identifier_paths("CjkTokenStream::token"), "CjkTokenStream.token CjkTokenStream token");
        assert_eq!(spread_identifier_paths("see fusion.rrf() now"), "see fusion.rrf fusion rrf now");
        assert_eq!(spread_identifier_paths("a::b::c_d"), "a.b.c_d a b c_d");
        for same in ["12.6 MB", "\"Type.method\"", "-a.b", "e.g. this", "end.", "v1.2"] {
            assert_eq!(spread_identifier_paths(same), same);
        }
        // A pasted command line's flags are words; one dash still excludes, inside words it stays.
        assert_eq!(plain("unknown option --dry-run -v"), "unknown option   dry-run -v");
        assert_eq!(plain("a ++b \"--c\" x--y"), "a   b \"--c\" x--y");
        assert_eq!(plain("unknown option '--dry'"), "unknown option    dry ");
        // Linear in the query's length, however long a run of dashes.
        assert_eq!(plain(&"-".repeat(200_000)).trim(), "");
    }

    #[test]
    fn queries_split_into_parts_with_their_operators() {
        let parts = query_parts("  \"running shoes\" +fast -\"cheap deal\" title:\"a b\" x-y -");
        let got: Vec<(QueryOp, &str, bool)> = parts.iter().map(|p| (p.op, p.text.as_str(), p.phrase)).collect();
        assert_eq!(
            got,
            vec![
                (QueryOp::Should, "\"running shoes\"", true),
                (QueryOp::Must, "fast", false),
                (QueryOp::MustNot, "\"cheap deal\"", true),
                (QueryOp::Should, "title:\"a b\"", false),
                (QueryOp::Should, "x-y", false),
                (QueryOp::Should, "-", false),
            ]
        );
        // An unclosed quote is not a phrase; it runs to the end.
        assert_eq!(
            query_parts("\"open end"),
            vec![QueryPart { op: QueryOp::Should, text: "\"open end".into(), phrase: false }]
        );
        assert!(query_parts("\"\"").iter().all(|p| !p.phrase));
    }

    #[test]
    fn thai_queries_are_spread_into_words() {
        assert_eq!(spread_query("สำรองข้อมูล").split_whitespace().collect::<Vec<_>>(), vec!["สำรอง", "ข้อมูล"]);
        assert_eq!(spread_query("\"สำรองข้อมูล\""), "\"สำรองข้อมูล\"");
        assert_eq!(spread_query("-สำรองข้อมูล"), "-\"สำรองข้อมูล\"");
    }
}
