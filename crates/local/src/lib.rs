//! The embedded local model: llama.cpp in-process behind Baton's
//! [`Provider`](baton_llm::Provider) trait.
//!
//! Design: one worker thread per model file owns the model and one
//! llama.cpp context, and serves requests from a queue. The model loads
//! once (lazily, on the first request, with progress reported) and is
//! shared by every session of the process. A queue rather than a context
//! per session because on a desktop CPU concurrent decodes only compete
//! for the same cores, while one warm context keeps the KV cache of the
//! conversation in progress: the common prefix of consecutive requests is
//! not evaluated again.
//!
//! Tool calls are grammar-constrained: the tool definitions' JSON Schemas
//! become one llama.cpp grammar, so the model can only write
//! `{"method": <a known tool>, …its parameters}` or `{"answer": "…"}`.

mod grammar;
mod kernels;
mod models;
mod provider;
mod worker;

pub use grammar::{answer_or_call_schema, tools_grammar};
pub use kernels::{KERNELS_ENV, cpu_kernels};
pub use models::{ModelInfo, list_models, resolve_model_path};
pub use provider::{LoadProgress, LocalProvider, RunStats};
pub use worker::gpu_offload_available;
