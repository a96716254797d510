//! EPUB e-books: the spine's XHTML documents in reading order, each through
//! the HTML converter.

use super::xml;
use crate::markdown::tidy;
use crate::zipped::{Zipped, resolve_target};
use crate::{Conversion, ConvertError, ConvertOptions, Format};

const FORMAT: &str = "EPUB e-book";

fn corrupt(reason: String) -> ConvertError {
    ConvertError::Corrupt {
        format: FORMAT,
        reason,
    }
}

pub(crate) fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Conversion, ConvertError> {
    let mut zip = Zipped::open(bytes, FORMAT, options.max_unpacked_bytes)?;
    if zip.has("META-INF/encryption.xml") {
        let enc = zip.text("META-INF/encryption.xml")?.unwrap_or_default();
        if enc.contains("EncryptedData") && !enc.contains("fonts") {
            return Err(ConvertError::Encrypted { format: FORMAT });
        }
    }
    let container = xml::parse(&zip.required_text("META-INF/container.xml")?).map_err(corrupt)?;
    let opf_path = container
        .find("rootfile")
        .and_then(|r| r.attr("full-path"))
        .ok_or_else(|| corrupt("META-INF/container.xml names no package file".into()))?
        .to_string();
    let opf = xml::parse(&zip.required_text(&opf_path)?).map_err(corrupt)?;
    let title = opf
        .find("title")
        .map(|t| t.text().trim().to_string())
        .filter(|t| !t.is_empty());
    let manifest = opf
        .child("manifest")
        .ok_or_else(|| corrupt("the package has no manifest".into()))?;
    let spine = opf
        .child("spine")
        .ok_or_else(|| corrupt("the package has no spine".into()))?;
    let mut md = String::new();
    let mut chapters = 0;
    for item in spine.elems().filter(|e| e.name == "itemref") {
        let Some(idref) = item.attr("idref") else {
            continue;
        };
        let Some(entry) = manifest.elems().find(|m| m.attr("id") == Some(idref)) else {
            continue;
        };
        if entry.attr("properties").is_some_and(|p| p.contains("nav")) {
            continue;
        }
        let Some(href) = entry.attr("href") else {
            continue;
        };
        let path = resolve_target(&opf_path, href.split('#').next().unwrap_or(href));
        let path = percent_decode(&path);
        let Some(html) = zip.text(&path)? else {
            continue;
        };
        let chapter = super::html::to_markdown(&html);
        if !chapter.trim().is_empty() {
            md.push_str(&chapter);
            md.push('\n');
            chapters += 1;
        }
    }
    let mut c = Conversion::new(Format::Epub, tidy(&md));
    c.title = title;
    c.pages = Some(chapters);
    Ok(c)
}

/// `%20` → space in manifest hrefs.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(v) = u8::from_str_radix(
                std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"),
                16,
            )
        {
            out.push(v);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
