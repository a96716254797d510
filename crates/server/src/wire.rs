//! OpenAI's chat completion shapes, as much of them as Baton reads and
//! writes. Unknown request fields (temperature, tools, …) are accepted and
//! ignored: Baton's agent decides those.

use serde::{Deserialize, Serialize};

/// `POST /v1/chat/completions`.
#[derive(Debug, Deserialize)]
pub struct ChatRequest {
    /// An agent's name, `provider/NAME`, or `baton` for the default agent.
    pub model: String,
    /// The conversation; the last one is the user's new message.
    pub messages: Vec<ChatMessage>,
    /// Answer as server-sent events.
    #[serde(default)]
    pub stream: bool,
    /// `include_usage`: a last chunk with the tokens.
    #[serde(default)]
    pub stream_options: Option<StreamOptions>,
}

/// Streaming options.
#[derive(Debug, Default, Deserialize)]
pub struct StreamOptions {
    /// Send a last chunk with `usage`.
    #[serde(default)]
    pub include_usage: bool,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions.
    System,
    /// Instructions (OpenAI's newer name).
    Developer,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A client-side tool's result (not taken: Baton runs its own tools).
    Tool,
}

/// One message.
#[derive(Debug, Deserialize)]
pub struct ChatMessage {
    /// Its author.
    pub role: Role,
    /// Its text, or parts.
    #[serde(default)]
    pub content: Option<Content>,
}

/// A message's content.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Parts (`{"type": "text", "text": …}`, …).
    Parts(Vec<serde_json::Value>),
}

/// Token counts, OpenAI's names.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct WireUsage {
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Generated tokens.
    pub completion_tokens: u32,
    /// Both.
    pub total_tokens: u32,
}

impl From<baton_engine::api::Usage> for WireUsage {
    fn from(u: baton_engine::api::Usage) -> Self {
        Self {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            total_tokens: u.prompt_tokens + u.completion_tokens,
        }
    }
}
