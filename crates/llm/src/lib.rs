//! Baton's LLM provider layer.
//!
//! - [`ProvidersFile`] / [`ProviderConfig`]: `providers.json`, with the
//!   factory presets compiled in as the fallback.
//! - [`Message`]: the conversation history shared by every dialect.
//! - [`Provider`]: one streaming call that yields [`LlmEvent`]s;
//!   [`Provider::complete`] collects the stream.
//! - Dialects speak each provider's own wire format: `openai` (chat
//!   completions, SSE), `anthropic` (messages, SSE), `ollama` (`/api/chat`,
//!   NDJSON), `gemini` (`streamGenerateContent`, SSE) and `azure` (Azure
//!   OpenAI / AI Foundry: the `openai` format with an `api-key` header).
//! - [`cache`] decides, in one place, where per-call dynamic context and
//!   cache breakpoints go.
//! - [`Anonymizer`] swaps registered names and keys for placeholders on the
//!   way out and back on the way in, also while streaming;
//!   [`find_sensitive`] detects e-mail addresses, phone numbers, IBANs and
//!   keys to register.

pub mod anonymize;
pub mod cache;
mod config;
mod dialect;
mod error;
mod event;
mod history;
mod http;
mod provider;
mod request;
pub mod speech;
pub mod wire;

pub use anonymize::{
    Anonymizer, AnonymizingProvider, PLACEHOLDER_INSTRUCTION, PlaceholderRestorer, find_sensitive,
};
pub use baton_config::InteractionMode;
pub use config::{
    AZURE_FOUNDRY_API_VERSION, AZURE_OPENAI_API_VERSION, CacheType, Dialect,
    FACTORY_PROVIDERS_JSON, LoadOptions, LoadedProviders, ProviderConfig, ProvidersError,
    ProvidersFile,
};
pub use error::LlmError;
pub use event::{Completion, CompletionBuilder, FinishReason, LlmEvent, ToolCallDelta, Usage};
pub use history::{ContentPart, FileRef, Image, Message, ToolCall, tool_result_as_text};
pub use http::{HttpProvider, RetryPolicy};
pub use provider::{EventStream, Provider, Readiness, build_provider, probe_readiness};
pub use request::{CallOptions, ChatRequest, ToolDefinition};
