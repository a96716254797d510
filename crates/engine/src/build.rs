//! Providers, toolboxes and agents made from the settings.

use std::sync::{Arc, Mutex};

use baton_convert::OcrEngine;
use baton_docs::ProviderOcr;
use baton_llm::{
    Anonymizer, AnonymizingProvider, LlmError, Provider, ProviderConfig, build_provider,
};

/// Told the embedded model's load progress, in percent.
pub type LoadListener = Arc<dyn Fn(f32) + Send + Sync>;
use crate::Engine;

/// The provider for `cfg` (see [`Providers::open`](crate::Providers::open)), reporting the embedded
/// model's load progress (percent, 0–100) to `on_load` when the first
/// request loads it. Must be called inside a tokio runtime for the
/// progress to be forwarded.
pub(crate) fn open_provider_observed(
    engine: &Engine,
    cfg: &ProviderConfig,
    on_load: Option<LoadListener>,
) -> Result<Arc<dyn Provider>, LlmError> {
    let provider: Arc<dyn Provider> = if cfg.dialect == baton_llm::Dialect::Local {
        let local = baton_local::LocalProvider::new(cfg.clone(), &engine.paths.models_dir);
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
        build_provider(cfg, &engine.secrets)?
    };
    if !engine.settings.anonymize {
        return Ok(provider);
    }
    let mut anon = Anonymizer::new();
    for t in engine
        .settings
        .anonymize_terms
        .iter()
        .chain(&stored_keys(engine))
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
fn stored_keys(engine: &Engine) -> Vec<String> {
    engine
        .providers
        .providers
        .iter()
        .filter(|p| p.needs_key())
        .filter_map(|p| {
            engine
                .secrets
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
pub(crate) fn vision_ocr(engine: &Engine) -> Option<Arc<dyn OcrEngine>> {
    let cfg = match &engine.settings.ocr_provider {
        Some(name) => match engine.providers.get(name) {
            Some(cfg) => cfg.clone(),
            None => {
                tracing::warn!(
                    "the OCR provider `{name}` is not in the providers file; using Tesseract"
                );
                return None;
            }
        },
        None => engine
            .providers
            .providers
            .iter()
            .find(|p| {
                p.ocr
                    && engine
                        .secrets
                        .api_key(&p.name, p.api_key_env.as_deref())
                        .is_ok_and(|k| k.is_some())
            })?
            .clone(),
    };
    match engine
        .providers()
        .open(&cfg)
        .map_err(|e| e.to_string())
        .and_then(|p| ProviderOcr::new(p).map_err(|e| e.to_string()))
    {
        Ok(ocr) => Some(Arc::new(ocr)),
        Err(e) => {
            tracing::warn!(
                "OCR through `{}` is unavailable ({e}); using Tesseract",
                cfg.name
            );
            None
        }
    }
}
