//! The conversations as the sidebar and the chat view show them.

use baton_engine::api::Citation;
use serde::Serialize;
use specta::Type;
use specta_typescript::Number;

/// A conversation in the sidebar.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// Id.
    pub id: String,
    /// Title (from the first message, or renamed).
    pub title: String,
    /// Last change, milliseconds since the Unix epoch.
    #[specta(type = Number)]
    pub updated_ms: f64,
    /// Number of stored messages.
    pub message_count: u32,
    /// The named agent it talks to (`None`: the default).
    pub agent: Option<String>,
    /// How many of its exchanges were spoken (a voice conversation).
    pub voice_turns: u32,
    /// The project it belongs to (its id; `null`: none).
    pub project: Option<String>,
}

/// A whole conversation, as the chat view shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// The named agent it talks to (`null`: the default one).
    pub agent: Option<String>,
    /// The project it belongs to (its id; `null`: none).
    pub project: Option<String>,
    /// Messages in order (system messages and tool results folded into
    /// the assistant message that made the calls).
    pub messages: Vec<MessageView>,
}

/// One message shown in the chat.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// `user` or `assistant`.
    pub role: String,
    /// Markdown text.
    pub text: String,
    /// Tool calls made while producing it, with their results.
    pub tool_calls: Vec<ToolCallView>,
    /// Names of files attached to it (user messages).
    pub attachments: Vec<String>,
    /// Said aloud in a voice conversation (user messages), and how fast
    /// the answer was heard.
    pub spoken: Option<SpokenView>,
    /// The passages the answer cites as `[n]` (assistant messages).
    pub citations: Vec<Citation>,
    /// Where an earlier version of it was edited (user messages): which
    /// branch is in view, of how many (`switchBranch` shows another).
    pub branch: Option<BranchView>,
}

/// The branches at an edited user message.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BranchView {
    /// The one in view (0: the oldest).
    pub index: u32,
    /// How many there are.
    pub count: u32,
}

/// How a spoken message was answered.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SpokenView {
    /// From the end of speech to the answer's first sound (ms), when it
    /// was played.
    pub first_audio_ms: Option<u32>,
    /// Whether the user talked over the answer.
    pub interrupted: bool,
}

/// One finished tool call.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallView {
    /// Call id.
    pub id: String,
    /// Method.
    pub name: String,
    /// Arguments as pretty JSON text.
    pub arguments: String,
    /// Result as pretty JSON text (`null` while running or if never answered).
    pub result: Option<String>,
    /// Whether it failed.
    pub is_error: bool,
}
