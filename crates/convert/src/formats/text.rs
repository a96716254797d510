//! Plain text, Markdown and source code: decoded and, except for prose,
//! fenced with their language.

use crate::format::{code_language, extension};
use crate::markdown::fence;
use crate::{Conversion, Format};

/// Bytes to a string: UTF-8 (with or without BOM), UTF-16 with a BOM, else
/// Windows-1252 (what "ANSI" text files on a desktop usually are).
pub fn decode(bytes: &[u8]) -> String {
    if let Some((encoding, bom_len)) = encoding_rs::Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return text.into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::WINDOWS_1252.decode(bytes).0.into_owned(),
    }
}

pub(crate) fn convert(format: Format, name: &str, bytes: &[u8]) -> Conversion {
    let text = decode(bytes).replace("\r\n", "\n");
    let markdown = match format {
        Format::Markdown | Format::Text => text,
        Format::Json => fence("json", &text),
        Format::Xml => fence("xml", &text),
        Format::Yaml => fence("yaml", &text),
        _ => {
            let lang = extension(name)
                .as_deref()
                .and_then(code_language)
                .unwrap_or("");
            fence(lang, &text)
        }
    };
    Conversion::new(format, markdown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_are_decoded() {
        assert_eq!(decode("Zoë".as_bytes()), "Zoë");
        assert_eq!(decode(&[0xEF, 0xBB, 0xBF, b'a']), "a");
        assert_eq!(decode(&[0xFF, 0xFE, b'h', 0, b'i', 0]), "hi");
        assert_eq!(decode(&[b'Z', b'o', 0xEB]), "Zoë");
    }

    #[test]
    fn code_is_fenced_with_its_language() {
        let c = convert(Format::Code, "main.rs", b"fn main() {}\r\n");
        assert_eq!(c.markdown, "```rust\nfn main() {}\n```\n");
        let c = convert(Format::Markdown, "a.md", b"# T\n");
        assert_eq!(c.markdown, "# T\n");
    }
}
