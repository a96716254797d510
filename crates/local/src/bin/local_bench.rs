//! `baton-local-bench`: speed of Baton's local provider on one model —
//! time to first token for a ~500-token prompt (cold: model load included;
//! warm: loaded, no cached prefix), prompt-processing and generation
//! tokens/s, peak RSS. Prints one JSON object; `scripts/bench.sh` runs the
//! same measurement with llama-cpp-python and prints the ratios.

use std::time::Instant;

use baton_llm::{ChatRequest, LlmEvent, Message, Provider, ProviderConfig};
use baton_local::LocalProvider;
use futures::StreamExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A ~500-token prompt (the same text the Python side uses).
pub const PARAGRAPH: &str = "The old bakery on the corner opened before dawn every day. The baker lit the ovens, \
mixed flour, water, salt and yeast, and shaped the loaves by hand while the town slept. ";

fn prompt(run: usize) -> String {
    format!(
        "Run {run}. {} Now write a long story about this bakery.",
        PARAGRAPH.repeat(12)
    )
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.to_string())
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

async fn one(p: &LocalProvider, run: usize, max_tokens: u32) -> (f64, f64, u32, u32) {
    let mut req = ChatRequest::new(vec![Message::user(prompt(run))]);
    req.options.max_tokens = Some(max_tokens);
    let t0 = Instant::now();
    let mut s = p
        .stream(req, CancellationToken::new())
        .await
        .expect("stream");
    let mut first = None;
    while let Some(ev) = s.next().await {
        if let Ok(LlmEvent::TextDelta(_)) = ev {
            first.get_or_insert_with(|| t0.elapsed().as_secs_f64());
        }
    }
    let total = t0.elapsed().as_secs_f64();
    let st = p.last_stats().expect("stats");
    (
        first.unwrap_or(total),
        total,
        st.prompt_tokens,
        st.completion_tokens,
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let models = std::env::var("BATON_MODELS_DIR").expect("set BATON_MODELS_DIR");
    let threads: u32 = std::env::var("BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    let cfg: ProviderConfig = serde_json::from_value(json!({"name": "local", "dialect": "local",
        "modelPath": "SmolLM2-135M-Instruct.Q4_1.gguf", "contextWindow": 2048, "temperature": 0.0, "threads": threads}))
    .expect("config");
    let p = LocalProvider::new(cfg, std::path::Path::new(&models));
    let (cold_ttft, _, _, _) = one(&p, 0, 1).await;
    let mut ttft = Vec::new();
    let mut pp = Vec::new();
    let mut tg = Vec::new();
    let mut prompt_tokens = 0;
    for run in 1..=3 {
        let (first, total, pt, ct) = one(&p, run, 128).await;
        prompt_tokens = pt;
        ttft.push(first);
        // Same method as the Python side: prompt tokens over time to first token.
        pp.push(f64::from(pt) / first);
        tg.push(f64::from(ct.saturating_sub(1)) / (total - first).max(1e-9));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "{}",
        json!({
            "impl": "baton", "kernels": baton_local::cpu_kernels(), "threads": threads, "promptTokens": prompt_tokens,
            "coldTtftMs": cold_ttft * 1000.0, "warmTtftMs": median(ttft) * 1000.0,
            "promptTokensPerSec": median(pp), "generationTokensPerSec": median(tg), "peakRssMb": peak_rss_mb(),
        })
    );
}
