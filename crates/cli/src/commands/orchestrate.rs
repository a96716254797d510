//! `baton orchestrate`: a request answered by a team of the named agents
//! (planner, members working in parallel or in turn, peer review and
//! revision, synthesizer), each stage shown on stderr as it happens.

use std::process::ExitCode;
use std::sync::Arc;

use baton_engine::api::team::{Attachment, Options, OrchestrationEvent, Phase, Stage};
use baton_engine::{ConfirmMode, TeamRequest};

use crate::args::OrchestrateArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: OrchestrateArgs) -> anyhow::Result<ExitCode> {
    let (engine, names) = match &args.agents {
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
            let defs =
                baton_engine::api::settings::parse_agents(&text, &file.display().to_string())?;
            let names: Vec<String> = defs
                .iter()
                .filter(|d| d.enabled)
                .map(|d| d.name.clone())
                .collect();
            (Arc::new(ctx.reload()?.with_agents_file(file)), Some(names))
        }
        None => (Arc::clone(ctx), None),
    };
    let options = Options {
        enable_peer_review: !args.no_review,
        max_revise_attempts: args.max_revisions,
        max_tokens: args.max_tokens,
        sequential: args.sequential,
        enable_internet_search: args.internet,
        ..Options::default()
    };
    let confirm = if args.yes {
        ConfirmMode::Allow
    } else {
        ConfirmMode::Refuse(
            "a team runs without asking: add --yes to `baton orchestrate` to allow it".into(),
        )
    };
    let prompt = crate::commands::ask::prompt_text(&args.prompt)?;
    let request = TeamRequest {
        attachments: read_attachments(&engine, &args.attach, &prompt)?,
        names,
        options,
        ..TeamRequest::new(prompt, confirm)
    };
    let mut run = engine.team().start(request)?;
    let stop = run.stopper();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    while let Some(e) = run.next().await {
        if !args.json
            && let Some(line) = progress_line(&e)
        {
            eprintln!("{line}");
        }
    }
    let result = run
        .finish()
        .await
        .ok_or_else(|| anyhow::anyhow!("the team's run ended without a result"))??;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        for note in &result.notes {
            eprintln!("note: {note}");
        }
        println!("{}", result.final_response);
        if let Some(e) = &result.error {
            eprintln!("error: {e}");
        }
        eprintln!("({} tokens)", result.total_tokens);
    }
    Ok(match (result.success, result.cancelled) {
        (true, _) => ExitCode::SUCCESS,
        (false, true) => ExitCode::from(130),
        (false, false) => ExitCode::FAILURE,
    })
}

/// The files, converted to Markdown and fitted into the attachment budget
/// as `baton ask` attaches them.
fn read_attachments(
    engine: &std::sync::Arc<baton_engine::Engine>,
    paths: &[std::path::PathBuf],
    request: &str,
) -> anyhow::Result<Vec<Attachment>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let files = baton_engine::read_attachments(paths)?;
    let context = engine.conversations().attachment_context(&files, request);
    Ok(vec![Attachment {
        name: "attached files".into(),
        text: context.text,
    }])
}

/// One line of progress for `e` (none for the quiet stages).
fn progress_line(e: &OrchestrationEvent) -> Option<String> {
    let agent = e.agent.as_deref().unwrap_or("?");
    let part = e
        .assignment
        .map(|i| format!(" (part {})", i + 1))
        .unwrap_or_default();
    Some(match (e.stage, e.phase) {
        (Stage::Planning, Phase::Starting) => format!("{agent} is planning…"),
        (Stage::Planning, Phase::Stopped) => {
            let plan = e.plan.as_deref().unwrap_or_default();
            let mut s = format!(
                "plan: {} part{}",
                plan.len(),
                if plan.len() == 1 { "" } else { "s" }
            );
            for (i, a) in plan.iter().enumerate() {
                s.push_str(&format!("\n  {}. [{}] {}", i + 1, a.specialisation, a.task));
            }
            s
        }
        (Stage::AgentExecution, Phase::Starting) => format!("{agent} is working{part}…"),
        (Stage::AgentExecution, Phase::Stopped) => match &e.error {
            Some(err) => format!("{agent} stopped{part}: {err}"),
            None => format!("{agent} finished{part}"),
        },
        (Stage::AgentReview, Phase::Stopped) => match e.approved {
            Some(true) => format!("{agent} approved{part}"),
            _ => format!(
                "{agent} asks for changes{part}: {}",
                e.text.as_deref().unwrap_or("")
            ),
        },
        (Stage::AgentRevise, Phase::Starting) => {
            format!("revising{part}, round {}…", e.round.unwrap_or(1))
        }
        (Stage::Synthesis, Phase::Starting) => format!("{agent} is writing the answer…"),
        _ => return None,
    })
}
