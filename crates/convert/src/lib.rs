//! Any file to Markdown.
//!
//! Files reach the engine in their original bytes; [`convert`] sniffs the
//! format from the content (the name's extension only breaks ties), runs the
//! one converter for it and returns a [`Conversion`]: Markdown, the format,
//! page count and warnings. Every failure is a [`ConvertError`] whose text
//! can be shown to the user and the model as it is.
//!
//! Conversion is bounded: files over [`ConvertOptions::max_bytes`] and
//! archives that would unpack beyond [`ConvertOptions::max_unpacked_bytes`]
//! are refused before any work, and [`convert_bounded`] adds a wall-clock
//! deadline and turns a converter panic into an error.
//!
//! Office files that bend the package rules the way Office tolerates
//! (backslashes in part names, a lower-case `[content_types].xml`, the main
//! part away from its usual place) are repaired in memory by
//! [`normalize_package`] before they are read; other readers of Office
//! files (umya-spreadsheet) can call it too.

mod bounded;
mod error;
mod format;
mod formats;
mod markdown;
mod ocr;
mod ooxml_package;
mod options;
mod sniff;
mod zipped;

pub use bounded::convert_bounded;
pub use error::{ConvertError, human_size};
pub use format::Format;
pub use formats::csv::sniff_delimiter;
pub use formats::text::decode as decode_text;
pub use ocr::{OcrEngine, OcrError, OcrText, TesseractOcr};
pub use ooxml_package::{PackageError, normalize_package};
pub use options::ConvertOptions;
pub use sniff::{image_mime_type, sniff};

/// HTML (a document or a fragment) as Markdown, leaving out scripts,
/// styles, hidden elements and inline images: what [`convert`] does for an
/// HTML file, for markup that is already in memory (a live web page).
pub fn html_to_markdown(html: &str) -> String {
    formats::html::to_markdown(html)
}

use serde::{Deserialize, Serialize};

/// A file converted to Markdown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversion {
    /// The Markdown text.
    pub markdown: String,
    /// The format the content was recognised as.
    pub format: Format,
    /// A title found in the document (metadata or first heading).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Pages (PDF), slides (PPTX) or sheets (spreadsheets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<usize>,
    /// Things the user should know: truncation, OCR used, pages skipped…
    pub warnings: Vec<String>,
}

impl Conversion {
    fn new(format: Format, markdown: String) -> Self {
        Self {
            markdown,
            format,
            title: None,
            pages: None,
            warnings: Vec::new(),
        }
    }
}

/// Converts `bytes` (a file called `name`) to Markdown on the calling thread.
///
/// The size limit is checked first; archives are checked against the unpack
/// limit before anything is inflated. Use [`convert_bounded`] to also bound
/// the time taken.
pub fn convert(
    name: &str,
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let size = bytes.len() as u64;
    if size > options.max_bytes {
        return Err(ConvertError::TooLarge {
            size,
            limit: options.max_bytes,
        });
    }
    if bytes.is_empty() {
        return Err(ConvertError::Empty);
    }
    let format = sniff(name, bytes)?;
    let mut conversion = formats::convert_as(format, name, bytes, options)?;
    if let Some(named) = Format::from_extension(name)
        && named != conversion.format
        && !named.is_text_like()
    {
        conversion.warnings.push(format!(
            "the file is named like {} but its content is {}; it was read as {}",
            named.label(),
            conversion.format.label(),
            conversion.format.label()
        ));
    }
    if conversion.title.is_none() {
        conversion.title = markdown::first_heading(&conversion.markdown);
    }
    Ok(conversion)
}
