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
    /// The chunk's embedding (little-endian f32s), when a model made one.
    pub vector: Field,
}

/// The text fields' tokenizer: English words, lower-cased, stemmed,
/// without stop words (so "what did we pay" ranks by "pay", not by the
/// documents full of "the" and "we").
pub(crate) const TOKENIZER: &str = "en_stem_nostop";

/// English function words: Lucene's list (tantivy's own) with the
/// pronouns, auxiliaries and question words a question is full of.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with", "i", "me", "my", "we", "us", "our", "you", "your",
    "he", "him", "his", "she", "her", "its", "them", "what", "which", "who", "whom", "when",
    "where", "why", "how", "do", "does", "did", "done", "have", "has", "had", "been", "being",
    "were", "am", "can", "could", "would", "should", "shall", "may", "might", "must", "so", "than",
    "too", "very", "from", "about", "any", "all", "some",
];

/// Registers [`TOKENIZER`] on `index` (once per open).
pub(crate) fn register_tokenizer(index: &tantivy::Index) {
    use tantivy::tokenizer::{
        Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter,
        TextAnalyzer,
    };
    let builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .dynamic();
    let builder = builder.filter_dynamic(StopWordFilter::remove(
        STOP_WORDS.iter().map(|w| (*w).to_string()),
    ));
    let analyzer = builder
        .filter_dynamic(Stemmer::new(Language::English))
        .build();
    index.tokenizers().register(TOKENIZER, analyzer);
}

/// Bump when the schema or chunking changes: a different version is rebuilt.
pub(crate) const SCHEMA_VERSION: u32 = 2;

pub(crate) fn build() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = |stored: bool| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
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
        vector: b.add_bytes_field("vector", STORED),
    };
    (b.build(), fields)
}
