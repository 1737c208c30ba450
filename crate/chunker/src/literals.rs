//! A source file's string literals as a reader sees them: the pieces of a concatenated or
//! formatted string joined (`"a " + x + " b"`, Python's `"a " f"{x} b"`, C's `"a " "b"`), every
//! interpolation and format placeholder (`${x}`, `{e}`, `{}`, `%s`, `%(name)d`, `%v`) replaced by
//! [`PLACEHOLDER`], escapes decoded. These are the messages a program prints (errors, log
//! lines); the core indexes them apart so that a pasted message finds the line that produced it.
//! Literals without a space (keys, paths, import names) and docstrings are left out: they are
//! no message, and the code fields have their words anyway.

use std::sync::OnceLock;

use regex_lite::Regex;
use tree_sitter::Node;

use crate::lang::named_children;
use crate::{CodeLang, Literal, PLACEHOLDER};

/// Longer literals (embedded SQL, HTML, help texts) are cut to their first bytes this long.
pub const LITERAL_MAX_BYTES: usize = 600;
/// Literals kept per file at most (a generated table of strings is not a list of messages).
const MAX_LITERALS: usize = 4_000;

/// The string literals of the tree under `root`, in source order.
pub(crate) fn literals(lang: CodeLang, root: Node, src: &str) -> Vec<Literal> {
    let mut out = Vec::new();
    // Without recursion: a deeply nested text cannot exhaust the stack.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if out.len() >= MAX_LITERALS {
            break;
        }
        let mut pieces = Vec::new();
        let mut inner = Vec::new();
        if is_plus(node, src) {
            // A chain of `+` is flattened once: a chain without a string is searched through
            // its operands (not each of its sub-chains again).
            let operands = plus_operands(node, src);
            if !operands.iter().any(|o| is_string(lang, o.kind()) || o.kind() == "concatenated_string") {
                stack.extend(operands.into_iter().rev());
                continue;
            }
            concatenation(lang, &operands, src, &mut pieces, &mut inner);
        } else if node.kind() == "concatenated_string" {
            let parts: Vec<Node> = named_children(node).collect();
            concatenation(lang, &parts, src, &mut pieces, &mut inner);
        } else if is_string(lang, node.kind()) && !is_docstring(node) {
            string(node, src, &mut pieces, &mut inner);
        } else {
            let mut children: Vec<Node> = named_children(node).collect();
            children.reverse();
            stack.extend(children);
            continue;
        }
        if let Some(text) = render(&pieces) {
            out.push(Literal { line: node.start_position().row as u32 + 1, text });
        }
        // Strings inside an interpolation or an operand that is not a string (`f"{g('a b')}"`).
        inner.reverse();
        stack.extend(inner);
    }
    out
}

/// A part of a literal: text as written (escapes still in), or a placeholder.
enum Piece<'s> {
    Text(&'s str),
    Hole,
}

fn is_string(lang: CodeLang, kind: &str) -> bool {
    match lang {
        CodeLang::Python => kind == "string",
        CodeLang::JavaScript | CodeLang::TypeScript | CodeLang::Tsx => matches!(kind, "string" | "template_string"),
        CodeLang::Go => matches!(kind, "interpreted_string_literal" | "raw_string_literal"),
        CodeLang::Rust | CodeLang::Cpp => matches!(kind, "string_literal" | "raw_string_literal"),
        CodeLang::Java | CodeLang::C => kind == "string_literal",
        CodeLang::Json | CodeLang::Yaml => false,
    }
}

/// A bare string statement: a docstring (Python), a directive (`"use strict"`).
fn is_docstring(node: Node) -> bool {
    node.parent().is_some_and(|p| p.kind() == "expression_statement" && p.named_child_count() == 1)
}

/// A `+` (a binary expression of any of the grammars).
fn is_plus(node: Node, src: &str) -> bool {
    matches!(node.kind(), "binary_expression" | "binary_operator")
        && node.child_by_field_name("operator").is_some_and(|o| src.get(o.byte_range()) == Some("+"))
}

/// The operands of a chain of `+`, left to right (without recursion: a chain of thousands).
fn plus_operands<'t>(node: Node<'t>, src: &str) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if is_plus(n, src) {
            for side in ["right", "left"] {
                if let Some(c) = n.child_by_field_name(side) {
                    stack.push(unparenthesized(c));
                }
            }
        } else {
            out.push(n);
        }
    }
    out
}

fn unparenthesized(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" && n.named_child_count() == 1 {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// The pieces of concatenated operands; an operand that is not a string is a placeholder
/// (searched for strings of its own: `inner`).
fn concatenation<'t, 's>(
    lang: CodeLang,
    operands: &[Node<'t>],
    src: &'s str,
    pieces: &mut Vec<Piece<'s>>,
    inner: &mut Vec<Node<'t>>,
) {
    for &o in operands {
        if is_string(lang, o.kind()) {
            string(o, src, pieces, inner);
        } else if o.kind() == "concatenated_string" {
            for part in named_children(o) {
                if is_string(lang, part.kind()) {
                    string(part, src, pieces, inner);
                } else {
                    pieces.push(Piece::Hole);
                    inner.push(part);
                }
            }
        } else {
            pieces.push(Piece::Hole);
            inner.push(o);
        }
    }
}

/// The content pieces of one string node: its text and escapes, its interpolations as holes.
fn string<'t, 's>(node: Node<'t>, src: &'s str, pieces: &mut Vec<Piece<'s>>, inner: &mut Vec<Node<'t>>) {
    let before = pieces.len();
    content(node, src, pieces, inner);
    if pieces.len() == before {
        // No content nodes (a grammar that keeps a raw string's text in the node itself):
        // the text between the quotes.
        let t = src.get(node.byte_range()).unwrap_or("");
        let t = t.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '#' || c == '@' || c == '$');
        let t = t.trim_end_matches('#');
        let quote = |c: char| matches!(c, '"' | '\'' | '`');
        let t = t.strip_prefix(quote).map_or(t, |t| t.strip_suffix(quote).unwrap_or(t));
        if !t.is_empty() {
            pieces.push(Piece::Text(t));
        }
    }
}

fn content<'t, 's>(node: Node<'t>, src: &'s str, pieces: &mut Vec<Piece<'s>>, inner: &mut Vec<Node<'t>>) {
    for c in named_children(node) {
        match c.kind() {
            "string_content"
            | "string_fragment"
            | "interpreted_string_literal_content"
            | "raw_string_literal_content"
            | "raw_string_content"
            | "multiline_string_fragment"
            | "escape_sequence" => {
                if c.named_child_count() > 0 {
                    // Python's string_content holds its escapes as children: between them, text.
                    let mut at = c.start_byte();
                    for e in named_children(c) {
                        pieces.push(Piece::Text(src.get(at..e.start_byte()).unwrap_or("")));
                        pieces.push(Piece::Text(src.get(e.byte_range()).unwrap_or("")));
                        at = e.end_byte();
                    }
                    pieces.push(Piece::Text(src.get(at..c.end_byte()).unwrap_or("")));
                } else {
                    pieces.push(Piece::Text(src.get(c.byte_range()).unwrap_or("")));
                }
            }
            "interpolation" | "template_substitution" | "string_interpolation" => {
                pieces.push(Piece::Hole);
                inner.push(c);
            }
            _ => {}
        }
    }
}

/// The literal's text: escapes decoded, format placeholders and holes as [`PLACEHOLDER`],
/// whitespace collapsed; None for a literal that is no message (no space between words).
fn render(pieces: &[Piece]) -> Option<String> {
    let mut text = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => text.push_str(&format_holes(&unescape(t))),
            Piece::Hole => {
                text.push(' ');
                text.push(PLACEHOLDER);
                text.push(' ');
            }
        }
    }
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if out.len() + w.len() + 1 > LITERAL_MAX_BYTES {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    let words = out.split(' ').filter(|w| w.chars().any(char::is_alphanumeric)).count();
    (words >= 2).then_some(out)
}

/// Backslash escapes as the reader sees them: line breaks and tabs as spaces, `\"` as `"`;
/// others (`\x41`, `\u{…}`) dropped to their letters.
fn unescape(t: &str) -> String {
    if !t.contains('\\') {
        return t.to_string();
    }
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n' | 'r' | 't') => out.push(' '),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Format placeholders of printf (`%s`, `%-5d`, `%(name)s`, Go's `%v`, `%w`) and of format
/// strings (`{}`, `{0}`, `{name}`, `{e:?}`, `{:>8.2}`) as [`PLACEHOLDER`]; `%%`, `{{` and `}}`
/// stay as the characters they print.
fn format_holes(t: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"%%|\{\{|\}\}|%(?:\([A-Za-z_][A-Za-z0-9_]*\))?[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcspnvqwTt]|\{[A-Za-z0-9_.]*(?::[^{}\s]*)?\}",
        )
        .expect("a valid pattern")
    });
    if !t.contains(['%', '{', '}']) {
        return t.to_string();
    }
    re.replace_all(t, |c: &regex_lite::Captures| match &c[0] {
        "%%" => "%".to_string(),
        "{{" => "{".to_string(),
        "}}" => "}".to_string(),
        _ => format!(" {PLACEHOLDER} "),
    })
    .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(lang: CodeLang, src: &str) -> Vec<String> {
        let tree = crate::parse::parse(lang, src).expect("parsed");
        literals(lang, tree.root_node(), src).into_iter().map(|l| format!("{}: {}", l.line, l.text)).collect()
    }

    #[test]
    fn python_f_strings_and_concatenation() {
        let src = "def f(cert_loc):\n    \"\"\"Loads the bundle.\"\"\"\n    raise OSError(\n        f\"Could not find a suitable TLS CA certificate bundle, \"\n        f\"invalid path: {cert_loc}\"\n    )\n    log.warning('retrying %s after %(n)d tries', url, n=3)\n    x = 'utf-8'\n";
        assert_eq!(
            of(CodeLang::Python, src),
            [
                "4: Could not find a suitable TLS CA certificate bundle, invalid path: \u{fffc}",
                "7: retrying \u{fffc} after \u{fffc} tries"
            ]
        );
    }

    #[test]
    fn script_templates_and_plus() {
        let src = "function v(version) {\n  if (!ok) throw new TypeError(`Invalid Version: ${version}`)\n  const m = 'the ' + kind + \" was not found in \" + where\n  return `${a}`\n}\n";
        assert_eq!(
            of(CodeLang::JavaScript, src),
            ["2: Invalid Version: \u{fffc}", "3: the \u{fffc} was not found in \u{fffc}"]
        );
        let ts = "export const f = (id: string): never => { throw new Error(`unknown model \\`${id}\\`: ${ids.join(\", \")}`) }\n";
        assert_eq!(of(CodeLang::TypeScript, ts), ["1: unknown model ` \u{fffc} `: \u{fffc}"]);
    }

    #[test]
    fn rust_format_strings() {
        let src = "fn f() {\n    return Err(JsError::new(&format!(\"[bad-request] unknown embedding model `{id}` ({:?}), {{ok}}\", x)));\n    let s = r#\"raw \"text\" here\"#;\n    let k = \"key\";\n}\n";
        assert_eq!(
            of(CodeLang::Rust, src),
            ["2: [bad-request] unknown embedding model ` \u{fffc} ` ( \u{fffc} ), {ok}", "3: raw \"text\" here"]
        );
    }

    #[test]
    fn go_java_c() {
        let go = "package p\nfunc f() error {\n\treturn fmt.Errorf(\"unknown command %q for %v\\n\", a, b)\n}\n";
        assert_eq!(of(CodeLang::Go, go), ["3: unknown command \u{fffc} for \u{fffc}"]);
        let java =
            "class A { void f() { throw new IllegalStateException(\"no such user: \" + id + \" in realm\"); } }\n";
        assert_eq!(of(CodeLang::Java, java), ["1: no such user: \u{fffc} in realm"]);
        let c = "int main() {\n  fprintf(stderr, \"cannot open %s: \"\n    \"%s (errno %d)\\n\", path, strerror(errno), errno);\n}\n";
        assert_eq!(of(CodeLang::C, c), ["2: cannot open \u{fffc} : \u{fffc} (errno \u{fffc} )"]);
    }

    #[test]
    fn long_literals_are_cut_and_the_walk_survives_deep_nesting() {
        let long = format!("x = \"{}\"\n", "word ".repeat(400));
        let got = of(CodeLang::Python, &long);
        assert_eq!(got.len(), 1);
        assert!(got[0].len() <= LITERAL_MAX_BYTES + 4, "{}", got[0].len());
        let deep = format!("x = {}'a b'{}\n", "(".repeat(2000), ")".repeat(2000));
        let _ = crate::parse::parse(CodeLang::Python, &deep).map(|t| literals(CodeLang::Python, t.root_node(), &deep));
    }
}
