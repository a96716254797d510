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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

impl Engine {
    /// Whether the user chose a provider: the `provider` setting, a
    /// `default` in their providers file, or a providers file given on
    /// the command line.
    pub fn provider_chosen(&self) -> bool {
        self.settings.provider.is_some() || self.default_chosen
    }

    /// Looks for model servers on this computer (unless the
    /// `probeLocalServers` setting is off), lists their models as
    /// providers, and picks a provider when none is chosen.
    pub async fn discover(mut self, timeout: Duration) -> Self {
        let found = if self.settings.probe_local_servers {
            baton_models::probe(&self.settings.local_servers, timeout).await
        } else {
            Vec::new()
        };
        self.apply_discovery(found);
        self
    }

    /// Adds the servers' models as providers and makes the first-run
    /// choice (also used by [`Engine::reload`], without probing again).
    pub(crate) fn apply_discovery(&mut self, found: Vec<FoundServer>) {
        // The entries of servers found before go; those running now come back.
        let stale: Vec<String> = self
            .local_servers()
            .iter()
            .flat_map(server_entry_names)
            .collect();
        self.providers
            .providers
            .retain(|p| !stale.contains(&p.name));
        let entries: Vec<Value> = found.iter().flat_map(server_entries).collect();
        let text = json!({ "providers": entries }).to_string();
        match ProvidersFile::parse(&text, "local model servers", false) {
            Ok(file) => {
                for p in file.providers {
                    if self.providers.get(&p.name).is_none() {
                        self.providers.providers.push(p);
                    }
                }
            }
            Err(e) => tracing::warn!("local model servers left out: {e}"),
        }
        self.found_servers = Some(found);
        self.choice = None;
        if !self.provider_chosen() {
            let choice = self.pick_provider();
            tracing::info!(provider = %choice.provider, "first run: {}", choice.why);
            self.providers.default = choice.provider.clone();
            self.choice = Some(choice);
        }
    }

    /// The model servers found on this computer.
    pub fn local_servers(&self) -> &[FoundServer] {
        self.found_servers.as_deref().unwrap_or_default()
    }

    /// The provider picked because none was chosen, and why.
    pub fn first_run_choice(&self) -> Option<&ProviderChoice> {
        self.choice.as_ref()
    }

    fn pick_provider(&self) -> ProviderChoice {
        self.keyed_cloud()
            .or_else(|| self.first_local_server())
            .or_else(|| self.largest_pulled())
            .unwrap_or_else(|| ProviderChoice {
                provider: self.providers.default.clone(),
                reason: ChoiceReason::Embedded,
                why: "no API key, model server or downloaded model was found, and the embedded model is small: its answers are basic".to_string(),
            })
    }

    fn keyed_cloud(&self) -> Option<ProviderChoice> {
        self.providers
            .providers
            .iter()
            .filter(|p| p.dialect != Dialect::Local && !is_loopback(p.endpoint.as_deref()))
            .find_map(|p| {
                let key = self
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

    fn first_local_server(&self) -> Option<ProviderChoice> {
        // A chat model that became an entry (not an embedding model).
        let (server, model) = self.local_servers().iter().find_map(|s| {
            let model = s.models.iter().find(|m| {
                !m.to_lowercase().contains("embed")
                    && self.providers.get(&entry_name(s, m)).is_some()
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

    fn largest_pulled(&self) -> Option<ProviderChoice> {
        let model = self.pulled_models().into_iter().next()?;
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
