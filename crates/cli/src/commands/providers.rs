//! `baton providers`: each entry and whether it is ready.

use std::process::ExitCode;
use std::time::Duration;

use baton_engine::api::Readiness;
use serde_json::json;

use crate::context::Context;

pub async fn run(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let chosen = ctx
        .settings()
        .provider
        .clone()
        .unwrap_or_else(|| ctx.providers().file().default.clone());
    let states = ctx.providers().readiness(Duration::from_millis(1500)).await;
    if as_json {
        let list: Vec<_> = ctx
            .providers()
            .file()
            .providers
            .iter()
            .zip(&states)
            .map(|(p, s)| {
                let (ready, detail) = match s {
                    Readiness::Ready(d) => (true, d),
                    Readiness::NotReady(d) => (false, d),
                };
                json!({"name": p.name, "dialect": p.dialect.as_str(), "model": p.model_name(),
                       "endpoint": p.endpoint, "interactionMode": p.effective_interaction_mode(),
                       "default": p.name == chosen, "ready": ready, "detail": detail})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        println!(
            "{:<2}{:<20} {:<10} {:<28} {:<6} DETAIL",
            "", "NAME", "DIALECT", "MODEL", "READY"
        );
        for (p, s) in ctx.providers().file().providers.iter().zip(&states) {
            let (ready, detail) = match s {
                Readiness::Ready(d) => ("yes", d),
                Readiness::NotReady(d) => ("no", d),
            };
            let mark = if p.name == chosen { "*" } else { "" };
            println!(
                "{mark:<2}{:<20} {:<10} {:<28} {ready:<6} {detail}",
                p.name,
                p.dialect.as_str(),
                p.model_name()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
