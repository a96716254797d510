//! Google Gemini (`POST {endpoint}/models/{model}:streamGenerateContent?alt=sse`).
//!
//! Wire decisions: the key goes in the `x-goog-api-key` header (not the
//! URL, so it never lands in logs); system messages become
//! `systemInstruction`; assistant turns use role `model`; tool results are
//! `functionResponse` parts in a `user` turn, matched by name (Gemini has
//! no call ids, so ids are generated); consecutive turns of one role are
//! merged. Tool schemas are reduced to the OpenAPI subset `parameters`
//! accepts (no `$schema`, `additionalProperties`, `default`, …), which
//! every Gemini API version takes. JSON mode is
//! `generationConfig.responseMimeType = application/json`.

use serde_json::{Map, Value, json};

use super::{WireRequest, json_mode, max_tokens, model, num, temperature};
use crate::cache::Prepared;
use crate::config::ProviderConfig;
use crate::event::{FinishReason, LlmEvent, ToolCallDelta, Usage};
use crate::history::{ContentPart, Message};
use crate::request::ChatRequest;
use crate::wire::{FrameDecoder, WireError, excerpt};

/// Schema keywords Gemini's `parameters` accepts.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "title",
];

/// Keeps only the keywords Gemini accepts, recursively.
pub(crate) fn sanitize_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                if !SCHEMA_KEYS.contains(&k.as_str()) {
                    continue;
                }
                let v = match k.as_str() {
                    "properties" => Value::Object(
                        v.as_object()
                            .map(|p| {
                                p.iter()
                                    .map(|(n, s)| (n.clone(), sanitize_schema(s)))
                                    .collect()
                            })
                            .unwrap_or_default(),
                    ),
                    "items" => sanitize_schema(v),
                    "anyOf" => Value::Array(
                        v.as_array()
                            .map(|a| a.iter().map(sanitize_schema).collect())
                            .unwrap_or_default(),
                    ),
                    // `type: ["string", "null"]` → `type: string, nullable: true`
                    "type" => match v.as_array() {
                        Some(types) => {
                            if types.iter().any(|t| t == "null") {
                                out.insert("nullable".into(), json!(true));
                            }
                            types
                                .iter()
                                .find(|t| *t != "null")
                                .cloned()
                                .unwrap_or(json!("string"))
                        }
                        None => v.clone(),
                    },
                    _ => v.clone(),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

pub(crate) fn build(
    cfg: &ProviderConfig,
    prepared: &Prepared,
    req: &ChatRequest,
    key: Option<&str>,
) -> WireRequest {
    let mut system_parts: Vec<Value> = Vec::new();
    let mut contents: Vec<Value> = Vec::new();
    for m in &prepared.messages {
        let (role, parts): (&str, Vec<Value>) = match m {
            Message::System { content } => {
                system_parts.push(json!({"text": content}));
                continue;
            }
            Message::User { content } => (
                "user",
                content
                    .iter()
                    .map(|p| match p {
                        ContentPart::Image { mime_type, data } => {
                            json!({"inlineData": {"mimeType": mime_type, "data": data}})
                        }
                        other => json!({"text": other.render()}),
                    })
                    .collect(),
            ),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut parts = Vec::new();
                if !content.is_empty() {
                    parts.push(json!({"text": content}));
                }
                for c in tool_calls {
                    parts.push(json!({"functionCall": {"name": c.name, "args": c.arguments}}));
                }
                ("model", parts)
            }
            Message::Tool {
                name,
                content,
                images,
                ..
            } => {
                let response = match serde_json::from_str::<Value>(content) {
                    Ok(Value::Object(o)) => Value::Object(o),
                    _ => json!({ "result": content }),
                };
                let mut parts =
                    vec![json!({"functionResponse": {"name": name, "response": response}})];
                parts.extend(
                    images
                        .iter()
                        .map(|i| json!({"inlineData": {"mimeType": i.mime_type, "data": i.data}})),
                );
                ("user", parts)
            }
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some(last) if last["role"] == role => {
                last["parts"].as_array_mut().expect("parts").extend(parts);
            }
            _ => contents.push(json!({"role": role, "parts": parts})),
        }
    }
    let mut generation = Map::new();
    if let Some(t) = temperature(cfg, req) {
        generation.insert("temperature".into(), num(t));
    }
    if let Some(m) = max_tokens(cfg, req) {
        generation.insert("maxOutputTokens".into(), json!(m));
    }
    if json_mode(cfg, req) {
        generation.insert("responseMimeType".into(), json!("application/json"));
    }
    let mut body = json!({ "contents": contents });
    if !system_parts.is_empty() {
        body["systemInstruction"] = json!({ "parts": system_parts });
    }
    if !req.tools.is_empty() {
        let decls: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"name": t.name, "description": t.description,
                           "parameters": sanitize_schema(&t.parameters)})
            })
            .collect();
        body["tools"] = json!([{ "functionDeclarations": decls }]);
    }
    if !generation.is_empty() {
        body["generationConfig"] = Value::Object(generation);
    }
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(("x-goog-api-key".into(), k.to_string()));
    }
    WireRequest {
        url: format!(
            "{}/models/{}:streamGenerateContent?alt=sse",
            cfg.base_url(),
            model(cfg, req)
        ),
        headers,
        body,
    }
}

/// Decodes `GenerateContentResponse` chunks; the stream ends after the
/// body ends; it is complete once a chunk carried `finishReason` (Gemini
/// sends no separate end marker, and usage may follow in a later chunk).
#[derive(Default)]
pub(crate) struct Decoder {
    finished: bool,
    calls: usize,
}

impl FrameDecoder for Decoder {
    fn frame(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<LlmEvent>,
    ) -> Result<(), WireError> {
        if data.trim().is_empty() {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            WireError::Malformed(format!(
                "invalid JSON in a stream chunk ({e}): {}",
                excerpt(data)
            ))
        })?;
        if let Some(err) = v.get("error") {
            let msg = err["message"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(WireError::Provider(msg));
        }
        let mut finish = None;
        if let Some(c) = v["candidates"].as_array().and_then(|c| c.first()) {
            for part in c["content"]["parts"].as_array().into_iter().flatten() {
                if part["thought"].as_bool() == Some(true) {
                    continue;
                }
                if let Some(t) = part["text"].as_str().filter(|t| !t.is_empty()) {
                    out.push(LlmEvent::TextDelta(t.to_string()));
                }
                if let Some(f) = part.get("functionCall") {
                    out.push(LlmEvent::ToolCallDelta(ToolCallDelta {
                        index: self.calls,
                        id: Some(
                            f["id"]
                                .as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| format!("call_{}", self.calls)),
                        ),
                        name: f["name"].as_str().map(str::to_string),
                        arguments: if f["args"].is_null() {
                            "{}".into()
                        } else {
                            f["args"].to_string()
                        },
                    }));
                    self.calls += 1;
                }
            }
            finish = c["finishReason"].as_str().map(|r| match r {
                _ if self.calls > 0 && r == "STOP" => FinishReason::ToolCalls,
                "STOP" => FinishReason::Stop,
                "MAX_TOKENS" => FinishReason::Length,
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" => {
                    FinishReason::ContentFilter
                }
                other => FinishReason::Other(other.to_string()),
            });
        }
        if let Some(u) = v.get("usageMetadata") {
            out.push(LlmEvent::Usage(Usage {
                prompt_tokens: u["promptTokenCount"].as_u64().unwrap_or(0) as u32,
                completion_tokens: u["candidatesTokenCount"].as_u64().unwrap_or(0) as u32,
                cached_tokens: u["cachedContentTokenCount"].as_u64().map(|c| c as u32),
            }));
        }
        if let Some(f) = finish {
            out.push(LlmEvent::Finish(f));
            self.finished = true;
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        false
    }

    fn ended_ok(&self) -> bool {
        self.finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_is_reduced_to_the_openapi_subset() {
        let s = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": {"type": "string", "default": "/"},
                "n": {"type": ["integer", "null"]},
                "tags": {"type": "array", "items": {"type": "string", "examples": ["a"]}}
            },
            "required": ["path"]
        });
        assert_eq!(
            sanitize_schema(&s),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "n": {"type": "integer", "nullable": true},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["path"]
            })
        );
    }
}
