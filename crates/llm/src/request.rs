//! What one model call asks for.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::history::Message;

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: Value,
}

/// Per-call options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallOptions {
    /// Ask for a JSON object reply (used when the provider has JSON mode).
    pub json_mode: bool,
    /// Overrides the entry's `maxOutputTokens`.
    pub max_tokens: Option<u32>,
    /// Overrides the entry's `temperature`.
    pub temperature: Option<f32>,
    /// Overrides the entry's `model`.
    pub model: Option<String>,
}

/// One model call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    /// The stored history (never holds dynamic context).
    pub messages: Vec<Message>,
    /// Tools offered natively.
    pub tools: Vec<ToolDefinition>,
    /// Per-call context (instructions, a table of contents) placed by the
    /// entry's cache type and never stored in history.
    pub dynamic_context: Option<String>,
    /// Options.
    pub options: CallOptions,
}

impl ChatRequest {
    /// A request holding `messages` and nothing else.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Default::default()
        }
    }
}
