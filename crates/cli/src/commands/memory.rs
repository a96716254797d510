//! `baton memory`: what Baton remembers about the user across chats, to
//! see, add to, and forget.

use std::process::ExitCode;

use baton_engine::api::memory::MemorySource;

use crate::args::{MemoryArgs, MemoryCommand};
use crate::context::Context;

pub fn run(ctx: &Context, args: MemoryArgs) -> anyhow::Result<ExitCode> {
    let store = match &args.project {
        Some(name) => ctx.projects().memory(&ctx.projects().find(name)?.id),
        None => ctx.memory(),
    };
    match args.command {
        MemoryCommand::List { json } => {
            let all = store.list()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&all)?);
            } else if all.is_empty() {
                println!("Nothing is remembered (`baton memory add TEXT` adds a fact).");
            } else {
                for m in &all {
                    let from = match (&m.source, &m.session) {
                        (MemorySource::User, _) => "you".to_string(),
                        (MemorySource::Chat, Some(chat)) => format!("the chat {chat}"),
                        (MemorySource::Chat, None) => "a chat".to_string(),
                    };
                    println!("{}  {}  (from {from}, {})", m.id, m.text, date(m.created));
                }
            }
            if !ctx.settings().memory {
                eprintln!("note: memory is off (`baton config set memory true` turns it on)");
            }
        }
        MemoryCommand::Add { text } => {
            let m = store.add(&text.join(" "), MemorySource::User, None)?;
            println!("Remembered as {}: {}", m.id, m.text);
        }
        MemoryCommand::Rm { id } => {
            let m = store.remove(&id)?;
            println!("Forgot {}: {}", m.id, m.text);
        }
        MemoryCommand::Clear => {
            let n = store.clear()?;
            println!("Forgot {n} {}.", if n == 1 { "entry" } else { "entries" });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Seconds since the epoch as a UTC date (`2026-12-06`).
fn date(secs: u64) -> String {
    i64::try_from(secs)
        .ok()
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .map_or_else(|| "?".into(), |d| d.format("%Y-%m-%d").to_string())
}
