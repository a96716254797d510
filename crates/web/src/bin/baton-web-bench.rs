//! `baton-web-bench`: the browser toolbox's figures for `make bench`.
//! Serves the given pages on loopback, starts headless Chromium through
//! the toolbox, and prints one JSON object: the median time of
//! get_page_content on the large page (the page → Markdown pass in the
//! browser and the conversion), its Markdown size, navigate +
//! get_page_content on the small page, and this process's peak memory.
//!
//!     baton-web-bench --large PAGE.html --small PAGE.html [--runs N] [--chromium PATH]
//!
//! Written without a web framework: the pages are served by a few lines
//! over a TCP socket (the bench needs nothing more).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use baton_config::{BrowserMode, BrowserSettings};
use baton_tools::{Sandbox, ToolContext};
use baton_web::{BrowserHub, WebTool};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Args {
    large: PathBuf,
    small: PathBuf,
    runs: usize,
    chromium: PathBuf,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        large: PathBuf::new(),
        small: PathBuf::new(),
        runs: 5,
        chromium: "/usr/bin/chromium".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it
            .next()
            .ok_or_else(|| anyhow::anyhow!("{k} needs a value"))?;
        match k.as_str() {
            "--large" => a.large = v.into(),
            "--small" => a.small = v.into(),
            "--runs" => a.runs = v.parse()?,
            "--chromium" => a.chromium = v.into(),
            _ => anyhow::bail!("unknown argument {k}"),
        }
    }
    anyhow::ensure!(
        a.large.is_file() && a.small.is_file(),
        "--large and --small must be files"
    );
    Ok(a)
}

/// Serves `/large` and `/small` until the process ends.
async fn serve(large: Vec<u8>, small: Vec<u8>) -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let pages = Arc::new((large, small));
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let pages = Arc::clone(&pages);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let line = String::from_utf8_lossy(&buf[..n]);
                let body: &[u8] = if line.starts_with("GET /large") {
                    &pages.0
                } else if line.starts_with("GET /small") {
                    &pages.1
                } else {
                    b""
                };
                let status = if body.is_empty() {
                    "404 Not Found"
                } else {
                    "200 OK"
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body).await;
            });
        }
    });
    Ok(base)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Peak resident memory of this process, in MB (Linux).
fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = args()?;
    let base = serve(std::fs::read(&a.large)?, std::fs::read(&a.small)?).await?;
    let dir = tempfile::tempdir()?;
    let settings = BrowserSettings {
        mode: Some(BrowserMode::Headless),
        path: Some(a.chromium.clone()),
        ..Default::default()
    };
    let hub = Arc::new(BrowserHub::new(settings, dir.path().join("profile")));
    let web = WebTool::new(Arc::clone(&hub), Sandbox::new(dir.path())?);
    let ctx = ToolContext::default();
    let t = Instant::now();
    web.navigate(format!("{base}/small"), 30_000, &ctx).await?;
    let first_ms = t.elapsed().as_secs_f64() * 1000.0;
    let (mut small, mut large) = (Vec::new(), Vec::new());
    let mut md_bytes = 0;
    for _ in 0..a.runs {
        let t = Instant::now();
        web.navigate(format!("{base}/small"), 30_000, &ctx).await?;
        web.get_page_content(20_000).await?;
        small.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    web.navigate(format!("{base}/large"), 60_000, &ctx).await?;
    for _ in 0..a.runs {
        let t = Instant::now();
        let c = web.get_page_content(usize::MAX).await?;
        large.push(t.elapsed().as_secs_f64() * 1000.0);
        md_bytes = c.markdown.len();
        if std::env::var_os("BATON_WEB_BENCH_OUT").is_some() {
            std::fs::write(
                std::env::var_os("BATON_WEB_BENCH_OUT").unwrap(),
                &c.markdown,
            )?;
        }
    }
    let out = serde_json::json!({
        "launch_and_first_navigate_ms": first_ms,
        "small_navigate_and_content_ms": median(small),
        "large_content_ms": median(large),
        "large_markdown_bytes": md_bytes,
        "peak_rss_mb": peak_rss_mb(),
    });
    println!("{out}");
    hub.shutdown().await;
    Ok(())
}
