//! `baton browser`: which browser the browser toolbox would use and how
//! to let it attach to the user's own, and a page read as the model reads
//! it.

use std::process::ExitCode;

use baton_engine::api::settings::BrowserMode;
use baton_engine::api::tools::{Sandbox, ToolContext};
use baton_engine::api::web::{WebTool, discover};
use serde_json::json;

use crate::args::BrowserCommand;
use crate::context::Context;

pub async fn run(ctx: &Context, command: BrowserCommand) -> anyhow::Result<ExitCode> {
    match command {
        BrowserCommand::Status { json } => status(ctx, json).await,
        BrowserCommand::Read { url, max_chars } => read(ctx, url, max_chars).await,
    }
}

async fn status(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let settings = &ctx.settings().browser;
    let mut browsers = Vec::new();
    for b in discover::installed() {
        let attach = match &b.user_data_dir {
            Some(dir) => match discover::attach_address(dir, b.family).await {
                Ok(_) => "ready: Baton attaches to it while it runs".to_string(),
                Err(e) => e.to_string(),
            },
            None => "its profile folder is unknown".into(),
        };
        browsers.push(json!({
            "browser": b.family.label(),
            "program": b.program,
            "userDataDir": b.user_data_dir,
            "attach": attach,
        }));
    }
    let mode = match settings.mode {
        Some(BrowserMode::Attach) => "attach (browser.mode)",
        Some(BrowserMode::Profile) => "profile (browser.mode)",
        Some(BrowserMode::Headless) => "headless (browser.mode)",
        None => "attach when allowed, else Baton's own profile, else headless",
    };
    if as_json {
        let out = json!({"mode": mode, "path": settings.path, "browsers": browsers});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("mode: {mode}");
    if browsers.is_empty() {
        println!("no Edge, Chrome or Chromium found; install one or set browser.path");
    }
    for b in &browsers {
        println!(
            "{} ({})",
            b["browser"].as_str().unwrap_or_default(),
            b["program"].as_str().unwrap_or_default()
        );
        println!("  attach: {}", b["attach"].as_str().unwrap_or_default());
    }
    Ok(ExitCode::SUCCESS)
}

async fn read(ctx: &Context, url: String, max_chars: usize) -> anyhow::Result<ExitCode> {
    let web = WebTool::new(ctx.tools().browser(), Sandbox::new(ctx.workspace())?);
    let tool_ctx = ToolContext::default();
    let page = match web.navigate(url, 30_000, &tool_ctx).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let content = web.get_page_content(max_chars).await?;
    println!(
        "# {} <{}>{}\n",
        page.title,
        page.url,
        if page.loaded { "" } else { " (still loading)" }
    );
    println!("{}", content.markdown);
    if content.truncated {
        eprintln!("(cut at {max_chars} characters)");
    }
    Ok(ExitCode::SUCCESS)
}
