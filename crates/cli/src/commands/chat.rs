//! `baton chat`: an interactive conversation on stdin/stdout.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use baton_llm::{ChatRequest, CompletionBuilder, LlmError, LlmEvent, Message};
use futures::StreamExt;
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use super::open_provider;
use crate::args::ChatArgs;
use crate::context::Context;

const HELP: &str = "Type a message and press Enter. /reset starts over, /exit (or Ctrl-D) leaves; \
Ctrl-C stops the current answer.";

pub async fn run(ctx: &Context, args: ChatArgs) -> anyhow::Result<ExitCode> {
    let mut cfg = ctx.provider_config(args.provider.as_deref())?;
    if let Some(m) = args.model {
        cfg.model = Some(m);
    }
    let provider = match open_provider(ctx, &cfg) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!(
            "Baton — chatting with {} ({}). {HELP}",
            cfg.name,
            cfg.model_name()
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

    let mut history: Vec<Message> = Vec::new();
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    loop {
        if interactive {
            print!("you> ");
            std::io::stdout().flush()?;
        }
        let Some(line) = lines.next_line().await? else {
            break;
        };
        let line = line.trim();
        match line {
            "" => continue,
            "/exit" | "/quit" => break,
            "/reset" => {
                history.clear();
                println!("(conversation cleared)");
                continue;
            }
            "/help" => {
                println!("{HELP}");
                continue;
            }
            _ => {}
        }
        history.push(Message::user(line));
        let token = CancellationToken::new();
        *in_flight.lock().expect("lock") = Some(token.clone());
        let result = answer(&*provider, &history, token).await;
        in_flight.lock().expect("lock").take();
        match result {
            Ok(text) => history.push(Message::assistant(text)),
            Err((partial, e)) => {
                if matches!(e, LlmError::Cancelled { .. }) {
                    eprintln!("(stopped)");
                } else {
                    eprintln!("error: {e}");
                }
                // Keep what was shown, so the conversation stays coherent;
                // drop the question if nothing came back.
                if partial.is_empty() {
                    history.pop();
                } else {
                    history.push(Message::assistant(partial));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn answer(
    provider: &dyn baton_llm::Provider,
    history: &[Message],
    cancel: CancellationToken,
) -> Result<String, (String, LlmError)> {
    let mut stream = provider
        .stream(ChatRequest::new(history.to_vec()), cancel)
        .await
        .map_err(|e| (String::new(), e))?;
    let mut builder = CompletionBuilder::default();
    let mut shown = String::new();
    let mut out = std::io::stdout();
    while let Some(ev) = stream.next().await {
        match ev {
            Ok(LlmEvent::TextDelta(t)) => {
                let _ = out.write_all(t.as_bytes());
                let _ = out.flush();
                shown.push_str(&t);
                builder.push(LlmEvent::TextDelta(t));
            }
            Ok(other) => builder.push(other),
            Err(e) => {
                println!();
                return Err((shown, e));
            }
        }
    }
    let text = builder.finish().text;
    println!();
    Ok(text)
}
