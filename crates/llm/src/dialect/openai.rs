//! OpenAI chat completions (`POST {endpoint}/chat/completions`, SSE), the
//! format DeepSeek, Z.ai, vLLM, LM Studio and llama.cpp's server share.

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
    let messages = messages(&prepared.messages);
    let mut body = json!({
        "model": model(cfg, req),
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    let o = body.as_object_mut().expect("object");
    if let Some(t) = temperature(cfg, req) {
        o.insert("temperature".into(), num(t));
    }
    if let Some(m) = max_tokens(cfg, req) {
        o.insert("max_tokens".into(), json!(m));
    }
    if !req.tools.is_empty() {
        o.insert("tools".into(), super::function_tools(&req.tools));
    }
    if json_mode(cfg, req) {
        o.insert("response_format".into(), json!({"type": "json_object"}));
    }
    if let Some(effort) = &cfg.reasoning_effort {
        o.insert("reasoning_effort".into(), json!(effort));
    }
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(("authorization".into(), format!("Bearer {k}")));
    }
    WireRequest {
        url: format!("{}/chat/completions", cfg.base_url()),
        headers,
        body,
    }
}

/// The messages on the wire. A tool message holds text only, so the
/// pictures of a run of tool results follow it as one user message.
fn messages(history: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(history.len());
    let mut pictures: Vec<Value> = Vec::new();
    for (i, m) in history.iter().enumerate() {
        out.push(message(m));
        if let Message::Tool { name, images, .. } = m {
            for image in images {
                pictures.push(json!({"type": "text", "text": format!("Picture from `{name}`:")}));
                pictures.push(json!({"type": "image_url", "image_url": {"url": image.data_url()}}));
            }
        }
        let run_ends = !matches!(history.get(i + 1), Some(Message::Tool { .. }));
        if run_ends && !pictures.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(&mut pictures)}));
        }
    }
    out
}

fn message(m: &Message) -> Value {
    match m {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } if content.iter().any(ContentPart::is_image) => {
            let parts: Vec<Value> = content
                .iter()
                .map(|p| match p {
                    ContentPart::Image { mime_type, data } => json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{mime_type};base64,{data}")}
                    }),
                    other => json!({"type": "text", "text": other.render()}),
                })
                .collect();
            json!({"role": "user", "content": parts})
        }
        Message::User { content } => json!({"role": "user", "content": join_parts(content)}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut v = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                if content.is_empty() {
                    v["content"] = Value::Null;
                }
                v["tool_calls"] = tool_calls
                    .iter()
                    .map(|c| {
                        let args = match &c.arguments {
                            Value::String(raw) => raw.clone(),
                            other => other.to_string(),
                        };
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": args}})
                    })
                    .collect();
            }
            v
        }
        Message::Tool {
            call_id, content, ..
        } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
    }
}

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<WireToolDelta<'a>>>,
}

#[derive(Deserialize)]
struct WireToolDelta<'a> {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default, borrow)]
    function: Option<WireFunction<'a>>,
}

#[derive(Deserialize)]
struct WireFunction<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u32,
    #[serde(default)]
    completion_tokens: u32,
    #[serde(default)]
    prompt_tokens_details: Option<CachedDetails>,
    /// DeepSeek's name for cached prompt tokens.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u32>,
}

#[derive(Deserialize)]
struct CachedDetails {
    #[serde(default)]
    cached_tokens: Option<u32>,
}

/// Decodes `data:` frames of chat-completion chunks until `[DONE]`.
#[derive(Default)]
pub(crate) struct Decoder {
    done: bool,
}

pub(crate) fn finish_reason(s: &str) -> FinishReason {
    match s {
        "stop" | "end_turn" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

impl FrameDecoder for Decoder {
    fn frame(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<LlmEvent>,
    ) -> Result<(), WireError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            WireError::Malformed(format!(
                "invalid JSON in a stream chunk ({e}): {}",
                excerpt(data)
            ))
        })?;
        if let Some(err) = chunk.error {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(WireError::Provider(msg));
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.content
                    && !text.is_empty()
                {
                    out.push(LlmEvent::TextDelta(text.into_owned()));
                }
                for (pos, tc) in delta.tool_calls.into_iter().flatten().enumerate() {
                    let (name, arguments) = match tc.function {
                        Some(f) => (f.name, f.arguments.map(Cow::into_owned).unwrap_or_default()),
                        None => (None, String::new()),
                    };
                    out.push(LlmEvent::ToolCallDelta(ToolCallDelta {
                        index: tc.index.unwrap_or(pos),
                        id: tc.id,
                        name,
                        arguments,
                    }));
                }
            }
            if let Some(reason) = choice.finish_reason {
                out.push(LlmEvent::Finish(finish_reason(&reason)));
            }
        }
        if let Some(u) = chunk.usage {
            out.push(LlmEvent::Usage(Usage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                cached_tokens: u
                    .prompt_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .or(u.prompt_cache_hit_tokens),
            }));
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }
}
