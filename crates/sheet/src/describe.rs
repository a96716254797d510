//! describe_worksheet: a sheet in a few hundred tokens — its used range,
//! header, column types, a few sample rows, formulas, merged ranges,
//! tables, charts and number formats — however many rows it has.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use quick_xml::events::Event;
use serde::Serialize;
use serde_json::Value;
use umya_spreadsheet::Worksheet;

use crate::addr::{Cell, Range, column_name};
use crate::opc::{self, Zip};
use crate::scan::{self, StyleTable};
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

/// What describe learns cell by cell, whichever reader walks the cells.
#[derive(Default)]
struct Gather {
    /// Kinds per column below row 1.
    data: BTreeMap<u32, Tally>,
    /// Kinds per column in row 1 (data unless it is the header).
    first: BTreeMap<u32, Tally>,
    formulas: usize,
    number_formats: BTreeSet<String>,
}

impl Gather {
    /// One cell: its kind (`formula`, or its value's type word), and its
    /// number format.
    fn cell(&mut self, at: Cell, kind: &'static str, formula: bool, code: Option<&str>) {
        if let Some(code) = code.filter(|c| *c != "General")
            && self.number_formats.len() < 30
            && !self.number_formats.contains(code)
        {
            self.number_formats.insert(code.to_string());
        }
        if formula {
            self.formulas += 1;
        }
        if at.col > MAX_COLUMNS || kind == "empty" {
            return;
        }
        let tallies = if at.row <= 1 {
            &mut self.first
        } else {
            &mut self.data
        };
        *tallies
            .entry(at.col)
            .or_default()
            .kinds
            .entry(kind)
            .or_default() += 1;
    }

    /// The tallies of the data rows: row 1 counts unless it is the header.
    fn tallies(mut self, header: Option<u32>) -> BTreeMap<u32, Tally> {
        if header.is_none() {
            for (col, t) in std::mem::take(&mut self.first) {
                let into = &mut self.data.entry(col).or_default().kinds;
                for (k, n) in t.kinds {
                    *into.entry(k).or_default() += n;
                }
            }
        }
        self.data
    }
}

/// What a description has besides its cells.
struct Extras {
    merged: Vec<String>,
    tables: Vec<TableInfo>,
    charts: Vec<ChartInfo>,
    frozen_at: Option<String>,
}

/// The shape of a sheet, as read.
struct Shape<'a> {
    sheet: &'a str,
    cols: u32,
    rows: u32,
}

/// Describes `ws` (the model) without reading more than its cells once.
pub fn describe(ws: &Worksheet) -> Description {
    let (cols, rows) = ws.highest_column_and_row();
    let mut g = Gather::default();
    for cell in ws.collection_to_hashmap().values() {
        let at = Cell {
            col: cell.coordinate().col_num(),
            row: cell.coordinate().row_num(),
        };
        let code = cell.style().number_format().map(|f| f.format_code());
        let date = code.is_some_and(|c| c != "General" && is_date_format(c));
        let kind = if cell.is_formula() {
            "formula"
        } else {
            type_word(&read_value(ws, at), date)
        };
        g.cell(at, kind, cell.is_formula(), code);
    }
    let width = cols.min(MAX_COLUMNS);
    let row_of = |r: u32| {
        (1..=width)
            .map(|c| read_value(ws, Cell { col: c, row: r }))
            .collect::<Vec<_>>()
    };
    let extras = Extras {
        merged: ws
            .merge_cells()
            .iter()
            .take(20)
            .map(|r| r.range())
            .collect(),
        tables: tables(ws),
        charts: charts(ws),
        frozen_at: frozen_at(ws),
    };
    let shape = Shape {
        sheet: ws.name(),
        cols,
        rows,
    };
    assemble(shape, g, &row_of, extras)
}

/// Describes the sheet `name` stored in `part` of an unedited package,
/// streaming its cells once (no model is built).
pub(crate) fn describe_part(
    zip: &mut Zip<'_>,
    name: &str,
    part: &str,
) -> Result<Description, String> {
    let styles = StyleTable::read(zip);
    let strings = scan::shared_strings(zip)?;
    let mut g = Gather::default();
    let (mut cols, mut rows) = (0u32, 0u32);
    let mut early: BTreeMap<u32, BTreeMap<u32, Value>> = BTreeMap::new();
    let mut last: (u32, BTreeMap<u32, Value>) = (0, BTreeMap::new());
    let meta = scan::walk(zip, part, |c| {
        (cols, rows) = (cols.max(c.at.col), rows.max(c.at.row));
        let format = styles.format(c.s);
        let value = c.value(&styles, &strings);
        let kind = if c.formula {
            "formula"
        } else {
            type_word(&value, format.is_some_and(|f| f.1))
        };
        g.cell(c.at, kind, c.formula, format.map(|f| f.0));
        if c.at.col > MAX_COLUMNS {
            return;
        }
        if c.at.row <= 1 + SAMPLE_ROWS {
            early
                .entry(c.at.row)
                .or_default()
                .insert(c.at.col, value.clone());
        }
        if c.at.row > last.0 {
            last = (c.at.row, BTreeMap::new());
        }
        if c.at.row == last.0 {
            last.1.insert(c.at.col, value);
        }
    })?;
    let width = cols.min(MAX_COLUMNS);
    let row_of = |r: u32| {
        let cells = if r == last.0 {
            Some(&last.1)
        } else {
            early.get(&r)
        };
        (1..=width)
            .map(|c| {
                cells
                    .and_then(|m| m.get(&c))
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect::<Vec<_>>()
    };
    let extras = Extras {
        merged: meta.merged,
        tables: tables_in(zip, part),
        charts: charts_in(zip, part),
        frozen_at: meta.frozen_at,
    };
    let shape = Shape {
        sheet: name,
        cols,
        rows,
    };
    Ok(assemble(shape, g, &row_of, extras))
}

/// A description from what the cells gave and the sheet's other parts.
fn assemble(
    shape: Shape<'_>,
    g: Gather,
    row_of: &dyn Fn(u32) -> Vec<Value>,
    extras: Extras,
) -> Description {
    let Shape { sheet, cols, rows } = shape;
    let firsts = row_of(1);
    let header_row = header_row(&firsts, rows);
    let first_data = header_row.map_or(1, |h| h + 1);
    let (formulas, number_formats) = (g.formulas, g.number_formats.clone());
    let tallies = g.tallies(header_row);
    Description {
        sheet: sheet.to_string(),
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
        column_types: column_types(cols, header_row.map(|_| firsts.as_slice()), &tallies),
        sample_rows: samples(row_of, first_data, rows),
        formulas,
        merged: extras.merged,
        tables: extras.tables,
        charts: extras.charts,
        unreadable_charts: 0,
        number_formats,
        frozen_at: extras.frozen_at,
    }
}

/// Row 1 is a header when it has text in most of its filled cells and
/// the sheet has more rows.
fn header_row(firsts: &[Value], rows: u32) -> Option<u32> {
    let filled = firsts.iter().filter(|v| !v.is_null()).count();
    let text = firsts.iter().filter(|v| v.is_string()).count();
    (filled > 0 && text * 2 > filled && rows > 1).then_some(1)
}

fn column_types(
    cols: u32,
    header: Option<&[Value]>,
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
            let header = header
                .and_then(|h| h.get(col as usize - 1))
                .and_then(|v| match v {
                    Value::String(s) => Some(s.clone()),
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

fn samples(row_of: &dyn Fn(u32) -> Vec<Value>, first: u32, last: u32) -> BTreeMap<u32, Vec<Value>> {
    let mut out = BTreeMap::new();
    for r in first..(first + SAMPLE_ROWS).min(last + 1) {
        out.insert(r, row_of(r));
    }
    if last >= first + SAMPLE_ROWS {
        out.insert(last, row_of(last));
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

/// The tables of the sheet stored in `part`, from their own parts.
fn tables_in(zip: &mut Zip<'_>, part: &str) -> Vec<TableInfo> {
    opc::linked(zip, part, "/table")
        .iter()
        .filter_map(|t| {
            let xml = opc::read_text(zip, t).ok()?;
            let mut table = opc::elements(&xml, "table").into_iter().next()?;
            let style = opc::elements(&xml, "tableStyleInfo")
                .into_iter()
                .next()
                .and_then(|mut a| a.remove("name"));
            let range = Range::parse(table.get("ref")?).ok()?;
            let name = table
                .remove("name")
                .or_else(|| table.remove("displayName"))?;
            Some(TableInfo {
                name,
                range: range.to_string(),
                style,
            })
        })
        .collect()
}

/// The charts on the sheet stored in `part`: each drawing's chart
/// anchors, and each chart part's kind.
fn charts_in(zip: &mut Zip<'_>, part: &str) -> Vec<ChartInfo> {
    let mut out = Vec::new();
    for drawing in opc::linked(zip, part, "/drawing") {
        let targets: HashMap<String, String> = opc::rels(zip, &drawing)
            .into_iter()
            .map(|r| (r.id, r.target))
            .collect();
        let Ok(xml) = opc::read_text(zip, &drawing) else {
            continue;
        };
        for (anchor, id) in chart_anchors(&xml) {
            let Some(chart) = targets.get(&id) else {
                continue;
            };
            let kind = opc::read_text(zip, chart).map_or("other", |x| plot_kind(&x));
            out.push(ChartInfo {
                kind,
                anchor: anchor.to_string(),
            });
        }
    }
    out
}

/// Each chart a drawing anchors: the cell under its top-left corner and
/// its relationship id.
fn chart_anchors(xml: &str) -> Vec<(Cell, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    let (mut from, mut in_from, mut field, mut id) = (Cell { col: 1, row: 1 }, false, "", None);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => match e.local_name().into_inner() {
                "twoCellAnchor" | "oneCellAnchor" | "absoluteAnchor" => {
                    (from, id) = (Cell { col: 1, row: 1 }, None)
                }
                "from" => in_from = true,
                "col" if in_from => field = "col",
                "row" if in_from => field = "row",
                "chart" => id = opc::attr(&e, "id"),
                _ => {}
            },
            Ok(Event::Text(t)) if !field.is_empty() => {
                let n = t.trim().parse::<u32>().unwrap_or(0) + 1;
                if field == "col" {
                    from.col = n;
                } else {
                    from.row = n;
                }
            }
            Ok(Event::End(e)) => match e.local_name().into_inner() {
                "from" => in_from = false,
                "col" | "row" => field = "",
                "twoCellAnchor" | "oneCellAnchor" | "absoluteAnchor" => {
                    out.extend(id.take().map(|id| (from, id)))
                }
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

/// The kind of the first plot in a chart part, in add_chart's words.
fn plot_kind(xml: &str) -> &'static str {
    let mut reader = quick_xml::Reader::from_str(xml);
    let (mut in_plot, mut bar) = (false, false);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => {
                let n = e.local_name().into_inner();
                if n == "plotArea" {
                    in_plot = true;
                } else if bar && n == "barDir" {
                    let across = opc::attr(&e, "val").is_some_and(|v| v == "bar");
                    return if across { "bar" } else { "column" };
                } else if in_plot && n == "barChart" {
                    bar = true;
                } else if in_plot && n.ends_with("Chart") {
                    return plot_word(n);
                }
            }
            Ok(Event::Eof) | Err(_) => return if bar { "column" } else { "other" },
            _ => {}
        }
    }
}

/// A chart element's kind, in add_chart's words.
fn plot_word(element: &str) -> &'static str {
    match element {
        "bar3DChart" => "column",
        "lineChart" | "line3DChart" => "line",
        "pieChart" | "pie3DChart" | "ofPieChart" => "pie",
        "doughnutChart" => "doughnut",
        "scatterChart" => "scatter",
        "areaChart" | "area3DChart" => "area",
        "radarChart" => "radar",
        "bubbleChart" => "bubble",
        _ => "other",
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixtures() -> Vec<PathBuf> {
        let root = PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
        )
        .join("../../tests/fixtures");
        let mut out: Vec<PathBuf> = ["sheets", "docs"]
            .iter()
            .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap().flatten())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "xlsx"))
            .collect();
        out.sort();
        assert!(out.len() >= 7, "{out:?}");
        out
    }

    /// The streamed description of every sheet of every fixture is the
    /// model's, except charts the model cannot read.
    #[test]
    fn streamed_and_model_descriptions_agree() {
        for path in fixtures() {
            let bytes = std::fs::read(&path).unwrap();
            let bytes = baton_convert::normalize_package(&bytes)
                .unwrap()
                .unwrap_or(bytes);
            let model =
                umya_spreadsheet::reader::xlsx::read_reader(std::io::Cursor::new(&bytes), true)
                    .unwrap();
            let mut zip = opc::open(&bytes).unwrap();
            for (name, part) in opc::sheet_parts(&mut zip).unwrap() {
                let streamed = describe_part(&mut zip, &name, &part).unwrap();
                let built = describe(model.sheet_by_name(&name).unwrap());
                let label = format!("{} / {name}", path.display());
                let mut a = serde_json::to_value(&streamed).unwrap();
                let mut b = serde_json::to_value(&built).unwrap();
                let (ca, cb) = (a["charts"].take(), b["charts"].take());
                assert_eq!(a, b, "{label}");
                if built.charts.len() == streamed.charts.len() {
                    assert_eq!(ca, cb, "{label}");
                } else {
                    assert!(built.charts.len() < streamed.charts.len(), "{label}");
                }
            }
        }
    }

    #[test]
    fn charts_the_model_cannot_read_are_described_from_the_package() {
        let path = fixtures()
            .into_iter()
            .find(|p| p.ends_with("sheets/rich.xlsx"))
            .unwrap();
        let bytes = std::fs::read(path).unwrap();
        let mut zip = opc::open(&bytes).unwrap();
        let d = describe_part(&mut zip, "Sales", "xl/worksheets/sheet1.xml").unwrap();
        assert_eq!(d.charts.len(), 1, "{:?}", d.charts);
        assert_eq!(d.charts[0].kind, "column");
    }
}
