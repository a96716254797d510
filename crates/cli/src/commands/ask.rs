//! `baton ask`: one question, the answer streamed to stdout.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use baton_llm::{ChatRequest, CompletionBuilder, LlmError, LlmEvent, Message};
use futures::StreamExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{exit_for, open_provider};
use crate::args::AskArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: AskArgs) -> anyhow::Result<ExitCode> {
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
    let mut cfg = ctx.provider_config(args.provider.as_deref())?;
    if let Some(m) = args.model {
        cfg.model = Some(m);
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
    let provider = match open_provider(ctx, &cfg) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    let request = ChatRequest::new(vec![Message::user(prompt)]);
    let mut stream = match provider.stream(request, cancel).await {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut builder = CompletionBuilder::default();
    let mut first_token = None;
    let mut stdout = std::io::stdout().lock();
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(ev) => ev,
            Err(e) => {
                if !args.json {
                    let _ = writeln!(stdout);
                }
                return fail(e);
            }
        };
        if let LlmEvent::TextDelta(t) = &event {
            first_token.get_or_insert_with(|| started.elapsed());
            if !args.json {
                stdout.write_all(t.as_bytes())?;
                stdout.flush()?;
            }
        }
        builder.push(event);
    }
    let completion = builder.finish();
    if args.json {
        let out = json!({
            "provider": cfg.name,
            "model": cfg.model_name(),
            "text": completion.text,
            "toolCalls": completion.tool_calls,
            "usage": completion.usage,
            "finish": completion.finish,
            "timings": {
                "firstTokenMs": first_token.map(|d| d.as_secs_f64() * 1000.0),
                "totalMs": started.elapsed().as_secs_f64() * 1000.0,
            },
        });
        writeln!(stdout, "{out}")?;
    } else if !completion.text.ends_with('\n') {
        writeln!(stdout)?;
    }
    Ok(ExitCode::SUCCESS)
}
