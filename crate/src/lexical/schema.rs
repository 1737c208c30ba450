//! The tantivy schema: one document per section (every depth), with the note's title,
//! aliases and tags repeated on each so a title match lifts all of its sections.
//!
//! Nothing is stored: hits are read from fast fields (path, order), and the note text that
//! snippets, `read`, renames and embedding need is supplied by the host, which has the notes
//! on disk (measured on the 5.9k-note help vault: the stored text was 38% of the index).

use tantivy::schema::{Document, OwnedValue};
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST, STRING};

use crate::analyzer::identifiers::{CODE_TOKENIZER_NAME, LITERAL_TOKENIZER_NAME};
use crate::analyzer::{EXACT_TOKENIZER_NAME, TOKENIZER_NAME};

#[derive(Clone, Copy, Debug)]
pub struct Fields {
    pub path: Field,
    pub order: Field,
    pub depth: Field,
    pub folder: Field,
    pub tag: Field,
    pub prop: Field,
    pub title: Field,
    pub aliases: Field,
    pub headings: Field,
    pub tags: Field,
    pub body: Field,
    /// A code section's own text, analysed by the code analyzer (identifiers whole and split).
    pub code: Field,
    /// A code section's breadcrumb, name and signature (code analyzer; boosted).
    pub symbol: Field,
    /// A code section's string literals as a reader sees them (`strata_chunker::Literal`: pieces
    /// joined, each interpolation a placeholder token), one value each, analysed as code but not
    /// stemmed: where a quoted phrase or a pasted message meets the line that prints it.
    pub literal: Field,
    /// A code section's language ("python") and kind ("function"), for filters.
    pub code_lang: Field,
    pub kind: Field,
    /// The words of the title, aliases, headings and body that the section's stemmer changed,
    /// as written (`analyzer::exact_analyzer`; documents only, no positions): where a quoted
    /// phrase's words are looked up. The schema's last field: tantivy indexes it after the text
    /// fields, whose analysis collects its words.
    pub exact: Field,
}

pub fn build_schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text_indexed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER_NAME)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let code_indexed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(CODE_TOKENIZER_NAME)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        path: b.add_text_field("path", STRING | FAST),
        order: b.add_u64_field("order", NumericOptions::default().set_fast()),
        depth: b.add_u64_field("depth", NumericOptions::default().set_indexed()),
        folder: b.add_text_field("folder", STRING),
        tag: b.add_text_field("tag", STRING),
        prop: b.add_text_field("prop", STRING),
        title: b.add_text_field("title", text_indexed.clone()),
        aliases: b.add_text_field("aliases", text_indexed.clone()),
        headings: b.add_text_field("headings", text_indexed.clone()),
        tags: b.add_text_field("tags", text_indexed.clone()),
        body: b.add_text_field("body", text_indexed),
        code: b.add_text_field("code", code_indexed.clone()),
        symbol: b.add_text_field("symbol", code_indexed),
        literal: b.add_text_field(
            "literal",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(LITERAL_TOKENIZER_NAME)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            ),
        ),
        code_lang: b.add_text_field("code_lang", STRING),
        kind: b.add_text_field("kind", STRING),
        exact: b.add_text_field(
            "exact",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(EXACT_TOKENIZER_NAME)
                    .set_index_option(IndexRecordOption::Basic)
                    .set_fieldnorms(false),
            ),
        ),
    };
    (b.build(), fields)
}

/// Everything the lexical index needs to know about one section.
pub struct SectionDoc<'a> {
    pub path: &'a str,
    pub order: u32,
    pub depth: u8,
    pub folders: &'a [String],
    /// The note's title, and its file name when that differs.
    pub titles: &'a [String],
    pub aliases: &'a [String],
    pub headings: &'a str,
    pub tags: &'a [String],
    pub props: &'a [String],
    /// The section's own lines (see `Engine::index_text`), tokenized by the field's analyzer.
    pub body: &'a str,
    /// The language the section's fields are stemmed in.
    pub stem: crate::language::Stem,
    /// A code section: its body goes to the code field instead of the body field.
    pub code: Option<CodeDoc<'a>>,
}

/// What the lexical index knows of a code section besides its text.
pub struct CodeDoc<'a> {
    /// `CodeLang::name` ("python").
    pub lang: &'static str,
    /// `ChunkKind::name` ("function").
    pub kind: &'static str,
    /// The breadcrumb, the name and the signature.
    pub symbol: &'a str,
    /// The string literals on its own lines.
    pub literals: &'a [String],
}

/// Filter terms of a tag: the tag and each parent ("a/b/c" → a, a/b, a/b/c), lower-cased.
pub fn tag_terms(tag: &str) -> Vec<String> {
    let t = tag.trim().trim_start_matches('#').to_lowercase();
    let mut out = Vec::new();
    let mut acc = String::new();
    for seg in t.split('/').filter(|s| !s.is_empty()) {
        if !acc.is_empty() {
            acc.push('/');
        }
        acc.push_str(seg);
        out.push(acc.clone());
    }
    out
}

/// A section's field values as tantivy indexes them. Not `TantivyDocument`: its compact
/// form re-encodes every value (measured, when the body was pre-tokenized: a sixth of the
/// native indexing time went to serde_json); this holds the values as they are.
#[derive(Default)]
pub struct SectionDocument(Vec<(Field, OwnedValue)>);

type FieldValue = (Field, OwnedValue);

impl Document for SectionDocument {
    type Value<'a> = &'a OwnedValue;
    type FieldsValuesIter<'a> =
        std::iter::Map<std::slice::Iter<'a, FieldValue>, fn(&'a FieldValue) -> (Field, &'a OwnedValue)>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.0.iter().map(|(f, v)| (*f, v))
    }
}

impl SectionDocument {
    fn add_text(&mut self, field: Field, text: impl Into<String>) {
        self.0.push((field, OwnedValue::Str(text.into())));
    }

    fn add_u64(&mut self, field: Field, value: u64) {
        self.0.push((field, OwnedValue::U64(value)));
    }
}

impl Fields {
    pub fn document(&self, d: SectionDoc) -> SectionDocument {
        let mut doc = SectionDocument::default();
        doc.add_text(self.path, d.path);
        doc.add_u64(self.order, d.order as u64);
        doc.add_u64(self.depth, d.depth as u64);
        for f in d.folders {
            doc.add_text(self.folder, f.to_lowercase());
        }
        for t in d.titles {
            doc.add_text(self.title, t);
        }
        for a in d.aliases {
            doc.add_text(self.aliases, a);
        }
        if !d.headings.is_empty() {
            doc.add_text(self.headings, d.headings);
        }
        for t in d.tags {
            for term in tag_terms(t) {
                doc.add_text(self.tag, term);
            }
            doc.add_text(self.tags, t.replace(['/', '-', '_'], " "));
        }
        for p in d.props {
            doc.add_text(self.prop, p);
        }
        match d.code {
            Some(c) => {
                doc.add_text(self.code, d.body);
                doc.add_text(self.symbol, c.symbol);
                for l in c.literals {
                    doc.add_text(self.literal, l);
                }
                doc.add_text(self.code_lang, c.lang);
                doc.add_text(self.kind, c.kind);
            }
            None => doc.add_text(self.body, d.body),
        }
        // Its words come from the fields above (see `Fields::exact`).
        doc.add_text(self.exact, "");
        doc
    }
}
