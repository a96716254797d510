//! `baton-bench-load`: N streaming chat completions at once against an
//! OpenAI-compatible endpoint (the scripted server itself, `baton serve`
//! or another proxy in front of it), for `make bench`. Prints one JSON
//! object: errors, and per request the milliseconds from its start to the
//! first body byte and to each content delta, which scripts/bench_server.py
//! compares between endpoints.

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use futures::StreamExt;
use serde_json::{Value, json};

/// Streaming load against one endpoint.
#[derive(Parser)]
struct Args {
    /// `…/v1/chat/completions`.
    #[arg(long)]
    url: String,
    /// The request's `model`.
    #[arg(long)]
    model: String,
    /// Requests sent at once.
    #[arg(long, default_value_t = 200)]
    concurrency: usize,
    /// Bearer key, if the endpoint wants one.
    #[arg(long)]
    key: Option<String>,
}

/// One request's timings, in ms from its start.
#[derive(Default)]
struct Timings {
    first_byte: Option<f64>,
    deltas: Vec<f64>,
    error: Option<String>,
}

/// The content deltas in `event` (one SSE event's lines).
fn has_content(event: &str) -> bool {
    event
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .any(|v| {
            v.pointer("/choices/0/delta/content")
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
        })
}

async fn one(client: reqwest::Client, args: &Args, go: Instant) -> Timings {
    let mut t = Timings::default();
    let body = json!({"model": args.model, "stream": true,
        "messages": [{"role": "user", "content": "Count to twenty."}]});
    let mut req = client.post(&args.url).json(&body);
    if let Some(k) = &args.key {
        req = req.bearer_auth(k);
    }
    let ms = || go.elapsed().as_secs_f64() * 1000.0;
    let res = match req.send().await {
        Ok(r) if r.status().is_success() => r,
        Ok(r) => {
            t.error = Some(format!("HTTP {}", r.status()));
            return t;
        }
        Err(e) => {
            t.error = Some(e.to_string());
            return t;
        }
    };
    let mut stream = res.bytes_stream();
    let mut pending = String::new();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                t.error = Some(e.to_string());
                return t;
            }
        };
        let at = ms();
        t.first_byte.get_or_insert(at);
        pending.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        while let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            if has_content(&event) {
                t.deltas.push(at);
            }
        }
    }
    t
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency)
        .timeout(Duration::from_secs(300))
        .build()
        .context("building the HTTP client")?;
    let started = Instant::now();
    let args = std::sync::Arc::new(args);
    let runs = (0..args.concurrency).map(|_| {
        let (client, args) = (client.clone(), std::sync::Arc::clone(&args));
        tokio::spawn(async move { one(client, &args, Instant::now()).await })
    });
    let all: Vec<Timings> = futures::future::join_all(runs)
        .await
        .into_iter()
        .map(|r| r.unwrap_or_default())
        .collect();
    let errors: Vec<&String> = all.iter().filter_map(|t| t.error.as_ref()).collect();
    let out = json!({
        "requests": all.len(),
        "errors": errors.len(),
        "firstError": errors.first(),
        "wallMs": started.elapsed().as_secs_f64() * 1000.0,
        "firstByteMs": all.iter().filter_map(|t| t.first_byte).collect::<Vec<_>>(),
        "deltaMs": all.iter().filter(|t| t.error.is_none()).map(|t| &t.deltas).collect::<Vec<_>>(),
    });
    println!("{out}");
    Ok(())
}
