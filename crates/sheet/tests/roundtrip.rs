//! Open → edit → save keeps everything of a real workbook: checked by
//! openpyxl (what the file holds) and LibreOffice (what it renders). Cell
//! edits are written into the file itself; structural edits go through
//! the model, and what it cannot keep is named and never silently lost.

mod common;

use baton_sheet::SheetError;
use common::{dump, missing, pdf_text, workspace};
use serde_json::{Value, json};

/// What a save may change in openpyxl's view: the part list, the
/// recalculate flag (set on purpose), the file, the used range.
const REWRITTEN: &[&str] = &["/parts", "/full_calc_on_load", "/file", "/dimensions"];

/// Sets a new column (text, a number, a formula, a date) and a number
/// format on `sheet` of `file`, saves, and returns openpyxl's view
/// before and after.
fn edit_cells_and_save(file: &str, sheet: &str) -> (tempfile::TempDir, Value, Value) {
    let (dir, tool) = workspace(&[file]);
    let host = dir.path().join(file);
    let before = dump(&host);
    let p = || format!("/{file}");
    let s = || Some(sheet.to_string());
    let edited = tool
        .set_cell_value(p(), s(), "G1".into(), json!("Shipping"), None)
        .unwrap();
    assert_eq!((edited.changed.as_str(), edited.saved), ("G1", false));
    tool.set_cell_value(p(), s(), "G2".into(), json!(4.5), None)
        .unwrap();
    tool.set_cell_value(p(), s(), "G3".into(), json!("=G2*2"), None)
        .unwrap();
    tool.set_cell_value(p(), s(), "G4".into(), json!("2026-12-01"), None)
        .unwrap();
    tool.set_number_format(p(), s(), "G2".into(), "0.00%".into())
        .unwrap();
    let saved = tool.save(p(), false).unwrap();
    assert_eq!(saved.backup, Some(format!("/{file}.001.bak")));
    assert!(saved.dropped.is_empty(), "{:?}", saved.dropped);
    let original = std::fs::read(common::root().join("tests/fixtures/sheets").join(file)).unwrap();
    assert_eq!(
        std::fs::read(dir.path().join(format!("{file}.001.bak"))).unwrap(),
        original
    );
    let after = dump(&host);
    let cells = &after["sheets"][sheet]["cells"];
    assert_eq!(
        (&cells["G1"], &cells["G2"], &cells["G3"]),
        (&json!("Shipping"), &json!(4.5), &json!("=G2*2"))
    );
    assert_eq!(cells["G4"], "2026-12-01T00:00:00");
    assert_eq!(after["sheets"][sheet]["number_formats"]["G2"], "0.00%");
    assert_eq!(after["sheets"][sheet]["number_formats"]["G4"], "yyyy-mm-dd");
    assert_eq!(after["full_calc_on_load"], true);
    (dir, before, after)
}

fn assert_kept(before: &Value, after: &Value, sheet: &str) {
    let mut lost = Vec::new();
    let skip: Vec<String> = ["G1", "G2", "G3", "G4"]
        .iter()
        .map(|c| format!("/{sheet}/cells/{c}"))
        .collect();
    let skip: Vec<&str> = REWRITTEN
        .iter()
        .copied()
        .chain(skip.iter().map(String::as_str))
        .collect();
    missing(before, after, "", &skip, &mut lost);
    assert!(lost.is_empty(), "lost in the save:\n{}", lost.join("\n"));
}

#[test]
fn cell_edits_of_an_openpyxl_workbook_keep_every_element_and_render() {
    let (dir, before, after) = edit_cells_and_save("rich.xlsx", "Sales");
    assert_kept(&before, &after, "Sales");
    let text = pdf_text(&dir.path().join("rich.xlsx"));
    let shipping = text
        .lines()
        .find(|l| l.contains("February"))
        .unwrap_or_default();
    let words: Vec<&str> = shipping.split_whitespace().collect();
    assert!(
        words.windows(2).any(|w| w == ["$1,721.25", "9"]),
        "LibreOffice computes =G2*2 on open: {shipping}"
    );
    for want in ["Shipping", "450.00%", "Units by month", "Total units"] {
        assert!(text.contains(want), "the PDF lacks {want}:\n{text}");
    }
}

#[test]
fn cell_edits_wait_for_the_save_and_give_dates_a_format_only_where_none_shows_dates() {
    let (dir, tool) = workspace(&["rich.xlsx"]);
    let host = dir.path().join("rich.xlsx");
    let before = dump(&host);
    let p = || "/rich.xlsx".to_string();
    let s = || Some("Sales".to_string());
    let block = json!([["Shipping", "When"], [4.5, "2026-12-01"]]);
    let values: Vec<Vec<Value>> = serde_json::from_value(block.clone()).unwrap();
    let edited = tool
        .set_range_values(p(), s(), "G1".into(), values, None)
        .unwrap();
    assert_eq!(
        (edited.changed.as_str(), json!(edited.preview)),
        ("G1:H2", block)
    );
    // E has a date format already (kept); D shows percentages (a date
    // there gets yyyy-mm-dd); B3 is emptied, keeping its style.
    tool.set_cell_value(p(), s(), "E3".into(), json!("2025-02-10"), None)
        .unwrap();
    tool.set_cell_value(p(), s(), "D3".into(), json!("2025-03-01"), None)
        .unwrap();
    tool.set_cell_value(p(), s(), "B3".into(), Value::Null, None)
        .unwrap();
    let wrong = tool.set_cell_value(
        p(),
        s(),
        "B4".into(),
        json!("many"),
        Some(baton_sheet::ValueType::Number),
    );
    assert!(wrong.unwrap_err().to_string().contains("is not a number"));
    let opened = tool.open(p()).unwrap();
    let sales = opened.sheets.iter().find(|s| s.name == "Sales").unwrap();
    assert!(opened.unsaved_changes);
    assert!(
        sales.used_range.as_deref().unwrap().contains(":H"),
        "{:?}",
        sales.used_range
    );
    tool.save(p(), false).unwrap();
    let after = dump(&host);
    let sheet = &after["sheets"]["Sales"];
    let cells = &sheet["cells"];
    assert_eq!(
        [
            &cells["G1"],
            &cells["H1"],
            &cells["G2"],
            &cells["H2"],
            &cells["E3"],
            &cells["D3"],
            &cells["B4"]
        ],
        [
            &json!("Shipping"),
            &json!("When"),
            &json!(4.5),
            &json!("2026-12-01T00:00:00"),
            &json!("2025-02-10T00:00:00"),
            &json!("2025-03-01T00:00:00"),
            &json!(150)
        ]
    );
    assert!(
        cells.get("B3").is_none_or(Value::is_null),
        "{}",
        cells["B3"]
    );
    let formats = &sheet["number_formats"];
    assert_eq!(
        (&formats["H2"], &formats["E3"], &formats["D3"]),
        (
            &json!("yyyy-mm-dd"),
            &json!("yyyy-mm-dd"),
            &json!("yyyy-mm-dd")
        )
    );
    let mut lost = Vec::new();
    let edited: Vec<String> = ["G1", "H1", "G2", "H2", "E3", "D3", "B3"]
        .iter()
        .flat_map(|c| {
            [
                format!("/Sales/cells/{c}"),
                format!("/Sales/number_formats/{c}"),
            ]
        })
        .collect();
    let skip: Vec<&str> = REWRITTEN
        .iter()
        .copied()
        .chain(edited.iter().map(String::as_str))
        .collect();
    missing(&before, &after, "", &skip, &mut lost);
    assert!(lost.is_empty(), "lost in the save:\n{}", lost.join("\n"));
    // Read back in the same toolbox (the model is built now): the saved
    // values, the date a date.
    let e3 = tool.get_cell_value(p(), s(), "E3".into()).unwrap();
    assert_eq!((e3.value, e3.kind), (json!("2025-02-10"), "date"));
}

#[test]
fn cell_edits_read_back_before_the_save_and_survive_a_structural_edit() {
    let (dir, tool) = workspace(&["budget.xlsx"]);
    let p = || "/budget.xlsx".to_string();
    let s = || None;
    tool.set_cell_value(p(), s(), "K8".into(), json!("2026-01-31"), None)
        .unwrap();
    let c8 = tool.get_cell_value(p(), s(), "K8".into()).unwrap();
    assert_eq!(
        (c8.value, c8.kind, c8.number_format.as_deref()),
        (json!("2026-01-31"), "date", Some("yyyy-mm-dd"))
    );
    tool.set_cell_value(p(), s(), "K9".into(), json!("=K8+1"), None)
        .unwrap();
    tool.set_column_width(p(), s(), "K".into(), 18.0).unwrap();
    let names = tool.get_sheet_names(p()).unwrap();
    tool.save_as(p(), "/copy.xlsx".into(), false).unwrap();
    let cells = &dump(&dir.path().join("copy.xlsx"))["sheets"][&names[0]]["cells"];
    assert_eq!(
        (&cells["K8"], &cells["K9"]),
        (&json!("2026-01-31T00:00:00"), &json!("=K8+1"))
    );
}

#[test]
fn cell_edits_of_a_libreoffice_workbook_keep_every_element() {
    let (_dir, before, after) = edit_cells_and_save("rich_lo.xlsx", "Notes");
    assert_kept(&before, &after, "Notes");
}

#[test]
fn cell_edits_keep_a_pivot_table_and_a_link_to_another_workbook() {
    for (file, sheet) in [("pivot.xlsx", None), ("external_link.xlsx", Some("Sales"))] {
        let (_dir, tool) = workspace(&[file]);
        let sheet = sheet
            .map(str::to_string)
            .unwrap_or_else(|| tool.get_sheet_names(format!("/{file}")).unwrap()[0].clone());
        let (_dir, before, after) = edit_cells_and_save(file, &sheet);
        assert_kept(&before, &after, &sheet);
    }
}

#[test]
fn rows_inserted_and_deleted_in_place_move_every_reference_and_keep_the_chart() {
    let (dir, tool) = workspace(&["rich.xlsx"]);
    let host = dir.path().join("rich.xlsx");
    let before = dump(&host);
    let p = || "/rich.xlsx".to_string();
    let s = || Some("Sales".to_string());
    tool.insert_rows(p(), s(), 5, 3).unwrap();
    tool.set_cell_value(p(), s(), "A5".into(), json!("Inserted"), None)
        .unwrap();
    tool.delete_rows(p(), s(), 6, 1).unwrap();
    let saved = tool.save(p(), false).unwrap();
    assert!(saved.dropped.is_empty(), "{:?}", saved.dropped);
    assert!(!saved.whole_workbook, "written into the file itself");
    let after = dump(&host);
    let (b, a) = (&before["sheets"]["Sales"], &after["sheets"]["Sales"]);
    // Rows 5.. moved down by 2; the edit made between the two is kept.
    assert_eq!(a["cells"]["A5"], "Inserted");
    assert_eq!(a["cells"]["A7"], b["cells"]["A5"]);
    assert_eq!(a["cells"]["A15"], b["cells"]["A13"]);
    assert_eq!(a["cells"]["B16"], "=SUM(B2:B15)");
    assert_eq!(a["cells"]["F9"], "=B9*C9", "a formula follows its row");
    assert_eq!(a["fonts"]["A16"], b["fonts"]["A14"]);
    assert_eq!(a["number_formats"]["C15"], b["number_formats"]["C13"]);
    assert_eq!(a["merged"], json!(["A18:D18"]));
    assert_eq!(a["tables"][0]["ref"], "A1:F15");
    assert_eq!(a["conditional_formatting"][0]["range"], "B2:B15");
    assert_eq!(a["print_area"], "'Sales'!$A$1:$Q$20");
    assert_eq!(a["charts"], b["charts"], "the chart is kept");
    assert_eq!(a["column_widths"], b["column_widths"]);
    assert_eq!(a["freeze_panes"], "A2");
    assert_eq!(after["defined_names"]["TotalUnits"]["value"], "Sales!$B$16");
    assert_eq!(after["sheets"]["Notes"], before["sheets"]["Notes"]);
    let chart = {
        let mut z = zip::ZipArchive::new(std::fs::File::open(&host).unwrap()).unwrap();
        let mut s = String::new();
        std::io::Read::read_to_string(&mut z.by_name("xl/charts/chart1.xml").unwrap(), &mut s)
            .unwrap();
        s
    };
    assert!(chart.contains("'Sales'!$B$2:$B$15"), "{chart}");
}

#[test]
fn a_structural_edit_that_would_drop_a_chart_is_refused_and_save_as_says_what_it_dropped() {
    let (dir, tool) = workspace(&["rich.xlsx"]);
    let original = std::fs::read(dir.path().join("rich.xlsx")).unwrap();
    // A new sheet goes through umya-spreadsheet's model, which cannot
    // write the chart back.
    tool.add_sheet("/rich.xlsx".into(), "More".into()).unwrap();
    let err = tool.save("/rich.xlsx".into(), false).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, SheetError::WouldLose { .. }), "{msg}");
    assert!(
        msg.contains("1 chart(s)") && msg.contains("save_as"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("rich.xlsx")).unwrap(),
        original,
        "the file is untouched"
    );
    let saved = tool
        .save_as("/rich.xlsx".into(), "/rich-edited.xlsx".into(), false)
        .unwrap();
    assert!(
        saved.dropped.iter().any(|d| d.contains("chart")),
        "{:?}",
        saved.dropped
    );
    assert!(saved.whole_workbook);
    assert_eq!(
        std::fs::read(dir.path().join("rich.xlsx")).unwrap(),
        original,
        "save_as leaves the original"
    );
    let moved = tool
        .get_cell_value(
            "/rich-edited.xlsx".into(),
            Some("Sales".into()),
            "A1".into(),
        )
        .unwrap();
    assert_eq!(moved.value, "Month", "the new file is the open workbook");
    // What was kept is readable: openpyxl reads the copy, its picture too.
    let copy = dump(&dir.path().join("rich-edited.xlsx"));
    assert_eq!(
        copy["sheets"]["Notes"]["cells"]["A1"],
        "Notes for the sales sheet"
    );
    assert_eq!(copy["sheets"]["Notes"]["images"], json!([{"anchor": "D3"}]));
}

#[test]
fn features_baton_cannot_keep_are_named_on_open_and_a_forced_structural_save_drops_them() {
    let (dir, tool) = workspace(&["external_link.xlsx"]);
    let opened = tool.open("/external_link.xlsx".into()).unwrap();
    assert_eq!(opened.cannot_keep[0].feature, "links to other workbooks");
    assert!(opened.note.unwrap().contains("save_as"));
    tool.add_sheet("/external_link.xlsx".into(), "More".into())
        .unwrap();
    let err = tool
        .save("/external_link.xlsx".into(), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("links to other workbooks") && err.contains("force=true"),
        "{err}"
    );
    let saved = tool.save("/external_link.xlsx".into(), true).unwrap();
    assert!(!saved.dropped.is_empty());
    assert!(dir.path().join("external_link.xlsx.001.bak").exists());
    let reopened = tool.open("/external_link.xlsx".into()).unwrap();
    assert!(
        reopened.cannot_keep.is_empty(),
        "{:?}",
        reopened.cannot_keep
    );
}

#[test]
fn a_structural_save_that_would_drop_markup_inside_a_sheet_is_refused() {
    // umya-spreadsheet drops a list validation's values (Notes!B8) and a
    // custom palette: no part goes missing, so the markup is compared.
    let (dir, tool) = workspace(&["rich_lo.xlsx"]);
    let original = std::fs::read(dir.path().join("rich_lo.xlsx")).unwrap();
    tool.add_sheet("/rich_lo.xlsx".into(), "Extra".into())
        .unwrap();
    let err = tool
        .save("/rich_lo.xlsx".into(), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sheet `Notes`: data validation rules"),
        "{err}"
    );
    assert!(err.contains("a custom colour palette"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("rich_lo.xlsx")).unwrap(),
        original
    );
}
