//! Model servers already running here become providers, and with no
//! provider chosen yet the engine picks the best one that is ready: a
//! keyed cloud entry, then a local server, then the largest downloaded
//! model, then the embedded model, and says which and why.

use std::time::Duration;

use baton_config::KeySource;
use baton_llm::{Dialect, ProvidersFile};
use baton_models::FoundServer;
use serde::Serialize;
use serde_json::{Value, json};

use crate::Engine;

/// Why the engine uses the provider it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum ChoiceReason {
    /// A cloud entry has an API key.
    KeyedCloud,
    /// A model server runs on this computer.
    LocalServer,
    /// A model was downloaded from the catalog.
    PulledModel,
    /// Nothing better: the embedded model.
    Embedded,
}

/// The provider picked on a first run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderChoice {
    /// The entry's name.
    pub provider: String,
    /// Which rule picked it.
    pub reason: ChoiceReason,
    /// The reason in words.
    pub why: String,
}

/// How long the local-server probes may take in all.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(400);

/// Whether the user chose a provider: the `provider` setting, a `default`
/// in their providers file, or a providers file given on the command line.
pub(crate) fn provider_chosen(engine: &Engine) -> bool {
    engine.settings.provider.is_some() || engine.default_chosen
}

/// The model servers found on this computer.
pub(crate) fn local_servers(engine: &Engine) -> &[FoundServer] {
    engine.found_servers.as_deref().unwrap_or_default()
}

/// Adds the servers' models as providers and makes the first-run
/// choice (also used by [`Engine::discover`] and [`Engine::reload`], without probing again).
pub(crate) fn apply_discovery(engine: &mut Engine, found: Vec<FoundServer>) {
    // The entries of servers found before go; those running now come back.
    let stale: Vec<String> = local_servers(engine)
        .iter()
        .flat_map(server_entry_names)
        .collect();
    engine
        .providers
        .providers
        .retain(|p| !stale.contains(&p.name));
    let entries: Vec<Value> = found.iter().flat_map(server_entries).collect();
    let text = json!({ "providers": entries }).to_string();
    match ProvidersFile::parse(&text, "local model servers", false) {
        Ok(file) => {
            for p in file.providers {
                if engine.providers.get(&p.name).is_none() {
                    engine.providers.providers.push(p);
                }
            }
        }
        Err(e) => tracing::warn!("local model servers left out: {e}"),
    }
    engine.found_servers = Some(found);
    engine.choice = None;
    if !provider_chosen(engine) {
        let choice = pick_provider(engine);
        tracing::info!(provider = %choice.provider, "first run: {}", choice.why);
        engine.providers.default = choice.provider.clone();
        engine.choice = Some(choice);
    }
}

fn pick_provider(engine: &Engine) -> ProviderChoice {
    keyed_cloud(engine)
        .or_else(|| first_local_server(engine))
        .or_else(|| largest_pulled(engine))
        .unwrap_or_else(|| ProviderChoice {
            provider: engine.providers.default.clone(),
            reason: ChoiceReason::Embedded,
            why: "no API key, model server or downloaded model was found, and the embedded model is small: its answers are basic".to_string(),
        })
}

fn keyed_cloud(engine: &Engine) -> Option<ProviderChoice> {
    engine
        .providers
        .providers
        .iter()
        .filter(|p| p.dialect != Dialect::Local && !is_loopback(p.endpoint.as_deref()))
        .find_map(|p| {
            let key = engine
                .secrets
                .api_key(&p.name, p.api_key_env.as_deref())
                .ok()??;
            let from = match key.source {
                KeySource::Env(var) => format!("from ${var}"),
                KeySource::Keychain => "in the keychain".to_string(),
            };
            Some(ProviderChoice {
                provider: p.name.clone(),
                reason: ChoiceReason::KeyedCloud,
                why: format!("`{}` has an API key ({from})", p.name),
            })
        })
}

fn first_local_server(engine: &Engine) -> Option<ProviderChoice> {
    // A chat model that became an entry (not an embedding model).
    let (server, model) = local_servers(engine).iter().find_map(|s| {
        let model = s.models.iter().find(|m| {
            !m.to_lowercase().contains("embed") && engine.providers.get(&entry_name(s, m)).is_some()
        })?;
        Some((s, model))
    })?;
    Some(ProviderChoice {
        provider: entry_name(server, model),
        reason: ChoiceReason::LocalServer,
        why: format!(
            "{} runs on this computer ({}) and serves `{model}`",
            server.label(),
            server.endpoint
        ),
    })
}

fn largest_pulled(engine: &Engine) -> Option<ProviderChoice> {
    let model = engine.models().pulled().into_iter().next()?;
    Some(ProviderChoice {
        provider: model.name.clone(),
        reason: ChoiceReason::PulledModel,
        why: format!(
            "`{}` ({}, {:.1} GB) is the largest model you downloaded",
            model.name,
            model.title,
            model.size as f64 / 1e9
        ),
    })
}

fn is_loopback(endpoint: Option<&str>) -> bool {
    let host = endpoint
        .and_then(|e| reqwest::Url::parse(e).ok())
        .and_then(|u| u.host_str().map(str::to_string));
    matches!(
        host.as_deref(),
        Some("localhost" | "127.0.0.1" | "[::1]" | "::1")
    )
}

/// The provider name of `model` on `server` (`ollama-llama3.2:latest`).
pub fn entry_name(server: &FoundServer, model: &str) -> String {
    format!("{}-{model}", server.label())
}

fn server_entry_names(server: &FoundServer) -> Vec<String> {
    server
        .models
        .iter()
        .map(|m| entry_name(server, m))
        .collect()
}

fn server_entries(server: &FoundServer) -> Vec<Value> {
    server
        .models
        .iter()
        .map(|model| {
            json!({
                "name": entry_name(server, model),
                "dialect": server.dialect(),
                "endpoint": server.provider_endpoint(),
                "model": model,
                "contextWindow": 8192,
                "maxOutputTokens": 2048,
                "temperature": 0.2,
                "cacheType": "PrefixCache",
                "nativeTools": true,
            })
        })
        .collect()
}
