//! The wire formats: one module per dialect, each turning a prepared
//! request into its provider's HTTP request and its provider's stream
//! frames into [`LlmEvent`](crate::LlmEvent)s.

pub(crate) mod anthropic;
pub(crate) mod azure;
pub(crate) mod gemini;
pub(crate) mod ollama;
pub(crate) mod openai;

use crate::cache::Prepared;
use crate::config::{Dialect, ProviderConfig};
use crate::request::ChatRequest;
use crate::wire::FrameDecoder;

/// An HTTP request ready to send.
#[derive(Debug, Clone)]
pub(crate) struct WireRequest {
    /// Full URL.
    pub url: String,
    /// Headers besides content type.
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: serde_json::Value,
}

/// Renders `request` (already prepared by the cache layer) for `cfg`'s
/// dialect. `key` is the API key, if any.
pub(crate) fn build(
    cfg: &ProviderConfig,
    prepared: &Prepared,
    request: &ChatRequest,
    key: Option<&str>,
) -> WireRequest {
    let mut wire = match cfg.dialect {
        Dialect::Openai => openai::build(cfg, prepared, request, key),
        Dialect::Anthropic => anthropic::build(cfg, prepared, request, key),
        Dialect::Ollama => ollama::build(cfg, prepared, request, key),
        Dialect::Gemini => gemini::build(cfg, prepared, request, key),
        Dialect::Azure => azure::build(cfg, prepared, request, key),
        Dialect::Local => unreachable!("the local dialect is not served over HTTP"),
    };
    for (k, v) in &cfg.headers {
        wire.headers.push((k.clone(), v.clone()));
    }
    wire
}

/// A fresh decoder for one response.
pub(crate) fn decoder(dialect: Dialect) -> Box<dyn FrameDecoder> {
    match dialect {
        Dialect::Openai | Dialect::Azure => Box::<openai::Decoder>::default(),
        Dialect::Anthropic => Box::<anthropic::Decoder>::default(),
        Dialect::Ollama | Dialect::Local => Box::<ollama::Decoder>::default(),
        Dialect::Gemini => Box::<gemini::Decoder>::default(),
    }
}

/// Sampling settings: per-call options win over the entry.
pub(crate) fn temperature(cfg: &ProviderConfig, req: &ChatRequest) -> Option<f32> {
    req.options.temperature.or(cfg.temperature)
}

/// Reply token limit: per-call options win over the entry.
pub(crate) fn max_tokens(cfg: &ProviderConfig, req: &ChatRequest) -> Option<u32> {
    req.options.max_tokens.or(cfg.max_output_tokens)
}

/// Model name: per-call options win over the entry.
pub(crate) fn model<'a>(cfg: &'a ProviderConfig, req: &'a ChatRequest) -> &'a str {
    req.options
        .model
        .as_deref()
        .unwrap_or_else(|| cfg.model_name())
}

/// Whether to ask for JSON output.
pub(crate) fn json_mode(cfg: &ProviderConfig, req: &ChatRequest) -> bool {
    cfg.json_mode && req.options.json_mode
}

/// Rounds an `f32` setting to a short decimal so bodies read `0.2`, not
/// `0.20000000298023224`.
pub(crate) fn num(x: f32) -> serde_json::Value {
    let v: f64 = format!("{x}").parse().unwrap_or(x as f64);
    serde_json::json!(v)
}

/// Tool definitions in the `{"type": "function", "function": {…}}` form
/// that OpenAI's chat completions and Ollama's `/api/chat` share.
pub(crate) fn function_tools(tools: &[crate::request::ToolDefinition]) -> serde_json::Value {
    tools
        .iter()
        .map(|t| {
            serde_json::json!({"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters}})
        })
        .collect()
}
