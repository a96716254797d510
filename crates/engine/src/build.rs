//! Providers, toolboxes and agents made from the settings.

use std::sync::{Arc, Mutex};

use baton_agent::{Agent, AgentConfig};
use baton_convert::OcrEngine;
use baton_docs::{FileTool, ProviderOcr};
use baton_index::WorkspaceIndex;
use baton_llm::{
    Anonymizer, AnonymizingProvider, InteractionMode, LlmError, Provider, ProviderConfig,
    build_provider,
};
use baton_tools::{Catalog, Sandbox};

use crate::index::refresh_in_background;

/// Told the embedded model's load progress, in percent.
pub type LoadListener = Arc<dyn Fn(f32) + Send + Sync>;
use crate::{Engine, EngineError};

impl Engine {
    /// Builds the provider for `cfg`, wrapped in the anonymizer when the
    /// setting is on (registered terms plus the provider's own key).
    pub fn open_provider(&self, cfg: &ProviderConfig) -> Result<Arc<dyn Provider>, LlmError> {
        self.open_provider_observed(cfg, None)
    }

    /// [`open_provider`](Self::open_provider), reporting the embedded
    /// model's load progress (percent, 0–100) to `on_load` when the first
    /// request loads it. Must be called inside a tokio runtime for the
    /// progress to be forwarded.
    pub fn open_provider_observed(
        &self,
        cfg: &ProviderConfig,
        on_load: Option<LoadListener>,
    ) -> Result<Arc<dyn Provider>, LlmError> {
        let provider: Arc<dyn Provider> = if cfg.dialect == baton_llm::Dialect::Local {
            let local = baton_local::LocalProvider::new(cfg.clone(), &self.paths.models_dir);
            if let (Some(on_load), Ok(rt)) = (on_load, tokio::runtime::Handle::try_current()) {
                let mut rx = local.subscribe_progress();
                // Ends once the model is in memory (or the worker is gone).
                rt.spawn(async move {
                    use tokio::sync::broadcast::error::RecvError;
                    loop {
                        match rx.recv().await {
                            Ok(p) => {
                                on_load(p.percent);
                                if p.percent >= 100.0 {
                                    break;
                                }
                            }
                            // Loading reports often; a skipped step is fine.
                            Err(RecvError::Lagged(_)) => continue,
                            Err(RecvError::Closed) => break,
                        }
                    }
                });
            }
            Arc::new(local)
        } else {
            build_provider(cfg, &self.secrets)?
        };
        if !self.settings.anonymize {
            return Ok(provider);
        }
        let mut anon = Anonymizer::new();
        for t in &self.settings.anonymize_terms {
            anon.register(t);
        }
        Ok(Arc::new(AnonymizingProvider::new(
            provider,
            Arc::new(Mutex::new(anon)),
        )))
    }

    /// The vision OCR engine: the `ocrProvider` entry, else the first
    /// entry marked `"ocr": true` whose key is available; `None` means
    /// local Tesseract.
    pub(crate) fn vision_ocr(&self) -> Option<Arc<dyn OcrEngine>> {
        let cfg = match &self.settings.ocr_provider {
            Some(name) => match self.providers.get(name) {
                Some(cfg) => cfg.clone(),
                None => {
                    tracing::warn!(
                        "the OCR provider `{name}` is not in the providers file; using Tesseract"
                    );
                    return None;
                }
            },
            None => self
                .providers
                .providers
                .iter()
                .find(|p| {
                    p.ocr
                        && self
                            .secrets
                            .api_key(&p.name, p.api_key_env.as_deref())
                            .is_ok_and(|k| k.is_some())
                })?
                .clone(),
        };
        match self
            .open_provider(&cfg)
            .map_err(|e| e.to_string())
            .and_then(|p| ProviderOcr::new(p).map_err(|e| e.to_string()))
        {
            Ok(engine) => Some(Arc::new(engine)),
            Err(e) => {
                tracing::warn!(
                    "OCR through `{}` is unavailable ({e}); using Tesseract",
                    cfg.name
                );
                None
            }
        }
    }

    /// The built-in toolboxes on the workspace (created if it does not
    /// exist yet, so a fresh machine works), searching through
    /// [`refreshed_index`](Self::refreshed_index).
    pub fn workspace_catalog(&self) -> Result<Catalog, EngineError> {
        self.file_catalog(self.refreshed_index())
    }

    /// The workspace's search index, brought up to date in the background
    /// (unless `skipIndexingOnStartup` is set); `None` when it cannot be
    /// opened (search is then off, with a warning in the log).
    pub fn refreshed_index(&self) -> Option<Arc<WorkspaceIndex>> {
        match self.open_index() {
            Ok(index) => {
                if !self.settings.skip_indexing_on_startup {
                    refresh_in_background(&index, false, Arc::new(|_| {}));
                }
                Some(index)
            }
            Err(e) => {
                tracing::warn!(error = %e, "document search is off");
                None
            }
        }
    }

    /// The built-in toolboxes on the workspace, searching through `index`
    /// (kept fresh by the caller) when there is one.
    pub fn file_catalog(&self, index: Option<Arc<WorkspaceIndex>>) -> Result<Catalog, EngineError> {
        let mut tool = FileTool::new(self.sandbox()?)
            .with_cache(self.conversion_cache())
            .with_convert_options(self.convert_options());
        if let Some(index) = index {
            tool = tool.with_index(index);
        }
        let mut catalog = Catalog::new().with(Arc::new(tool))?;
        if self.settings.diagnostic_tools || crate::diagnostics_enabled() {
            catalog.register(Arc::new(crate::Diagnostics::default()))?;
        }
        Ok(catalog)
    }

    /// The toolboxes an agent for `cfg` is offered: none when the entry
    /// turns tools off (models too small to call them), else the
    /// workspace's, searching through the index `index` gives (asked only
    /// when tools are on).
    pub fn catalog_for(
        &self,
        cfg: &ProviderConfig,
        index: impl FnOnce() -> Option<Arc<WorkspaceIndex>>,
    ) -> Result<Catalog, EngineError> {
        if cfg.tools {
            self.file_catalog(index())
        } else {
            Ok(Catalog::new())
        }
    }

    /// The sandbox over the workspace folder, creating the folder first.
    pub fn sandbox(&self) -> Result<Sandbox, EngineError> {
        let bad = |reason: String| EngineError::Workspace {
            path: self.workspace.clone(),
            reason,
        };
        if !self.workspace.exists() {
            std::fs::create_dir_all(&self.workspace).map_err(|e| bad(e.to_string()))?;
            tracing::info!("created the workspace folder {}", self.workspace.display());
        }
        Sandbox::new(&self.workspace).map_err(|e| bad(e.to_string()))
    }

    /// An agent for `cfg` with the toolboxes of `catalog`: tool mode
    /// from `mode`, else the setting, else the entry.
    pub fn build_agent(
        &self,
        cfg: &ProviderConfig,
        provider: Arc<dyn Provider>,
        mode: Option<InteractionMode>,
        catalog: Catalog,
        instructions: Option<String>,
    ) -> Agent {
        let mut config = AgentConfig::for_provider(cfg);
        if let Some(m) = mode.or(self.settings.interaction_mode) {
            config.mode = m;
        }
        config.instructions = instructions;
        Agent::new(provider, catalog, config)
    }
}
