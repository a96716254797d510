//! `baton export` and `baton import`: conversations out of and into Baton.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use baton_engine::api::transfer::{baton_json, markdown};

use crate::args::{ExportArgs, ExportFormat};
use crate::context::Context;

pub fn export(ctx: &Context, args: ExportArgs) -> anyhow::Result<ExitCode> {
    let only = (!args.sessions.is_empty()).then_some(args.sessions.as_slice());
    let all = ctx.conversations().export(only)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot make the folder {}", args.out.display()))?;
    let write = |name: String, bytes: &[u8]| {
        let path = args.out.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))
    };
    match args.format {
        ExportFormat::Json => write("baton-conversations.json".into(), &baton_json(&all))?,
        ExportFormat::Markdown => {
            for d in &all {
                write(format!("{}.md", d.session.id), markdown(d).as_bytes())?;
            }
        }
    }
    println!(
        "Exported {} conversation{} to {}",
        all.len(),
        if all.len() == 1 { "" } else { "s" },
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn import(ctx: &Context, file: &Path) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let report = ctx.conversations().import(&bytes)?;
    println!(
        "{} export: {} conversation{} imported, {} already here",
        report.format,
        report.imported.len(),
        if report.imported.len() == 1 { "" } else { "s" },
        report.already_here.len()
    );
    for line in &report.left_out {
        println!("not brought over: {line}");
    }
    Ok(ExitCode::SUCCESS)
}
