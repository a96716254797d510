//! What every command starts from: the engine loaded from the settings,
//! with the command line's overrides; load warnings go to stderr.

use std::sync::Arc;

use baton_engine::{Engine, Overrides};

use crate::args::Global;

/// The loaded engine for one command (shared with the turns it runs).
pub type Context = Arc<Engine>;

/// Loads settings and providers, printing their warnings on stderr; with
/// `discover`, model servers running here are listed as providers and,
/// with no provider chosen yet, the best ready one is picked.
pub async fn load(global: &Global, discover: bool) -> anyhow::Result<Context> {
    let engine = Engine::load(Overrides {
        workspace: global.workspace.clone(),
        providers: global.providers.clone(),
        shipped_dir: None,
    })?;
    for w in engine.warnings() {
        eprintln!("warning: {w}");
    }
    let engine = if discover {
        engine.discover(baton_engine::PROBE_TIMEOUT).await
    } else {
        engine
    };
    Ok(Arc::new(engine))
}

/// Says on stderr which provider was picked and why, when the user has
/// not chosen one (and did not name one for this command).
pub fn note_first_run(ctx: &Context, named: Option<&str>) {
    if named.is_some() {
        return;
    }
    if let Some(choice) = ctx.providers().first_run_choice() {
        let more = if choice.reason == baton_engine::ChoiceReason::Embedded {
            " `baton models catalog` lists better models to download;"
        } else {
            ""
        };
        eprintln!(
            "Using `{}`: {}.{more} choose another with `baton config set provider NAME`.",
            choice.provider, choice.why
        );
    }
}

/// The engine of project `name` (a name or id), or `ctx` itself for none.
pub fn in_project(ctx: &Context, name: Option<&str>) -> anyhow::Result<Context> {
    match name {
        Some(n) => Ok(ctx.projects().engine(&ctx.projects().find(n)?.id)?),
        None => Ok(std::sync::Arc::clone(ctx)),
    }
}
