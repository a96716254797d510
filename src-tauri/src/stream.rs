//! The agent's events as the UI receives them.

use baton_engine::api::AgentEvent;

use crate::dto::ChatEvent;

/// JSON as the UI shows it: strings as they are, the rest pretty-printed.
pub fn pretty(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// Maps one event of the agent at `depth` (0: the one the user talks
/// to); `None` for what the chat view does not show (subagents' own text,
/// and `Finished`, which the turn turns into `Done`).
pub fn to_chat_event(event: AgentEvent, depth: u32) -> Option<ChatEvent> {
    Some(match event {
        AgentEvent::TextDelta { text } if depth == 0 => ChatEvent::TextDelta { text },
        AgentEvent::TextDelta { .. } => return None,
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
            preview,
        } => ChatEvent::ToolFinished {
            id,
            name,
            result: pretty(&result),
            is_error,
            duration_ms,
            preview: preview.map(|p| p.data_url()),
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
        AgentEvent::SubagentAnswered { session_id, answer } => {
            ChatEvent::SubagentAnswered { session_id, answer }
        }
        AgentEvent::SubagentFinished {
            session_id,
            answered,
            elapsed_ms,
        } => ChatEvent::SubagentFinished {
            session_id,
            answered,
            elapsed_ms,
        },
        AgentEvent::Compacted(r) => ChatEvent::Compacted {
            before: r.before as u32,
            after: r.after as u32,
        },
        AgentEvent::Usage(u) => ChatEvent::Usage {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
        },
        AgentEvent::ConfirmationRequested {
            id,
            tool,
            arguments,
            action,
            ..
        } => ChatEvent::ConfirmationRequested {
            id,
            tool,
            arguments: pretty(&arguments),
            action,
        },
        AgentEvent::ConfirmationResolved { id, approved } => {
            ChatEvent::ConfirmationResolved { id, approved }
        }
        AgentEvent::Notice { message } => ChatEvent::Notice { message },
        AgentEvent::Error { message } => ChatEvent::Error { message },
        AgentEvent::Finished(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_events_carry_pretty_json_and_subagent_text_is_held_back() {
        let started = to_chat_event(
            AgentEvent::ToolStarted {
                id: "c1".into(),
                name: "list_directory".into(),
                arguments: serde_json::json!({"path": "/"}),
            },
            0,
        )
        .unwrap();
        let json = serde_json::to_value(&started).unwrap();
        assert_eq!(json["type"], "toolStarted");
        assert_eq!(json["arguments"], "{\n  \"path\": \"/\"\n}");
        let finished = serde_json::to_value(
            to_chat_event(
                AgentEvent::ToolFinished {
                    id: "c1".into(),
                    name: "list_directory".into(),
                    result: serde_json::json!("a.txt"),
                    is_error: false,
                    duration_ms: 2.5,
                    preview: Some(baton_engine::api::Image {
                        mime_type: "image/jpeg".into(),
                        data: "AQID".into(),
                    }),
                },
                0,
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(finished["isError"], false);
        assert_eq!(finished["durationMs"], 2.5);
        assert_eq!(finished["result"], "a.txt");
        assert_eq!(finished["preview"], "data:image/jpeg;base64,AQID");
        let text = |depth| to_chat_event(AgentEvent::TextDelta { text: "x".into() }, depth);
        assert!(text(0).is_some());
        assert!(text(1).is_none());
        let confirm = serde_json::to_value(
            to_chat_event(
                AgentEvent::ConfirmationRequested {
                    id: "confirm_1".into(),
                    tool: "Diagnostics.post_note".into(),
                    arguments: serde_json::json!({"url": "http://x"}),
                    action: Some("Open http://x".into()),
                    summary: String::new(),
                },
                1,
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(confirm["type"], "confirmationRequested");
        assert_eq!(confirm["arguments"], "{\n  \"url\": \"http://x\"\n}");
        assert_eq!(confirm["action"], "Open http://x");
    }

    #[test]
    fn a_subagents_question_and_its_answer_reach_the_chat_view() {
        let json = |e| serde_json::to_value(to_chat_event(e, 1).unwrap()).unwrap();
        let asked = json(AgentEvent::SubagentAsked {
            session_id: "sub_1".into(),
            question: "Which year?".into(),
        });
        assert_eq!(asked["type"], "subagentAsked");
        assert_eq!(asked["sessionId"], "sub_1");
        let answered = json(AgentEvent::SubagentAnswered {
            session_id: "sub_1".into(),
            answer: "2026".into(),
        });
        assert_eq!(
            answered,
            serde_json::json!({"type": "subagentAnswered", "sessionId": "sub_1", "answer": "2026"})
        );
    }
}
