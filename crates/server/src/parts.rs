//! A chat message's content parts: text, files (an uploaded `file_id`, or
//! inline base64 `file_data`) and images (`data:` URLs). Files and images
//! become attachments the engine converts, as if dropped on the desktop.

use base64::Engine as _;
use baton_engine::api::FileAttachment;
use serde_json::Value;

use crate::wire::{ChatMessage, Content};
use crate::{ApiError, App, Caller};

/// A message's words and attached files.
#[derive(Default)]
pub(crate) struct Read {
    /// The text parts, joined.
    pub text: String,
    /// The file and image parts.
    pub files: Vec<FileAttachment>,
}

fn refused(message: String) -> ApiError {
    ApiError::invalid(message, Some("messages"))
}

/// The bytes of base64 `data` (a `data:…;base64,` URL or bare base64).
fn decode(data: &str, what: &str) -> Result<Vec<u8>, ApiError> {
    let b64 = match data.strip_prefix("data:") {
        Some(url) => {
            url.split_once(";base64,")
                .ok_or_else(|| refused(format!("the {what} is a data URL without `;base64,`")))?
                .1
        }
        None => data,
    };
    base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| refused(format!("the {what} is not valid base64: {e}")))
}

/// A `{"type": "file", "file": {…}}` part.
async fn file_part(app: &App, caller: &Caller, part: &Value) -> Result<FileAttachment, ApiError> {
    let file = part.get("file").unwrap_or(&Value::Null);
    let field = |k: &str| file.get(k).and_then(Value::as_str);
    if let Some(id) = field("file_id") {
        let record = app.files.get(caller, id).await?;
        let bytes = app.files.content(&record).await?;
        return Ok(FileAttachment::new(record.filename, bytes));
    }
    let Some(data) = field("file_data") else {
        return Err(refused(
            "a `file` part needs `file.file_id` (from POST /v1/files) or `file.file_data` (base64)"
                .into(),
        ));
    };
    let name = field("filename").unwrap_or("attachment");
    Ok(FileAttachment::new(name, decode(data, "file_data")?))
}

/// An `{"type": "image_url", "image_url": {"url": "data:…"}}` part.
fn image_part(part: &Value) -> Result<FileAttachment, ApiError> {
    let url = part
        .pointer("/image_url/url")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !url.starts_with("data:") {
        return Err(refused(
            "image_url parts are taken as `data:` URLs only (Baton does not fetch images from the web for the API)".into(),
        ));
    }
    let ext = url
        .strip_prefix("data:image/")
        .and_then(|r| r.split(';').next())
        .filter(|e| e.chars().all(|c| c.is_ascii_alphanumeric()) && !e.is_empty())
        .unwrap_or("png");
    Ok(FileAttachment::new(
        format!("image.{ext}"),
        decode(url, "image")?,
    ))
}

/// The text and files of `m`; parts Baton cannot take are refused.
pub(crate) async fn read(app: &App, caller: &Caller, m: &ChatMessage) -> Result<Read, ApiError> {
    let parts = match &m.content {
        None => return Ok(Read::default()),
        Some(Content::Text(t)) => {
            return Ok(Read {
                text: t.clone(),
                files: Vec::new(),
            });
        }
        Some(Content::Parts(parts)) => parts,
    };
    let mut texts = Vec::new();
    let mut files = Vec::new();
    for p in parts {
        match p.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(p.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("file") => files.push(file_part(app, caller, p).await?),
            Some("image_url") => files.push(image_part(p)?),
            Some(other) => {
                return Err(refused(format!(
                    "content parts of type `{other}` are not taken: send text, file or image_url parts"
                )));
            }
            None => return Err(refused("a content part has no `type`".into())),
        }
    }
    Ok(Read {
        text: texts.join("\n"),
        files,
    })
}
