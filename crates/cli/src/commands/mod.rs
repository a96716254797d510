//! One module per command; each is thin over the engine crates.

mod ask;
mod chat;
mod config;
mod convert;
mod index;
mod models;
mod providers;
mod search;
mod secret;
mod tools;

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use baton_llm::{
    Anonymizer, AnonymizingProvider, LlmError, Provider, ProviderConfig, build_provider,
};

use crate::args::{Cli, Command};
use crate::context::Context;

/// Runs the parsed command.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let ctx = Context::load(&cli.global)?;
    let verbose = cli.global.verbose > 0;
    match cli.command {
        Command::Ask(a) => ask::run(&ctx, a, verbose).await,
        Command::Chat(a) => chat::run(&ctx, a, verbose).await,
        Command::Tools(a) => tools::run(&ctx, a).await,
        Command::Models { json } => models::run(&ctx, json),
        Command::Providers { json } => providers::run(&ctx, json).await,
        Command::Config(c) => config::run(&ctx, c),
        Command::Secret(c) => secret::run(&ctx, c),
        Command::Convert(a) => convert::run(&ctx, a),
        Command::Index(a) => index::run(&ctx, a).await,
        Command::Search(a) => search::run(&ctx, a),
    }
}

/// Builds the provider for `cfg`, wrapped in the anonymizer when the
/// setting is on (registered terms plus the provider's own key).
pub fn open_provider(ctx: &Context, cfg: &ProviderConfig) -> Result<Arc<dyn Provider>, LlmError> {
    let provider: Arc<dyn Provider> = if cfg.dialect == baton_llm::Dialect::Local {
        Arc::new(baton_local::LocalProvider::new(
            cfg.clone(),
            &ctx.paths.models_dir,
        ))
    } else {
        build_provider(cfg, &ctx.secrets)?
    };
    if !ctx.settings.anonymize {
        return Ok(provider);
    }
    let mut anon = Anonymizer::new();
    for t in &ctx.settings.anonymize_terms {
        anon.register(t);
    }
    Ok(Arc::new(AnonymizingProvider::new(
        provider,
        Arc::new(Mutex::new(anon)),
    )))
}

/// Exit code for a failed model call.
pub fn exit_for(e: &LlmError) -> ExitCode {
    match e {
        LlmError::Cancelled { .. } => ExitCode::from(130),
        _ => ExitCode::FAILURE,
    }
}
