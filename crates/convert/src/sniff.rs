//! Recognising a file's format from its content, the name breaking ties.

use std::collections::HashSet;
use std::io::Cursor;

use zip::ZipArchive;

use crate::ConvertError;
use crate::format::{Format, extension};
use crate::ooxml_package::{OfficeKind, canonical_name, office_kind};

/// The format of `bytes`, judged by content first and `name`'s extension
/// second. Binary content nothing recognises is [`ConvertError::Unsupported`].
pub fn sniff(name: &str, bytes: &[u8]) -> Result<Format, ConvertError> {
    let head = &bytes[..bytes.len().min(1024)];
    if find(head, b"%PDF-").is_some() {
        return Ok(Format::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return sniff_zip(name, bytes);
    }
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return match extension(name).as_deref() {
            Some("doc") | Some("dot") => Err(unsupported(
                "a Word 97-2003 document (.doc)",
                "save it as .docx and attach it again",
            )),
            Some("ppt") | Some("pps") => Err(unsupported(
                "a PowerPoint 97-2003 presentation (.ppt)",
                "save it as .pptx and attach it again",
            )),
            Some("msg") => Err(unsupported(
                "an Outlook message (.msg)",
                "save it as .eml and attach it again",
            )),
            _ => Ok(Format::Xls),
        };
    }
    if head.starts_with(b"{\\rtf") {
        return Ok(Format::Rtf);
    }
    if is_image(head) {
        return Ok(Format::Image);
    }
    if looks_binary(head) && !has_text_bom(head) {
        let what = match extension(name) {
            Some(ext) => format!("a binary `.{ext}` file"),
            None => "a binary file".to_string(),
        };
        return Err(ConvertError::Unsupported { what, hint: None });
    }
    Ok(sniff_text(name, head))
}

fn unsupported(what: &str, hint: &str) -> ConvertError {
    ConvertError::Unsupported {
        what: what.into(),
        hint: Some(hint.into()),
    }
}

fn sniff_zip(name: &str, bytes: &[u8]) -> Result<Format, ConvertError> {
    let mut archive =
        ZipArchive::new(Cursor::new(bytes)).map_err(|e| damaged_zip(name, e.to_string()))?;
    // Office tolerates `\` separators, a leading `/` and any case in part
    // names, and a main part anywhere `_rels/.rels` points; so does this.
    let names: HashSet<String> = archive
        .file_names()
        .filter_map(Result::ok)
        .map(|n| canonical_name(&n).to_ascii_lowercase())
        .collect();
    if let Some(format) = office_format(&names, &mut archive) {
        return Ok(format);
    }
    let has = |n: &str| names.contains(&n.to_ascii_lowercase());
    // ODF and EPUB store their type uncompressed in `mimetype` at offset 38.
    let mime = bytes
        .get(30..38)
        .filter(|n| *n == b"mimetype")
        .and_then(|_| bytes.get(38..38 + 60))
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    if mime.starts_with("application/epub+zip")
        || has("META-INF/container.xml")
            && has("mimetype")
            && extension(name).as_deref() == Some("epub")
    {
        return Ok(Format::Epub);
    }
    if mime.starts_with("application/vnd.oasis.opendocument.spreadsheet") {
        return Ok(Format::Ods);
    }
    if mime.starts_with("application/vnd.oasis.opendocument.text") {
        return Ok(Format::Odt);
    }
    if names.iter().any(|n| n.starts_with("word/")) {
        return Err(ConvertError::Corrupt {
            format: "Word document",
            reason: "`word/document.xml` is missing".into(),
        });
    }
    Err(unsupported(
        "a zip archive",
        "unpack it and attach the files inside",
    ))
}

/// A zip that cannot be opened: the extension names the format in the
/// message.
fn damaged_zip(name: &str, reason: String) -> ConvertError {
    let format = Format::from_extension(name).filter(|f| {
        matches!(
            f,
            Format::Docx | Format::Xlsx | Format::Pptx | Format::Epub | Format::Ods | Format::Odt
        )
    });
    ConvertError::Corrupt {
        format: format.map(Format::label).unwrap_or("zip"),
        reason,
    }
}

/// The Office format of a zip whose lower-cased canonical entry names are
/// `names`: by the usual main part names, else by what `_rels/.rels`
/// points at.
fn office_format(
    names: &HashSet<String>,
    archive: &mut ZipArchive<Cursor<&[u8]>>,
) -> Option<Format> {
    let has = |n: &str| names.contains(n);
    if has("word/document.xml") {
        return Some(Format::Docx);
    }
    if has("xl/workbook.xml") || has("xl/workbook.bin") {
        return Some(Format::Xlsx);
    }
    if has("ppt/presentation.xml") {
        return Some(Format::Pptx);
    }
    Some(match office_kind(archive)? {
        OfficeKind::Document => Format::Docx,
        OfficeKind::Workbook | OfficeKind::BinaryWorkbook => Format::Xlsx,
        OfficeKind::Presentation => Format::Pptx,
    })
}

/// The MIME type of encoded image bytes, judged by their signature.
pub fn image_mime_type(head: &[u8]) -> Option<&'static str> {
    Some(if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        "image/jpeg"
    } else if head.starts_with(b"II*\0") || head.starts_with(b"MM\0*") {
        "image/tiff"
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        "image/gif"
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        "image/webp"
    } else if head.starts_with(b"BM") && extension_free_bmp(head) {
        "image/bmp"
    } else {
        return None;
    })
}

fn is_image(head: &[u8]) -> bool {
    image_mime_type(head).is_some()
}

fn extension_free_bmp(head: &[u8]) -> bool {
    // BITMAPINFOHEADER sizes: 12, 40, 56, 108, 124.
    head.len() >= 18
        && matches!(
            u32::from_le_bytes([head[14], head[15], head[16], head[17]]),
            12 | 40 | 56 | 108 | 124
        )
}

fn has_text_bom(head: &[u8]) -> bool {
    head.starts_with(&[0xEF, 0xBB, 0xBF])
        || head.starts_with(&[0xFF, 0xFE])
        || head.starts_with(&[0xFE, 0xFF])
}

/// NUL bytes or many control characters: not text.
fn looks_binary(head: &[u8]) -> bool {
    if head.contains(&0) {
        return true;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C | 0x1B))
        .count();
    controls * 10 > head.len()
}

fn sniff_text(name: &str, head: &[u8]) -> Format {
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let lower: String = trimmed
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    let by_ext = Format::from_extension(name);
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return Format::Html;
    }
    if looks_like_email(trimmed) && !matches!(by_ext, Some(Format::Markdown | Format::Code)) {
        return Format::Eml;
    }
    if let Some(f) = by_ext
        && f != Format::Image
        && f.is_text_like()
    {
        return f;
    }
    if lower.starts_with("<?xml") {
        return if lower.contains("<html") {
            Format::Html
        } else {
            Format::Xml
        };
    }
    if (trimmed.starts_with('{') || trimmed.starts_with('[')) && extension(name).is_none() {
        return Format::Json;
    }
    Format::Text
}

/// RFC 5322 headers at the very top: at least two known header fields
/// before the first blank line.
fn looks_like_email(text: &str) -> bool {
    const FIELDS: [&str; 8] = [
        "from:",
        "to:",
        "subject:",
        "date:",
        "received:",
        "mime-version:",
        "message-id:",
        "return-path:",
    ];
    let mut known = 0;
    for line in text.lines().take(40) {
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        if FIELDS.iter().any(|f| lower.starts_with(f)) {
            known += 1;
        } else if !line.contains(':') {
            return false;
        }
    }
    known >= 2
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_wins_over_the_name() {
        assert_eq!(sniff("x.docx", b"%PDF-1.7\n...").unwrap(), Format::Pdf);
        assert_eq!(
            sniff("x.txt", b"\x89PNG\r\n\x1a\n0000").unwrap(),
            Format::Image
        );
        assert_eq!(sniff("x", b"{\\rtf1\\ansi hello}").unwrap(), Format::Rtf);
    }

    #[test]
    fn text_is_told_apart_by_extension_then_content() {
        assert_eq!(sniff("a.csv", b"a,b\n1,2\n").unwrap(), Format::Csv);
        assert_eq!(sniff("a.rs", b"fn main() {}\n").unwrap(), Format::Code);
        assert_eq!(
            sniff("page", b"<!DOCTYPE html><html></html>").unwrap(),
            Format::Html
        );
        assert_eq!(
            sniff(
                "msg",
                b"From: a@b.c\r\nTo: d@e.f\r\nSubject: hi\r\n\r\nbody"
            )
            .unwrap(),
            Format::Eml
        );
        assert_eq!(sniff("notes", b"just words").unwrap(), Format::Text);
        assert_eq!(sniff("data", b"{\"a\": 1}").unwrap(), Format::Json);
    }

    #[test]
    fn binary_noise_is_refused_with_its_extension() {
        let err = sniff("blob.bin", &[0u8, 1, 2, 3, 250, 251]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a binary `.bin` file cannot be converted to text"
        );
    }

    #[test]
    fn legacy_office_files_say_what_to_do() {
        let ole = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0];
        let err = sniff("old.doc", &ole).unwrap_err();
        assert!(err.to_string().contains("save it as .docx"), "{err}");
        assert_eq!(sniff("old.xls", &ole).unwrap(), Format::Xls);
    }
}
