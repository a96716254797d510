//! The index's fields.

use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

/// Handles to every field.
#[derive(Clone, Copy)]
pub(crate) struct Fields {
    /// Agent path (`/reports/q3.pdf`), exact: for deletes and filters.
    pub path: Field,
    /// Document title and file name, tokenised.
    pub title: Field,
    /// The chunk's heading trail (`Report > Financials`).
    pub heading: Field,
    /// The chunk's text.
    pub body: Field,
    /// Format label (`pdf`, `docx`), exact.
    pub format: Field,
    /// Modification time, seconds since 1970.
    pub modified: Field,
    /// Where the chunk starts in the converted Markdown (characters).
    pub offset: Field,
    /// Human-readable location: `page 3`, `Financials`.
    pub location: Field,
}

/// Bump when the schema or chunking changes: a different version is rebuilt.
pub(crate) const SCHEMA_VERSION: u32 = 1;

pub(crate) fn build() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |stored: bool| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let o = TextOptions::default().set_indexing_options(indexing);
        if stored { o.set_stored() } else { o }
    };
    let fields = Fields {
        path: b.add_text_field("path", STRING | STORED),
        title: b.add_text_field("title", text(true)),
        heading: b.add_text_field("heading", text(true)),
        body: b.add_text_field("body", text(true)),
        format: b.add_text_field("format", STRING | STORED),
        modified: b.add_u64_field("modified", INDEXED | STORED | FAST),
        offset: b.add_u64_field("offset", STORED),
        location: b.add_text_field("location", STORED),
    };
    (b.build(), fields)
}
