//! `baton chat`: an interactive conversation through the agent, saved as a
//! session after every turn; slash commands work on the session.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use baton_agent::{CommandOutcome, CompactionPolicy, Session, StopReason, handle_command};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use super::ask::describe;
use super::open_provider;
use crate::args::ChatArgs;
use crate::context::Context;
use crate::engine;

const HELP: &str = "Type a message and press Enter. /help lists the commands; /exit (or Ctrl-D) leaves; \
Ctrl-C stops the current answer.";

pub async fn run(ctx: &Context, args: ChatArgs, verbose: bool) -> anyhow::Result<ExitCode> {
    let store = engine::session_store(ctx);
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
    let make_agent = |session: &Session| -> anyhow::Result<Result<baton_agent::Agent, String>> {
        let mut cfg = base.clone();
        if let Some(m) = &session.model {
            cfg.model = Some(m.clone());
        }
        match open_provider(ctx, &cfg) {
            Ok(p) => Ok(Ok(engine::build_agent(
                ctx,
                &cfg,
                p,
                args.mode,
                !args.no_tools,
                session.instructions.clone(),
            )?)),
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
        let result = agent
            .execute_action(&mut session.history, &line, Vec::new(), token)
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
