//! `baton tools`: the catalog in every rendering, and `tools call` to run
//! raw model output exactly as the agent would.

use std::process::ExitCode;

use baton_tools::ToolOutcome;
use serde_json::json;

use crate::args::{ToolsAction, ToolsArgs};
use crate::context::Context;

pub async fn run(ctx: &Context, args: ToolsArgs) -> anyhow::Result<ExitCode> {
    let catalog = ctx.workspace_catalog()?;
    match args.action {
        Some(ToolsAction::Call { raw }) => {
            let record = catalog.dispatch_raw(&raw).await;
            match &record.outcome {
                ToolOutcome::Ok(v) => {
                    println!("{}", serde_json::to_string_pretty(v)?);
                    Ok(ExitCode::SUCCESS)
                }
                ToolOutcome::Err(e) => {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&json!({"error": e, "method": record.name}))?
                    );
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        None => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&catalog.json_listing())?);
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
