//! Attachment names from a message's BODYSTRUCTURE, so a message list
//! needs only the start of each message, not its attachments' bytes.

use async_imap::imap_proto::{BodyContentCommon, BodyStructure};

/// The names of the attachments in `bs`, in order.
pub(crate) fn attachment_names(bs: &BodyStructure<'_>) -> Vec<String> {
    let mut out = Vec::new();
    walk(bs, &mut out);
    out
}

fn walk(bs: &BodyStructure<'_>, out: &mut Vec<String>) {
    match bs {
        BodyStructure::Multipart { bodies, .. } => {
            for b in bodies {
                walk(b, out);
            }
        }
        BodyStructure::Message { common, .. } => {
            out.push(name_of(common).unwrap_or_else(|| "message.eml".into()));
        }
        BodyStructure::Basic { common, .. } | BodyStructure::Text { common, .. } => {
            let attached = common
                .disposition
                .as_ref()
                .is_some_and(|d| d.ty.eq_ignore_ascii_case("attachment"));
            let is_text = common.ty.ty.eq_ignore_ascii_case("text");
            match name_of(common) {
                Some(name) if attached || !is_text => out.push(name),
                None if attached => out.push(format!("attachment-{}", out.len() + 1)),
                _ => {}
            }
        }
    }
}

/// A part's file name: the disposition's `filename`, else the type's
/// `name` (RFC 2231 and RFC 2047 encodings decoded).
fn name_of(common: &BodyContentCommon<'_>) -> Option<String> {
    let disposition = common.disposition.as_ref().and_then(|d| d.params.as_ref());
    let ty = common.ty.params.as_ref();
    [(disposition, "filename"), (ty, "name")]
        .into_iter()
        .find_map(|(params, key)| param(params?, key))
}

fn param(
    params: &[(std::borrow::Cow<'_, str>, std::borrow::Cow<'_, str>)],
    key: &str,
) -> Option<String> {
    for (k, v) in params {
        if k.eq_ignore_ascii_case(key) {
            return Some(decode_2047(v));
        }
        if k.len() == key.len() + 1 && k.ends_with('*') && k[..key.len()].eq_ignore_ascii_case(key)
        {
            return Some(decode_2231(v));
        }
    }
    None
}

/// `=?utf-8?Q?…?=` words, through mail-parser's header decoding.
fn decode_2047(v: &str) -> String {
    if !v.contains("=?") {
        return v.to_string();
    }
    let header = format!("Subject: {v}\r\n\r\n");
    mail_parser::MessageParser::default()
        .parse(header.as_bytes())
        .and_then(|m| m.subject().map(str::to_string))
        .unwrap_or_else(|| v.to_string())
}

/// `utf-8''na%C3%AFve.pdf` → `naïve.pdf`.
fn decode_2231(v: &str) -> String {
    let encoded = v.splitn(3, '\'').nth(2).unwrap_or(v);
    let mut bytes = Vec::new();
    let mut it = encoded.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hex: Vec<u8> = it.by_ref().take(2).collect();
            match std::str::from_utf8(&hex)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(x) => bytes.push(x),
                None => bytes.extend_from_slice(&hex),
            }
        } else {
            bytes.push(b);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_names_are_decoded() {
        assert_eq!(
            decode_2231("utf-8''na%C3%AFve%20plan.pdf"),
            "naïve plan.pdf"
        );
        assert_eq!(decode_2047("=?utf-8?Q?Caf=C3=A9.pdf?="), "Café.pdf");
        assert_eq!(decode_2047("plain.pdf"), "plain.pdf");
    }
}
