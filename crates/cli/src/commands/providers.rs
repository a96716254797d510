//! `baton providers`: each entry and whether it is ready.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;

use crate::context::Context;

pub async fn run(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let list = ctx.providers().list(Duration::from_millis(1500)).await;
    if as_json {
        let list: Vec<_> = list
            .iter()
            .map(|p| {
                json!({"name": p.name, "dialect": p.dialect, "model": p.model,
                       "endpoint": p.endpoint, "interactionMode": p.interaction_mode,
                       "default": p.selected, "ready": p.ready, "detail": p.detail})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        println!(
            "{:<2}{:<20} {:<10} {:<28} {:<6} DETAIL",
            "", "NAME", "DIALECT", "MODEL", "READY"
        );
        for p in &list {
            let ready = if p.ready { "yes" } else { "no" };
            let mark = if p.selected { "*" } else { "" };
            println!(
                "{mark:<2}{:<20} {:<10} {:<28} {ready:<6} {}",
                p.name, p.dialect, p.model, p.detail
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
