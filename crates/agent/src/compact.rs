//! History compaction: keep the first system message, strip tool calls and
//! results from everything else (dropping messages left empty), and keep a
//! sliding window of the most recent exchanges. The result never holds a
//! tool call without its result or a result without its call, so it is a
//! valid request for every dialect.

use baton_llm::Message;
use serde::Serialize;

/// When and how much to compact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionPolicy {
    /// Compact when the history holds more messages than this.
    pub max_messages: usize,
    /// …or when its estimated size passes this share of the context window.
    pub max_context_share: f32,
    /// Exchanges (a user message and what followed it) kept.
    pub keep_exchanges: usize,
}

impl Default for CompactionPolicy {
    fn default() -> Self {
        Self {
            max_messages: 80,
            max_context_share: 0.75,
            keep_exchanges: 8,
        }
    }
}

impl CompactionPolicy {
    /// Whether `history` should be compacted for a `context_window`-token model.
    pub fn due(&self, history: &[Message], context_window: u32) -> bool {
        let chars: usize = history.iter().map(|m| m.text().len() + 16).sum();
        history.len() > self.max_messages
            || (chars / 4) as f32 > self.max_context_share * context_window as f32
    }
}

/// What a compaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionReport {
    /// Messages before.
    pub before: usize,
    /// Messages after.
    pub after: usize,
    /// Tool results and tool-only assistant turns dropped.
    pub tool_messages_dropped: usize,
    /// Older messages dropped by the window.
    pub window_trimmed: usize,
}

/// Compacts `history` in place.
pub fn compact(history: &mut Vec<Message>, keep_exchanges: usize) -> CompactionReport {
    let before = history.len();
    let mut tool_dropped = 0;
    let mut out: Vec<Message> = Vec::with_capacity(history.len());
    let mut first_system_seen = false;
    for m in history.drain(..) {
        match m {
            Message::System { .. } if !first_system_seen => {
                first_system_seen = true;
                out.push(m);
            }
            Message::Tool { .. } => tool_dropped += 1,
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if content.trim().is_empty() {
                    tool_dropped += 1;
                } else {
                    let _ = tool_calls;
                    out.push(Message::Assistant {
                        content,
                        tool_calls: Vec::new(),
                    });
                }
            }
            other => out.push(other),
        }
    }
    // Sliding window over exchanges after the leading system message.
    let head = usize::from(matches!(out.first(), Some(Message::System { .. })));
    let user_positions: Vec<usize> = out
        .iter()
        .enumerate()
        .skip(head)
        .filter(|(_, m)| matches!(m, Message::User { .. }))
        .map(|(i, _)| i)
        .collect();
    let mut trimmed = 0;
    if user_positions.len() > keep_exchanges {
        let cut = user_positions[user_positions.len() - keep_exchanges.max(1)];
        trimmed = cut - head;
        out.drain(head..cut);
    }
    let after = out.len();
    *history = out;
    CompactionReport {
        before,
        after,
        tool_messages_dropped: tool_dropped,
        window_trimmed: trimmed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_llm::ToolCall;
    use serde_json::json;

    fn exchange(i: usize) -> Vec<Message> {
        vec![
            Message::user(format!("q{i}")),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: format!("c{i}"),
                    name: "t".into(),
                    arguments: json!({}),
                }],
            },
            Message::tool(format!("c{i}"), "t", "r", false),
            Message::Assistant {
                content: format!("a{i}"),
                tool_calls: Vec::new(),
            },
        ]
    }

    #[test]
    fn strips_tools_and_keeps_a_window() {
        let mut h = vec![Message::system("sys")];
        for i in 0..5 {
            h.extend(exchange(i));
        }
        let r = compact(&mut h, 2);
        assert_eq!(
            r,
            CompactionReport {
                before: 21,
                after: 5,
                tool_messages_dropped: 10,
                window_trimmed: 6
            }
        );
        assert_eq!(
            h,
            vec![
                Message::system("sys"),
                Message::user("q3"),
                Message::assistant("a3"),
                Message::user("q4"),
                Message::assistant("a4")
            ]
        );
    }

    #[test]
    fn keeps_only_the_first_system_message_and_assistant_text() {
        let mut h = vec![
            Message::system("a"),
            Message::user("u"),
            Message::system("b"),
            Message::Assistant {
                content: "said".into(),
                tool_calls: vec![ToolCall {
                    id: "x".into(),
                    name: "t".into(),
                    arguments: json!({}),
                }],
            },
            Message::tool("x", "t", "r", false),
        ];
        compact(&mut h, 10);
        assert_eq!(
            h,
            vec![
                Message::system("a"),
                Message::user("u"),
                Message::system("b"),
                Message::assistant("said")
            ]
        );
    }
}
