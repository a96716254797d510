//! The agent's events as the UI receives them.

use baton_agent::AgentEvent;

use crate::dto::ChatEvent;

/// JSON as the UI shows it: strings as they are, the rest pretty-printed.
pub fn pretty(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// Maps one agent event; `None` for the agent's own `Done`, which the
/// turn replaces with its own (sent after the session is saved).
pub fn to_chat_event(event: AgentEvent) -> Option<ChatEvent> {
    Some(match event {
        AgentEvent::TextDelta { text } => ChatEvent::TextDelta { text },
        AgentEvent::ToolStarted {
            id,
            name,
            arguments,
        } => ChatEvent::ToolStarted {
            id,
            name,
            arguments: pretty(&arguments),
        },
        AgentEvent::ToolFinished {
            id,
            name,
            result,
            is_error,
            duration_ms,
        } => ChatEvent::ToolFinished {
            id,
            name,
            result: pretty(&result),
            is_error,
            duration_ms,
        },
        AgentEvent::SubagentDelegated { session_id, task } => {
            ChatEvent::SubagentDelegated { session_id, task }
        }
        AgentEvent::SubagentAsked {
            session_id,
            question,
        } => ChatEvent::SubagentAsked {
            session_id,
            question,
        },
        AgentEvent::SubagentFinished { session_id } => ChatEvent::SubagentFinished { session_id },
        AgentEvent::Compacted(r) => ChatEvent::Compacted {
            before: r.before as u32,
            after: r.after as u32,
        },
        AgentEvent::Usage(u) => ChatEvent::Usage {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
        },
        AgentEvent::Error { message } => ChatEvent::Error { message },
        AgentEvent::Done { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_events_carry_pretty_json_and_done_is_held_back() {
        let started = to_chat_event(AgentEvent::ToolStarted {
            id: "c1".into(),
            name: "list_directory".into(),
            arguments: serde_json::json!({"path": "/"}),
        })
        .unwrap();
        let json = serde_json::to_value(&started).unwrap();
        assert_eq!(json["type"], "toolStarted");
        assert_eq!(json["arguments"], "{\n  \"path\": \"/\"\n}");
        let finished = serde_json::to_value(
            to_chat_event(AgentEvent::ToolFinished {
                id: "c1".into(),
                name: "list_directory".into(),
                result: serde_json::json!("a.txt"),
                is_error: false,
                duration_ms: 2.5,
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!(finished["isError"], false);
        assert_eq!(finished["durationMs"], 2.5);
        assert_eq!(finished["result"], "a.txt");
        assert!(to_chat_event(AgentEvent::Done { reason: "x".into() }).is_none());
    }
}
