//! Events every front door consumes the same way. Sending never blocks
//! and never fails the loop: slow receivers lag, absent ones are ignored.

use serde::Serialize;
use serde_json::Value;

use crate::compact::CompactionReport;

/// Something the agent did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AgentEvent {
    /// More answer text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// A tool call starts.
    ToolStarted {
        /// Call id.
        id: String,
        /// Method.
        name: String,
        /// Arguments as sent.
        arguments: Value,
    },
    /// A tool call ended.
    ToolFinished {
        /// Call id.
        id: String,
        /// Method as resolved.
        name: String,
        /// Result, or `{"error": …}`.
        result: Value,
        /// Whether it failed.
        is_error: bool,
        /// Milliseconds.
        duration_ms: f64,
    },
    /// A subagent got a task.
    SubagentDelegated {
        /// Its session id.
        session_id: String,
        /// The task.
        task: String,
    },
    /// A subagent paused with a question.
    SubagentAsked {
        /// Its session id.
        session_id: String,
        /// The question.
        question: String,
    },
    /// A subagent finished.
    SubagentFinished {
        /// Its session id.
        session_id: String,
    },
    /// History was compacted.
    Compacted(CompactionReport),
    /// Tokens of one model call.
    Usage(baton_llm::Usage),
    /// The run ended.
    Done {
        /// Why.
        reason: String,
    },
    /// A model call failed.
    Error {
        /// What happened.
        message: String,
    },
}

/// Where events go: a broadcast channel (any number of listeners).
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: tokio::sync::broadcast::Sender<AgentEvent>,
}

impl Default for EventSink {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl EventSink {
    /// A sink keeping up to `capacity` events for slow listeners.
    pub fn new(capacity: usize) -> Self {
        Self {
            tx: tokio::sync::broadcast::channel(capacity.max(1)).0,
        }
    }

    /// A new listener (sees events from now on).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<AgentEvent> {
        self.tx.subscribe()
    }

    /// Sends without waiting; nobody listening is fine.
    pub fn emit(&self, event: AgentEvent) {
        let _ = self.tx.send(event);
    }
}
