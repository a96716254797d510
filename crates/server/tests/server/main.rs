//! The OpenAI-compatible API over a real socket, with the scripted LLM
//! server behind the engine: completions (whole and streamed), models,
//! health, readiness, keys, sessions, files, the team model and the
//! official SDKs as clients, one module per area on a shared harness.

mod chat;
mod doors;
mod files;
mod sdk;
mod sessions;
mod support;
mod team;
