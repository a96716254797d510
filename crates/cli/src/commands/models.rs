//! `baton models`: the models folder: GGUF language models (and which
//! provider entries use them) and ggml Whisper speech models (and which
//! one voice uses); `catalog`, `pull` and `rm` are in `model_catalog`.

use std::process::ExitCode;

use baton_engine::api::Dialect;
use baton_engine::api::models::{list_models, resolve_model_path};
use baton_engine::api::voice::stt::whisper_models;
use serde_json::json;

use super::model_catalog;
use crate::args::{ModelsArgs, ModelsCommand};
use crate::context::Context;

pub async fn run(ctx: &Context, a: ModelsArgs) -> anyhow::Result<ExitCode> {
    match a.action {
        None => list(ctx, a.json),
        Some(ModelsCommand::Catalog) => model_catalog::catalog(ctx, a.json),
        Some(ModelsCommand::Pull { name }) => model_catalog::pull(ctx, &name, a.json).await,
        Some(ModelsCommand::Rm { name }) => model_catalog::remove(ctx, &name),
    }
}

fn users(ctx: &Context, path: &std::path::Path) -> Vec<String> {
    ctx.providers()
        .file()
        .providers
        .iter()
        .filter(|p| p.dialect == Dialect::Local)
        .filter(|p| {
            resolve_model_path(
                p.model_path.as_deref().unwrap_or(""),
                &ctx.paths().models_dir,
            ) == path
        })
        .map(|p| p.name.clone())
        .collect()
}

/// The Whisper models, each with its size and whether voice uses it.
fn speech_models(ctx: &Context) -> Vec<(std::path::PathBuf, u64, bool)> {
    let in_use = ctx.voice().stt_model().ok();
    whisper_models(&ctx.paths().models_dir)
        .into_iter()
        .map(|p| {
            let size = std::fs::metadata(&p).map_or(0, |m| m.len());
            let used = in_use.as_deref() == Some(p.as_path());
            (p, size, used)
        })
        .collect()
}

fn list(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let dir = &ctx.paths().models_dir;
    let models = list_models(dir);
    let speech = speech_models(ctx);
    if as_json {
        let list: Vec<_> = models
            .iter()
            .map(|m| json!({"path": m.path, "size": m.size, "architecture": m.architecture, "name": m.name,
                            "contextLength": m.context_length, "valid": m.valid, "usedBy": users(ctx, &m.path)}))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({"modelsDir": dir, "models": list,
                "speechModels": speech.iter().map(|(p, size, used)| json!({"path": p, "size": size, "usedByVoice": used})).collect::<Vec<_>>()}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("models folder: {}", dir.display());
    if models.is_empty() {
        println!(
            "no .gguf files; run `make setup` (or scripts/fetch-model.sh) to fetch the default model, or `baton models catalog` to pick one to download"
        );
    }
    for m in &models {
        let name = m
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !m.valid {
            println!(
                "  {name}  {:.1} MB  (not a readable GGUF file)",
                m.size as f64 / 1e6
            );
            continue;
        }
        println!(
            "  {name}  {:.1} MB  arch {}  context {}  used by: {}",
            m.size as f64 / 1e6,
            m.architecture.as_deref().unwrap_or("?"),
            m.context_length
                .map(|c| c.to_string())
                .unwrap_or_else(|| "?".into()),
            {
                let u = users(ctx, &m.path);
                if u.is_empty() {
                    "(no entry)".to_string()
                } else {
                    u.join(", ")
                }
            }
        );
    }
    println!("speech models (ggml Whisper):");
    if speech.is_empty() {
        println!(
            "  none; run `make setup` (or scripts/fetch-whisper.sh) to convert Whisper tiny.en"
        );
    }
    for (p, size, used) in &speech {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mark = if *used { "  used by voice" } else { "" };
        println!("  {name}  {:.1} MB{mark}", *size as f64 / 1e6);
    }
    Ok(ExitCode::SUCCESS)
}
