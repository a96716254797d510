//! Local-model figures (`make bench`), each against a baseline in the
//! same run:
//! - pull throughput: `baton models pull`'s download (SHA-256 and write on
//!   a thread of their own) against curl fetching the same file from the
//!   same loopback server into the same folder, alternating, medians;
//! - start-up cost of the local-server probes with nothing listening:
//!   `Engine::load_with` + `discover` against `Engine::load_with` alone.
//!
//! `cargo bench -p baton-engine --bench models`.

use std::time::{Duration, Instant};

use baton_config::BatonPaths;
use baton_engine::{Engine, Overrides};
use baton_test_support::{FileServerOptions, embedded_catalog_entry, embedded_model, serve_file};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const PULLS: usize = 5;
const STARTS: usize = 30;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A Baton home whose catalog has the embedded model's file at `url`, and
/// whose local servers are four closed loopback ports.
fn home(dir: &std::path::Path, url: &str) -> BatonPaths {
    let paths = BatonPaths::under(dir);
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    let entry = embedded_catalog_entry("bench", "Bench", url);
    std::fs::write(
        paths.config_dir.join("models-catalog.json"),
        json!({"models": [entry]}).to_string(),
    )
    .unwrap();
    let servers: Vec<_> = ["ollama", "lmStudio", "llamaCpp", "vllm"]
        .iter()
        .map(|k| json!({"kind": k, "endpoint": format!("http://127.0.0.1:{}", closed_port())}))
        .collect();
    std::fs::write(
        paths.settings_file(),
        json!({"localServers": servers}).to_string(),
    )
    .unwrap();
    paths
}

async fn pull_once(engine: &Engine, paths: &BatonPaths) -> f64 {
    let _ = std::fs::remove_file(paths.models_dir.join("bench.gguf"));
    let started = Instant::now();
    engine
        .models()
        .pull("bench", CancellationToken::new(), |_| {})
        .await
        .unwrap();
    started.elapsed().as_secs_f64()
}

fn curl_once(url: &str, out: &std::path::Path) -> f64 {
    let _ = std::fs::remove_file(out);
    let started = Instant::now();
    let ok = std::process::Command::new("curl")
        .args(["-sS", "--fail", "-o"])
        .arg(out)
        .arg(url)
        .status()
        .unwrap()
        .success();
    assert!(ok, "curl failed");
    started.elapsed().as_secs_f64()
}

/// Only receiving the body with reqwest (nothing written or hashed): what
/// the HTTP client alone reaches against this server.
async fn receive_once(url: &str) -> f64 {
    let started = Instant::now();
    let mut body = reqwest::get(url).await.unwrap();
    while body.chunk().await.unwrap().is_some() {}
    started.elapsed().as_secs_f64()
}

async fn pulls(paths: &BatonPaths, url: &str, size: usize) {
    let engine = Engine::load_with(paths.clone(), Overrides::default()).unwrap();
    let curl_out = paths.models_dir.join("curl.gguf");
    std::fs::create_dir_all(&paths.models_dir).unwrap();
    let (mut ours, mut curls, mut bare) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..PULLS {
        ours.push(pull_once(&engine, paths).await);
        curls.push(curl_once(url, &curl_out));
        bare.push(receive_once(url).await);
    }
    let mb = size as f64 / 1e6;
    let (o, c, r) = (mb / median(ours), mb / median(curls), mb / median(bare));
    println!(
        "pull throughput ({mb:.0} MB, loopback, medians of {PULLS}): Baton {o:.0} MB/s (SHA-256 checked), curl {c:.0} MB/s, ratio {:.2}; reqwest only receiving: {r:.0} MB/s",
        o / c
    );
}

async fn starts(paths: &BatonPaths) {
    let (mut bare, mut probed) = (Vec::new(), Vec::new());
    for _ in 0..STARTS {
        let t = Instant::now();
        let e = Engine::load_with(paths.clone(), Overrides::default()).unwrap();
        bare.push(t.elapsed().as_secs_f64() * 1e3);
        drop(e);
        let t = Instant::now();
        let e = Engine::load_with(paths.clone(), Overrides::default())
            .unwrap()
            .discover(Duration::from_millis(400))
            .await;
        probed.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(e.providers().local_servers().is_empty());
    }
    let (b, p) = (median(bare), median(probed));
    println!(
        "start-up with the local-server probes (4 addresses, nothing listening, medians of {STARTS}): {p:.2} ms vs {b:.2} ms without, +{:.2} ms, ratio {:.2}",
        p - b,
        p / b
    );
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return; // `cargo test` builds benches; only `cargo bench` runs them
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let data = bytes::Bytes::from(std::fs::read(embedded_model()).unwrap());
        let size = data.len();
        let server = serve_file("bench.gguf", data, FileServerOptions::default()).await;
        let dir = tempfile::tempdir().unwrap();
        let paths = home(dir.path(), &server.url);
        pulls(&paths, &server.url, size).await;
        starts(&paths).await;
    });
}
