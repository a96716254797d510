//! Conversations out of and into Baton.
//!
//! Out: Baton's own JSON (every session whole, with when it was last
//! changed: importing it and exporting again gives the same bytes) and
//! Markdown (one file a conversation, to read or share). In: Baton JSON,
//! ChatGPT's `conversations.json` and Claude's `conversations.json`, the
//! format told from the content. A file is read whole before anything is
//! written; what cannot come over (other branches of an edited ChatGPT
//! conversation, empty or non-text messages) is counted in the report.

mod foreign;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use baton_agent::Session;
use baton_llm::Message;
use serde::{Deserialize, Serialize};

/// Why an export could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// Not JSON at all, or JSON of a shape none of the formats has.
    #[error("{0}")]
    Unrecognised(String),
    /// The format was recognised but the file is damaged.
    #[error("this {format} export is damaged: {reason}; nothing was imported")]
    Damaged {
        /// Which format.
        format: Format,
        /// What is wrong.
        reason: String,
    },
}

/// Where an export comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum Format {
    /// Baton's own JSON.
    Baton,
    /// ChatGPT's data export (`conversations.json`).
    ChatGpt,
    /// Claude's data export (`conversations.json`).
    Claude,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Baton => "Baton",
            Format::ChatGpt => "ChatGPT",
            Format::Claude => "Claude",
        })
    }
}

/// What an export is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum ExportFormat {
    /// Baton's own JSON, lossless (`baton-conversations.json`).
    Json,
    /// One Markdown file a conversation (`ID.md`).
    Markdown,
    /// One PDF a conversation (`ID.pdf`, printed from its Markdown by the
    /// document printer).
    Pdf,
}

/// The formats written as text here (a PDF needs the printer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// Baton's own JSON.
    Json,
    /// Markdown.
    Markdown,
}

impl ExportFormat {
    /// The text format, or `None` for PDF.
    pub fn text(self) -> Option<TextFormat> {
        match self {
            ExportFormat::Json => Some(TextFormat::Json),
            ExportFormat::Markdown => Some(TextFormat::Markdown),
            ExportFormat::Pdf => None,
        }
    }
}

/// Writes `sessions` into the folder `dir` (made if missing) as
/// `format`; the files written.
pub fn write_export(
    sessions: &[Dated],
    format: TextFormat,
    dir: &std::path::Path,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let files: Vec<(String, Vec<u8>)> = match format {
        TextFormat::Json => vec![("baton-conversations.json".into(), baton_json(sessions))],
        TextFormat::Markdown => sessions
            .iter()
            .map(|d| (format!("{}.md", d.session.id), markdown(d).into_bytes()))
            .collect(),
    };
    files
        .into_iter()
        .map(|(name, bytes)| {
            let path = dir.join(name);
            std::fs::write(&path, bytes)?;
            Ok(path)
        })
        .collect()
}

/// One conversation and when it was last changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dated {
    /// Last changed, seconds since the Unix epoch.
    pub updated: u64,
    /// The conversation.
    pub session: Session,
}

impl Dated {
    /// `session`, last changed at `when`.
    pub fn new(session: Session, when: SystemTime) -> Dated {
        let updated = when.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        Dated { updated, session }
    }

    /// When it was last changed.
    pub fn when(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.updated)
    }
}

/// What an export held.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// Its format.
    pub format: Format,
    /// The conversations, in the file's order.
    pub sessions: Vec<Dated>,
    /// What could not come over, in words (one line each).
    pub left_out: Vec<String>,
}

/// Baton's export file.
#[derive(Serialize, Deserialize)]
struct BatonExport {
    format: String,
    version: u32,
    sessions: Vec<Dated>,
}

const BATON_FORMAT: &str = "baton-conversations";

/// `sessions` as Baton's JSON (sorted by id, so the same conversations
/// always give the same bytes).
pub fn baton_json(sessions: &[Dated]) -> Vec<u8> {
    let mut sessions = sessions.to_vec();
    sessions.sort_by(|a, b| a.session.id.as_str().cmp(b.session.id.as_str()));
    let file = BatonExport {
        format: BATON_FORMAT.into(),
        version: 1,
        sessions,
    };
    let mut out = serde_json::to_vec_pretty(&file).expect("sessions serialize");
    out.push(b'\n');
    out
}

/// Reads an export of any known format (told from its content).
pub fn read_export(bytes: &[u8]) -> Result<Imported, TransferError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        TransferError::Unrecognised(format!(
            "this is not a conversation export (Baton JSON, ChatGPT's or Claude's conversations.json): it is not JSON ({e})"
        ))
    })?;
    if value.get("format").and_then(|f| f.as_str()) == Some(BATON_FORMAT) {
        let file: BatonExport =
            serde_json::from_value(value).map_err(|e| TransferError::Damaged {
                format: Format::Baton,
                reason: e.to_string(),
            })?;
        return Ok(Imported {
            format: Format::Baton,
            sessions: file.sessions,
            left_out: Vec::new(),
        });
    }
    foreign::read(&value)
}

/// One conversation as Markdown: the title, then each message under who
/// said it (tool traffic left out).
pub fn markdown(dated: &Dated) -> String {
    let s = &dated.session;
    let title = if s.title.is_empty() {
        "Conversation"
    } else {
        &s.title
    };
    let when = chrono::DateTime::from_timestamp(dated.updated as i64, 0)
        .map_or_else(String::new, |d| d.format("%Y-%m-%d %H:%M UTC").to_string());
    let mut out = format!(
        "# {title}\n\n_Baton conversation `{}`, last changed {when}_\n",
        s.id
    );
    for m in &s.history {
        let (who, text) = match m {
            Message::User { content } => ("You", user_markdown(&s.id, content)),
            Message::Assistant { content, .. } if !content.trim().is_empty() => {
                ("Baton", content.clone())
            }
            _ => continue,
        };
        out.push_str(&format!("\n## {who}\n\n{}\n", text.trim()));
    }
    out
}

/// A user message as Markdown: its words, then each attached file as a
/// link to its copy beside the export ([`attachment_path`]).
fn user_markdown(id: &baton_agent::SessionId, content: &[baton_llm::ContentPart]) -> String {
    use baton_llm::ContentPart as P;
    let mut words = Vec::new();
    let mut files = Vec::new();
    for part in content {
        match part {
            P::Text { text } => words.push(text.trim().to_string()),
            P::File(f) => files.push(format!(
                "- Attached: [{}]({})",
                f.name.replace(['[', ']'], ""),
                attachment_path(id, f).replace(' ', "%20")
            )),
            P::Attachment { name, .. } => files.push(format!("- Attached: {name}")),
            P::Image { .. } => files.push("- Attached: a picture".into()),
        }
    }
    let files = files.join("\n");
    match (words.join("\n\n"), files.is_empty()) {
        (w, true) => w,
        (w, false) if w.is_empty() => files,
        (w, false) => format!("{w}\n\n{files}"),
    }
}

/// Where a Markdown export puts the copy of attached file `f` of
/// conversation `id`, relative to the export folder:
/// `ID-files/HASH8-NAME` (the hash keeps two files of one name apart).
pub fn attachment_path(id: &baton_agent::SessionId, f: &baton_llm::FileRef) -> String {
    let name: String = f
        .name
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '\0' => '_',
            c => c,
        })
        .collect();
    let name = name.trim_start_matches('.');
    format!("{id}-files/{}-{name}", &f.hash[..f.hash.len().min(8)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, title: &str) -> Session {
        let mut s = Session::with_id(baton_agent::SessionId::parse(id).unwrap());
        s.title = title.into();
        s.history.push(Message::user("What is 2 + 2?"));
        s.history.push(Message::assistant("4."));
        s
    }

    #[test]
    fn baton_json_reads_back_whole_and_writes_the_same_bytes() {
        let when = UNIX_EPOCH + Duration::from_secs(1_764_950_400);
        let all = vec![
            Dated::new(session("b-chat", "Sums"), when),
            Dated::new(session("a-chat", "More sums"), when),
        ];
        let bytes = baton_json(&all);
        let back = read_export(&bytes).unwrap();
        assert_eq!(back.format, Format::Baton);
        assert_eq!(back.sessions[0].session.id.as_str(), "a-chat");
        assert_eq!(back.sessions[1].when(), when);
        assert_eq!(baton_json(&back.sessions), bytes);
        let md = markdown(&back.sessions[1]);
        assert!(md.starts_with("# Sums\n"), "{md}");
        assert!(
            md.contains("## You\n\nWhat is 2 + 2?\n\n## Baton\n\n4.\n"),
            "{md}"
        );
    }

    #[test]
    fn markdown_links_attached_files_to_copies_that_stay_in_the_export_folder() {
        let mut s = session("files-chat", "Files");
        let file = baton_llm::FileRef {
            name: "../../etc/a b.pdf".into(),
            hash: "3f9a02c1deadbeef".into(),
            format: "PDF document".into(),
            size: 10,
        };
        s.history.push(Message::User {
            content: vec![
                baton_llm::ContentPart::File(file.clone()),
                baton_llm::ContentPart::Text {
                    text: "Summarise it.".into(),
                },
            ],
        });
        let path = attachment_path(&s.id, &file);
        assert_eq!(path, "files-chat-files/3f9a02c1-_.._etc_a b.pdf");
        let md = markdown(&Dated::new(s, UNIX_EPOCH));
        assert!(
            md.contains("## You\n\nSummarise it.\n\n- Attached: [../../etc/a b.pdf](files-chat-files/3f9a02c1-_.._etc_a%20b.pdf)\n"),
            "{md}"
        );
    }

    #[test]
    fn damaged_and_foreign_files_are_refused_in_words() {
        let e = read_export(b"not json").unwrap_err();
        assert!(e.to_string().contains("not a conversation export"), "{e}");
        let e = read_export(
            br#"{"format":"baton-conversations","version":1,"sessions":[{"updated":1}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("Baton export is damaged"), "{e}");
        let e = read_export(br#"{"hello":"world"}"#).unwrap_err();
        assert!(e.to_string().contains("not a conversation export"), "{e}");
    }
}
