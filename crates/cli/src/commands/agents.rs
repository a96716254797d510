//! `baton agents`: the named agents (shipped, with the user's
//! `agents.json` over them) and what each resolves to.

use std::process::ExitCode;

use crate::context::Context;

pub fn run(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let agents = ctx.agents().infos();
    let broken = agents.iter().any(|a| a.problem.is_some());
    let code = if broken {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    if as_json {
        println!("{}", serde_json::to_string_pretty(&agents)?);
        return Ok(code);
    }
    println!(
        "{:<2}{:<16} {:<14} {:<28} DESCRIPTION",
        "", "NAME", "PROVIDER", "TOOLS"
    );
    for a in &agents {
        let mark = if a.default { "*" } else { "" };
        let tools = a
            .toolboxes
            .iter()
            .map(|t| format!("{} ({})", t.name, t.tools.len()))
            .collect::<Vec<_>>()
            .join(", ");
        let tools = if tools.is_empty() {
            "none".into()
        } else {
            tools
        };
        println!(
            "{mark:<2}{:<16} {:<14} {tools:<28} {}",
            a.name,
            a.provider.as_deref().unwrap_or("?"),
            a.description
        );
        let mut notes = Vec::new();
        if a.delegable {
            notes.push("delegable".to_string());
        }
        if a.delegates {
            notes.push("delegates to subagents".to_string());
        }
        if !notes.is_empty() {
            println!("{:<18}{}", "", notes.join("; "));
        }
        if let Some(p) = &a.problem {
            println!("{:<18}problem: {p}", "");
        }
    }
    Ok(code)
}
