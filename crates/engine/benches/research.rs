//! Deep research figures (`make bench`): wall time and tokens for the
//! offline site (30 pages, SearXNG-style search, headless Chromium) with
//! the scripted model writing at 20 ms per token, the sources read one at
//! a time (the baseline) against four at once, in the same run.
//!
//! `cargo bench -p baton-engine --bench research`.

use std::sync::Arc;
use std::time::Instant;

use baton_engine::api::research::{Limits, ResearchRequest};
use baton_engine::{Engine, Overrides};
use baton_scripted_llm::ScriptedServer;
use baton_test_support::TestHome;
use baton_test_support::research_site::{QUESTION, ResearchSite};

/// Milliseconds between the scripted model's tokens.
const PACE_MS: u64 = 20;
/// Sources each job reads.
const SOURCES: usize = 12;

fn main() {
    baton_test_support::run_bench(measure);
}

async fn measure() {
    let site = ResearchSite::start().await;
    let server = ScriptedServer::start().await.unwrap();
    site.script(&server, PACE_MS);
    let home = TestHome::new();
    home.write_settings(serde_json::json!({
        "skipIndexingOnStartup": true,
        "browser": {"mode": "headless", "path": "/usr/bin/chromium"},
        "research": {"search": "searxng", "searxngUrl": site.searxng_url()},
    }));
    let overrides = Overrides {
        providers: Some(home.write_providers(&server.url(), None)),
        workspace: Some(home.workspace()),
        ..Overrides::default()
    };
    let engine = Arc::new(Engine::load_with(home.paths(), overrides).unwrap());
    // One job first so that the browser is running for both measured ones.
    job(&engine, 1, 2).await;
    let mut figures = Vec::new();
    for parallel in [1, 4, 1, 4] {
        figures.push((parallel, job(&engine, parallel, SOURCES).await));
    }
    for parallel in [1, 4] {
        let runs: Vec<&(f64, u64, usize)> = figures
            .iter()
            .filter(|(p, _)| *p == parallel)
            .map(|(_, f)| f)
            .collect();
        let best = runs.iter().map(|f| f.0).fold(f64::MAX, f64::min);
        println!(
            "research, {parallel} source(s) at a time: {best:.2} s (best of {}), {} tokens, {} sources read",
            runs.len(),
            runs[0].1,
            runs[0].2
        );
    }
    let best = |p: usize| {
        figures
            .iter()
            .filter(|(q, _)| *q == p)
            .map(|(_, f)| f.0)
            .fold(f64::MAX, f64::min)
    };
    println!(
        "research speed-up, 4 at a time against one after the other: {:.2}x",
        best(1) / best(4)
    );
    engine.tools().browser().shutdown().await;
}

/// One job: its seconds, tokens and sources read.
async fn job(engine: &Arc<Engine>, parallel: usize, sources: usize) -> (f64, u64, usize) {
    let start = Instant::now();
    let request = ResearchRequest {
        question: QUESTION.into(),
        limits: Some(Limits {
            sources,
            parallel,
            ..Limits::default()
        }),
        agent: None,
    };
    let run = engine.research().start(request).unwrap();
    let report = run.finish().await.unwrap().unwrap();
    (
        start.elapsed().as_secs_f64(),
        report.tokens,
        report.pages_read,
    )
}
