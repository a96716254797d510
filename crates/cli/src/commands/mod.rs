//! One module per command; each is thin over the engine crates.

mod agents;
mod ask;
mod browser;
mod chat;
mod config;
mod convert;
mod index;
mod mcp;
mod memory;
mod model_catalog;
mod models;
mod orchestrate;
mod projects;
mod providers;
mod research;
mod say;
mod schedule;
mod search;
mod secret;
mod serve;
mod sheet;
mod tools;
mod transcribe;
mod transfer;
mod voice;

use baton_engine::api::LlmError;
use std::process::ExitCode;

use crate::args::{Cli, Command};

/// Runs the parsed command.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let discover = matches!(
        cli.command,
        Command::Ask(_)
            | Command::Chat(_)
            | Command::Providers { .. }
            | Command::Agents { .. }
            | Command::Config(_)
            | Command::Voice(_)
            | Command::Serve(_)
            | Command::Orchestrate(_)
            | Command::Research(_)
    );
    let ctx = crate::context::load(&cli.global, discover).await?;
    let verbose = cli.global.verbose > 0;
    let done = match cli.command {
        Command::Ask(a) => ask::run(&ctx, a, verbose).await,
        Command::Chat(a) => chat::run(&ctx, a, verbose).await,
        Command::Tools(a) => tools::run(&ctx, a).await,
        Command::Agents { json } => agents::run(&ctx, json),
        Command::Models(a) => models::run(&ctx, a).await,
        Command::Providers { json } => providers::run(&ctx, json).await,
        Command::Config(c) => config::run(&ctx, c),
        Command::Secret(c) => secret::run(&ctx, c),
        Command::Memory(a) => memory::run(&ctx, a),
        Command::Projects(c) => projects::run(&ctx, c),
        Command::Schedule(c) => schedule::run(&ctx, c).await,
        Command::Daemon => schedule::daemon(&ctx).await,
        Command::Research(a) => research::run(&ctx, a).await,
        Command::Export(a) => transfer::export(&ctx, a).await,
        Command::Import { file } => transfer::import(&ctx, &file),
        Command::Convert(a) => convert::run(&ctx, a),
        Command::Sheet(c) => sheet::run(c),
        Command::Index(a) => index::run(&ctx, a).await,
        Command::Search(a) => search::run(&ctx, a),
        Command::Say(a) => say::run(&ctx, a).await,
        Command::Transcribe(a) => transcribe::run(&ctx, a).await,
        Command::Voice(a) => voice::run(&ctx, a, verbose).await,
        Command::Browser(c) => browser::run(&ctx, c).await,
        Command::Serve(a) => serve::run(&ctx, a).await,
        Command::Mcp(a) => mcp::run(&ctx, a).await,
        Command::Orchestrate(a) => orchestrate::run(&ctx, a).await,
    };
    // A browser Baton started for these tools closes with the command.
    ctx.close().await;
    done
}

/// Exit code for a failed model call.
pub fn exit_for(e: &LlmError) -> ExitCode {
    match e {
        LlmError::Cancelled { .. } => ExitCode::from(130),
        _ => ExitCode::FAILURE,
    }
}
