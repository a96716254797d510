//! Anthropic messages API (`POST {endpoint}/messages`, SSE).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::{WireRequest, max_tokens, model, num, temperature};
use crate::cache::Prepared;
use crate::config::ProviderConfig;
use crate::event::{FinishReason, LlmEvent, ToolCallDelta, Usage};
use crate::history::{ContentPart, Message};
use crate::request::ChatRequest;
use crate::wire::{FrameDecoder, WireError, excerpt};

/// The API version header Baton speaks.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` is mandatory for this API.
const DEFAULT_MAX_TOKENS: u32 = 4096;

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

pub(crate) fn build(
    cfg: &ProviderConfig,
    prepared: &Prepared,
    req: &ChatRequest,
    key: Option<&str>,
) -> WireRequest {
    let mut system: Vec<Value> = Vec::new();
    let mut messages: Vec<Value> = Vec::new();
    for m in &prepared.messages {
        let (role, blocks): (&str, Vec<Value>) = match m {
            Message::System { content } => {
                system.push(json!({"type": "text", "text": content}));
                continue;
            }
            Message::User { content } => (
                "user",
                content
                    .iter()
                    .map(|p| match p {
                        ContentPart::Image { mime_type, data } => json!({
                            "type": "image",
                            "source": {"type": "base64", "media_type": mime_type, "data": data}
                        }),
                        other => json!({"type": "text", "text": other.render()}),
                    })
                    .collect(),
            ),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for c in tool_calls {
                    let input = match &c.arguments {
                        Value::Object(_) => c.arguments.clone(),
                        other => json!({ "value": other }),
                    };
                    blocks.push(
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                    );
                }
                ("assistant", blocks)
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                images,
                ..
            } => {
                let mut b =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if !images.is_empty() {
                    let mut body = vec![json!({"type": "text", "text": content})];
                    body.extend(images.iter().map(|i| {
                        json!({"type": "image",
                               "source": {"type": "base64", "media_type": i.mime_type, "data": i.data}})
                    }));
                    b["content"] = json!(body);
                }
                if *is_error {
                    b["is_error"] = json!(true);
                }
                ("user", vec![b])
            }
        };
        if blocks.is_empty() {
            continue;
        }
        // The API wants user and assistant turns to alternate: merge runs.
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                let arr = last["content"].as_array_mut().expect("content array");
                arr.extend(blocks);
            }
            _ => messages.push(json!({"role": role, "content": blocks})),
        }
    }
    if prepared.breakpoint_on_system
        && let Some(last) = system.last_mut()
    {
        last["cache_control"] = ephemeral();
    }
    let mut body = json!({
        "model": model(cfg, req),
        "max_tokens": max_tokens(cfg, req).unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages,
        "stream": true,
    });
    let o = body.as_object_mut().expect("object");
    if !system.is_empty() {
        o.insert("system".into(), Value::Array(system));
    }
    if let Some(t) = temperature(cfg, req) {
        o.insert("temperature".into(), num(t));
    }
    if !req.tools.is_empty() {
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        if prepared.breakpoint_on_tools
            && let Some(last) = tools.last_mut()
        {
            last["cache_control"] = ephemeral();
        }
        o.insert("tools".into(), Value::Array(tools));
    }
    let mut headers = vec![(
        "anthropic-version".to_string(),
        ANTHROPIC_VERSION.to_string(),
    )];
    if let Some(k) = key {
        headers.push(("x-api-key".into(), k.to_string()));
    }
    WireRequest {
        url: format!("{}/messages", cfg.base_url()),
        headers,
        body,
    }
}

/// Decodes the typed SSE events of the messages API until `message_stop`.
#[derive(Default)]
pub(crate) struct Decoder {
    done: bool,
    /// Content-block index → tool-call index.
    tools: HashMap<u64, usize>,
    usage: Usage,
}

fn u32_at(v: &Value, key: &str) -> u32 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0) as u32
}

impl FrameDecoder for Decoder {
    fn frame(&mut self, event: &str, data: &str, out: &mut Vec<LlmEvent>) -> Result<(), WireError> {
        if data.trim().is_empty() {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            WireError::Malformed(format!(
                "invalid JSON in `{event}` event ({e}): {}",
                excerpt(data)
            ))
        })?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "message_start" => {
                let u = &v["message"]["usage"];
                let cache_read = u32_at(u, "cache_read_input_tokens");
                let cache_write = u32_at(u, "cache_creation_input_tokens");
                self.usage = Usage {
                    prompt_tokens: u32_at(u, "input_tokens") + cache_read + cache_write,
                    completion_tokens: u32_at(u, "output_tokens"),
                    cached_tokens: u.get("cache_read_input_tokens").map(|_| cache_read),
                };
            }
            "content_block_start" => {
                let block = &v["content_block"];
                if block["type"] == "tool_use" {
                    let index = self.tools.len();
                    self.tools.insert(v["index"].as_u64().unwrap_or(0), index);
                    out.push(LlmEvent::ToolCallDelta(ToolCallDelta {
                        index,
                        id: block["id"].as_str().map(str::to_string),
                        name: block["name"].as_str().map(str::to_string),
                        arguments: String::new(),
                    }));
                } else if let Some(t) = block["text"].as_str().filter(|t| !t.is_empty()) {
                    out.push(LlmEvent::TextDelta(t.to_string()));
                }
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match d["type"].as_str() {
                    Some("text_delta") => {
                        if let Some(t) = d["text"].as_str() {
                            out.push(LlmEvent::TextDelta(t.to_string()));
                        }
                    }
                    Some("input_json_delta") => {
                        let block = v["index"].as_u64().unwrap_or(0);
                        let index = *self.tools.get(&block).ok_or_else(|| {
                            WireError::Malformed(format!(
                                "tool input for unknown content block {block}"
                            ))
                        })?;
                        out.push(LlmEvent::ToolCallDelta(ToolCallDelta {
                            index,
                            id: None,
                            name: None,
                            arguments: d["partial_json"].as_str().unwrap_or("").to_string(),
                        }));
                    }
                    _ => {} // thinking and signature deltas are not shown
                }
            }
            "message_delta" => {
                self.usage.merge(Usage {
                    prompt_tokens: 0,
                    completion_tokens: u32_at(&v["usage"], "output_tokens"),
                    cached_tokens: None,
                });
                out.push(LlmEvent::Usage(self.usage));
                if let Some(r) = v["delta"]["stop_reason"].as_str() {
                    out.push(LlmEvent::Finish(match r {
                        "end_turn" | "stop_sequence" => FinishReason::Stop,
                        "max_tokens" => FinishReason::Length,
                        "tool_use" => FinishReason::ToolCalls,
                        "refusal" => FinishReason::ContentFilter,
                        other => FinishReason::Other(other.to_string()),
                    }));
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let msg = v["error"]["message"].as_str().unwrap_or("unknown error");
                let kind = v["error"]["type"].as_str().unwrap_or("error");
                return Err(WireError::Provider(format!("{kind}: {msg}")));
            }
            _ => {} // ping, content_block_stop
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }
}
