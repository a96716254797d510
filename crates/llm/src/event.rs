//! What a provider stream yields, and how a stream becomes one reply.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::history::ToolCall;

/// Token counts of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens (cached ones included).
    pub prompt_tokens: u32,
    /// Generated tokens.
    pub completion_tokens: u32,
    /// Prompt tokens served from the provider's cache, when reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u32>,
}

impl Usage {
    /// Folds a later report into this one (providers report in pieces or
    /// cumulatively; non-zero fields of the later report win).
    pub fn merge(&mut self, later: Usage) {
        if later.prompt_tokens > 0 {
            self.prompt_tokens = later.prompt_tokens;
        }
        if later.completion_tokens > 0 {
            self.completion_tokens = later.completion_tokens;
        }
        if later.cached_tokens.is_some() {
            self.cached_tokens = later.cached_tokens;
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The token limit.
    Length,
    /// It wants tool results.
    ToolCalls,
    /// A safety filter.
    ContentFilter,
    /// Anything else, as the provider named it.
    Other(String),
}

/// A piece of a tool call as it streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallDelta {
    /// Which call of this reply (0-based).
    pub index: usize,
    /// The call id, when this piece carries it.
    pub id: Option<String>,
    /// The tool name, when this piece carries it.
    pub name: Option<String>,
    /// More argument text (JSON, possibly partial).
    pub arguments: String,
}

/// One event of a provider stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmEvent {
    /// More reply text.
    TextDelta(String),
    /// More of a tool call.
    ToolCallDelta(ToolCallDelta),
    /// Token counts.
    Usage(Usage),
    /// The end of the reply.
    Finish(FinishReason),
}

/// A whole reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The reply text.
    pub text: String,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Token counts.
    pub usage: Usage,
    /// Why it stopped.
    pub finish: Option<FinishReason>,
}

/// Builds a [`Completion`] from stream events.
#[derive(Debug, Default)]
pub struct CompletionBuilder {
    text: String,
    calls: Vec<(String, String, String)>,
    usage: Usage,
    finish: Option<FinishReason>,
}

impl CompletionBuilder {
    /// Adds one event.
    pub fn push(&mut self, event: LlmEvent) {
        match event {
            LlmEvent::TextDelta(t) => self.text.push_str(&t),
            LlmEvent::ToolCallDelta(d) => {
                while self.calls.len() <= d.index {
                    self.calls.push(Default::default());
                }
                let slot = &mut self.calls[d.index];
                if let Some(id) = d.id {
                    slot.0 = id;
                }
                if let Some(name) = d.name {
                    slot.1.push_str(&name);
                }
                slot.2.push_str(&d.arguments);
            }
            LlmEvent::Usage(u) => self.usage.merge(u),
            LlmEvent::Finish(f) => self.finish = Some(f),
        }
    }

    /// The reply. Tool arguments that are not valid JSON are kept as a
    /// string for the tool layer to repair.
    pub fn finish(self) -> Completion {
        let tool_calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(i, (id, name, args))| {
                let arguments = if args.trim().is_empty() {
                    Value::Object(Default::default())
                } else {
                    serde_json::from_str(&args).unwrap_or(Value::String(args))
                };
                ToolCall {
                    id: if id.is_empty() {
                        format!("call_{i}")
                    } else {
                        id
                    },
                    name,
                    arguments,
                }
            })
            .collect();
        Completion {
            text: self.text,
            tool_calls,
            usage: self.usage,
            finish: self.finish,
        }
    }
}
