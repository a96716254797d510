//! Real workbooks no one here wrote (scripts/workbook-corpus.sh: the
//! umya-spreadsheet crate's bug-report files, Apache POI's among them, and
//! Debian's R packages' Excel examples), each edited and saved through the
//! toolbox, then judged by openpyxl (scripts/workbook_judge.py): no saved
//! file that does not open, no cell changed but the edited one, no part
//! dropped. Refusals are allowed only with a reason, and are listed.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use baton_sheet::SpreadsheetTool;
use baton_test_support::venv_python;
use baton_tools::Sandbox;
use serde_json::{Value, json};

/// The corpus folder (made by `make test`'s fixtures step).
fn corpus() -> PathBuf {
    let dir = std::env::var_os("BATON_WORKBOOK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
            cache.join("baton-workbook-corpus")
        });
    assert!(
        dir.join(".complete-v2").exists(),
        "no workbook corpus in {}: run scripts/workbook-corpus.sh (make test does)",
        dir.display()
    );
    dir
}

/// Every workbook of the corpus, sorted.
fn workbooks() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(corpus()).unwrap().flatten() {
        if !sub.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(sub.path()).unwrap().flatten() {
            let p = f.path();
            if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("xlsx" | "xlsm")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What became of one edit of one file.
enum Outcome {
    /// Saved: the judge's job for it.
    Saved(Value),
    /// Refused, with the reason in words.
    Refused(String),
}

/// The cell edited, far from most data.
const CELL: &str = "ZZ5000";

/// One kind of edit tried on every workbook.
#[derive(Clone, Copy, Debug)]
enum Edit {
    /// One cell set.
    Cell,
    /// Rows or columns: (columns, at, count, delete).
    Shift(bool, u32, u32, bool),
    /// Column B 30.5 characters wide.
    Width,
    /// Panes frozen at B3.
    Freeze,
    /// Row 1 styled as a header.
    Header,
}

impl Edit {
    /// What the judge is told of it.
    fn job(self) -> Value {
        match self {
            Edit::Cell => json!({"cell": CELL, "value": "Baton"}),
            Edit::Shift(columns, at, count, delete) => json!({"shift": {
                "axis": if columns { "columns" } else { "rows" },
                "at": at, "count": count, "delete": delete,
            }}),
            Edit::Width => json!({
                "shift": {"axis": "rows", "at": 1, "count": 0, "delete": false},
                "width": {"col": "B", "width": 30.5},
            }),
            Edit::Freeze => json!({
                "shift": {"axis": "rows", "at": 1, "count": 0, "delete": false},
                "freeze": "B3",
            }),
            Edit::Header => json!({
                "shift": {"axis": "rows", "at": 1, "count": 0, "delete": false},
                "header": 1,
            }),
        }
    }
}

/// Copies `file` into `dir`, opens it, makes `edit` on its first sheet
/// and saves.
fn edit_and_save(file: &Path, dir: &Path, edit: Edit) -> Outcome {
    let name = file.file_name().unwrap().to_str().unwrap();
    std::fs::copy(file, dir.join(name)).unwrap();
    let tool = SpreadsheetTool::new(Sandbox::new(dir).unwrap());
    let p = format!("/{name}");
    let sheet = match tool.get_sheet_names(p.clone()) {
        Ok(names) => names[0].clone(),
        Err(e) => return Outcome::Refused(format!("open: {e}")),
    };
    let s = || Some(sheet.clone());
    let edited = match edit {
        Edit::Cell => tool.set_cell_value(p.clone(), s(), CELL.into(), json!("Baton"), None),
        Edit::Shift(false, at, n, false) => tool.insert_rows(p.clone(), s(), at, n),
        Edit::Shift(false, at, n, true) => tool.delete_rows(p.clone(), s(), at, n),
        Edit::Shift(true, at, n, false) => {
            tool.insert_columns(p.clone(), s(), baton_sheet::column_name(at), n)
        }
        Edit::Shift(true, at, n, true) => {
            tool.delete_columns(p.clone(), s(), baton_sheet::column_name(at), n)
        }
        Edit::Width => tool.set_column_width(p.clone(), s(), "B".into(), 30.5),
        Edit::Freeze => tool.freeze_panes(p.clone(), s(), "B3".into()),
        Edit::Header => tool.format_header_row(p.clone(), s(), 1),
    };
    if let Err(e) = edited {
        return Outcome::Refused(format!("edit: {e}"));
    }
    match tool.save(p, false) {
        Ok(_) => {
            let mut job = edit.job();
            job["before"] = json!(dir.join(format!("{name}.001.bak")));
            job["after"] = json!(dir.join(name));
            job["sheet"] = json!(sheet);
            Outcome::Saved(job)
        }
        Err(e) => Outcome::Refused(format!("save: {e}")),
    }
}

/// openpyxl's verdict on each job, in order.
fn judge(jobs: &[Value]) -> Vec<Value> {
    let mut child = Command::new(venv_python())
        .arg(common::root().join("scripts/workbook_judge.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines: String = jobs.iter().map(|j| format!("{j}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(lines.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the judge failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Refusals by kind, each with its file and reason.
type Refusals = BTreeMap<String, Vec<String>>;

/// Runs one kind of edit over the corpus: how many saved, the judge's
/// problems, and the refusals.
fn run(edit: Edit) -> (usize, Vec<String>, Refusals) {
    let files = workbooks();
    assert!(
        files.len() >= 90,
        "the corpus has {} workbooks",
        files.len()
    );
    let dirs: Vec<tempfile::TempDir> = files.iter().map(|_| tempfile::tempdir().unwrap()).collect();
    let (mut jobs, mut refused) = (Vec::new(), Refusals::new());
    for (file, dir) in files.iter().zip(&dirs) {
        match edit_and_save(file, dir.path(), edit) {
            Outcome::Saved(job) => jobs.push(job),
            Outcome::Refused(why) => {
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                refused
                    .entry(reason_kind(&why))
                    .or_default()
                    .push(format!("{name}: {why}"));
            }
        }
    }
    let problems = judge(&jobs)
        .into_iter()
        .filter(|v| v["problem"].is_string())
        .map(|v| format!("{}: {}", v["after"], v["problem"]))
        .collect();
    (jobs.len(), problems, refused)
}

/// A refusal's kind, for counting.
fn reason_kind(why: &str) -> String {
    why.split([':', '(']).take(2).collect::<Vec<_>>().join(":")
}

fn report(label: &str, saved: usize, refused: &Refusals) {
    let n: usize = refused.values().map(Vec::len).sum();
    eprintln!("{label}: {saved} saved, {n} refused");
    for f in refused.values().flatten() {
        eprintln!("    {f}");
    }
}

#[test]
fn a_cell_edit_of_every_real_workbook_saves_a_file_that_opens_with_only_that_cell_changed() {
    let (saved, problems, refused) = run(Edit::Cell);
    report("cell edit", saved, &refused);
    assert!(
        problems.is_empty(),
        "damaged saves:\n{}",
        problems.join("\n")
    );
    let opened_then_refused: Vec<&String> = refused
        .iter()
        .filter(|(k, _)| !k.starts_with("open"))
        .flat_map(|(_, v)| v)
        .collect();
    assert!(
        opened_then_refused.is_empty(),
        "cell edits refused on files that open: {opened_then_refused:?}"
    );
    assert!(saved >= 85, "only {saved} saved");
}

/// Runs a structural or look edit over the corpus: files that open,
/// every value where it belongs, refusals only with their reasons, and
/// `at_least` files saved (a header needs a first row that has one: a
/// quarter of the corpus has not).
fn check(edit: Edit, at_least: usize) {
    let (saved, problems, refused) = run(edit);
    report(&format!("{edit:?}"), saved, &refused);
    for f in refused.values().flatten() {
        assert!(f.len() > 40, "a refusal without its reason: {f}");
    }
    assert!(
        problems.is_empty(),
        "damaged saves:\n{}",
        problems.join("\n")
    );
    assert!(
        saved >= at_least,
        "{edit:?}: only {saved} of the corpus saved"
    );
}

#[test]
fn a_row_inserted_in_every_real_workbook_moves_every_value() {
    check(Edit::Shift(false, 2, 1, false), 80);
}

#[test]
fn rows_deleted_in_every_real_workbook_move_every_value() {
    check(Edit::Shift(false, 3, 2, true), 80);
}

#[test]
fn a_column_inserted_in_every_real_workbook_moves_every_value() {
    check(Edit::Shift(true, 2, 1, false), 80);
}

#[test]
fn a_column_deleted_in_every_real_workbook_moves_every_value() {
    check(Edit::Shift(true, 3, 1, true), 80);
}

#[test]
fn a_column_width_set_in_every_real_workbook_changes_nothing_else() {
    check(Edit::Width, 80);
}

#[test]
fn a_header_row_styled_in_every_real_workbook_changes_no_value() {
    check(Edit::Header, 65);
}

#[test]
fn panes_frozen_in_every_real_workbook_change_nothing_else() {
    check(Edit::Freeze, 80);
}

/// A value as both readers show it: numbers as numbers, dates as the
/// day and time they stand for (an .xls may count from 1904).
fn shown(d: &calamine::Data) -> String {
    use calamine::{Data, DataType};
    match d {
        Data::DateTime(dt) => match dt.as_datetime() {
            Some(t) if !dt.is_duration() => t.to_string(),
            _ => format!("{}", dt.as_f64()),
        },
        Data::Int(_) | Data::Float(_) => format!("{}", d.as_f64().unwrap_or_default()),
        Data::Bool(b) => b.to_string(),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Error(e) => e.to_string(),
        Data::Empty => String::new(),
    }
}

/// A sheet's non-empty cells: (row, column, value shown), 0-based.
type Values = Vec<(u32, u32, String)>;

/// Every sheet's values, as calamine reads `file`.
fn values(file: &Path) -> Vec<(String, Values)> {
    use calamine::Reader;
    let mut wb = calamine::open_workbook_auto(file).unwrap();
    wb.sheet_names()
        .into_iter()
        .map(|name| {
            let range = wb.worksheet_range(&name).unwrap();
            let (r0, c0) = range.start().unwrap_or((0, 0));
            let cells = range
                .used_cells()
                .map(|(r, c, v)| (r0 + r as u32, c0 + c as u32, shown(v)))
                .filter(|c| !c.2.is_empty())
                .collect();
            (name, cells)
        })
        .collect()
}

#[test]
fn xls_and_ods_workbooks_saved_as_xlsx_keep_every_value_and_open_in_openpyxl() {
    let dir = corpus().join("foreign");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|f| f.path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "{} xls/ods files in {}",
        files.len(),
        dir.display()
    );
    let work = tempfile::tempdir().unwrap();
    let tool = SpreadsheetTool::new(Sandbox::new(work.path()).unwrap());
    let mut styled = 0;
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        std::fs::copy(file, work.path().join(name)).unwrap();
        tool.save_as(format!("/{name}"), format!("/{name}.xlsx"), false)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let saved = work.path().join(format!("{name}.xlsx"));
        for ((sheet, before), (_, after)) in values(file).iter().zip(values(&saved)) {
            let changed: Vec<_> = before.iter().filter(|c| !after.contains(c)).collect();
            let added: Vec<_> = after.iter().filter(|c| !before.contains(c)).collect();
            assert!(
                changed.is_empty() && added.is_empty(),
                "{name} {sheet}: {changed:?} became {added:?}"
            );
        }
        let seen = common::dump(&saved);
        for sheet in seen["sheets"].as_object().unwrap().values() {
            for key in [
                "number_formats",
                "fonts",
                "fills",
                "borders",
                "column_widths",
            ] {
                styled += sheet[key].as_object().map_or(0, |m| m.len());
            }
        }
    }
    eprintln!(
        "{} xls/ods saved as xlsx; {styled} formatted cells and widths",
        files.len()
    );
    assert!(
        styled > 0,
        "no format of the Excel-made .xls files came over"
    );
}
