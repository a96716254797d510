//! The conversation history every dialect renders from.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id (generated for dialects that have none).
    pub id: String,
    /// Tool name as the model wrote it.
    pub name: String,
    /// Arguments; a `Value::String` holding the raw text when the model's
    /// JSON did not parse (the tool layer repairs it).
    pub arguments: Value,
}

/// Part of a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ContentPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A file converted to Markdown, sent as a text block.
    Attachment {
        /// File name.
        name: String,
        /// Its Markdown.
        markdown: String,
    },
    /// An image for a vision model (used for OCR).
    Image {
        /// MIME type, e.g. `image/png`.
        mime_type: String,
        /// The image bytes, base64-encoded.
        data: String,
    },
    /// A file the user attached, stored by reference: its Markdown is
    /// rendered from the original bytes each time a request is built (the
    /// agent's file renderer replaces it), never stored in history.
    File(FileRef),
}

/// A picture a tool returned (a browser screenshot), for a model that
/// reads images.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// The image bytes, base64-encoded.
    pub data: String,
}

impl Image {
    /// The image as a `data:` URL.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.data)
    }
}

/// A file attached to a user message, as history stores it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRef {
    /// File name as the user sees it.
    pub name: String,
    /// SHA-256 of the original bytes, hex (the key of the stored copy).
    pub hash: String,
    /// The format as recognised (`PDF document`, `Word document`, …).
    pub format: String,
    /// Size of the original in bytes.
    pub size: u64,
}

impl ContentPart {
    /// The part as prompt text.
    pub fn render(&self) -> String {
        match self {
            ContentPart::Text { text } => text.clone(),
            ContentPart::Attachment { name, markdown } => format!(
                "<attachment name=\"{}\">\n{}\n</attachment>",
                baton_stdx::escape_attribute(name),
                baton_stdx::fence_body(markdown, "attachment")
            ),
            ContentPart::Image { .. } => "[image]".to_string(),
            ContentPart::File(f) => format!(
                "<attachment name=\"{}\" />",
                baton_stdx::escape_attribute(&f.name)
            ),
        }
    }

    /// Whether this part is an image.
    pub fn is_image(&self) -> bool {
        matches!(self, ContentPart::Image { .. })
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    /// Instructions.
    System {
        /// The text.
        content: String,
    },
    /// The user's turn.
    User {
        /// Text and attachments, in order.
        content: Vec<ContentPart>,
    },
    /// The model's turn.
    Assistant {
        /// The text (may be empty when it only called tools).
        #[serde(default)]
        content: String,
        /// Tool calls made in this turn.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// A tool's result, answering one call.
    Tool {
        /// The id of the call answered.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The result (JSON or text).
        content: String,
        /// Whether the tool failed.
        #[serde(default)]
        is_error: bool,
        /// Pictures the result carries (shown to models that read images).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Image>,
    },
}

impl Message {
    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Message::System {
            content: text.into(),
        }
    }

    /// A user message with one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User {
            content: vec![ContentPart::Text { text: text.into() }],
        }
    }

    /// An assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant {
            content: text.into(),
            tool_calls: Vec::new(),
        }
    }

    /// A tool result without pictures.
    pub fn tool(
        call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Message::Tool {
            call_id: call_id.into(),
            name: name.into(),
            content: content.into(),
            is_error,
            images: Vec::new(),
        }
    }

    /// The message's text as one string (user parts joined by blank lines).
    pub fn text(&self) -> String {
        match self {
            Message::System { content } | Message::Tool { content, .. } => content.clone(),
            Message::Assistant { content, .. } => content.clone(),
            Message::User { content } => join_parts(content),
        }
    }
}

/// How a tool result reads as a user turn, for models called without
/// native tool messages (prompt-based modes, the local model).
pub fn tool_result_as_text(name: &str, content: &str) -> String {
    format!("Result of `{name}`:\n{content}")
}

/// User parts as one prompt text.
pub(crate) fn join_parts(parts: &[ContentPart]) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().filter(|p| !p.is_image()).enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&p.render());
    }
    out
}
