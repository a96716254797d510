//! Providers, toolboxes and agents made from the settings.

use std::sync::{Arc, Mutex};

use baton_convert::OcrEngine;
use baton_docs::ProviderOcr;
use baton_index::WorkspaceIndex;
use baton_llm::{
    Anonymizer, AnonymizingProvider, LlmError, Provider, ProviderConfig, build_provider,
};
use baton_tools::{Catalog, Sandbox};

use crate::index::refresh_in_background;

/// Told the embedded model's load progress, in percent.
pub type LoadListener = Arc<dyn Fn(f32) + Send + Sync>;
use crate::{Engine, EngineError};

impl Engine {
    /// Builds the provider for `cfg`, wrapped in the anonymizer when the
    /// setting is on (the `anonymizeTerms`, every stored API key, and what
    /// looks like an e-mail address, phone number, IBAN or key in the
    /// prompt, attachments and tool results).
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
        for t in self
            .settings
            .anonymize_terms
            .iter()
            .chain(&self.stored_keys())
        {
            anon.register(t);
        }
        Ok(Arc::new(AnonymizingProvider::new(
            provider,
            Arc::new(Mutex::new(anon)),
        )))
    }

    /// Every API key Baton can resolve for its provider entries (keychain
    /// or environment): a key pasted into a prompt or a document never
    /// leaves the machine when anonymization is on.
    fn stored_keys(&self) -> Vec<String> {
        self.providers
            .providers
            .iter()
            .filter(|p| p.needs_key())
            .filter_map(|p| {
                self.secrets
                    .api_key(&p.name, p.api_key_env.as_deref())
                    .ok()
                    .flatten()
            })
            .map(|k| k.value)
            .collect()
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

    /// Every built-in toolbox on the workspace (created if it does not
    /// exist yet, so a fresh machine works), searching through
    /// [`refreshed_index`](Self::refreshed_index): what `baton tools`
    /// offers when no agent is named.
    pub fn workspace_catalog(&self) -> Result<Catalog, EngineError> {
        self.toolkit(self.refreshed_index())?.catalog()
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
}
