//! `baton chat`: an interactive conversation through the agent, saved as a
//! session after every turn; slash commands work on the session.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use baton_agent::{CommandOutcome, CompactionPolicy, Session, StopReason, handle_command};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use super::ask::describe;
use crate::args::ChatArgs;
use crate::context::Context;
use crate::engine;

const HELP: &str = "Type a message and press Enter. /help lists the commands; /attach FILE… adds files to the next \
message (/detach drops them); /exit (or Ctrl-D) leaves; Ctrl-C stops the current answer.";

pub async fn run(ctx: &Context, args: ChatArgs, verbose: bool) -> anyhow::Result<ExitCode> {
    let store = ctx.session_store();
    let mut session = match &args.session {
        Some(name) => match store.load(name) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(ExitCode::FAILURE);
            }
        },
        None => Session::new(),
    };
    if args.model.is_some() {
        session.model = args.model.clone();
    }
    let base = ctx.provider_config(args.provider.as_deref())?;
    let tools = if args.no_tools {
        baton_tools::Catalog::new()
    } else {
        ctx.catalog_for(&base, || ctx.refreshed_index())?
    };
    let make_agent = |session: &Session| -> anyhow::Result<Result<baton_agent::Agent, String>> {
        let mut cfg = base.clone();
        if let Some(m) = &session.model {
            cfg.model = Some(m.clone());
        }
        match ctx.open_provider(&cfg) {
            Ok(p) => Ok(Ok(ctx.build_agent(
                &cfg,
                p,
                args.mode.map(Into::into),
                tools.clone(),
                session.instructions.clone(),
            ))),
            Err(e) => Ok(Err(e.to_string())),
        }
    };
    let mut agent = match make_agent(&session)? {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!(
            "Baton — {} ({}), workspace {}. {HELP}",
            base.name,
            base.model_name(),
            ctx.workspace.display()
        );
    }

    // Ctrl-C cancels the answer in flight; at the prompt it leaves.
    let in_flight: Arc<Mutex<Option<CancellationToken>>> = Arc::default();
    let watcher = in_flight.clone();
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            match watcher.lock().expect("lock").take() {
                Some(token) => token.cancel(),
                None => {
                    eprintln!();
                    std::process::exit(130);
                }
            }
        }
    });

    let policy = CompactionPolicy::default();
    let mut pending: Vec<baton_docs::FileAttachment> = Vec::new();
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    loop {
        if interactive {
            print!("you> ");
            std::io::stdout().flush()?;
        }
        let Some(line) = lines.next_line().await? else {
            break;
        };
        let line = line.trim().to_string();
        if line.is_empty() {
            continue;
        }
        if line == "/exit" || line == "/quit" {
            break;
        }
        if let Some(rest) = line.strip_prefix("/attach") {
            println!("{}", attach_command(ctx, rest, &mut pending));
            continue;
        }
        if line == "/detach" {
            pending.clear();
            println!("no files attached");
            continue;
        }
        match handle_command(&line, &mut session, &store, &policy) {
            CommandOutcome::Reply(text) => {
                println!("{text}");
                if line.starts_with("/instructions")
                    && let Ok(a) = make_agent(&session)?
                {
                    agent = a;
                }
                continue;
            }
            CommandOutcome::ModelChanged(model) => {
                match make_agent(&session)? {
                    Ok(a) => {
                        agent = a;
                        println!("model set to {model}");
                    }
                    Err(e) => println!("error: {e}"),
                }
                continue;
            }
            CommandOutcome::NotACommand => {}
        }
        session.title_from(&line);
        let token = CancellationToken::new();
        *in_flight.lock().expect("lock") = Some(token.clone());
        let printer = engine::spawn_printer(agent.events(), true, verbose);
        let prompt = if pending.is_empty() {
            line.clone()
        } else {
            let context = engine::attachment_context(ctx, &pending, false);
            pending.clear();
            context.prompt(&line)
        };
        let result = agent
            .execute_action(&mut session.history, &prompt, Vec::new(), token)
            .await;
        let _ = printer.await;
        in_flight.lock().expect("lock").take();
        match &result.stop {
            StopReason::Answered => {}
            StopReason::Cancelled => eprintln!("(stopped)"),
            StopReason::Error(e) => eprintln!("error: {e}"),
            other => eprintln!("stopped: {}", describe(other)),
        }
        if let Err(e) = store.save(&session) {
            eprintln!("warning: the session could not be saved: {e}");
        }
    }
    agent.close().await;
    Ok(ExitCode::SUCCESS)
}

/// `/attach FILE…`: reads (and converts, to report on) files for the next
/// message; without arguments lists what is attached.
fn attach_command(
    ctx: &Context,
    args: &str,
    pending: &mut Vec<baton_docs::FileAttachment>,
) -> String {
    let paths = match shell_words::split(args.trim()) {
        Ok(p) => p,
        Err(e) => return format!("error: {e} (quote paths with spaces)"),
    };
    if paths.is_empty() {
        if pending.is_empty() {
            return "no files attached; /attach FILE… adds some".into();
        }
        let names: Vec<&str> = pending.iter().map(|a| a.name.as_str()).collect();
        return format!("attached to the next message: {}", names.join(", "));
    }
    let paths: Vec<std::path::PathBuf> = paths.into_iter().map(std::path::PathBuf::from).collect();
    let files = match baton_engine::read_attachments(&paths) {
        Ok(f) => f,
        Err(e) => return format!("error: {e:#}"),
    };
    // Convert now (cached) so the user sees each file's state before sending.
    let cache = ctx.conversion_cache();
    let options = ctx.convert_options();
    let mut lines = Vec::new();
    for f in files {
        match cache.attachment(&f, &options) {
            Ok(c) => lines.push(format!(
                "attached {} ({}, {} characters{})",
                f.name,
                c.format.label(),
                c.markdown.chars().count(),
                c.pages.map(|p| format!(", {p} pages")).unwrap_or_default()
            )),
            Err(e) => lines.push(format!(
                "attached {} — it cannot be read and will be sent as a note: {e}",
                f.name
            )),
        }
        pending.push(f);
    }
    lines.join("\n")
}
