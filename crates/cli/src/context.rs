//! What every command starts from: the engine loaded from the settings,
//! with the command line's overrides; load warnings go to stderr.

use std::sync::Arc;

use baton_engine::{Engine, Overrides};

use crate::args::Global;

/// The loaded engine for one command (shared with the turns it runs).
pub type Context = Arc<Engine>;

/// Loads settings and providers, printing their warnings on stderr.
pub fn load(global: &Global) -> anyhow::Result<Context> {
    let engine = Engine::load(Overrides {
        workspace: global.workspace.clone(),
        providers: global.providers.clone(),
        shipped_dir: None,
    })?;
    for w in &engine.warnings {
        eprintln!("warning: {w}");
    }
    Ok(Arc::new(engine))
}
