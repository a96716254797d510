//! `baton tools`: the catalog in every rendering, and `tools call` to run
//! raw model output exactly as the agent would — every built-in toolbox,
//! or with `--agent` exactly what that agent is offered.

use std::process::ExitCode;

use baton_tools::{Catalog, ToolOutcome};
use serde_json::{Value, json};

use crate::args::{ToolsAction, ToolsArgs};
use crate::context::Context;

pub async fn run(ctx: &Context, args: ToolsArgs) -> anyhow::Result<ExitCode> {
    let catalog = match &args.agent {
        Some(name) => {
            let def = ctx.agent_def(Some(name))?;
            ctx.toolkit(ctx.refreshed_index())?.catalog_for(&def)?
        }
        None => ctx.workspace_catalog()?,
    };
    match args.action {
        Some(ToolsAction::Call { raw }) => call(&catalog, &raw).await,
        None => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&catalog.json_listing())?);
            } else if args.native {
                println!("{}", serde_json::to_string_pretty(&catalog.native_tools())?);
            } else if args.cli {
                print!("{}", catalog.cli_help());
                for s in catalog.specs() {
                    println!();
                    print!("{}", catalog.cli_toolbox_help(&s.name).unwrap_or_default());
                    for m in &s.methods {
                        println!();
                        print!("{}", catalog.cli_command_help(&s.name, m));
                    }
                }
            } else {
                print!("{}", catalog.markdown());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Runs `calls` in order, stopping at the first failure; prints one
/// result (or an array of them for several calls).
async fn call(catalog: &Catalog, calls: &[String]) -> anyhow::Result<ExitCode> {
    let mut results: Vec<Value> = Vec::new();
    let mut ok = true;
    for raw in calls {
        let record = catalog.dispatch_raw(raw).await;
        match record.outcome {
            ToolOutcome::Ok(v) => results.push(v),
            ToolOutcome::Err(e) => {
                results.push(json!({"error": e, "method": record.name}));
                ok = false;
                break;
            }
        }
    }
    for t in catalog.toolboxes() {
        t.close().await;
    }
    let shown = match results.as_slice() {
        [one] if calls.len() == 1 => one.clone(),
        _ => Value::Array(results),
    };
    println!("{}", serde_json::to_string_pretty(&shown)?);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
