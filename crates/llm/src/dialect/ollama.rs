//! Ollama's native chat API (`POST {endpoint}/api/chat`, NDJSON).
//!
//! The native API rather than Ollama's OpenAI-compatible one, because it
//! takes `options.num_ctx` (the OpenAI route silently keeps a 2–4k
//! window) and reports token counts on every reply. Tool calls arrive
//! whole, with arguments as an object and no id, so ids are generated.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{WireRequest, json_mode, max_tokens, model, num, temperature};
use crate::cache::Prepared;
use crate::config::ProviderConfig;
use crate::event::{FinishReason, LlmEvent, ToolCallDelta, Usage};
use crate::history::{ContentPart, Message, join_parts};
use crate::request::ChatRequest;
use crate::wire::{FrameDecoder, WireError, excerpt};

pub(crate) fn build(
    cfg: &ProviderConfig,
    prepared: &Prepared,
    req: &ChatRequest,
    key: Option<&str>,
) -> WireRequest {
    let messages: Vec<Value> = prepared
        .messages
        .iter()
        .map(|m| match m {
            Message::System { content } => json!({"role": "system", "content": content}),
            Message::User { content } => {
                let mut v = json!({"role": "user", "content": join_parts(content)});
                let images: Vec<&str> = content
                    .iter()
                    .filter_map(|p| match p {
                        ContentPart::Image { data, .. } => Some(data.as_str()),
                        _ => None,
                    })
                    .collect();
                if !images.is_empty() {
                    v["images"] = json!(images);
                }
                v
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut v = json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    v["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                        .collect();
                }
                v
            }
            Message::Tool {
                name,
                content,
                images,
                ..
            } => {
                let mut v = json!({"role": "tool", "content": content, "tool_name": name});
                if !images.is_empty() {
                    v["images"] = images.iter().map(|i| i.data.as_str()).collect();
                }
                v
            }
        })
        .collect();
    let mut options = json!({"num_ctx": cfg.context_window});
    if let Some(t) = temperature(cfg, req) {
        options["temperature"] = num(t);
    }
    if let Some(m) = max_tokens(cfg, req) {
        options["num_predict"] = json!(m);
    }
    let mut body = json!({
        "model": model(cfg, req),
        "messages": messages,
        "stream": true,
        "options": options,
    });
    if !req.tools.is_empty() {
        body["tools"] = super::function_tools(&req.tools);
    }
    if json_mode(cfg, req) {
        body["format"] = json!("json");
    }
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(("authorization".into(), format!("Bearer {k}")));
    }
    WireRequest {
        url: format!("{}/api/chat", cfg.base_url()),
        headers,
        body,
    }
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default, borrow)]
    message: Option<LineMessage<'a>>,
    #[serde(default)]
    done: bool,
    #[serde(default, borrow)]
    done_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    prompt_eval_count: u32,
    #[serde(default)]
    eval_count: u32,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct LineMessage<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

/// Decodes NDJSON lines until one says `"done": true`.
#[derive(Default)]
pub(crate) struct Decoder {
    done: bool,
    calls: usize,
}

impl FrameDecoder for Decoder {
    fn frame(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<LlmEvent>,
    ) -> Result<(), WireError> {
        let line: Line = serde_json::from_str(data).map_err(|e| {
            WireError::Malformed(format!("invalid JSON line ({e}): {}", excerpt(data)))
        })?;
        if let Some(err) = line.error {
            return Err(WireError::Provider(
                err.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| err.to_string()),
            ));
        }
        if let Some(msg) = line.message {
            if let Some(t) = msg.content.filter(|t| !t.is_empty()) {
                out.push(LlmEvent::TextDelta(t.into_owned()));
            }
            for c in msg.tool_calls.into_iter().flatten() {
                let f = &c["function"];
                let args = match &f["arguments"] {
                    Value::String(s) => s.clone(),
                    Value::Null => "{}".to_string(),
                    other => other.to_string(),
                };
                out.push(LlmEvent::ToolCallDelta(ToolCallDelta {
                    index: self.calls,
                    id: Some(
                        c["id"]
                            .as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| format!("call_{}", self.calls)),
                    ),
                    name: f["name"].as_str().map(str::to_string),
                    arguments: args,
                }));
                self.calls += 1;
            }
        }
        if line.done {
            self.done = true;
            out.push(LlmEvent::Usage(Usage {
                prompt_tokens: line.prompt_eval_count,
                completion_tokens: line.eval_count,
                cached_tokens: None,
            }));
            out.push(LlmEvent::Finish(match line.done_reason.as_deref() {
                _ if self.calls > 0 => FinishReason::ToolCalls,
                Some("length") => FinishReason::Length,
                Some("stop") | None => FinishReason::Stop,
                Some(other) => FinishReason::Other(other.to_string()),
            }));
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }
}
