//! The texts the lexical index needs of code sections, in a source file or as a note's large
//! fenced blocks: the own lines of each section that is or holds code, and each code section's
//! symbol text. Used by the indexing of notes (`index.rs`) and of source files
//! (`code_index.rs`), which thus do not depend on each other.

use strata_chunker::Literal;

use crate::lexical::CodeDoc;
use crate::sections::Section;

/// The texts the lexical index needs of a note's code sections, and of the sections that hold
/// code: their own lines without their children's, and each code section's symbol text.
pub(super) struct CodeTexts {
    own: Vec<Option<String>>,
    symbols: Vec<String>,
    /// Each code section's string literals (those on its own lines); empty for a text without
    /// any (a note, a fenced block).
    literals: Vec<Vec<String>>,
}

impl CodeTexts {
    pub fn of(text: &str, sections: &[Section]) -> CodeTexts {
        if sections.iter().all(|s| s.code.is_none()) {
            // A note without code (nearly all of them): nothing to cut, no line index to build.
            let n = sections.len();
            return CodeTexts { own: vec![None; n], symbols: vec![String::new(); n], literals: Vec::new() };
        }
        let mut holds_code = vec![false; sections.len()];
        for s in sections.iter().filter(|s| s.code.is_some()) {
            if let Some(p) = s.parent {
                holds_code[p as usize] = true;
            }
        }
        let tree = crate::code_sections::Tree::new(text, sections);
        let own = (0..sections.len())
            .map(|i| (sections[i].code.is_some() || holds_code[i]).then(|| tree.own_text(sections, i, false)))
            .collect();
        let symbols = sections
            .iter()
            .map(|s| match &s.code {
                Some(c) => format!("{}\n{}", s.heading_path, c.signature),
                None => String::new(),
            })
            .collect();
        CodeTexts { own, symbols, literals: Vec::new() }
    }

    /// Gives each of a source file's literals to the innermost code section whose lines hold
    /// its first line (the one whose own text it is in).
    pub fn add_literals(&mut self, sections: &[Section], literals: &[Literal]) {
        if literals.is_empty() {
            return;
        }
        self.literals.resize(sections.len(), Vec::new());
        for l in literals {
            let inner = sections
                .iter()
                .filter(|s| s.code.is_some() && s.start_line <= l.line && l.line <= s.end_line)
                .max_by_key(|s| (s.depth, s.order));
            if let Some(s) = inner {
                self.literals[s.order as usize].push(l.text.clone());
            }
        }
    }

    /// Section `i`'s own text, when it is or holds code.
    pub fn body(&self, i: usize) -> Option<&str> {
        self.own[i].as_deref()
    }

    /// The code part of section `i`'s lexical document.
    pub fn doc(&self, i: usize, s: &Section) -> Option<CodeDoc<'_>> {
        s.code.as_ref().map(|c| CodeDoc {
            lang: c.lang().name(),
            kind: c.kind().name(),
            symbol: &self.symbols[i],
            literals: self.literals.get(i).map_or(&[], Vec::as_slice),
        })
    }
}
