//! `baton convert`: files to Markdown, as the engine sees attachments.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::json;

use crate::args::ConvertArgs;
use crate::context::Context;

pub fn run(ctx: &Context, args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let mut options = ctx.tools().convert_options();
    if args.no_ocr {
        options = options.without_ocr();
    }
    options.max_table_rows = args.max_rows.unwrap_or(usize::MAX - 1);
    let mut results = Vec::new();
    let mut failed = 0;
    let many = args.files.len() > 1;
    for path in &args.files {
        let shown = path.display().to_string();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.clone());
        let outcome = std::fs::read(path)
            .map_err(|e| format!("cannot read the file: {e}"))
            .and_then(|bytes| {
                let bytes: Arc<[u8]> = bytes.into();
                baton_engine::api::convert::convert_bounded(&name, bytes, &options)
                    .map_err(|e| e.to_string())
            });
        match outcome {
            Ok(c) => {
                if args.json {
                    results.push(json!({
                        "file": shown,
                        "format": c.format,
                        "markdown": c.markdown,
                        "title": c.title,
                        "pages": c.pages,
                        "warnings": c.warnings,
                    }));
                } else {
                    if many {
                        println!("==> {shown} <==");
                    }
                    print!("{}", c.markdown);
                    for w in &c.warnings {
                        eprintln!("note: {shown}: {w}");
                    }
                    if many {
                        println!();
                    }
                }
            }
            Err(reason) => {
                failed += 1;
                if args.json {
                    results.push(json!({"file": shown, "error": reason}));
                } else {
                    eprintln!("error: {shown}: {reason}");
                }
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string(&results)?);
        return Ok(ExitCode::SUCCESS);
    }
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
