//! `baton search`: the workspace's documents, best passage first.

use std::process::ExitCode;

use baton_engine::api::index::IndexError;

use crate::args::SearchArgs;
use crate::context::Context;

pub fn run(ctx: &Context, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let ctx = &crate::context::in_project(ctx, args.project.as_deref())?;
    let index = ctx.tools().open_index()?;
    if !ctx.settings().skip_indexing_on_startup {
        // Only what changed is read; a busy index (another Baton indexing)
        // is searched as it is.
        match index.sync(&|_| {}) {
            Ok(_) | Err(IndexError::Busy) => {}
            Err(e) => eprintln!("warning: the index could not be updated: {e}"),
        }
        index.release_writer();
    }
    let query = args.query.join(" ");
    let hits = index.search(&query, args.limit)?;
    if args.json {
        println!("{}", serde_json::to_string(&hits)?);
    } else if hits.is_empty() {
        eprintln!("no documents match `{query}`");
    } else {
        for h in &hits {
            println!(
                "{}  ({}, {})\n    {}",
                h.path, h.location, h.format, h.snippet
            );
            if args.explain {
                let show = |v: Option<f32>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
                println!(
                    "    words (BM25) {} · meaning {} · score {:.4}",
                    show(h.bm25),
                    show(h.similarity),
                    h.score
                );
            }
            println!();
        }
    }
    Ok(if hits.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
