//! What the chunker returns, shared by the code wasm (which encodes it) and the core (which
//! decodes it). Lines are 1-based and inclusive, in the text given to the chunker.

use serde::{Deserialize, Serialize};

/// A language the chunker parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CodeLang {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Rust,
    Java,
    C,
    Cpp,
    Json,
    Yaml,
}

/// The file extensions indexed as code by default (without the dot).
pub const DEFAULT_EXTENSIONS: &[&str] = &[
    "py", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "rs", "java", "c", "h", "cpp", "hpp", "cc",
    "cxx", "hh", "json", "yaml", "yml",
];

impl CodeLang {
    pub const ALL: [CodeLang; 11] = [
        CodeLang::Python,
        CodeLang::JavaScript,
        CodeLang::TypeScript,
        CodeLang::Tsx,
        CodeLang::Go,
        CodeLang::Rust,
        CodeLang::Java,
        CodeLang::C,
        CodeLang::Cpp,
        CodeLang::Json,
        CodeLang::Yaml,
    ];

    /// The language of a file extension (without the dot, any case).
    pub fn from_extension(ext: &str) -> Option<CodeLang> {
        Some(match ext.to_ascii_lowercase().as_str() {
            "py" | "pyi" => CodeLang::Python,
            "js" | "jsx" | "mjs" | "cjs" => CodeLang::JavaScript,
            "ts" | "mts" | "cts" => CodeLang::TypeScript,
            "tsx" => CodeLang::Tsx,
            "go" => CodeLang::Go,
            "rs" => CodeLang::Rust,
            "java" => CodeLang::Java,
            "c" | "h" => CodeLang::C,
            "cpp" | "hpp" | "cc" | "cxx" | "hh" | "hxx" | "c++" => CodeLang::Cpp,
            "json" => CodeLang::Json,
            "yaml" | "yml" => CodeLang::Yaml,
            _ => return None,
        })
    }

    /// The language a fenced code block's info string names (its first word, any case):
    /// "```python", "```ts title=x", "```c++".
    pub fn from_info_string(info: &str) -> Option<CodeLang> {
        let word = info.split(|c: char| c.is_whitespace() || c == ',' || c == '{').next().unwrap_or("");
        Some(match word.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" => CodeLang::Python,
            "javascript" | "js" | "jsx" | "mjs" | "cjs" | "node" => CodeLang::JavaScript,
            "typescript" | "ts" => CodeLang::TypeScript,
            "tsx" => CodeLang::Tsx,
            "go" | "golang" => CodeLang::Go,
            "rust" | "rs" => CodeLang::Rust,
            "java" => CodeLang::Java,
            "c" | "h" => CodeLang::C,
            "cpp" | "c++" | "cxx" | "cc" | "hpp" => CodeLang::Cpp,
            "json" | "jsonc" => CodeLang::Json,
            "yaml" | "yml" => CodeLang::Yaml,
            _ => return None,
        })
    }

    /// The language's name in filters, badges and the API ("python", "cpp", …).
    pub fn name(self) -> &'static str {
        match self {
            CodeLang::Python => "python",
            CodeLang::JavaScript => "javascript",
            CodeLang::TypeScript => "typescript",
            CodeLang::Tsx => "tsx",
            CodeLang::Go => "go",
            CodeLang::Rust => "rust",
            CodeLang::Java => "java",
            CodeLang::C => "c",
            CodeLang::Cpp => "cpp",
            CodeLang::Json => "json",
            CodeLang::Yaml => "yaml",
        }
    }

    /// The inverse of [`CodeLang::name`], also accepting the extensions and info strings.
    pub fn from_name(name: &str) -> Option<CodeLang> {
        CodeLang::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
            .or_else(|| CodeLang::from_info_string(name))
            .or_else(|| CodeLang::from_extension(name))
    }

    /// A compact number for the catalog (the index of [`CodeLang::ALL`]).
    pub fn id(self) -> u8 {
        CodeLang::ALL.iter().position(|l| *l == self).expect("listed") as u8
    }

    pub fn from_id(id: u8) -> Option<CodeLang> {
        CodeLang::ALL.get(id as usize).copied()
    }
}

/// What a chunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChunkKind {
    /// Lines between definitions: imports, top-level statements (and a C++ namespace's own lines).
    Module,
    Function,
    Method,
    Class,
    Interface,
    Type,
    Enum,
    Constant,
    /// A Rust `impl` block (its methods are its children).
    Impl,
    /// A JSON or YAML key and its value.
    Key,
    /// Plain lines: a part of an oversized definition, a damaged region, or a window of a file
    /// the parser could not handle.
    Lines,
}

impl ChunkKind {
    pub const ALL: [ChunkKind; 11] = [
        ChunkKind::Module,
        ChunkKind::Function,
        ChunkKind::Method,
        ChunkKind::Class,
        ChunkKind::Interface,
        ChunkKind::Type,
        ChunkKind::Enum,
        ChunkKind::Constant,
        ChunkKind::Impl,
        ChunkKind::Key,
        ChunkKind::Lines,
    ];

    /// The kind's name in filters, badges and the API ("function", "class", …).
    pub fn name(self) -> &'static str {
        match self {
            ChunkKind::Module => "module",
            ChunkKind::Function => "function",
            ChunkKind::Method => "method",
            ChunkKind::Class => "class",
            ChunkKind::Interface => "interface",
            ChunkKind::Type => "type",
            ChunkKind::Enum => "enum",
            ChunkKind::Constant => "constant",
            ChunkKind::Impl => "impl",
            ChunkKind::Key => "key",
            ChunkKind::Lines => "lines",
        }
    }

    pub fn from_name(name: &str) -> Option<ChunkKind> {
        let n = name.to_ascii_lowercase();
        let n = match n.as_str() {
            "fn" | "func" | "def" => "function",
            "struct" => "class",
            "trait" => "interface",
            "const" => "constant",
            other => other,
        };
        ChunkKind::ALL.into_iter().find(|k| k.name() == n)
    }

    pub fn id(self) -> u8 {
        ChunkKind::ALL.iter().position(|k| *k == self).expect("listed") as u8
    }

    pub fn from_id(id: u8) -> Option<ChunkKind> {
        ChunkKind::ALL.get(id as usize).copied()
    }
}

/// One chunk of a source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub kind: ChunkKind,
    /// The identifier ("rebuild_auth", "SessionRedirectMixin"); a key's name; "" for module
    /// and plain-lines chunks (a part of an oversized definition keeps the definition's name).
    pub name: String,
    /// Index in [`CodeFile::chunks`] of the enclosing chunk (class, impl, namespace, key).
    pub parent: Option<u32>,
    /// The enclosing type when no chunk encloses it: a Go method's receiver type, a C++
    /// `Foo::bar` definition's `Foo`. "" otherwise.
    pub container: String,
    /// The definition's first line(s), up to its body, whitespace collapsed, at most ~300
    /// bytes ("def rebuild_auth(self, prepared_request, response):"). "" for module and lines chunks.
    pub signature: String,
    /// The doc comment or docstring, without comment markers. "" when there is none.
    pub doc: String,
    /// The chunk's first line. A definition's lines include its doc comment and its decorators
    /// or attributes directly above it (no blank line between), so the chunk's text says what
    /// the definition does; `doc` repeats the comment's text without markers.
    pub start_line: u32,
    pub end_line: u32,
    /// The signature's last line (the body starts after it).
    pub signature_end_line: u32,
    /// The chunk's lines hold a tree-sitter ERROR or MISSING node.
    pub has_syntax_errors: bool,
}

impl Chunk {
    /// A plain-lines chunk at the top level.
    pub fn lines(start_line: u32, end_line: u32) -> Chunk {
        Chunk {
            kind: ChunkKind::Lines,
            name: String::new(),
            parent: None,
            container: String::new(),
            signature: String::new(),
            doc: String::new(),
            start_line,
            end_line,
            signature_end_line: start_line,
            has_syntax_errors: false,
        }
    }
}

/// A chunked source file. Chunks are in pre-order (a parent before its children, siblings by
/// line). Top-level chunks (no parent) do not overlap and cover every non-blank line of the
/// file; a chunk's children lie inside its lines and do not overlap; a parent's own text is
/// its lines without its children's (a class: its declaration, fields and docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeFile {
    pub lang: CodeLang,
    pub chunks: Vec<Chunk>,
    /// Regions of the tree that are ERROR or MISSING nodes (0 for a clean parse).
    pub error_regions: u32,
    /// The parser could not handle the file (or gave up): the chunks are line windows.
    pub fallback: bool,
    /// The file's import lines, first to last ("import x", "use a::b", "#include"), if any.
    pub imports: Option<(u32, u32)>,
    /// Its string literals as a reader sees them (messages, log lines), in source order; none
    /// for a file chunked in line windows.
    pub literals: Vec<Literal>,
}

/// Stands for an interpolated value in a [`Literal`]'s text (`${x}`, `{e}`, `%s`).
pub const PLACEHOLDER: char = '\u{fffc}';

/// A string literal of a source file: concatenated and formatted pieces joined, interpolations
/// and format placeholders as [`PLACEHOLDER`] between spaces, escapes decoded, whitespace
/// collapsed (at most ~600 bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Literal {
    /// The line its first piece starts on.
    pub line: u32,
    pub text: String,
}

impl CodeFile {
    /// The file as windows of whole lines of about `budget_tokens` each (a token estimated as
    /// four bytes), every window a [`ChunkKind::Lines`] chunk: what a file the parser cannot
    /// handle becomes, and code chunked without its syntax. Blank lines between windows belong to
    /// the window before them; an empty or blank file has no chunks.
    pub fn line_windows(lang: CodeLang, text: &str, budget_tokens: usize) -> CodeFile {
        let budget = budget_tokens.max(1) * 4;
        let mut chunks = Vec::new();
        let (mut start, mut bytes, mut last_text) = (0u32, 0usize, 0u32);
        for (i, line) in text.lines().enumerate() {
            let n = i as u32 + 1;
            if line.trim().is_empty() {
                continue;
            }
            if start > 0 && bytes + line.len() > budget {
                chunks.push(Chunk::lines(start, last_text));
                start = 0;
                bytes = 0;
            }
            if start == 0 {
                start = n;
            }
            bytes += line.len() + 1;
            last_text = n;
        }
        if start > 0 {
            chunks.push(Chunk::lines(start, last_text));
        }
        CodeFile { lang, chunks, error_regions: 0, fallback: true, imports: None, literals: Vec::new() }
    }

    /// The postcard encoding the code wasm returns.
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("a CodeFile encodes")
    }

    pub fn decode(bytes: &[u8]) -> Result<CodeFile, String> {
        postcard::from_bytes(bytes).map_err(|e| format!("code chunks: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for l in CodeLang::ALL {
            assert_eq!(CodeLang::from_name(l.name()), Some(l));
            assert_eq!(CodeLang::from_id(l.id()), Some(l));
        }
        for k in ChunkKind::ALL {
            assert_eq!(ChunkKind::from_name(k.name()), Some(k));
            assert_eq!(ChunkKind::from_id(k.id()), Some(k));
        }
        for e in DEFAULT_EXTENSIONS {
            assert!(CodeLang::from_extension(e).is_some(), "{e}");
        }
        assert_eq!(CodeLang::from_info_string("ts title=\"a.ts\""), Some(CodeLang::TypeScript));
        assert_eq!(CodeLang::from_info_string("c++"), Some(CodeLang::Cpp));
        assert_eq!(CodeLang::from_info_string("mermaid"), None);
    }

    #[test]
    fn line_windows_cover_the_text_lines() {
        let text = (1..=100)
            .map(|i| if i % 10 == 0 { String::new() } else { format!("line number {i:03}") })
            .collect::<Vec<_>>()
            .join("\n");
        let f = CodeFile::line_windows(CodeLang::Python, &text, 25);
        assert!(f.fallback);
        assert!(f.chunks.len() > 3, "{}", f.chunks.len());
        assert_eq!(f.chunks[0].start_line, 1);
        assert_eq!(f.chunks.last().unwrap().end_line, 99);
        for w in f.chunks.windows(2) {
            assert!(w[0].end_line < w[1].start_line);
            assert!(w[1].start_line - w[0].end_line <= 2, "no text line is left out");
        }
        assert!(CodeFile::line_windows(CodeLang::Go, "\n  \n", 10).chunks.is_empty());
    }

    #[test]
    fn encodes_and_decodes() {
        let f = CodeFile {
            lang: CodeLang::Rust,
            chunks: vec![Chunk {
                kind: ChunkKind::Function,
                name: "main".into(),
                parent: None,
                container: String::new(),
                signature: "fn main()".into(),
                doc: "Entry.".into(),
                start_line: 1,
                end_line: 3,
                signature_end_line: 1,
                has_syntax_errors: false,
            }],
            error_regions: 0,
            fallback: false,
            imports: None,
            literals: vec![Literal { line: 2, text: "no such \u{fffc} here".into() }],
        };
        assert_eq!(CodeFile::decode(&f.encode()).unwrap(), f);
        assert!(CodeFile::decode(b"\xff\xff").is_err());
    }
}
