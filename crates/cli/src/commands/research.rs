//! `baton research`: a question answered from many web sources, each
//! claim with the passage it was read in; progress on stderr, the report
//! on stdout (or in `--out`).

use std::process::ExitCode;

use baton_engine::api::research::{Limits, ResearchEvent, ResearchRequest, Stage};

use crate::args::ResearchArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: ResearchArgs) -> anyhow::Result<ExitCode> {
    let question = crate::commands::ask::prompt_text(&args.question)?;
    let research = ctx.research();
    let defaults = research.limits();
    let limits = Limits {
        sources: args.sources.unwrap_or(defaults.sources),
        parallel: args.parallel.unwrap_or(defaults.parallel),
        seconds: args
            .minutes
            .map_or(defaults.seconds, |m| m.saturating_mul(60)),
        tokens: args.max_tokens.or(defaults.tokens),
        ..defaults
    };
    let mut run = research.start(ResearchRequest {
        question,
        limits: Some(limits),
        agent: args.agent.clone(),
    })?;
    let stop = run.stopper();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    while let Some(e) = run.next().await {
        if !args.json {
            eprintln!("{}", progress_line(&e));
        }
    }
    let report = run
        .finish()
        .await
        .ok_or_else(|| anyhow::anyhow!("the research ended without a result"))??;
    if let Some(out) = &args.out {
        let written = research.save(&report, out).await?;
        eprintln!("The report is in {}", written.display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        if args.out.is_none() {
            println!("{}", report.markdown);
        }
        for note in &report.notes {
            eprintln!("note: {note}");
        }
        eprintln!(
            "({} sources cited of {} read, {} claims kept, {} left out; {} tokens; {:.1} s)",
            report.sources.len(),
            report.pages_read,
            report.claims.len(),
            report.dropped.len(),
            report.tokens,
            report.elapsed_ms as f64 / 1000.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One line of progress for `e`.
fn progress_line(e: &ResearchEvent) -> String {
    match e {
        ResearchEvent::Stage { stage } => match stage {
            Stage::Planning => "Planning the questions…",
            Stage::Searching => "Searching…",
            Stage::Reading => "Reading the sources…",
            Stage::Reviewing => "Checking the claims against their quotes…",
            Stage::Writing => "Writing the report…",
        }
        .to_string(),
        ResearchEvent::Planned { questions } => format!("  questions: {}", questions.join(" | ")),
        ResearchEvent::Searched {
            query,
            found,
            failed,
        } => match failed {
            Some(why) => format!("  search \"{query}\" failed: {why}"),
            None => format!("  search \"{query}\": {found} results"),
        },
        ResearchEvent::SourceRead {
            url, kept, dropped, ..
        } => format!("  read {url}: {kept} claims kept, {dropped} left out"),
        ResearchEvent::SourceFailed { url, why } => format!("  could not read {url}: {why}"),
        ResearchEvent::Stopped { why } => format!("  reading stopped: {why}"),
        ResearchEvent::Reviewed { kept, dropped } => {
            format!("  {kept} claims kept, {dropped} found unsupported by their quotes")
        }
    }
}
