//! Model servers already running on this computer.
//!
//! Each address is first tried with a plain TCP connect (refused at once
//! when nothing listens, so the start-up cost with no server is well under
//! a millisecond per address); only an open port is asked for its models.

use std::time::Duration;

use baton_config::{LocalServer, LocalServerKind};
use serde::Serialize;
use serde_json::Value;

pub use baton_config::LocalServerKind as ServerKind;
/// Where a server is looked for.
pub type ServerTarget = LocalServer;

/// A server that answered, with the models it serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoundServer {
    /// What it is.
    pub kind: ServerKind,
    /// Its base address.
    pub endpoint: String,
    /// The model names it lists.
    pub models: Vec<String>,
}

impl FoundServer {
    /// The provider dialect to talk to it with.
    pub fn dialect(&self) -> &'static str {
        match self.kind {
            LocalServerKind::Ollama => "ollama",
            _ => "openai",
        }
    }

    /// The endpoint a provider entry uses (`…/v1` for OpenAI-compatible
    /// servers).
    pub fn provider_endpoint(&self) -> String {
        let base = self.endpoint.trim_end_matches('/');
        match self.kind {
            LocalServerKind::Ollama => base.to_string(),
            _ if base.ends_with("/v1") => base.to_string(),
            _ => format!("{base}/v1"),
        }
    }

    /// A short name for the kind (`ollama`, `lmstudio`, …), used in
    /// provider names.
    pub fn label(&self) -> &'static str {
        match self.kind {
            LocalServerKind::Ollama => "ollama",
            LocalServerKind::LmStudio => "lmstudio",
            LocalServerKind::LlamaCpp => "llamacpp",
            LocalServerKind::Vllm => "vllm",
            LocalServerKind::OpenAiCompatible => "local-server",
        }
    }
}

/// Asks every target in parallel, each for at most `timeout`; those that
/// do not answer, answer with something else, or are Baton's own server
/// are left out.
pub async fn probe(targets: &[ServerTarget], timeout: Duration) -> Vec<FoundServer> {
    let asks = targets.iter().map(|t| probe_one(t, timeout));
    futures::future::join_all(asks)
        .await
        .into_iter()
        .flatten()
        .collect()
}

async fn probe_one(target: &ServerTarget, timeout: Duration) -> Option<FoundServer> {
    let url = reqwest::Url::parse(&target.endpoint).ok()?;
    // `[::1]` is the host `::1` to connect to.
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']');
    let addr = (host.to_string(), url.port_or_known_default()?);
    let connect = tokio::net::TcpStream::connect(addr);
    tokio::time::timeout(timeout, connect).await.ok()?.ok()?;
    let found = tokio::time::timeout(timeout, list_models(target)).await;
    match found {
        Ok(Ok(models)) => Some(FoundServer {
            kind: target.kind,
            endpoint: target.endpoint.clone(),
            models,
        }),
        Ok(Err(why)) => {
            tracing::debug!(endpoint = %target.endpoint, "not a model server: {why}");
            None
        }
        Err(_) => {
            tracing::debug!(endpoint = %target.endpoint, "no answer in time");
            None
        }
    }
}

/// Baton's own server marks its answers with this header.
pub const BATON_SERVER_HEADER: &str = "x-baton-server";

async fn list_models(target: &ServerTarget) -> Result<Vec<String>, String> {
    let base = target.endpoint.trim_end_matches('/');
    let (url, list_key, name_key) = match target.kind {
        LocalServerKind::Ollama => (format!("{base}/api/tags"), "models", "name"),
        _ if base.ends_with("/v1") => (format!("{base}/models"), "data", "id"),
        _ => (format!("{base}/v1/models"), "data", "id"),
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())?;
    let response = client.get(&url).send().await.map_err(|e| e.to_string())?;
    if response.headers().contains_key(BATON_SERVER_HEADER) {
        return Err("it is Baton's own server".into());
    }
    if !response.status().is_success() {
        return Err(format!("{url} answered {}", response.status()));
    }
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    let list = body
        .get(list_key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{url} has no `{list_key}` list"))?;
    Ok(list
        .iter()
        .filter_map(|m| m.get(name_key).and_then(Value::as_str))
        .map(str::to_string)
        .collect())
}
