//! `baton index`: bring the workspace search index up to date, with a
//! progress bar; `--watch` keeps it fresh.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::args::IndexArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: IndexArgs) -> anyhow::Result<ExitCode> {
    let ctx = &crate::context::in_project(ctx, args.project.as_deref())?;
    let index = ctx.tools().open_index()?;
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {wide_msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let started = Instant::now();
    let progress = |p: &baton_engine::api::index::IndexProgress| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        if let Some(c) = &p.current {
            bar.set_message(c.clone());
        }
    };
    let result = if args.rebuild {
        index.rebuild(&progress)
    } else {
        index.sync(&progress)
    };
    bar.finish_and_clear();
    let stats = result?;
    let secs = started.elapsed().as_secs_f64();
    let skipped = index.skipped();
    if args.json {
        let skipped: Vec<_> = skipped
            .iter()
            .map(|(p, r)| serde_json::json!({"path": p, "reason": r}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"workspace": index.root(), "stats": stats, "embeddedChunks": index.embedded_chunks(), "seconds": secs, "skipped": skipped})
        );
    } else {
        println!(
            "{}: {} documents ({} read, {} unchanged, {} removed, {} not readable), {} chunks with vectors, in {secs:.1} s",
            index.root().display(),
            index.document_count(),
            stats.indexed,
            stats.unchanged,
            stats.removed,
            stats.skipped,
            index.embedded_chunks(),
        );
        for (path, reason) in &skipped {
            println!("  not indexed: {path}: {reason}");
        }
    }
    if args.watch {
        eprintln!(
            "watching {} for changes (Ctrl-C stops)",
            index.root().display()
        );
        let _watcher = index.watch(Duration::from_millis(250), |n| {
            eprintln!("indexed {n} change(s)")
        })?;
        tokio::signal::ctrl_c().await?;
    }
    index.release_writer();
    Ok(ExitCode::SUCCESS)
}
