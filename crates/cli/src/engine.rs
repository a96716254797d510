//! Building the engine for a command: the workspace's toolboxes, the
//! agent, the session store, and printing agent events.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::Context as _;
use baton_agent::{Agent, AgentConfig, AgentEvent, EventSink, SessionStore};
use baton_docs::FileTool;
use baton_llm::{InteractionMode, Provider, ProviderConfig};
use baton_tools::{Catalog, Sandbox};

use crate::args::ModeArg;
use crate::context::Context;

/// The built-in toolboxes on the workspace (created if it does not exist
/// yet, so a fresh machine works).
pub fn workspace_catalog(ctx: &Context) -> anyhow::Result<Catalog> {
    if !ctx.workspace.exists() {
        std::fs::create_dir_all(&ctx.workspace).with_context(|| {
            format!("creating the workspace folder {}", ctx.workspace.display())
        })?;
        eprintln!(
            "note: created the workspace folder {}",
            ctx.workspace.display()
        );
    }
    let sandbox = Sandbox::new(&ctx.workspace).with_context(|| {
        format!(
            "the workspace {} cannot be used; choose another with --workspace DIR or `baton config set workspace DIR`",
            ctx.workspace.display()
        )
    })?;
    Ok(Catalog::new().with(Arc::new(FileTool::new(sandbox)))?)
}

/// An agent for `cfg`: tool mode from `--mode`, else the setting, else the
/// entry.
pub fn build_agent(
    ctx: &Context,
    cfg: &ProviderConfig,
    provider: Arc<dyn Provider>,
    mode: Option<ModeArg>,
    tools: bool,
    instructions: Option<String>,
) -> anyhow::Result<Agent> {
    let mut config = AgentConfig::for_provider(cfg);
    if let Some(m) = ctx.settings.interaction_mode {
        config.mode = m;
    }
    if let Some(m) = mode {
        config.mode = match m {
            ModeArg::Api => InteractionMode::Api,
            ModeArg::Cli => InteractionMode::Cli,
        };
    }
    config.instructions = instructions;
    let catalog = if tools {
        workspace_catalog(ctx)?
    } else {
        Catalog::new()
    };
    Ok(Agent::new(provider, catalog, config))
}

/// Where sessions are saved.
pub fn session_store(ctx: &Context) -> SessionStore {
    SessionStore::new(ctx.paths.data_dir.join("sessions"))
}

/// Prints answer text to stdout as it streams and tool activity to stderr
/// (when stderr is a terminal, or always with `verbose`). Ends at `Done`.
pub fn spawn_printer(
    events: &EventSink,
    print_text: bool,
    verbose: bool,
) -> tokio::task::JoinHandle<bool> {
    let mut rx = events.subscribe();
    let show_tools = verbose || std::io::stderr().is_terminal();
    tokio::spawn(async move {
        let mut printed_any = false;
        let mut ends_with_newline = true;
        loop {
            match rx.recv().await {
                Ok(AgentEvent::TextDelta { text }) if print_text => {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                    printed_any = true;
                    ends_with_newline = text.ends_with('\n');
                }
                Ok(AgentEvent::ToolStarted {
                    name, arguments, ..
                }) if show_tools => {
                    eprintln!("  ⚙ {name} {arguments}");
                }
                Ok(AgentEvent::ToolFinished {
                    name,
                    is_error,
                    result,
                    duration_ms,
                    ..
                }) if show_tools => {
                    let short: String = result.to_string().chars().take(160).collect();
                    let mark = if is_error { "✗" } else { "✓" };
                    eprintln!("  {mark} {name} ({duration_ms:.0} ms) {short}");
                }
                Ok(AgentEvent::Compacted(r)) if show_tools => {
                    eprintln!("  (history compacted: {} → {} messages)", r.before, r.after);
                }
                Ok(AgentEvent::Done { .. }) => break,
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        if printed_any && !ends_with_newline {
            println!();
        }
        printed_any
    })
}
