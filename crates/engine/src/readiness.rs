//! Whether each provider entry can be called now.

use std::time::Duration;

use baton_llm::{Dialect, ProviderConfig, Readiness, probe_readiness};
use baton_local::resolve_model_path;

use crate::Engine;

/// The embedded model is ready when its file is there.
pub fn local_readiness(cfg: &ProviderConfig, models_dir: &std::path::Path) -> Readiness {
    let path = resolve_model_path(cfg.model_path.as_deref().unwrap_or(""), models_dir);
    match std::fs::metadata(&path) {
        Ok(m) => Readiness::Ready(format!(
            "model file {} ({:.0} MB)",
            path.display(),
            m.len() as f64 / 1e6
        )),
        Err(_) => Readiness::NotReady(format!(
            "model file {} is missing: run `make setup` (or scripts/fetch-model.sh)",
            path.display()
        )),
    }
}

impl Engine {
    /// Readiness of every entry, in the providers file's order (servers
    /// are probed in parallel, each for at most `timeout`).
    pub async fn readiness(&self, timeout: Duration) -> Vec<Readiness> {
        let probes = self
            .providers
            .providers
            .iter()
            .map(|p| self.provider_readiness(p, timeout));
        futures::future::join_all(probes).await
    }

    /// Whether entry `cfg` can be called now: its model file, or its
    /// server probed for at most `timeout`.
    pub async fn provider_readiness(&self, cfg: &ProviderConfig, timeout: Duration) -> Readiness {
        if cfg.dialect == Dialect::Local {
            return local_readiness(cfg, &self.paths.models_dir);
        }
        probe_readiness(cfg, &self.secrets, timeout).await
    }
}
