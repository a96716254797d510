//! `baton export` and `baton import`: conversations out of and into Baton.

use std::path::Path;
use std::process::ExitCode;

use baton_engine::api::transfer::{ExportFormat, ExportScope};

use crate::args::ExportArgs;
use crate::context::Context;

pub async fn export(ctx: &Context, args: ExportArgs) -> anyhow::Result<ExitCode> {
    let scope = match (&args.project, args.sessions.is_empty()) {
        (Some(name), _) => ExportScope::Project(ctx.projects().find(name)?.id),
        (None, true) => ExportScope::All,
        (None, false) => ExportScope::Chats(args.sessions),
    };
    let format = match args.format {
        crate::args::ExportFormat::Json => ExportFormat::Json,
        crate::args::ExportFormat::Markdown => ExportFormat::Markdown,
        crate::args::ExportFormat::Pdf => ExportFormat::Pdf,
    };
    let n = ctx
        .conversations()
        .export_to(&scope, format, &args.out)
        .await?;
    println!(
        "Exported {n} conversation{} to {}",
        if n == 1 { "" } else { "s" },
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn import(ctx: &Context, file: &Path) -> anyhow::Result<ExitCode> {
    let report = ctx.conversations().import_file(file)?;
    println!(
        "{} export: {} conversation{} imported, {} already here",
        report.format,
        report.imported.len(),
        if report.imported.len() == 1 { "" } else { "s" },
        report.already_here.len()
    );
    for line in &report.left_out {
        println!("left out: {line}");
    }
    Ok(ExitCode::SUCCESS)
}
