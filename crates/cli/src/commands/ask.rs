//! `baton ask`: one request to a named agent through the engine's
//! conversation API (its toolboxes on the workspace unless `--no-tools`),
//! the answer streamed to stdout. Nobody is there to confirm external actions: they are refused
//! unless `--yes`.

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use baton_engine::api::LlmError;
use baton_engine::api::StopReason;
use baton_engine::{ConfirmMode, ConversationOptions, UserMessage};
use serde_json::json;

use super::exit_for;
use crate::args::AskArgs;
use crate::context::Context;
use crate::engine::{Printer, print_turn};

pub async fn run(ctx: &Context, args: AskArgs, verbose: bool) -> anyhow::Result<ExitCode> {
    let text = read_prompt(&args)?;
    let files = baton_engine::read_attachments(&args.attach)?;
    // The JSON answer lists what each attachment became.
    let attachments = (args.json && !files.is_empty())
        .then(|| ctx.conversations().attachment_context(&files, &text));
    // A project's agent and provider unless others are named here.
    let project = args
        .project
        .as_deref()
        .map(|n| ctx.projects().find(n))
        .transpose()?;
    let agent = ctx.agents().def(
        args.agent
            .as_deref()
            .or(project.as_ref().and_then(|p| p.agent.as_deref())),
    )?;
    let provider = args
        .provider
        .clone()
        .or(project.as_ref().and_then(|p| p.provider.clone()));
    let cfg = ctx.agents().provider_for(&agent, provider.as_deref())?;
    if verbose || std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        crate::context::note_first_run(ctx, provider.as_deref().or(agent.provider.as_deref()));
    }
    let options = ConversationOptions {
        agent: Some(agent.name.clone()),
        provider: Some(cfg.name.clone()),
        model: args.model.clone(),
        mode: args.mode.map(Into::into),
        tools: !args.no_tools,
        persist: false,
        project: project.map(|p| p.id),
        confirm: if args.yes {
            ConfirmMode::Allow
        } else {
            ConfirmMode::Refuse(
                "`baton ask` cannot ask for it (run it again with --yes to allow such actions, or use `baton chat`)".into(),
            )
        },
        ..ConversationOptions::default()
    };
    let conversation = ctx.conversations().open(None, options)?;
    let started = Instant::now();
    let mut turn = conversation.send(UserMessage {
        text,
        files,
        replace_last: false,
        edit: None,
    });
    let stop = turn.stopper();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    let printed = print_turn(&mut turn, &Printer::new(!args.json, verbose), None).await;
    let Some(outcome) = printed.outcome else {
        anyhow::bail!("the turn ended without a result");
    };
    let result = &outcome.result;
    if !args.json {
        print_citations(result);
    }
    if args.json {
        let mut out = json!({
            "agent": agent.name,
            "provider": cfg.name,
            "model": args.model.clone().unwrap_or_else(|| cfg.model_name().to_string()),
            "text": result.answer,
            "toolCalls": result.tool_calls,
            "usage": result.total_usage(),
            "usagePerCall": result.usage,
            "iterations": result.iterations,
            "stop": result.stop,
            "stopCode": result.stop.code(),
            "files": result.files,
            "citations": result.citations,
            "droppedCitations": result.dropped_citations,
            "notices": printed.notices,
            "timings": {
                "firstTokenMs": printed.first_text.map(|t| (t - started).as_secs_f64() * 1000.0),
                "totalMs": started.elapsed().as_secs_f64() * 1000.0,
            },
        });
        if let Some(a) = &attachments {
            out["attachments"] = json!(a.items);
        }
        if let StopReason::Error(e) = &result.stop {
            let code = result.error.as_ref().map_or("error", LlmError::code);
            out["error"] = json!({"code": code, "message": e});
        }
        println!("{out}");
    }
    Ok(exit_code(&result.stop, result.error.as_ref(), args.json))
}

/// The passages the answer cites, as a numbered list after it; a note on
/// stderr for citations that pointed at no passage given.
fn print_citations(result: &baton_engine::api::ActionResult) {
    if !result.citations.is_empty() {
        println!("\nSources:");
        for c in &result.citations {
            let place = if c.source.location.is_empty() {
                String::new()
            } else {
                format!(", {}", c.source.location)
            };
            println!("  [{}] {}{place}", c.number, c.source.path);
            println!(
                "      \u{201c}{}\u{201d}",
                baton_engine::api::excerpt(&c.source.passage, 160)
            );
        }
    }
    if result.dropped_citations > 0 {
        eprintln!(
            "({} citation(s) to passages the model was never given were taken out)",
            result.dropped_citations
        );
    }
}

fn read_prompt(args: &AskArgs) -> anyhow::Result<String> {
    prompt_text(&args.prompt)
}

/// The prompt of the command line's words (`-`: stdin); an empty one is
/// an error.
pub(crate) fn prompt_text(words: &[String]) -> anyhow::Result<String> {
    let prompt = if words.len() == 1 && words[0] == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the prompt from stdin")?;
        s
    } else {
        words.join(" ")
    };
    if prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    Ok(prompt)
}

/// The exit code for how the turn ended, with the reason on stderr.
fn exit_code(stop: &StopReason, error: Option<&LlmError>, json: bool) -> ExitCode {
    match stop {
        StopReason::Answered => ExitCode::SUCCESS,
        StopReason::Cancelled => {
            eprintln!("(cancelled)");
            ExitCode::from(130)
        }
        other => {
            if !json {
                match other {
                    StopReason::Error(e) => eprintln!("error: {e}"),
                    _ => eprintln!("{}", other.message()),
                }
            }
            error.map_or(ExitCode::FAILURE, exit_for)
        }
    }
}
