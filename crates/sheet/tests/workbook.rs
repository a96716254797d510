//! The toolbox on new workbooks, CSV, read-only formats, backups and bad
//! input; new workbooks rendered by LibreOffice.

mod common;

use baton_sheet::{ChartKind, SheetError};
use common::{dump, pdf_text, workspace};
use serde_json::json;

#[test]
fn a_new_workbook_with_values_a_table_and_a_chart_renders_in_libreoffice() {
    let (dir, tool) = workspace(&[]);
    let p = || "/sales.xlsx".to_string();
    tool.create(p(), "Sales".into(), false).unwrap();
    let rows = json!([
        ["Month", "Units", "Price"],
        ["Jan", 120, 9.5],
        ["Feb", 135, 9.5],
        ["Mar", 150, 10.25]
    ]);
    let rows: Vec<Vec<serde_json::Value>> = serde_json::from_value(rows).unwrap();
    let edited = tool
        .set_range_values(p(), None, "A1".into(), rows, None)
        .unwrap();
    assert_eq!(edited.changed, "A1:C4");
    assert_eq!(
        edited.preview[3],
        vec![json!("Mar"), json!(150), json!(10.25)]
    );
    tool.set_cell_value(p(), None, "D1".into(), json!("Revenue"), None)
        .unwrap();
    for r in 2..=4 {
        tool.set_cell_value(
            p(),
            None,
            format!("D{r}"),
            json!(format!("=B{r}*C{r}")),
            None,
        )
        .unwrap();
    }
    tool.set_cell_value(p(), None, "E2".into(), json!("2026-12-01"), None)
        .unwrap();
    tool.set_number_format(p(), None, "C2:D4".into(), "\"$\"#,##0.00".into())
        .unwrap();
    tool.add_table(
        p(),
        None,
        "A1:D4".into(),
        "SalesTable".into(),
        "TableStyleMedium2".into(),
    )
    .unwrap();
    tool.add_chart(
        p(),
        None,
        ChartKind::Column,
        "A1:B4".into(),
        "G2".into(),
        "8x15".into(),
        Some("Units by month".into()),
    )
    .unwrap();
    tool.freeze_panes(p(), None, "A2".into()).unwrap();
    for col in ["C", "D", "E"] {
        tool.set_column_width(p(), None, col.into(), 14.0).unwrap();
    }
    tool.save(p(), false).unwrap();
    let d = dump(&dir.path().join("sales.xlsx"));
    let sales = &d["sheets"]["Sales"];
    assert_eq!(sales["cells"]["D2"], "=B2*C2");
    assert_eq!(sales["cells"]["E2"], "2026-12-01T00:00:00");
    assert_eq!(sales["number_formats"]["C2"], "\"$\"#,##0.00");
    assert_eq!(sales["tables"][0]["name"], "SalesTable");
    assert_eq!(sales["tables"][0]["ref"], "A1:D4");
    assert_eq!(
        sales["charts"].as_array().unwrap().len(),
        1,
        "{}",
        sales["charts"]
    );
    assert_eq!(sales["freeze_panes"], "A2");
    assert_eq!(d["full_calc_on_load"], true);
    let text = pdf_text(&dir.path().join("sales.xlsx"));
    for want in ["Revenue", "$1,140.00", "$1,537.50", "2026-12-01"] {
        assert!(text.contains(want), "the PDF lacks {want}:\n{text}");
    }
}

#[test]
fn describe_is_compact_and_names_what_the_sheet_has() {
    let (_dir, tool) = workspace(&["rich_lo.xlsx"]);
    let d = tool
        .describe_worksheet("/rich_lo.xlsx".into(), Some("Sales".into()))
        .unwrap();
    assert_eq!(d.header_row, Some(1));
    assert_eq!(d.column_types[0].header.as_deref(), Some("Month"));
    assert_eq!(
        d.column_types[1].kind, "mixed",
        "units and the SUM below them"
    );
    assert!(d.formulas >= 13, "{}", d.formulas);
    assert_eq!(d.tables[0].name, "SalesTable");
    assert_eq!(d.charts[0].kind, "column");
    assert!(
        d.number_formats.iter().any(|f| f.contains("0.0%")),
        "{:?}",
        d.number_formats
    );
    assert!(d.sample_rows.len() <= 6);
    assert!(serde_json::to_string(&d).unwrap().len() < 4000);
}

#[test]
fn a_chart_is_described_from_the_file_and_counted_once_the_model_cannot_hold_it() {
    let (_dir, tool) = workspace(&["rich.xlsx"]);
    let d = tool
        .describe_worksheet("/rich.xlsx".into(), Some("Sales".into()))
        .unwrap();
    assert_eq!((d.charts.len(), d.unreadable_charts), (1, 0));
    assert_eq!(d.charts[0].kind, "column");
    // A structural edit builds the model, which cannot read this chart:
    // describe then says the file has one it cannot show.
    tool.freeze_panes("/rich.xlsx".into(), Some("Sales".into()), "A2".into())
        .unwrap();
    let d = tool
        .describe_worksheet("/rich.xlsx".into(), Some("Sales".into()))
        .unwrap();
    assert_eq!((d.charts.len(), d.unreadable_charts), (0, 1));
    assert_eq!(d.frozen_at.as_deref(), Some("A2"));
    let notes = tool
        .describe_worksheet("/rich.xlsx".into(), Some("Notes".into()))
        .unwrap();
    assert_eq!(notes.unreadable_charts, 0);
}

#[test]
fn csv_opens_as_one_sheet_and_saves_as_csv_with_a_backup() {
    let (dir, tool) = workspace(&["data_semicolon.csv"]);
    let p = || "/data_semicolon.csv".to_string();
    let names = tool.get_sheet_names(p()).unwrap();
    assert_eq!(names, ["data_semicolon"]);
    let first = tool.get_range_values(p(), None, "A1:B2".into()).unwrap();
    assert!(first.values[0][0].is_string());
    tool.set_cell_value(p(), None, "A1".into(), json!("Renamed"), None)
        .unwrap();
    let saved = tool.save(p(), false).unwrap();
    assert_eq!(saved.format, "csv");
    let text = std::fs::read_to_string(dir.path().join("data_semicolon.csv")).unwrap();
    assert!(text.starts_with("Renamed,"), "{text}");
    assert!(dir.path().join("data_semicolon.csv.001.bak").exists());
}

#[test]
fn xls_and_ods_open_read_only_and_save_as_xlsx() {
    let (dir, tool) = workspace(&["budget.xls", "budget.ods"]);
    for f in ["budget.xls", "budget.ods"] {
        let p = format!("/{f}");
        let o = tool.open(p.clone()).unwrap();
        assert!(o.read_only && o.note.unwrap().contains("save_as"));
        tool.set_cell_value(p.clone(), None, "H1".into(), json!("edited"), None)
            .unwrap();
        let err = tool.save(p.clone(), false).unwrap_err();
        assert!(matches!(err, SheetError::ReadOnly(_)), "{err}");
        let out = format!("/{f}.xlsx");
        tool.save_as(p, out.clone(), false).unwrap();
        let d = dump(&dir.path().join(format!("{f}.xlsx")));
        let first = d["sheet_names"][0].as_str().unwrap().to_string();
        assert_eq!(d["sheets"][&first]["cells"]["H1"], "edited", "{f}");
    }
}

#[test]
fn a_file_restored_from_its_backup_is_read_again() {
    let (dir, tool) = workspace(&["rich_lo.xlsx"]);
    let p = || "/rich_lo.xlsx".to_string();
    let original = std::fs::read(dir.path().join("rich_lo.xlsx")).unwrap();
    tool.set_cell_value(p(), Some("Notes".into()), "C1".into(), json!(1), None)
        .unwrap();
    std::fs::set_permissions(
        dir.path().join("rich_lo.xlsx"),
        std::os::unix::fs::PermissionsExt::from_mode(0o640),
    )
    .unwrap();
    tool.save(p(), true).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(dir.path().join("rich_lo.xlsx"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o640,
        "the save keeps the file's mode"
    );
    let host = dir.path().join("rich_lo.xlsx");
    let backups = baton_stdx::list_backups(&host).unwrap();
    assert_eq!(backups.len(), 1);
    assert_eq!(backups[0].path, dir.path().join("rich_lo.xlsx.001.bak"));
    let r = baton_stdx::restore_backup(&host, None).unwrap();
    assert_eq!(r.restored_from, backups[0].path);
    assert_eq!(
        std::fs::read(dir.path().join("rich_lo.xlsx")).unwrap(),
        original
    );
    let v = tool
        .get_cell_value(p(), Some("Notes".into()), "C1".into())
        .unwrap();
    assert!(
        v.value.is_null(),
        "the restored file is read again: {:?}",
        v.value
    );
}

#[test]
fn bad_input_is_explained_and_changes_nothing() {
    let (dir, tool) = workspace(&["rich_lo.xlsx", "corrupt.docx"]);
    let e = |r: Result<_, SheetError>| r.map(|_: serde_json::Value| ()).unwrap_err().to_string();
    let t = &tool;
    let p = || "/rich_lo.xlsx".to_string();
    let cases = [
        (
            e(t.get_cell_value(p(), None, "B0".into())
                .map(|v| json!(v.value))),
            "write it like B3",
        ),
        (
            e(t.describe_worksheet(p(), Some("Nope".into()))
                .map(|_| json!(null))),
            "its sheets: Sales, Notes",
        ),
        (
            e(t.open("/../etc/passwd.xlsx".into()).map(|_| json!(null))),
            "workspace",
        ),
        (
            e(t.open("/missing.xlsx".into()).map(|_| json!(null))),
            "does not exist",
        ),
        (
            e(t.open("/corrupt.docx".into()).map(|_| json!(null))),
            "not a spreadsheet",
        ),
        (
            e(t.set_cell_value(
                p(),
                None,
                "A1".into(),
                json!("abc"),
                Some(baton_sheet::ValueType::Number),
            )
            .map(|_| json!(null))),
            "is not a number",
        ),
        (
            e(t.delete_sheet(p(), "Notes".into())
                .and_then(|_| t.delete_sheet(p(), "Sales".into()))
                .map(|_| json!(null))),
            "at least one sheet",
        ),
        (
            e(t.add_table(
                p(),
                None,
                "A1:B5".into(),
                "A1".into(),
                "TableStyleMedium2".into(),
            )
            .map(|_| json!(null))),
            "cannot be a table name",
        ),
        (
            e(t.close(p(), false).map(|_| json!(null))),
            "unsaved changes",
        ),
    ];
    for (got, want) in cases {
        assert!(got.contains(want), "{got:?} should say {want:?}");
    }
    assert_eq!(
        std::fs::read(dir.path().join("rich_lo.xlsx")).unwrap(),
        std::fs::read(common::root().join("tests/fixtures/sheets/rich_lo.xlsx")).unwrap()
    );
}

/// A number format as it shows: `"$"#,##0.00`, `\$#,##0.00` and
/// `$#,##0.00` are the same format.
fn shown(code: &serde_json::Value) -> String {
    code.as_str().unwrap_or_default().replace(['\\', '"'], "")
}

#[test]
fn xls_and_ods_saved_as_xlsx_keep_their_looks() {
    // rich.xls and rich.ods are LibreOffice's conversions of rich.xlsx:
    // saved as .xlsx they look as rich.xlsx does, judged by openpyxl.
    let (dir, tool) = workspace(&["rich.xlsx", "rich.xls", "rich.ods"]);
    let original = dump(&dir.path().join("rich.xlsx"));
    for f in ["rich.xls", "rich.ods"] {
        tool.save_as(format!("/{f}"), format!("/{f}.xlsx"), false)
            .unwrap();
        let saved = dump(&dir.path().join(format!("{f}.xlsx")));
        for sheet in ["Sales", "Notes"] {
            let (o, s) = (&original["sheets"][sheet], &saved["sheets"][sheet]);
            for key in ["fonts", "fills", "borders", "alignments", "merged"] {
                assert_eq!(o[key], s[key], "{f} {sheet} {key}");
            }
            let formats = |d: &serde_json::Value| -> Vec<(String, String)> {
                let map = d["number_formats"].as_object().unwrap();
                map.iter().map(|(k, v)| (k.clone(), shown(v))).collect()
            };
            assert_eq!(formats(o), formats(s), "{f} {sheet} number formats");
            assert!(!formats(o).is_empty() || sheet == "Notes");
            for (col, width) in o["column_widths"].as_object().unwrap() {
                let (want, got) = (width.as_f64().unwrap(), s["column_widths"][col].as_f64());
                // .xls keeps the default width in whole characters (the
                // original's 9 is written as 8, which Excel shows as 8.71).
                assert!(
                    got.is_some_and(|g| (g - want).abs() < 0.3),
                    "{f} {sheet} column {col}: {got:?}, not {want}"
                );
            }
        }
    }
}
