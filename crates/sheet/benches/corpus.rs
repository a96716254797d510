//! `make bench`'s workbook figures over the real-world corpus
//! (scripts/workbook-corpus.sh): a cell edit and save of every workbook,
//! timed, and the share whose every part but the sheets, styles,
//! workbook, relationships and content types stays byte-identical; each
//! structural and look edit: the share written into the file in place,
//! the share refused, the rest through the model. Prints
//! one JSON line per edit kind; scripts/bench.sh sets openpyxl's
//! load-and-save of the same files beside it.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use baton_sheet::SpreadsheetTool;
use baton_tools::Sandbox;
use serde_json::json;

/// The corpus folder.
fn corpus() -> PathBuf {
    std::env::var_os("BATON_WORKBOOK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var("HOME").expect("HOME is set");
            Path::new(&home).join(".cache/baton-workbook-corpus")
        })
}

fn workbooks() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("the corpus: run scripts/workbook-corpus.sh")
        .flatten()
        .filter(|d| d.path().is_dir())
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|f| f.path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("xlsx" | "xlsm")
            )
        })
        .collect();
    out.sort();
    out
}

/// Every part's bytes, by name.
fn parts(path: &Path) -> HashMap<String, Vec<u8>> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = HashMap::new();
    for i in 0..z.len() {
        let name = z.name_for_index(i).unwrap().unwrap().into_owned();
        let mut b = Vec::new();
        z.by_index(i).unwrap().read_to_end(&mut b).unwrap();
        out.insert(name, b);
    }
    out
}

/// Whether every part other than sheets, styles, the workbook, its
/// relationships, content types and the calculation chain is the same.
fn untouched_elsewhere(before: &Path, after: &Path) -> bool {
    let (b, a) = (parts(before), parts(after));
    b.iter().all(|(name, bytes)| {
        let edited = name.starts_with("xl/worksheets/sheet")
            || name.ends_with(".rels")
            || matches!(
                name.as_str(),
                "xl/styles.xml" | "xl/workbook.xml" | "[Content_Types].xml" | "xl/calcChain.xml"
            );
        edited || a.get(name) == Some(bytes)
    })
}

/// One edit of the first sheet: whether the whole workbook was
/// rewritten; `Err` with the refusal.
fn edit(tool: &SpreadsheetTool, p: &str, kind: &str) -> Result<bool, String> {
    let sheet = tool.get_sheet_names(p.into()).map_err(|e| e.to_string())?[0].clone();
    let s = || Some(sheet.clone());
    let done = match kind {
        "cell" => tool
            .set_cell_value(p.into(), s(), "ZZ5000".into(), json!("Baton"), None)
            .map(|_| ()),
        "insert_row" => tool.insert_rows(p.into(), s(), 2, 1).map(|_| ()),
        "delete_rows" => tool.delete_rows(p.into(), s(), 3, 2).map(|_| ()),
        "insert_column" => tool
            .insert_columns(p.into(), s(), "B".into(), 1)
            .map(|_| ()),
        "delete_column" => tool
            .delete_columns(p.into(), s(), "C".into(), 1)
            .map(|_| ()),
        "width" => tool
            .set_column_width(p.into(), s(), "B".into(), 30.5)
            .map(|_| ()),
        "freeze" => tool.freeze_panes(p.into(), s(), "B3".into()).map(|_| ()),
        _ => tool.format_header_row(p.into(), s(), 1).map(|_| ()),
    };
    done.map_err(|e| e.to_string())?;
    tool.save(p.into(), false)
        .map(|s| s.whole_workbook)
        .map_err(|e| e.to_string())
}

fn main() {
    // `cargo bench` passes --bench; run as a test (`--list` by nextest,
    // nothing by `cargo test --all-targets`) it measures nothing.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let files = workbooks();
    for kind in [
        "cell",
        "insert_row",
        "delete_rows",
        "insert_column",
        "delete_column",
        "width",
        "freeze",
        "header",
    ] {
        let (mut in_place, mut refused, mut untouched, mut elapsed) = (0, 0, 0, 0.0);
        for f in &files {
            let dir = tempfile::tempdir().unwrap();
            let name = f.file_name().unwrap().to_str().unwrap();
            std::fs::copy(f, dir.path().join(name)).unwrap();
            let tool = SpreadsheetTool::new(Sandbox::new(dir.path()).unwrap());
            let start = Instant::now();
            let done = edit(&tool, &format!("/{name}"), kind);
            elapsed += start.elapsed().as_secs_f64();
            match done {
                Err(_) => refused += 1,
                Ok(whole) => {
                    in_place += usize::from(!whole);
                    untouched += usize::from(untouched_elsewhere(f, &dir.path().join(name)));
                }
            }
        }
        let n = files.len();
        println!(
            "{}",
            json!({"edit": kind, "files": n, "seconds": elapsed, "in_place": in_place,
                   "refused": refused, "through_model": n - in_place - refused,
                   "other_parts_identical": untouched})
        );
    }
}
