//! `baton models catalog|pull|rm`: recommended models, downloaded into
//! the models folder and made providers.

use std::process::ExitCode;

use baton_engine::api::models::Hardware;
use indicatif::{ProgressBar, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::context::Context;

pub fn catalog(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let hardware = Hardware::detect();
    let models = ctx.models().catalog_models(&hardware);
    if as_json {
        let out = serde_json::json!({"hardware": hardware, "models": models});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let gb = |b: u64| b as f64 / 1e9;
    let gpu = hardware.gpu.as_ref().map_or("no GPU".to_string(), |g| {
        format!("{} ({:.1} GB)", g.name, gb(g.vram_bytes))
    });
    // Memory in binary GB, as the fit hints say it.
    println!(
        "this computer: {:.1} GB memory, {} cores, {gpu}",
        hardware.ram_bytes as f64 / (1u64 << 30) as f64,
        hardware.cores
    );
    for m in &models {
        let e = &m.entry;
        let state = match (m.pulled, m.partial_bytes) {
            (true, _) => "downloaded".to_string(),
            (false, Some(p)) => format!(
                "partly downloaded ({:.0}%)",
                p as f64 * 100.0 / e.size as f64
            ),
            (false, None) => String::new(),
        };
        let tasks: Vec<String> = e
            .tasks
            .iter()
            .map(|t| format!("{t:?}").to_lowercase())
            .collect();
        println!(
            "\n  {:<14} {}  {:.1} GB  {}  context {}  [{}]  {state}",
            e.name,
            e.title,
            gb(e.size),
            e.licence,
            e.context_length,
            tasks.join(", ")
        );
        println!("  {:<14} {}", "", m.hint);
        if !e.notes.is_empty() {
            println!("  {:<14} {}", "", e.notes);
        }
        if e.sha256.is_none() {
            println!(
                "  {:<14} no published SHA-256: the first download records the one it gets",
                ""
            );
        }
    }
    println!("\n`baton models pull NAME` downloads one and makes it a provider.");
    Ok(ExitCode::SUCCESS)
}

pub async fn pull(ctx: &Context, name: &str, as_json: bool) -> anyhow::Result<ExitCode> {
    let catalog = ctx.models().catalog();
    let entry = catalog.get(name)?.clone();
    let bar = if as_json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(entry.size)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
        )?
        .progress_chars("=> "),
    );
    bar.set_message(entry.name.clone());
    let stop = CancellationToken::new();
    let on_ctrl_c = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    let progress_bar = bar.clone();
    let done = ctx
        .models()
        .pull(&entry.name, stop, move |p| {
            progress_bar.set_position(p.received);
        })
        .await;
    bar.finish_and_clear();
    let done = match done {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if as_json {
        println!("{}", serde_json::to_string_pretty(&done)?);
        return Ok(ExitCode::SUCCESS);
    }
    if !done.downloaded {
        println!("{} is already here: {}", entry.title, done.path.display());
    } else {
        println!("downloaded {} to {}", entry.title, done.path.display());
        println!(
            "SHA-256 {} {}",
            done.sha256,
            if done.hash_recorded {
                "(no published hash: recorded for later downloads)"
            } else {
                "(matches the published one)"
            }
        );
    }
    println!(
        "it is the provider `{}`: `baton ask --provider {} …`, or make it the default with `baton config set provider {}`",
        done.provider, done.provider, done.provider
    );
    Ok(ExitCode::SUCCESS)
}

pub fn remove(ctx: &Context, name: &str) -> anyhow::Result<ExitCode> {
    let entry = ctx.models().catalog().get(name)?.clone();
    let title = &entry.title;
    if ctx.models().remove(name)? {
        println!("deleted {title} and its provider entry");
    } else {
        println!("{title} was not downloaded; its provider entry (if any) is gone");
    }
    if ctx.settings().provider.as_deref() == Some(entry.name.as_str()) {
        eprintln!(
            "note: it was the provider in use; the `provider` setting is cleared, so Baton picks one again"
        );
    }
    Ok(ExitCode::SUCCESS)
}
