//! `baton tools`: the catalog in every rendering, and `tools call` to run
//! raw model output exactly as the agent would — every built-in toolbox,
//! or with `--agent` exactly what that agent is offered — and the tools of
//! the MCP servers in `mcp.json`.

use std::io::IsTerminal;
use std::process::ExitCode;

use baton_engine::api::tools::{Catalog, ToolOutcome};
use serde_json::{Value, json};

use crate::args::{ToolsAction, ToolsArgs};
use crate::context::Context;

pub async fn run(ctx: &Context, args: ToolsArgs) -> anyhow::Result<ExitCode> {
    // The tools of the MCP servers in mcp.json join the built-in ones.
    ctx.tools().start_mcp().await;
    for (server, why) in ctx.tools().mcp().problems() {
        eprintln!("warning: MCP server `{server}` left out: {why}");
    }
    let catalog = match &args.agent {
        Some(name) => {
            let def = ctx.agents().def(Some(name))?;
            ctx.tools()
                .kit(ctx.tools().refreshed_index())?
                .catalog_for(&def)?
        }
        None => ctx.tools().workspace_catalog()?,
    };
    match args.action {
        Some(ToolsAction::Call { yes, raw }) => {
            let confirm = Confirm {
                yes,
                exempt: ctx.agents().confirm_exempt(),
            };
            call(&catalog, &raw, &confirm).await
        }
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

/// Which external calls may run without asking.
struct Confirm {
    /// `--yes`: all of them.
    yes: bool,
    /// Those of these built-in toolboxes (the settings allow them).
    exempt: Vec<baton_engine::api::tools::ToolboxId>,
}

/// `Err` with the refusal when `raw` is a call that sends something off
/// this machine and the user did not allow it (asked at a terminal).
fn confirmed(catalog: &Catalog, raw: &str, confirm: &Confirm) -> Result<(), String> {
    let Ok((name, args)) = baton_engine::api::tools::split_call(raw) else {
        return Ok(()); // dispatch reports it
    };
    if confirm.yes {
        return Ok(());
    }
    let Some((tool, args)) = catalog.confirmation(&name, &args, &confirm.exempt) else {
        return Ok(());
    };
    if std::io::stdin().is_terminal() {
        eprint!("{tool} sends something off this machine:\n  {args}\nRun it? [y/N] ");
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .map_err(|e| e.to_string())?;
        if matches!(answer.trim(), "y" | "Y" | "yes") {
            return Ok(());
        }
        return Err(format!("`{tool}` was not run: you declined it"));
    }
    Err(format!(
        "`{tool}` sends something off this machine and was not run: add --yes (`baton tools call --yes …`) to allow it"
    ))
}

/// Runs `calls` in order, stopping at the first failure; prints one
/// result (or an array of them for several calls).
async fn call(catalog: &Catalog, calls: &[String], confirm: &Confirm) -> anyhow::Result<ExitCode> {
    let mut results: Vec<Value> = Vec::new();
    let mut ok = true;
    for raw in calls {
        if let Err(e) = confirmed(catalog, raw, confirm) {
            results.push(json!({"error": e}));
            ok = false;
            break;
        }
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
