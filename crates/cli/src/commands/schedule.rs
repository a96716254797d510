//! `baton schedule` (make, list, run and remove scheduled tasks) and
//! `baton daemon` (run them when they are due).

use std::process::ExitCode;
use std::sync::Arc;

use baton_engine::api::schedule::{NewTask, OnRun, RunStatus, ScheduledTask, TaskReport, Tz};
use chrono::{DateTime, Utc};

use crate::args::ScheduleCommand;
use crate::context::Context;

pub async fn run(ctx: &Context, command: ScheduleCommand) -> anyhow::Result<ExitCode> {
    let schedule = ctx.schedule();
    let zone = schedule.zone();
    match command {
        ScheduleCommand::Add {
            when,
            agent,
            quiet,
            email,
            prompt,
        } => {
            let task = schedule.add(NewTask {
                prompt: prompt.join(" "),
                when,
                agent,
                notify: !quiet,
                email,
            })?;
            println!(
                "Scheduled {}: \u{201c}{}\u{201d}, {}; next run {}.",
                task.id,
                task.prompt,
                task.schedule.describe(zone),
                shown(task.next_run, zone)
            );
            eprintln!(
                "note: tasks run while Baton runs (the desktop app, or `baton daemon`); `baton schedule run {}` runs it now",
                task.id
            );
        }
        ScheduleCommand::List { json } => {
            let tasks = schedule.list()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&tasks)?);
            } else if tasks.is_empty() {
                println!("No scheduled tasks (`baton schedule add --when WHEN PROMPT` makes one).");
            } else {
                for t in &tasks {
                    println!("{}", line(t, zone));
                }
            }
        }
        ScheduleCommand::Run { id } => {
            let report = schedule.run(&id).await?;
            return Ok(print_report(&report, zone));
        }
        ScheduleCommand::Rm { id } => {
            let t = schedule.remove(&id)?;
            println!(
                "Removed {}: \u{201c}{}\u{201d} ({}).",
                t.id, t.prompt, t.when
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the scheduler until Ctrl-C, a line for each run.
pub async fn daemon(ctx: &Context) -> anyhow::Result<ExitCode> {
    let zone = ctx.schedule().zone();
    let on_run: OnRun = Arc::new(move |r: &TaskReport| {
        println!(
            "{}  {}  {}: {}",
            shown(Some(r.run.started), zone),
            r.task.id,
            status_word(r.run.status),
            r.run.summary
        );
    });
    let tasks = ctx.schedule().list()?.len();
    eprintln!(
        "Running scheduled tasks when they are due ({tasks} now; Ctrl-C stops). Each run is kept in its task's chat."
    );
    let scheduler = ctx.schedule().start(on_run);
    tokio::signal::ctrl_c().await?;
    scheduler.stop().await;
    Ok(ExitCode::SUCCESS)
}

/// The answer on stdout, what waits or why it failed on stderr; exit 1
/// for a failed run.
fn print_report(r: &TaskReport, zone: Tz) -> ExitCode {
    if !r.answer.trim().is_empty() {
        println!("{}", r.answer.trim_end());
    }
    for w in &r.waiting {
        eprintln!("note: {w}");
    }
    eprintln!(
        "{} in {:.1} s ({} tokens); kept in the chat {}; next run {}.",
        status_word(r.run.status),
        r.run.elapsed_ms as f64 / 1000.0,
        r.run.tokens,
        r.session,
        shown(r.task.next_run, zone)
    );
    if r.run.status == RunStatus::Failed {
        eprintln!("error: {}", r.run.summary);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// One task in a line: id, prompt, when, next and last run.
fn line(t: &ScheduledTask, zone: Tz) -> String {
    let last = t.last_run().map_or_else(
        || "never ran".to_string(),
        |r| {
            format!(
                "last run {} {}",
                shown(Some(r.started), zone),
                status_word(r.status)
            )
        },
    );
    let agent = t
        .agent
        .as_deref()
        .map(|a| format!(" [{a}]"))
        .unwrap_or_default();
    format!(
        "{}  \u{201c}{}\u{201d}{agent}  {}  next {}  ({last})",
        t.id,
        t.prompt,
        t.when,
        shown(t.next_run, zone)
    )
}

fn status_word(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Answered => "answered",
        RunStatus::Waiting => "waiting for your yes",
        RunStatus::Failed => "failed",
    }
}

/// A time in the user's zone (`none` for none).
fn shown(at: Option<DateTime<Utc>>, zone: Tz) -> String {
    at.map_or_else(
        || "none".into(),
        |t| baton_engine::api::schedule::shown(t, zone),
    )
}
