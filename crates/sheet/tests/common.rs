//! Helpers of the spreadsheet tests: a workspace with fixture copies,
//! and openpyxl's view of a workbook (scripts/sheet_dump.py in the
//! fixtures' virtualenv, installed by `make test`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use baton_sheet::SpreadsheetTool;
use baton_tools::Sandbox;
use serde_json::Value;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../..")
}

/// A temporary workspace holding copies of `fixtures` (from
/// tests/fixtures/sheets or docs), and a toolbox on it.
pub fn workspace(fixtures: &[&str]) -> (tempfile::TempDir, SpreadsheetTool) {
    let dir = tempfile::tempdir().unwrap();
    for f in fixtures {
        let sheets = root().join("tests/fixtures/sheets").join(f);
        let src = if sheets.exists() {
            sheets
        } else {
            root().join("tests/fixtures/docs").join(f)
        };
        std::fs::copy(&src, dir.path().join(f))
            .unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    }
    let tool = SpreadsheetTool::new(Sandbox::new(dir.path()).unwrap());
    (dir, tool)
}

use baton_test_support::venv_python;

/// Everything openpyxl sees in `file`.
pub fn dump(file: &Path) -> Value {
    let out = Command::new(venv_python())
        .arg(root().join("scripts/sheet_dump.py"))
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sheet_dump {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `file` converted to PDF by LibreOffice, then to text by pdftotext.
pub fn pdf_text(file: &Path) -> String {
    let out_dir = tempfile::tempdir().unwrap();
    let profile = format!(
        "-env:UserInstallation=file://{}/profile",
        out_dir.path().display()
    );
    let st = Command::new("soffice")
        .args([
            profile.as_str(),
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
        ])
        .arg(out_dir.path())
        .arg(file)
        .output()
        .expect("LibreOffice (soffice) is installed by scripts/make-fixtures.sh --tools-only");
    let pdf = out_dir
        .path()
        .join(file.with_extension("pdf").file_name().unwrap());
    assert!(
        pdf.exists(),
        "LibreOffice made no PDF of {}: {}",
        file.display(),
        String::from_utf8_lossy(&st.stderr)
    );
    let text = Command::new("pdftotext")
        .args(["-layout"])
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap();
    String::from_utf8_lossy(&text.stdout).into_owned()
}

/// Every entry of `before` (a dump object) is in `after` with the same
/// value, except keys in `skip`; the differences, as lines.
pub fn missing(before: &Value, after: &Value, at: &str, skip: &[&str], out: &mut Vec<String>) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (k, v) in b {
                let here = format!("{at}/{k}");
                if skip.iter().any(|s| here.ends_with(s)) {
                    continue;
                }
                match a.get(k) {
                    Some(av) => missing(v, av, &here, skip, out),
                    None => out.push(format!("{here}: gone (was {v})")),
                }
            }
        }
        (b, a) if b != a => out.push(format!("{at}: {b} became {a}")),
        _ => {}
    }
}
