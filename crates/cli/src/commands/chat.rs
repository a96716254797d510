//! `baton chat`: an interactive conversation through the engine's
//! conversation API, saved as a session after every turn; slash commands
//! work on the session, and external actions are put to the user.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use baton_engine::api::StopReason;
use baton_engine::{ConfirmMode, ConversationOptions, UserMessage};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::args::ChatArgs;
use crate::context::Context;
use crate::engine::{Answers, Printer, print_turn};

const HELP: &str = "Type a message and press Enter. /help lists the commands; /attach FILE… adds files to the next \
message (/detach drops them); /exit (or Ctrl-D) leaves; Ctrl-C stops the current answer.";

pub async fn run(ctx: &Context, args: ChatArgs, verbose: bool) -> anyhow::Result<ExitCode> {
    let project = match args.project.as_deref().map(|n| ctx.projects().find(n)) {
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
        found => found.transpose()?,
    };
    let options = ConversationOptions {
        project: project.map(|p| p.id),
        agent: args.agent.clone(),
        provider: args.provider.clone(),
        model: args.model.clone(),
        mode: args.mode.map(Into::into),
        tools: !args.no_tools,
        confirm: if args.yes {
            ConfirmMode::Allow
        } else {
            ConfirmMode::Ask
        },
        ..ConversationOptions::default()
    };
    let conversation = match ctx.conversations().open(args.session.as_ref(), options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if let Err(e) = conversation.ready().await {
        eprintln!("error: {e}");
        return Ok(ExitCode::FAILURE);
    }
    // The agent named here, else the one the saved conversation talks
    // to, else its project's.
    let project = conversation.project().cloned();
    let agent = ctx.agents().def(
        args.agent
            .or(conversation.session().await.agent)
            .or(project.as_ref().and_then(|p| p.agent.clone()))
            .as_deref(),
    )?;
    let provider = args
        .provider
        .or(project.as_ref().and_then(|p| p.provider.clone()));
    let base = ctx.agents().provider_for(&agent, provider.as_deref())?;
    crate::context::note_first_run(ctx, provider.as_deref().or(agent.provider.as_deref()));
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        let place = match &project {
            Some(p) => format!("project {} in {}", p.name, p.folder.display()),
            None => format!("workspace {}", ctx.workspace().display()),
        };
        eprintln!(
            "Baton — agent {} on {} ({}), {place}. {HELP}",
            agent.name,
            base.name,
            base.model_name(),
        );
    }
    let in_flight = stop_on_ctrl_c();
    let mut pending: Vec<baton_engine::api::FileAttachment> = Vec::new();
    let mut lines: Answers = tokio::io::BufReader::new(tokio::io::stdin()).lines();
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
        if let Some(reply) = conversation.command(&line).await? {
            println!("{reply}");
            continue;
        }
        let mut turn = conversation.send(UserMessage {
            text: line,
            files: std::mem::take(&mut pending),
            replace_last: false,
            edit: None,
        });
        *in_flight.lock().expect("lock") = Some(turn.stopper());
        let printed = print_turn(&mut turn, &Printer::new(true, verbose), Some(&mut lines)).await;
        in_flight.lock().expect("lock").take();
        match printed.outcome.map(|o| o.stop) {
            Some(StopReason::Answered) => {}
            Some(StopReason::Cancelled) => eprintln!("(stopped)"),
            Some(StopReason::Error(e)) => eprintln!("error: {e}"),
            Some(other) => eprintln!("{}", other.message()),
            None => eprintln!("error: the turn ended without a result"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C cancels the answer in flight (the token put in the slot); at
/// the prompt it leaves.
fn stop_on_ctrl_c() -> Arc<Mutex<Option<CancellationToken>>> {
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
    in_flight
}

/// `/attach FILE…`: reads (and converts, to report on) files for the next
/// message; without arguments lists what is attached.
fn attach_command(
    ctx: &Context,
    args: &str,
    pending: &mut Vec<baton_engine::api::FileAttachment>,
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
    let cache = ctx.tools().conversion_cache();
    let options = ctx.tools().convert_options();
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
