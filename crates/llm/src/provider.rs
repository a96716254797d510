//! The [`Provider`] trait and the factory that turns a `providers.json`
//! entry into a ready client.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_config::{Secrets, conventional_env};
use futures::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use crate::config::{Dialect, ProviderConfig};
use crate::error::LlmError;
use crate::event::{Completion, CompletionBuilder, LlmEvent};
use crate::http::HttpProvider;
use crate::request::ChatRequest;

/// A provider's reply as it streams.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<LlmEvent, LlmError>> + Send>>;

/// One LLM endpoint. Streaming is the primitive; [`Provider::complete`]
/// collects the stream.
#[async_trait]
pub trait Provider: Send + Sync {
    /// The entry this provider was built from.
    fn config(&self) -> &ProviderConfig;

    /// The entry's name.
    fn name(&self) -> &str {
        &self.config().name
    }

    /// Starts one call. Errors before the first byte (auth, rate limit
    /// after retries, unreachable server) come back here; errors while
    /// streaming come as the stream's last item. Cancelling `cancel` ends
    /// the call and the stream with [`LlmError::Cancelled`].
    async fn stream(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, LlmError>;

    /// The whole reply.
    async fn complete(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<Completion, LlmError> {
        let mut stream = self.stream(request, cancel).await?;
        let mut builder = CompletionBuilder::default();
        while let Some(ev) = stream.next().await {
            builder.push(ev?);
        }
        Ok(builder.finish())
    }
}

fn env_name(cfg: &ProviderConfig) -> String {
    cfg.api_key_env
        .clone()
        .unwrap_or_else(|| conventional_env(&cfg.name))
}

fn local_unavailable() -> LlmError {
    LlmError::Unsupported(
        "the embedded local model (dialect `local`) is run by baton-local, which this front door does not \
         include; choose another provider with `--provider NAME` (see `baton providers`)"
            .into(),
    )
}

/// Builds the client for `cfg`. Entries that declare `apiKeyEnv` (and
/// `azure` entries) need a key (environment first, then the keychain);
/// others send one when it is found the same way (`NAME_API_KEY`, the
/// keychain, the original system's variable) and none otherwise.
pub fn build_provider(
    cfg: &ProviderConfig,
    secrets: &Secrets,
) -> Result<Arc<dyn Provider>, LlmError> {
    if cfg.dialect == Dialect::Local {
        return Err(local_unavailable());
    }
    let key = if cfg.needs_key() {
        match secrets.api_key(&cfg.name, cfg.api_key_env.as_deref()) {
            Ok(Some(k)) => Some(k.value),
            Ok(None) => {
                return Err(LlmError::MissingKey {
                    provider: cfg.name.clone(),
                    env: env_name(cfg),
                    note: String::new(),
                });
            }
            Err(e) => {
                return Err(LlmError::MissingKey {
                    provider: cfg.name.clone(),
                    env: env_name(cfg),
                    note: format!(" — {e}"),
                });
            }
        }
    } else {
        // An entry that declares no key (every seed-style entry) still
        // sends one found for it: its conventional variable, the keychain,
        // the original system's variable.
        match secrets.api_key(&cfg.name, None) {
            Ok(found) => found.map(|k| k.value),
            Err(e) => {
                tracing::debug!(provider = %cfg.name, "no key looked up for a keyless entry: {e}");
                None
            }
        }
    };
    Ok(Arc::new(HttpProvider::new(cfg.clone(), key)?))
}

/// Whether an entry can be used now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// Usable; how we know.
    Ready(String),
    /// Not usable; what to do.
    NotReady(String),
}

impl Readiness {
    /// True when ready.
    pub fn is_ready(&self) -> bool {
        matches!(self, Readiness::Ready(_))
    }
}

/// Checks an entry: a key for keyed providers (no network call), a quick
/// GET for keyless servers (Ollama, local OpenAI-compatible servers).
pub async fn probe_readiness(
    cfg: &ProviderConfig,
    secrets: &Secrets,
    timeout: Duration,
) -> Readiness {
    if cfg.dialect == Dialect::Local {
        return Readiness::NotReady(local_unavailable().to_string());
    }
    if cfg.needs_key() {
        return match secrets.api_key(&cfg.name, cfg.api_key_env.as_deref()) {
            Ok(Some(k)) => Readiness::Ready(match k.source {
                baton_config::KeySource::Env(v) => format!("API key from ${v}"),
                baton_config::KeySource::Keychain => "API key in the keychain".into(),
            }),
            Ok(None) => Readiness::NotReady(format!(
                "no API key: run `baton secret set {}` or set {}",
                cfg.name,
                env_name(cfg)
            )),
            Err(e) => Readiness::NotReady(format!("no API key: set {} — {e}", env_name(cfg))),
        };
    }
    let url = match cfg.dialect {
        Dialect::Ollama => format!("{}/api/tags", cfg.base_url()),
        Dialect::Openai => format!("{}/models", cfg.base_url()),
        _ => cfg.base_url().to_string(),
    };
    let client = match crate::http::client_builder(cfg.base_url())
        .timeout(timeout)
        .build()
    {
        Ok(c) => c,
        Err(e) => return Readiness::NotReady(format!("cannot set up HTTP: {e}")),
    };
    match client.get(&url).send().await {
        Ok(r) => Readiness::Ready(format!(
            "server answered at {} (HTTP {})",
            cfg.shown_url(),
            r.status().as_u16()
        )),
        Err(_) => Readiness::NotReady(format!("no server answering at {}", cfg.shown_url())),
    }
}
