//! `baton-bench-ask`: whole-flow benchmark of `baton ask` against the
//! scripted server — time from process start to the first request byte
//! reaching the server, and peak RSS — next to `curl` sending the same
//! request in the same run as the baseline.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use baton_scripted_llm::{Reply, ScriptedServer};
use clap::Parser;

/// Benchmark `baton ask` start-up against curl.
#[derive(Parser)]
struct Args {
    /// The baton binary to measure.
    #[arg(long)]
    baton: PathBuf,
    /// Runs per program.
    #[arg(long, default_value_t = 20)]
    runs: usize,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Peak RSS in KiB of one run, from GNU time.
fn peak_rss_kib(cmd: &[String]) -> anyhow::Result<u64> {
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .args(cmd)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("running /usr/bin/time (apt package `time`)")?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("no RSS figure in: {text}"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let server = ScriptedServer::start().await?;
    let dir = std::env::temp_dir().join(format!("baton-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let providers = dir.join("providers.json");
    std::fs::write(
        &providers,
        serde_json::json!({"default": "bench", "providers": [
            {"name": "bench", "dialect": "openai", "endpoint": format!("{}/v1", server.url()), "model": "m"}]})
        .to_string(),
    )?;
    let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}"#;
    let url = format!("{}/v1/chat/completions", server.url());
    let baton: Vec<String> = vec![
        args.baton.display().to_string(),
        "--providers".into(),
        providers.display().to_string(),
        "ask".into(),
        "hi".into(),
    ];
    let curl: Vec<String> = [
        "curl",
        "-s",
        "-N",
        "-X",
        "POST",
        "-H",
        "content-type: application/json",
        "-d",
        body,
        &url,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();

    let mut results = Vec::new();
    for (name, cmd) in [("baton ask", &baton), ("curl (baseline)", &curl)] {
        let mut firsts = Vec::new();
        for _ in 0..args.runs {
            server.reply(Reply::text("ok"));
            let before = server.requests().len();
            let start = Instant::now();
            let status = Command::new(&cmd[0])
                .args(&cmd[1..])
                .env("BATON_CONFIG_DIR", dir.join("config"))
                .env("BATON_DATA_DIR", dir.join("data"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
            if !status.success() {
                bail!("{name} failed: {status}");
            }
            let reqs = server.requests();
            let Some(r) = reqs.get(before) else {
                bail!("{name} sent no request")
            };
            firsts.push(r.at.duration_since(start).as_secs_f64() * 1000.0);
        }
        let mut rss = Vec::new();
        for _ in 0..5 {
            server.reply(Reply::text("ok"));
            rss.push(peak_rss_kib(cmd)? as f64 / 1024.0);
        }
        results.push((name, median(firsts), median(rss)));
    }
    let (b, c) = (&results[0], &results[1]);
    println!(
        "{:<18} {:>22} {:>14}",
        "program", "start→request (ms)", "peak RSS (MiB)"
    );
    for (name, first, rss) in &results {
        println!("{name:<18} {first:>22.1} {rss:>14.1}");
    }
    println!(
        "ratio baton/curl: start→request {:.2}×, RSS {:.2}×; goals: < 50 ms ({}), < 40 MiB ({})",
        b.1 / c.1,
        b.2 / c.2,
        if b.1 < 50.0 { "met" } else { "missed" },
        if b.2 < 40.0 { "met" } else { "missed" },
    );
    tokio::time::sleep(Duration::from_millis(10)).await;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
