//! PDF through `pdf_oxide`: Markdown per page in reading order (headings,
//! lists and tables where the layout shows them, columns read one after the
//! other), page markers, and OCR for pages without a text layer.

use pdf_oxide::PdfDocument;
use pdf_oxide::converters::ConversionOptions;

use crate::markdown::tidy;
use crate::{Conversion, ConvertError, ConvertOptions, Format};

const FORMAT: &str = "PDF";

fn map_err(e: pdf_oxide::Error) -> ConvertError {
    match e {
        pdf_oxide::Error::EncryptedPdf => ConvertError::Encrypted { format: FORMAT },
        other => ConvertError::Corrupt {
            format: FORMAT,
            reason: other.to_string(),
        },
    }
}

/// The marker put before each page's text.
pub fn page_marker(page: usize) -> String {
    format!("<!-- page {page} -->")
}

pub(crate) fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Conversion, ConvertError> {
    let doc = PdfDocument::from_bytes(bytes.to_vec()).map_err(map_err)?;
    if doc.is_encrypted() && !doc.is_authenticated() {
        return Err(ConvertError::Encrypted { format: FORMAT });
    }
    let pages = doc.page_count().map_err(map_err)?;
    if pages == 0 {
        return Err(ConvertError::Corrupt {
            format: FORMAT,
            reason: "it has no pages".into(),
        });
    }
    let opts = ConversionOptions::default();
    let mut md = String::new();
    let mut warnings = Vec::new();
    let mut ocr_pages = Vec::new();
    let mut failed_pages = 0;
    for i in 0..pages {
        let text = match doc.to_markdown(i, &opts) {
            Ok(t) => t,
            Err(e) => {
                failed_pages += 1;
                warnings.push(format!("page {} could not be read: {e}", i + 1));
                String::new()
            }
        };
        // No text on the page: a scan (its images go to OCR) or blank.
        let needs_ocr = text.trim().is_empty();
        md.push_str(&page_marker(i + 1));
        md.push_str("\n\n");
        if needs_ocr {
            match ocr_page(&doc, i, options) {
                Ok(Some(t)) => {
                    ocr_pages.push(i + 1);
                    md.push_str(&t);
                }
                Ok(None) => {}
                Err(w) => warnings.push(w),
            }
        } else {
            md.push_str(text.trim());
        }
        md.push_str("\n\n");
    }
    if failed_pages == pages {
        return Err(ConvertError::Corrupt {
            format: FORMAT,
            reason: warnings
                .first()
                .cloned()
                .unwrap_or_else(|| "no page could be read".into()),
        });
    }
    let has_text = md
        .lines()
        .any(|l| !l.trim().is_empty() && !l.starts_with("<!-- page "));
    if !has_text {
        return Err(match warnings.first() {
            Some(w) => ConvertError::Corrupt {
                format: FORMAT,
                reason: w.clone(),
            },
            None => ConvertError::NoText { format: FORMAT },
        });
    }
    if !ocr_pages.is_empty() {
        let engine = options
            .ocr
            .as_ref()
            .map(|o| o.name().to_string())
            .unwrap_or_default();
        warnings.push(format!(
            "{} scanned page(s) ({}) were read with OCR ({engine}); check numbers and names",
            ocr_pages.len(),
            ocr_pages
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut c = Conversion::new(Format::Pdf, tidy(&md));
    c.pages = Some(pages);
    c.warnings = warnings;
    Ok(c)
}

/// OCR of the images on a page without text. `Ok(None)`: nothing to read.
fn ocr_page(
    doc: &PdfDocument,
    page: usize,
    options: &ConvertOptions,
) -> Result<Option<String>, String> {
    let images = doc.extract_images(page).map_err(|e| {
        format!(
            "page {} has no text and its images could not be read: {e}",
            page + 1
        )
    })?;
    if images.is_empty() {
        return Ok(None);
    }
    let Some(engine) = options.ocr.as_ref() else {
        return Err(format!(
            "page {} is a scanned image and no OCR engine is available",
            page + 1
        ));
    };
    let mut texts = Vec::new();
    for image in images {
        let png = image
            .to_png_bytes()
            .map_err(|e| format!("an image on page {} could not be decoded: {e}", page + 1))?;
        let t = engine
            .recognize(&png)
            .map_err(|e| format!("page {}: {e}", page + 1))?;
        if !t.text.trim().is_empty() {
            texts.push(t.text);
        }
    }
    Ok((!texts.is_empty()).then(|| texts.join("\n\n")))
}
