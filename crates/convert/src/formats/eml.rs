//! E-mail messages: headers, the body (plain text preferred, else HTML
//! converted) and the list of attachments.

use mail_parser::{MessageParser, MimeHeaders};

use crate::error::human_size;
use crate::{Conversion, ConvertError, Format};

fn addresses(list: Option<&mail_parser::Address<'_>>) -> Option<String> {
    let list = list?;
    let names: Vec<String> = list
        .iter()
        .map(|a| match (a.name(), a.address()) {
            (Some(n), Some(addr)) => format!("{n} <{addr}>"),
            (None, Some(addr)) => addr.to_string(),
            (Some(n), None) => n.to_string(),
            (None, None) => String::new(),
        })
        .filter(|s| !s.is_empty())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

pub(crate) fn convert(bytes: &[u8]) -> Result<Conversion, ConvertError> {
    let msg = MessageParser::default()
        .parse(bytes)
        .ok_or_else(|| ConvertError::Corrupt {
            format: "e-mail",
            reason: "no message headers were found".into(),
        })?;
    let mut md = String::new();
    let subject = msg.subject().map(str::to_string);
    md.push_str(&format!(
        "# {}\n\n",
        subject.as_deref().unwrap_or("(no subject)")
    ));
    let mut header = |label: &str, value: Option<String>| {
        if let Some(v) = value {
            md.push_str(&format!("**{label}:** {v}  \n"));
        }
    };
    header("From", addresses(msg.from()));
    header("To", addresses(msg.to()));
    header("Cc", addresses(msg.cc()));
    header("Date", msg.date().map(|d| d.to_rfc3339()));
    md.push('\n');
    let body = if let Some(text) = msg
        .body_text(0)
        .filter(|_| msg.text_body_count() > 0 && !is_html_only(&msg))
    {
        text.into_owned()
    } else if let Some(html) = msg.body_html(0) {
        super::html::to_markdown(&html)
    } else {
        String::new()
    };
    md.push_str(body.trim());
    md.push('\n');
    let attachments: Vec<String> = msg
        .attachments()
        .map(|a| {
            let name = a.attachment_name().unwrap_or("(unnamed)");
            format!("- {name} ({})", human_size(a.contents().len() as u64))
        })
        .collect();
    if !attachments.is_empty() {
        md.push_str("\n## Attachments\n\n");
        md.push_str(&attachments.join("\n"));
        md.push('\n');
    }
    let mut c = Conversion::new(Format::Eml, md);
    c.title = subject;
    Ok(c)
}

/// True when the only text body is an HTML part (mail-parser then offers an
/// automatic, flattened text version that loses tables and links).
fn is_html_only(msg: &mail_parser::Message<'_>) -> bool {
    msg.text_body.iter().all(|&i| {
        msg.part(i)
            .is_some_and(|p| matches!(p.body, mail_parser::PartType::Html(_)))
    })
}
