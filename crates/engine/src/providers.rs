//! The providers service: which entry is in use and why, opening an entry
//! (with the anonymizer when the setting is on), readiness, model servers
//! found on this computer, and the user's own providers file.

use std::time::Duration;

use baton_config::InteractionMode;
use baton_llm::{
    Dialect, LlmError, Provider, ProviderConfig, ProvidersFile, Readiness, probe_readiness,
};
use baton_models::FoundServer;
use serde::Serialize;
use serde_json::Value;

use crate::{Engine, EngineError, LoadListener, ProviderChoice, first_run, user_providers};
use std::sync::Arc;

/// A provider entry with its readiness, as lists show it (`baton
/// providers`, the desktop's settings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInfo {
    /// Entry name.
    pub name: String,
    /// Wire dialect (`openai`, `anthropic`, `ollama`, `gemini`, `local`…).
    pub dialect: String,
    /// Model id.
    pub model: String,
    /// Endpoint URL (`None` for the embedded model).
    pub endpoint: Option<String>,
    /// Environment variable that can hold the key, if the entry names one.
    pub api_key_env: Option<String>,
    /// How tools are offered to it.
    pub interaction_mode: InteractionMode,
    /// Whether a call can be made now.
    pub ready: bool,
    /// Readiness in words (where the key comes from, what is missing).
    pub detail: String,
    /// It needs an API key and none is stored or set.
    pub key_missing: bool,
    /// An entry from the user's providers file (endpoint and model editable).
    pub custom: bool,
    /// The providers file's default entry.
    pub is_default: bool,
    /// The entry in use.
    pub selected: bool,
}

/// The provider entries of an [`Engine`] (see [`Engine::providers`]).
pub struct Providers<'a> {
    pub(crate) e: &'a Engine,
}

impl<'a> Providers<'a> {
    /// Every entry: the shipped presets, the user's file over them, and
    /// the model servers found running here.
    pub fn file(&self) -> &'a ProvidersFile {
        &self.e.providers
    }

    /// The entry to use: `name`, else the setting, else the default.
    pub fn config(&self, name: Option<&str>) -> Result<ProviderConfig, EngineError> {
        let name = name.unwrap_or_else(|| self.selected());
        Ok(self.e.providers.require(name)?.clone())
    }

    /// The name of the entry in use (the setting, else the default).
    pub fn selected(&self) -> &'a str {
        self.e
            .settings
            .provider
            .as_deref()
            .unwrap_or(&self.e.providers.default)
    }

    /// Builds the provider for `cfg`, wrapped in the anonymizer when the
    /// setting is on (the `anonymizeTerms`, every stored API key, and what
    /// looks like an e-mail address, phone number, IBAN or key in the
    /// prompt, attachments and tool results).
    pub fn open(&self, cfg: &ProviderConfig) -> Result<Arc<dyn Provider>, LlmError> {
        crate::build::open_provider_observed(self.e, cfg, None)
    }

    /// [`open`](Self::open), reporting the embedded model's load progress
    /// (percent, 0–100) to `on_load` when the first request loads it. Must
    /// be called inside a tokio runtime for the progress to be forwarded.
    pub fn open_observed(
        &self,
        cfg: &ProviderConfig,
        on_load: Option<LoadListener>,
    ) -> Result<Arc<dyn Provider>, LlmError> {
        crate::build::open_provider_observed(self.e, cfg, on_load)
    }

    /// Readiness of every entry, in the providers file's order (servers
    /// are probed in parallel, each for at most `timeout`).
    pub async fn readiness(&self, timeout: Duration) -> Vec<Readiness> {
        let probes = self
            .e
            .providers
            .providers
            .iter()
            .map(|p| self.readiness_of(p, timeout));
        futures::future::join_all(probes).await
    }

    /// Every entry with its readiness, in the providers file's order
    /// (servers probed in parallel, each for at most `timeout`).
    pub async fn list(&self, timeout: Duration) -> Vec<ProviderInfo> {
        let states = self.readiness(timeout).await;
        let custom = self.user_names();
        let file = &self.e.providers;
        let selected = self.selected();
        file.providers
            .iter()
            .zip(states)
            .map(|(p, r)| {
                let (ready, detail) = match r {
                    Readiness::Ready(d) => (true, d),
                    Readiness::NotReady(d) => (false, d),
                };
                let key_missing = p.needs_key()
                    && matches!(
                        self.e.secrets.api_key(&p.name, p.api_key_env.as_deref()),
                        Ok(None)
                    );
                ProviderInfo {
                    name: p.name.clone(),
                    dialect: p.dialect.as_str().into(),
                    model: p.model_name().into(),
                    endpoint: p.endpoint.as_deref().map(baton_stdx::without_userinfo),
                    api_key_env: p.api_key_env.clone(),
                    interaction_mode: p.effective_interaction_mode(),
                    ready,
                    detail,
                    key_missing,
                    custom: custom.contains(&p.name),
                    is_default: p.name == file.default,
                    selected: p.name == selected,
                }
            })
            .collect()
    }

    /// Whether entry `cfg` can be called now: its model file, or its
    /// server probed for at most `timeout`.
    pub async fn readiness_of(&self, cfg: &ProviderConfig, timeout: Duration) -> Readiness {
        if cfg.dialect == Dialect::Local {
            return crate::local_readiness(cfg, &self.e.paths.models_dir);
        }
        probe_readiness(cfg, &self.e.secrets, timeout).await
    }

    /// Whether the user chose a provider: the `provider` setting, a
    /// `default` in their providers file, or a providers file given on
    /// the command line.
    pub fn chosen(&self) -> bool {
        first_run::provider_chosen(self.e)
    }

    /// The model servers found on this computer (see [`Engine::discover`]).
    pub fn local_servers(&self) -> &'a [FoundServer] {
        first_run::local_servers(self.e)
    }

    /// The provider picked because none was chosen, and why.
    pub fn first_run_choice(&self) -> Option<&'a ProviderChoice> {
        self.e.choice.as_ref()
    }

    /// Names of the entries the user's providers file defines (custom
    /// entries and overrides of presets).
    pub fn user_names(&self) -> Vec<String> {
        user_providers::names(self.e)
    }

    /// Sets the endpoint and/or model of an entry in the user's providers
    /// file (written atomically, other fields and entries kept). Only
    /// entries that file defines can be edited this way.
    pub fn update_user(
        &self,
        name: &str,
        endpoint: Option<&str>,
        model: Option<&str>,
    ) -> Result<(), EngineError> {
        user_providers::update(self.e, name, endpoint, model)
    }

    /// Adds `entry` to the user's providers file, or replaces the entry of
    /// the same name (the file is made when there is none).
    pub fn set_user(&self, entry: Value) -> Result<(), EngineError> {
        user_providers::set(self.e, entry)
    }

    /// Removes entry `name` from the user's providers file (nothing to do
    /// when it is not there).
    pub fn remove_user(&self, name: &str) -> Result<(), EngineError> {
        user_providers::remove(self.e, name)
    }
}
