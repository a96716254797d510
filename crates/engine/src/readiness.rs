//! Whether each provider entry can be called now.

use baton_llm::{ProviderConfig, Readiness};
use baton_local::resolve_model_path;

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
