//! One converter per format.

mod csv;
mod docx;
mod eml;
mod epub;
mod html;
mod image;
mod odt;
mod pdf;
mod pptx;
mod rtf;
mod sheet;
mod text;
pub(crate) mod xml;

use crate::{Conversion, ConvertError, ConvertOptions, Format};

/// Runs the converter for `format`.
pub(crate) fn convert_as(
    format: Format,
    name: &str,
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
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
