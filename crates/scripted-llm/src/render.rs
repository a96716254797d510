//! Renders a scripted [`Reply`] in each dialect's streaming wire format,
//! byte for byte as the real services send it.

use serde_json::{Value, json};

use crate::Reply;

/// The wire protocols the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireDialect {
    /// OpenAI chat completions, SSE.
    Openai,
    /// Anthropic messages, SSE with event names.
    Anthropic,
    /// Ollama `/api/chat`, NDJSON.
    Ollama,
    /// Gemini `streamGenerateContent?alt=sse`, SSE with CRLF.
    Gemini,
}

impl WireDialect {
    /// The dialect a request path belongs to.
    pub fn from_path(path: &str) -> Option<Self> {
        if path.ends_with("/chat/completions") {
            Some(Self::Openai)
        } else if path.ends_with("/messages") {
            Some(Self::Anthropic)
        } else if path.ends_with("/api/chat") {
            Some(Self::Ollama)
        } else if path.contains(":streamGenerateContent") {
            Some(Self::Gemini)
        } else {
            None
        }
    }

    /// The response content type.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Ollama => "application/x-ndjson",
            _ => "text/event-stream",
        }
    }
}

/// Cuts `text` into `n` pieces of about equal length (on char boundaries).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let n = n.clamp(1, chars.len());
    let per = chars.len().div_ceil(n);
    chars.chunks(per).map(|c| c.iter().collect()).collect()
}

fn sse(out: &mut Vec<u8>, event: Option<&str>, data: &Value, eol: &str) {
    if let Some(e) = event {
        out.extend_from_slice(format!("event: {e}{eol}").as_bytes());
    }
    out.extend_from_slice(format!("data: {data}{eol}{eol}").as_bytes());
}

/// The whole response body for `reply` in `dialect`.
pub fn render_reply(dialect: WireDialect, reply: &Reply) -> Vec<u8> {
    let mut out = Vec::new();
    let texts = pieces(&reply.text, reply.text_pieces.max(1));
    let has_tools = !reply.tool_calls.is_empty();
    match dialect {
        WireDialect::Openai => {
            let chunk = |delta: Value, finish: Value| {
                json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
                       "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            };
            sse(
                &mut out,
                None,
                &chunk(json!({"role": "assistant", "content": ""}), Value::Null),
                "\n",
            );
            for t in &texts {
                sse(
                    &mut out,
                    None,
                    &chunk(json!({"content": t}), Value::Null),
                    "\n",
                );
            }
            for (i, (name, args)) in reply.tool_calls.iter().enumerate() {
                sse(
                    &mut out,
                    None,
                    &chunk(
                        json!({"tool_calls": [{"index": i, "id": format!("call_{i}"),
                    "type": "function", "function": {"name": name, "arguments": ""}}]}),
                        Value::Null,
                    ),
                    "\n",
                );
                let args = args.to_string();
                for a in pieces(&args, 2) {
                    sse(
                        &mut out,
                        None,
                        &chunk(
                            json!({"tool_calls": [{"index": i, "function": {"arguments": a}}]}),
                            Value::Null,
                        ),
                        "\n",
                    );
                }
            }
            let finish = if has_tools { "tool_calls" } else { "stop" };
            sse(&mut out, None, &chunk(json!({}), json!(finish)), "\n");
            let mut usage = json!({"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                                   "total_tokens": reply.prompt_tokens + reply.completion_tokens});
            if let Some(c) = reply.cached_tokens {
                usage["prompt_tokens_details"] = json!({"cached_tokens": c});
            }
            sse(
                &mut out,
                None,
                &json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
                                         "created": 0, "model": "scripted", "choices": [], "usage": usage}),
                "\n",
            );
            out.extend_from_slice(b"data: [DONE]\n\n");
        }
        WireDialect::Anthropic => {
            let mut usage = json!({"input_tokens": reply.prompt_tokens, "output_tokens": 1});
            if let Some(c) = reply.cached_tokens {
                usage["cache_read_input_tokens"] = json!(c);
                usage["input_tokens"] = json!(reply.prompt_tokens.saturating_sub(c));
            }
            sse(
                &mut out,
                Some("message_start"),
                &json!({"type": "message_start", "message": {
                "id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted",
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
                "\n",
            );
            let mut index = 0;
            if !texts.is_empty() {
                sse(
                    &mut out,
                    Some("content_block_start"),
                    &json!({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "text", "text": ""}}),
                    "\n",
                );
                sse(&mut out, Some("ping"), &json!({"type": "ping"}), "\n");
                for t in &texts {
                    sse(
                        &mut out,
                        Some("content_block_delta"),
                        &json!({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "text_delta", "text": t}}),
                        "\n",
                    );
                }
                sse(
                    &mut out,
                    Some("content_block_stop"),
                    &json!({"type": "content_block_stop", "index": 0}),
                    "\n",
                );
                index += 1;
            }
            for (i, (name, args)) in reply.tool_calls.iter().enumerate() {
                sse(
                    &mut out,
                    Some("content_block_start"),
                    &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": {}}}),
                    "\n",
                );
                for a in pieces(&args.to_string(), 2) {
                    sse(
                        &mut out,
                        Some("content_block_delta"),
                        &json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": a}}),
                        "\n",
                    );
                }
                sse(
                    &mut out,
                    Some("content_block_stop"),
                    &json!({"type": "content_block_stop", "index": index}),
                    "\n",
                );
                index += 1;
            }
            let stop = if has_tools { "tool_use" } else { "end_turn" };
            sse(
                &mut out,
                Some("message_delta"),
                &json!({"type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": reply.completion_tokens}}),
                "\n",
            );
            sse(
                &mut out,
                Some("message_stop"),
                &json!({"type": "message_stop"}),
                "\n",
            );
        }
        WireDialect::Ollama => {
            let line = |out: &mut Vec<u8>, v: Value| {
                out.extend_from_slice(v.to_string().as_bytes());
                out.push(b'\n');
            };
            for t in &texts {
                line(
                    &mut out,
                    json!({"model": "scripted", "created_at": "2026-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": t}, "done": false}),
                );
            }
            if has_tools {
                let calls: Vec<Value> = reply
                    .tool_calls
                    .iter()
                    .map(|(n, a)| json!({"function": {"name": n, "arguments": a}}))
                    .collect();
                line(
                    &mut out,
                    json!({"model": "scripted", "created_at": "2026-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": "", "tool_calls": calls}, "done": false}),
                );
            }
            line(
                &mut out,
                json!({"model": "scripted", "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
                "total_duration": 1000, "prompt_eval_count": reply.prompt_tokens, "eval_count": reply.completion_tokens}),
            );
        }
        WireDialect::Gemini => {
            let usage = |final_chunk: bool| {
                let mut u = json!({"promptTokenCount": reply.prompt_tokens,
                    "candidatesTokenCount": if final_chunk { reply.completion_tokens } else { 0 },
                    "totalTokenCount": reply.prompt_tokens + reply.completion_tokens});
                if let Some(c) = reply.cached_tokens {
                    u["cachedContentTokenCount"] = json!(c);
                }
                u
            };
            let mut parts: Vec<Vec<Value>> =
                texts.iter().map(|t| vec![json!({"text": t})]).collect();
            if has_tools {
                parts.push(
                    reply
                        .tool_calls
                        .iter()
                        .map(|(n, a)| json!({"functionCall": {"name": n, "args": a}}))
                        .collect(),
                );
            }
            if parts.is_empty() {
                parts.push(vec![json!({"text": ""})]);
            }
            let last = parts.len() - 1;
            for (i, p) in parts.into_iter().enumerate() {
                let mut cand = json!({"content": {"parts": p, "role": "model"}, "index": 0});
                if i == last {
                    cand["finishReason"] = json!("STOP");
                }
                sse(
                    &mut out,
                    None,
                    &json!({"candidates": [cand], "usageMetadata": usage(i == last),
                    "modelVersion": "scripted"}),
                    "\r\n",
                );
            }
        }
    }
    out
}
