//! Messages read (mail-parser: headers, the body as Markdown through
//! Baton's converter, attachment names) and written (mail-builder: the
//! Markdown body as text and HTML parts, attachments, reply headers).

use mail_builder::MessageBuilder;
use mail_builder::headers::address::Address as BuiltAddress;
use mail_parser::{Message, MessageParser, MimeHeaders, PartType};
use serde::Serialize;

use crate::MailError;

/// One line of a message list.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The id to read, move or reply to it with (`INBOX:42`).
    pub id: String,
    /// The sender.
    pub from: String,
    /// The recipients.
    pub to: String,
    /// When it was sent (RFC 3339).
    pub date: String,
    /// Its subject.
    pub subject: String,
    /// The start of its text.
    pub snippet: String,
    /// The names of its attachments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
    /// Not read yet.
    pub unread: bool,
}

/// A message read whole.
#[derive(Debug, Clone, Serialize)]
pub struct Email {
    /// Its id.
    pub id: String,
    /// The sender.
    pub from: String,
    /// The recipients.
    pub to: String,
    /// Copies.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cc: String,
    /// When it was sent (RFC 3339).
    pub date: String,
    /// Its subject.
    pub subject: String,
    /// The body as Markdown (HTML mail converted).
    pub body: String,
    /// Its attachments (save one with save_attachment).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<AttachmentInfo>,
    /// Not read yet (reading it does not change that; see mark_read).
    pub unread: bool,
}

/// An attachment's name, type and size.
#[derive(Debug, Clone, Serialize)]
pub struct AttachmentInfo {
    /// The file name.
    pub name: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its size in bytes.
    pub bytes: usize,
}

/// Parses raw message bytes.
pub(crate) fn parse<'x>(id: &str, raw: &'x [u8]) -> Result<Message<'x>, MailError> {
    MessageParser::default()
        .parse(raw)
        .ok_or_else(|| MailError::NoMessage {
            id: id.to_string(),
            reason: "the server's copy is not an e-mail message (no headers were found)".into(),
        })
}

/// `Name <address>, …` of an address header.
pub(crate) fn addresses(list: Option<&mail_parser::Address<'_>>) -> String {
    let Some(list) = list else {
        return String::new();
    };
    list.iter()
        .filter_map(|a| match (a.name(), a.address()) {
            (Some(n), Some(addr)) => Some(format!("{n} <{addr}>")),
            (None, Some(addr)) => Some(addr.to_string()),
            (Some(n), None) => Some(n.to_string()),
            (None, None) => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The bare addresses of an address header.
pub(crate) fn bare_addresses(list: Option<&mail_parser::Address<'_>>) -> Vec<String> {
    list.map(|l| {
        l.iter()
            .filter_map(|a| a.address().map(str::to_string))
            .collect()
    })
    .unwrap_or_default()
}

/// The body as Markdown: the plain text part, else the HTML converted.
pub(crate) fn body_markdown(msg: &Message<'_>) -> String {
    let html_only = msg.text_body.iter().all(|&i| {
        msg.part(i)
            .is_some_and(|p| matches!(p.body, PartType::Html(_)))
    });
    if msg.text_body_count() > 0
        && !html_only
        && let Some(text) = msg.body_text(0)
    {
        return text.trim().to_string();
    }
    msg.body_html(0)
        .map(|h| baton_convert::html_to_markdown(&h).trim().to_string())
        .unwrap_or_default()
}

/// The attachments of a message.
pub(crate) fn attachments(msg: &Message<'_>) -> Vec<AttachmentInfo> {
    msg.attachments()
        .enumerate()
        .map(|(i, a)| AttachmentInfo {
            name: attachment_name(a, i),
            mime_type: a
                .content_type()
                .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or("octet-stream")))
                .unwrap_or_else(|| "application/octet-stream".into()),
            bytes: a.contents().len(),
        })
        .collect()
}

/// An attachment's file name (`attachment-2` when it has none).
pub(crate) fn attachment_name(part: &mail_parser::MessagePart<'_>, index: usize) -> String {
    part.attachment_name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("attachment-{}", index + 1))
}

/// A list line of a message from its start (`head`: the headers and the
/// first part, perhaps cut off) and its attachments' names (read from the
/// head when the server gave no structure).
pub(crate) fn summary(
    id: String,
    head: &[u8],
    attachment_names: Option<Vec<String>>,
    unread: bool,
) -> Summary {
    let raw = head;
    let Some(msg) = MessageParser::default().parse(raw) else {
        return Summary {
            id,
            from: String::new(),
            to: String::new(),
            date: String::new(),
            subject: "(unreadable message)".into(),
            snippet: String::new(),
            attachments: Vec::new(),
            unread,
        };
    };
    let body = body_markdown(&msg);
    Summary {
        id,
        from: addresses(msg.from()),
        to: addresses(msg.to()),
        date: msg.date().map(|d| d.to_rfc3339()).unwrap_or_default(),
        subject: msg.subject().unwrap_or("(no subject)").to_string(),
        snippet: snippet(&body, 160),
        attachments: attachment_names
            .unwrap_or_else(|| attachments(&msg).into_iter().map(|a| a.name).collect()),
        unread,
    }
}

/// A message read whole.
pub(crate) fn email(id: String, raw: &[u8], unread: bool) -> Result<Email, MailError> {
    let msg = parse(&id, raw)?;
    Ok(Email {
        from: addresses(msg.from()),
        to: addresses(msg.to()),
        cc: addresses(msg.cc()),
        date: msg.date().map(|d| d.to_rfc3339()).unwrap_or_default(),
        subject: msg.subject().unwrap_or("(no subject)").to_string(),
        body: body_markdown(&msg),
        attachments: attachments(&msg),
        unread,
        id,
    })
}

/// The first `max` characters of `text`, white space collapsed.
fn snippet(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// A file to attach.
#[derive(Debug, Clone)]
pub(crate) struct Attachment {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A message to send or keep as a draft.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outgoing {
    pub from: Option<(Option<String>, String)>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
    pub attachments: Vec<Attachment>,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
}

/// `Ana <ana@example.org>` or `ana@example.org` → (name, address),
/// checked.
pub(crate) fn parse_address(s: &str) -> Result<(Option<String>, String), MailError> {
    let s = s.trim();
    let (name, addr) = match (s.rfind('<'), s.ends_with('>')) {
        (Some(i), true) => {
            let name = s[..i].trim().trim_matches('"').trim();
            (
                (!name.is_empty()).then(|| name.to_string()),
                &s[i + 1..s.len() - 1],
            )
        }
        _ => (None, s),
    };
    addr.parse::<lettre::Address>()
        .map_err(|e| MailError::invalid(format!("`{s}` is not an e-mail address: {e}")))?;
    Ok((name, addr.to_string()))
}

fn built(list: &[(Option<String>, String)]) -> BuiltAddress<'static> {
    BuiltAddress::new_list(
        list.iter()
            .map(|(n, a)| BuiltAddress::new_address(n.clone(), a.clone()))
            .collect(),
    )
}

impl Outgoing {
    /// Every recipient's bare address (To and Cc), checked.
    pub fn recipients(&self) -> Result<Vec<String>, MailError> {
        let mut all = Vec::new();
        for s in self.to.iter().chain(&self.cc) {
            all.push(parse_address(s)?.1);
        }
        if all.is_empty() {
            return Err(MailError::invalid("the message has no recipient (`to`)"));
        }
        Ok(all)
    }

    /// The message as RFC 5322 bytes with its new Message-ID.
    pub fn build(&self, message_id: &str) -> Result<Vec<u8>, MailError> {
        let parse_all = |l: &[String]| {
            l.iter()
                .map(|s| parse_address(s))
                .collect::<Result<Vec<_>, _>>()
        };
        let (to, cc) = (parse_all(&self.to)?, parse_all(&self.cc)?);
        let mut b = MessageBuilder::new()
            .message_id(message_id.to_string())
            .subject(one_line(&self.subject))
            .text_body(self.body.clone())
            .html_body(markdown_to_html(&self.body));
        if let Some((name, addr)) = &self.from {
            b = b.from(BuiltAddress::new_address(name.clone(), addr.clone()));
        }
        if !to.is_empty() {
            b = b.to(built(&to));
        }
        if !cc.is_empty() {
            b = b.cc(built(&cc));
        }
        if let Some(id) = &self.in_reply_to {
            b = b.in_reply_to(id.clone());
        }
        if !self.references.is_empty() {
            b = b.references(self.references.as_slice());
        }
        for a in &self.attachments {
            b = b.attachment(mime_type(&a.name), one_line(&a.name), a.bytes.clone());
        }
        b.write_to_vec()
            .map_err(|e| MailError::invalid(format!("the message could not be written: {e}")))
    }
}

/// `s` without line breaks or other control characters: a header value
/// cannot be made to carry another header (a subject decoded from the
/// message replied to may hold `\r\nBcc: …`).
pub(crate) fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Markdown as an HTML mail body (raw HTML in it is shown as text).
pub(crate) fn markdown_to_html(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let events = Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH).map(
        |e| match e {
            Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
            other => other,
        },
    );
    let mut out = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"font-family: sans-serif\">",
    );
    html::push_html(&mut out, events);
    out.push_str("</body></html>");
    out
}

/// The MIME type of a file by its extension.
fn mime_type(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("pdf") => "application/pdf",
        Some("txt" | "md") => "text/plain",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("zip") => "application/zip",
        Some("json") => "application/json",
        Some("docx") => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        Some("xlsx") => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        Some("pptx") => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        _ => "application/octet-stream",
    }
}

/// `Re: subject` (once).
pub(crate) fn reply_subject(subject: &str) -> String {
    if subject.trim_start().to_ascii_lowercase().starts_with("re:") {
        subject.to_string()
    } else {
        format!("Re: {subject}")
    }
}

/// The reply body: the new text, then the original quoted.
pub(crate) fn quoted(body: &str, msg: &Message<'_>) -> String {
    let who = addresses(msg.from());
    let when = msg.date().map(|d| d.to_rfc3339()).unwrap_or_default();
    let original: Vec<String> = body_markdown(msg)
        .lines()
        .map(|l| format!("> {l}"))
        .collect();
    format!(
        "{}\n\nOn {when}, {who} wrote:\n\n{}",
        body.trim_end(),
        original.join("\n")
    )
}
