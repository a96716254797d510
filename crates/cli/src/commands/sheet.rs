//! `baton sheet describe`: a workbook as the spreadsheet toolbox sees it.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use baton_engine::api::sheet::{Description, SpreadsheetTool};
use baton_engine::api::tools::Sandbox;
use serde_json::{Value, json};

use crate::args::SheetCommand;

pub fn run(command: SheetCommand) -> anyhow::Result<ExitCode> {
    let SheetCommand::Describe { file, sheet, json } = command;
    let (tool, path) = open_beside(&file)?;
    let names: Vec<String> = match sheet {
        Some(s) => vec![s],
        None => tool.get_sheet_names(path.clone())?,
    };
    let mut described = Vec::new();
    for name in names {
        described.push(tool.describe_worksheet(path.clone(), Some(name))?);
    }
    // After describe, which read each sheet once: open reuses what it found.
    let opened = tool.open(path.clone())?;
    if json {
        let out = json!({"file": file.display().to_string(), "format": opened.format, "read_only": opened.read_only, "cannot_keep": opened.cannot_keep, "sheets": described});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} ({}{})",
        file.display(),
        opened.format,
        if opened.read_only { ", read-only" } else { "" }
    );
    for u in &opened.cannot_keep {
        println!("  cannot keep when saving: {} ({})", u.feature, u.part);
    }
    for d in &described {
        print!("{}", text(d));
    }
    Ok(ExitCode::SUCCESS)
}

/// A toolbox on the file's folder, and the file's path in it.
fn open_beside(file: &Path) -> anyhow::Result<(SpreadsheetTool, String)> {
    let abs = std::path::absolute(file).with_context(|| format!("{}", file.display()))?;
    let dir = abs.parent().context("the file has no folder")?;
    let name = abs.file_name().context("not a file")?.to_string_lossy();
    Ok((SpreadsheetTool::new(Sandbox::new(dir)?), format!("/{name}")))
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One sheet as a few lines of text.
fn text(d: &Description) -> String {
    let mut out = format!(
        "\n{}: {} ({} rows x {} columns), {} formulas{}\n",
        d.sheet,
        d.used_range.as_deref().unwrap_or("empty"),
        d.rows,
        d.columns,
        d.formulas,
        d.frozen_at
            .as_deref()
            .map(|f| format!(", frozen at {f}"))
            .unwrap_or_default()
    );
    for c in &d.column_types {
        out += &format!(
            "  {} {} ({}, {} filled)\n",
            c.column,
            c.header.as_deref().unwrap_or("-"),
            c.kind,
            c.filled
        );
    }
    for t in &d.tables {
        out += &format!(
            "  table {} over {}{}\n",
            t.name,
            t.range,
            t.style
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        );
    }
    for c in &d.charts {
        out += &format!("  {} chart at {}\n", c.kind, c.anchor);
    }
    if d.unreadable_charts > 0 {
        out += &format!(
            "  {} chart(s) Baton cannot read (kept when only cells are edited)\n",
            d.unreadable_charts
        );
    }
    if !d.merged.is_empty() {
        out += &format!("  merged: {}\n", d.merged.join(", "));
    }
    if !d.number_formats.is_empty() {
        out += &format!(
            "  number formats: {}\n",
            d.number_formats
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join("  ")
        );
    }
    for (row, values) in &d.sample_rows {
        out += &format!(
            "  {row:>6}: {}\n",
            values.iter().map(cell).collect::<Vec<_>>().join(" | ")
        );
    }
    out
}
