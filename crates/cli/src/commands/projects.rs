//! `baton projects`: chats grouped with their own folder, instructions,
//! agent, provider and memory.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use baton_engine::api::projects::NewProject;

use crate::args::ProjectsCommand;
use crate::context::Context;

pub fn run(ctx: &Context, command: ProjectsCommand) -> anyhow::Result<ExitCode> {
    let projects = ctx.projects();
    match command {
        ProjectsCommand::List { json } => {
            let all = projects.list()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&all)?);
            } else if all.is_empty() {
                println!("No projects yet (`baton projects new NAME --folder DIR` makes one).");
            }
            for p in all.iter().filter(|_| !json) {
                let chats = projects.chats(&p.id).len();
                println!(
                    "{}  {}  {}  ({chats} chats)",
                    p.id,
                    p.name,
                    p.folder.display()
                );
            }
        }
        ProjectsCommand::New {
            name,
            folder,
            instructions,
            agent,
            provider,
        } => {
            if let Some(a) = &agent {
                ctx.agents().def(Some(a))?;
            }
            let folder = std::path::absolute(&folder)?;
            let p = projects.create(NewProject {
                name,
                folder,
                instructions: instructions.unwrap_or_default(),
                agent,
                provider,
            })?;
            println!(
                "Made the project {} ({}) in {}",
                p.name,
                p.id,
                p.folder.display()
            );
        }
        ProjectsCommand::Rm { name, yes } => {
            let p = projects.find(&name)?;
            let chats = projects.chats(&p.id).len();
            if !yes && !confirmed(&p.name, chats)? {
                println!("Nothing removed.");
                return Ok(ExitCode::FAILURE);
            }
            let removed = projects.remove(&p.id)?;
            println!(
                "Removed the project {}; {} chat{} moved to the trash, the folder {} kept.",
                removed.project.name,
                removed.trashed.len(),
                if removed.trashed.len() == 1 { "" } else { "s" },
                removed.project.folder.display()
            );
        }
        ProjectsCommand::Move {
            session, project, ..
        } => {
            let to = project.map(|n| projects.find(&n)).transpose()?;
            projects.move_chat(&session, to.as_ref().map(|p| &p.id))?;
            match to {
                Some(p) => println!("Moved {session} into the project {}.", p.name),
                None => println!("Moved {session} out of its project."),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Asks on the terminal whether to remove project `name` with its chats;
/// without a terminal the answer is no (`--yes` says yes).
fn confirmed(name: &str, chats: usize) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        eprintln!(
            "Removing the project {name} moves its {chats} chats to the trash: add --yes to do it."
        );
        return Ok(false);
    }
    eprint!(
        "Remove the project {name}? Its {chats} chats go to the trash; its folder stays. [y/N] "
    );
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
