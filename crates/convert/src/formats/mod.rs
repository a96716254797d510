//! One converter per format.

pub(crate) mod csv;
mod docx;
mod eml;
mod epub;
pub(crate) mod html;
mod image;
mod odt;
mod pdf;
mod pptx;
mod rtf;
mod sheet;
pub(crate) mod text;
pub(crate) mod xml;

use crate::{Conversion, ConvertError, ConvertOptions, Format, normalize_package};

/// Runs the converter for `format`.
pub(crate) fn convert_as(
    format: Format,
    name: &str,
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let repaired = match format {
        Format::Docx | Format::Xlsx | Format::Pptx => repair(bytes),
        _ => None,
    };
    let bytes = repaired.as_deref().unwrap_or(bytes);
    match format {
        Format::Pdf => pdf::convert(bytes, options),
        Format::Docx => docx::convert(bytes, options),
        Format::Odt => odt::convert(bytes, options),
        Format::Xlsx | Format::Xls | Format::Ods => sheet::convert(format, bytes, options),
        Format::Pptx => pptx::convert(bytes, options),
        Format::Html => Ok(html::convert(&text::decode(bytes))),
        Format::Epub => epub::convert(bytes, options),
        Format::Rtf => rtf::convert(bytes),
        Format::Eml => eml::convert(bytes),
        Format::Csv | Format::Tsv => Ok(csv::convert(format, bytes, options)),
        Format::Image => image::convert(bytes, options),
        Format::Markdown
        | Format::Json
        | Format::Xml
        | Format::Yaml
        | Format::Code
        | Format::Text => Ok(text::convert(format, name, bytes)),
    }
}

/// An Office package re-packed into the standard layout, `None` when it is
/// standard already or cannot be repaired (its reader then reports why).
fn repair(bytes: &[u8]) -> Option<Vec<u8>> {
    match normalize_package(bytes) {
        Ok(repaired) => {
            if repaired.is_some() {
                tracing::debug!("re-packed a non-standard Office package before reading it");
            }
            repaired
        }
        Err(e) => {
            tracing::debug!("the Office package could not be repaired: {e}");
            None
        }
    }
}
