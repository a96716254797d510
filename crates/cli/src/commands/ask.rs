//! `baton ask`: one request through the agent loop (FileTool on the
//! workspace unless `--no-tools`), the answer streamed to stdout.

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use baton_agent::StopReason;
use baton_llm::{LlmError, Usage};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::exit_for;
use crate::args::AskArgs;
use crate::context::Context;
use crate::engine;

pub async fn run(ctx: &Context, args: AskArgs, verbose: bool) -> anyhow::Result<ExitCode> {
    let prompt = if args.prompt.len() == 1 && args.prompt[0] == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the prompt from stdin")?;
        s
    } else {
        args.prompt.join(" ")
    };
    if prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    let attached = if args.attach.is_empty() {
        None
    } else {
        let files = baton_engine::read_attachments(&args.attach)?;
        Some(engine::attachment_context(ctx, &files, args.json))
    };
    let prompt = match &attached {
        Some(context) => context.prompt(&prompt),
        None => prompt,
    };
    let mut cfg = ctx.provider_config(args.provider.as_deref())?;
    if let Some(m) = &args.model {
        cfg.model = Some(m.clone());
    }
    let started = Instant::now();
    let fail = |e: LlmError| -> anyhow::Result<ExitCode> {
        if args.json {
            println!(
                "{}",
                json!({"error": {"code": e.code(), "message": e.to_string()}, "provider": cfg.name})
            );
        } else {
            eprintln!("error: {e}");
        }
        Ok(exit_for(&e))
    };
    let provider = match ctx.open_provider(&cfg) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let tools = if args.no_tools {
        baton_tools::Catalog::new()
    } else {
        ctx.catalog_for(&cfg, || ctx.refreshed_index())?
    };
    let agent = ctx.build_agent(&cfg, provider, args.mode.map(Into::into), tools, None);
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    // First streamed text, for the timings.
    let mut first = agent.events().subscribe();
    let first_token = tokio::spawn(async move {
        loop {
            match first.recv().await {
                Ok(baton_agent::AgentEvent::TextDelta { .. }) => return Some(Instant::now()),
                Ok(baton_agent::AgentEvent::Done { .. })
                | Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                _ => {}
            }
        }
    });
    let printer = engine::spawn_printer(agent.events(), !args.json, verbose);
    let mut history = Vec::new();
    let result = agent
        .execute_action(&mut history, &prompt, Vec::new(), cancel)
        .await;
    let _ = printer.await;
    let first_token = first_token.await.ok().flatten();
    agent.close().await;
    let total = result.usage.iter().fold(Usage::default(), |mut acc, u| {
        acc.prompt_tokens += u.prompt_tokens;
        acc.completion_tokens += u.completion_tokens;
        if let Some(c) = u.cached_tokens {
            acc.cached_tokens = Some(acc.cached_tokens.unwrap_or(0) + c);
        }
        acc
    });
    if args.json {
        let mut out = json!({
            "provider": cfg.name,
            "model": cfg.model_name(),
            "text": result.answer,
            "toolCalls": result.tool_calls,
            "usage": total,
            "usagePerCall": result.usage,
            "iterations": result.iterations,
            "stop": result.stop,
            "files": result.files,
            "timings": {
                "firstTokenMs": first_token.map(|t| (t - started).as_secs_f64() * 1000.0),
                "totalMs": started.elapsed().as_secs_f64() * 1000.0,
            },
        });
        if let Some(a) = &attached {
            out["attachments"] = json!(a.items);
        }
        if let StopReason::Error(e) = &result.stop {
            let code = result.error.as_ref().map_or("error", LlmError::code);
            out["error"] = json!({"code": code, "message": e});
        }
        println!("{out}");
    }
    Ok(match &result.stop {
        StopReason::Answered => ExitCode::SUCCESS,
        StopReason::Cancelled => {
            eprintln!("(cancelled)");
            ExitCode::from(130)
        }
        StopReason::Error(e) => {
            if !args.json {
                eprintln!("error: {e}");
            }
            result.error.as_ref().map_or(ExitCode::FAILURE, exit_for)
        }
        other => {
            if !args.json {
                eprintln!("stopped: {}", describe(other));
            }
            ExitCode::FAILURE
        }
    })
}

/// A stop reason in words.
pub fn describe(stop: &StopReason) -> String {
    match stop {
        StopReason::Answered => "answered".into(),
        StopReason::Asked => "the model asked a question".into(),
        StopReason::MaxIterations => "the step limit was reached before an answer".into(),
        StopReason::Cancelled => "cancelled".into(),
        StopReason::Budget => "the token budget ran out".into(),
        StopReason::LoopGuard(why) => why.clone(),
        StopReason::Error(e) => e.clone(),
    }
}
