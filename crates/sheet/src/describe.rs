//! describe_worksheet: a sheet in a few hundred tokens — its used range,
//! header, column types, a few sample rows, formulas, merged ranges,
//! tables, charts and number formats — however many rows it has.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use umya_spreadsheet::Worksheet;

use crate::addr::{Cell, Range, column_name};
use crate::values::{is_date_format, read_value, type_word};

/// Sample rows shown after the header.
const SAMPLE_ROWS: u32 = 5;
/// Columns described (the widest sheets are summarised).
const MAX_COLUMNS: u32 = 50;

/// One column of a sheet.
#[derive(Debug, Serialize)]
pub struct ColumnInfo {
    /// Its letter.
    pub column: String,
    /// The header cell's text, if the sheet has a header row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// `number`, `text`, `date`, `bool`, `formula`, `mixed` or `empty`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Non-empty cells below the header.
    pub filled: u32,
}

/// A table (Excel's "Format as Table").
#[derive(Debug, Serialize)]
pub struct TableInfo {
    /// Its name.
    pub name: String,
    /// Its range.
    pub range: String,
    /// Its style, e.g. `TableStyleMedium2`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
}

/// A chart on the sheet.
#[derive(Debug, Serialize)]
pub struct ChartInfo {
    /// Its type: column, bar, line, pie, scatter, area, …
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The cell its top-left corner sits on.
    pub anchor: String,
}

/// What describe_worksheet answers.
#[derive(Debug, Serialize)]
pub struct Description {
    /// The sheet.
    pub sheet: String,
    /// The used range (`A1:F13`), absent when the sheet is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_range: Option<String>,
    /// Rows in the used range.
    pub rows: u32,
    /// Columns in the used range.
    pub columns: u32,
    /// The header row's number, when the first row reads as one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_row: Option<u32>,
    /// Each column (the first 50).
    pub column_types: Vec<ColumnInfo>,
    /// The first rows after the header, and the last row.
    pub sample_rows: BTreeMap<u32, Vec<Value>>,
    /// Cells with formulas.
    pub formulas: usize,
    /// Merged ranges (the first 20).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<String>,
    /// Tables.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<TableInfo>,
    /// Charts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<ChartInfo>,
    /// Charts the file has on this sheet that Baton cannot read (cell
    /// edits keep them; a structural save over the file is refused).
    #[serde(skip_serializing_if = "is_zero")]
    pub unreadable_charts: usize,
    /// Number formats in use (other than General).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub number_formats: BTreeSet<String>,
    /// The first unfrozen cell, when panes are frozen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frozen_at: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Per-column tallies.
#[derive(Default)]
struct Tally {
    kinds: BTreeMap<&'static str, u32>,
}

/// Describes `ws` without reading more than its cells once.
pub fn describe(ws: &Worksheet) -> Description {
    let (cols, rows) = ws.highest_column_and_row();
    let header_row = header_row(ws, cols);
    let mut tallies: BTreeMap<u32, Tally> = BTreeMap::new();
    let mut formulas = 0;
    let mut number_formats = BTreeSet::new();
    let first_data = header_row.map_or(1, |h| h + 1);
    for cell in ws.collection_to_hashmap().values() {
        let at = Cell {
            col: cell.coordinate().col_num(),
            row: cell.coordinate().row_num(),
        };
        let date = match cell.style().number_format().map(|f| f.format_code()) {
            Some(code) if code != "General" => {
                if number_formats.len() < 30 {
                    number_formats.insert(code.to_string());
                }
                is_date_format(code)
            }
            _ => false,
        };
        if cell.is_formula() {
            formulas += 1;
        }
        if at.row < first_data || at.col > MAX_COLUMNS {
            continue;
        }
        let kind = if cell.is_formula() {
            "formula"
        } else {
            type_word(&read_value(ws, at), date)
        };
        if kind != "empty" {
            *tallies
                .entry(at.col)
                .or_default()
                .kinds
                .entry(kind)
                .or_default() += 1;
        }
    }
    Description {
        sheet: ws.name().to_string(),
        used_range: (rows > 0 && cols > 0).then(|| {
            Range::new(
                Cell { col: 1, row: 1 },
                Cell {
                    col: cols,
                    row: rows,
                },
            )
            .to_string()
        }),
        rows,
        columns: cols,
        header_row,
        column_types: column_types(ws, cols, header_row, &tallies),
        sample_rows: samples(ws, cols.min(MAX_COLUMNS), first_data, rows),
        formulas,
        merged: ws
            .merge_cells()
            .iter()
            .take(20)
            .map(|r| r.range())
            .collect(),
        tables: tables(ws),
        charts: charts(ws),
        unreadable_charts: 0,
        number_formats,
        frozen_at: frozen_at(ws),
    }
}

/// Row 1 is a header when it has text in most of its filled cells and
/// the row below has something.
fn header_row(ws: &Worksheet, cols: u32) -> Option<u32> {
    let firsts: Vec<Value> = (1..=cols.min(MAX_COLUMNS))
        .map(|c| read_value(ws, Cell { col: c, row: 1 }))
        .collect();
    let filled = firsts.iter().filter(|v| !v.is_null()).count();
    let text = firsts.iter().filter(|v| v.is_string()).count();
    (filled > 0 && text * 2 > filled && ws.highest_row() > 1).then_some(1)
}

fn column_types(
    ws: &Worksheet,
    cols: u32,
    header: Option<u32>,
    tallies: &BTreeMap<u32, Tally>,
) -> Vec<ColumnInfo> {
    (1..=cols.min(MAX_COLUMNS))
        .map(|col| {
            let t = tallies.get(&col);
            let filled = t.map_or(0, |t| t.kinds.values().sum());
            let kind = match t.map(|t| t.kinds.len()).unwrap_or(0) {
                0 => "empty".to_string(),
                1 => t
                    .and_then(|t| t.kinds.keys().next())
                    .map(|k| k.to_string())
                    .unwrap_or_default(),
                _ => "mixed".to_string(),
            };
            let header = header.and_then(|h| match read_value(ws, Cell { col, row: h }) {
                Value::String(s) => Some(s),
                Value::Null => None,
                other => Some(other.to_string()),
            });
            ColumnInfo {
                column: column_name(col),
                header,
                kind,
                filled,
            }
        })
        .collect()
}

fn samples(ws: &Worksheet, cols: u32, first: u32, last: u32) -> BTreeMap<u32, Vec<Value>> {
    let row = |r: u32| {
        (1..=cols)
            .map(|c| read_value(ws, Cell { col: c, row: r }))
            .collect::<Vec<_>>()
    };
    let mut out = BTreeMap::new();
    for r in first..(first + SAMPLE_ROWS).min(last + 1) {
        out.insert(r, row(r));
    }
    if last >= first + SAMPLE_ROWS {
        out.insert(last, row(last));
    }
    out
}

fn tables(ws: &Worksheet) -> Vec<TableInfo> {
    ws.tables()
        .iter()
        .map(|t| {
            let (a, b) = t.area();
            TableInfo {
                name: t.name().to_string(),
                range: Range::new(
                    Cell {
                        col: a.col_num(),
                        row: a.row_num(),
                    },
                    Cell {
                        col: b.col_num(),
                        row: b.row_num(),
                    },
                )
                .to_string(),
                style: t.style_info().map(|s| s.name().to_string()),
            }
        })
        .collect()
}

fn charts(ws: &Worksheet) -> Vec<ChartInfo> {
    ws.chart_collection()
        .iter()
        .map(|c| ChartInfo {
            kind: chart_kind(c),
            anchor: c.coordinate(),
        })
        .collect()
}

/// The kind of a chart, in add_chart's words.
pub fn chart_kind(chart: &umya_spreadsheet::Chart) -> &'static str {
    let p = chart.chart_space().chart().plot_area();
    if let Some(b) = p.bar_chart() {
        return if matches!(
            b.bar_direction().val(),
            umya_spreadsheet::drawing::charts::BarDirectionValues::Bar
        ) {
            "bar"
        } else {
            "column"
        };
    }
    let kinds: [(bool, &'static str); 8] = [
        (p.bar_3d_chart().is_some(), "column"),
        (
            p.line_chart().is_some() || p.line_3d_chart().is_some(),
            "line",
        ),
        (
            p.pie_chart().is_some() || p.pie_3d_chart().is_some() || p.of_pie_chart().is_some(),
            "pie",
        ),
        (p.doughnut_chart().is_some(), "doughnut"),
        (p.scatter_chart().is_some(), "scatter"),
        (
            p.area_chart().is_some() || p.area_3d_chart().is_some(),
            "area",
        ),
        (p.radar_chart().is_some(), "radar"),
        (p.bubble_chart().is_some(), "bubble"),
    ];
    kinds
        .iter()
        .find(|(yes, _)| *yes)
        .map_or("other", |(_, k)| k)
}

fn frozen_at(ws: &Worksheet) -> Option<String> {
    let view = ws.sheets_views().sheet_view_list().first()?;
    let pane = view.pane()?;
    matches!(pane.state(), umya_spreadsheet::PaneStateValues::Frozen)
        .then(|| pane.top_left_cell().to_string())
}
