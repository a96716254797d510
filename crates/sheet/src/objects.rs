//! Tables and charts.

use serde::Deserialize;
use umya_spreadsheet::drawing::charts::{CategoryAxisData, GroupingValues};
use umya_spreadsheet::drawing::spreadsheet::MarkerType;
use umya_spreadsheet::structs::{ShowColumn, ShowStripes, TableColumn, TableStyleInfo};
use umya_spreadsheet::{Chart, ChartType, Table, Workbook, Worksheet};

use crate::SheetError;
use crate::addr::{Cell, Range, column_name};
use crate::values::read_value;

/// The chart types add_chart makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChartKind {
    /// Vertical bars.
    Column,
    /// Horizontal bars.
    Bar,
    /// Lines through the points.
    Line,
    /// Slices of one series.
    Pie,
    /// Points at x, y (the first column is x).
    Scatter,
    /// Filled areas under lines.
    Area,
}

/// A table name Excel accepts: a letter or `_` first, then letters,
/// digits, `_` or `.`, at most 255; not a cell address.
fn check_table_name(name: &str) -> Result<(), SheetError> {
    let ok = name.len() <= 255
        && name.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && Cell::parse(name).is_err();
    if ok {
        Ok(())
    } else {
        Err(SheetError::Invalid(format!(
            "`{name}` cannot be a table name: start with a letter, then letters, digits or _ (no spaces), and not like a cell (A1)"
        )))
    }
}

/// Makes `range` a table named `name` with `style`; its first row is the
/// header (empty header cells get `Column1`, … written into them).
pub fn add_table(
    book: &mut Workbook,
    sheet: usize,
    range: Range,
    name: &str,
    style: &str,
) -> Result<(), SheetError> {
    check_table_name(name)?;
    if crate::edit::all_tables(book).any(|t| t.eq_ignore_ascii_case(name)) {
        return Err(SheetError::Invalid(format!(
            "there is already a table named `{name}`"
        )));
    }
    if range.height() < 2 {
        return Err(SheetError::Invalid(format!(
            "{range} is one row; a table needs a header row and at least one row of data"
        )));
    }
    let ws = book
        .sheet_mut(sheet)
        .map_err(|e| SheetError::Invalid(e.to_string()))?;
    if let Some(t) = ws.tables().iter().find(|t| overlaps(t, range)) {
        return Err(SheetError::Invalid(format!(
            "{range} overlaps the table `{}`",
            t.name()
        )));
    }
    let mut table = Table::new(name, (range.start.xy(), range.end.xy()));
    for (i, header) in headers(ws, range).into_iter().enumerate() {
        ws.cell_mut((range.start.col + i as u32, range.start.row))
            .set_value_string(header.clone());
        table.add_column(TableColumn::new(&header));
    }
    table.set_style_info(Some(TableStyleInfo::new(
        style,
        ShowColumn::Hide,
        ShowColumn::Hide,
        ShowStripes::Show,
        ShowStripes::Hide,
    )));
    ws.add_table(table);
    Ok(())
}

fn overlaps(t: &Table, r: Range) -> bool {
    let (a, b) = t.area();
    !(b.col_num() < r.start.col
        || a.col_num() > r.end.col
        || b.row_num() < r.start.row
        || a.row_num() > r.end.row)
}

/// Header texts for a table: unique, never empty.
fn headers(ws: &Worksheet, range: Range) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in 0..range.width() {
        let mut h = match read_value(ws, range.start.offset(i, 0)) {
            serde_json::Value::Null => format!("Column{}", i + 1),
            serde_json::Value::String(s) if s.trim().is_empty() => format!("Column{}", i + 1),
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        let base = h.clone();
        let mut n = 2;
        while out.iter().any(|o| o.eq_ignore_ascii_case(&h)) {
            h = format!("{base}{n}");
            n += 1;
        }
        out.push(h);
    }
    out
}

/// Where and how big a chart is, in cells.
pub struct Placement {
    /// The top-left cell.
    pub anchor: Cell,
    /// Columns wide.
    pub width: u32,
    /// Rows high.
    pub height: u32,
}

impl Placement {
    /// `anchor` and a size written `8x15` (columns × rows).
    pub fn parse(anchor: &str, size: &str) -> Result<Placement, SheetError> {
        let bad = || {
            SheetError::Invalid(format!(
                "`{size}` is not a size: write columns x rows, e.g. 8x15"
            ))
        };
        let (w, h) = size
            .to_ascii_lowercase()
            .split_once('x')
            .map(|(w, h)| (w.trim().to_string(), h.trim().to_string()))
            .ok_or_else(bad)?;
        let width: u32 = w.parse().map_err(|_| bad())?;
        let height: u32 = h.parse().map_err(|_| bad())?;
        if !(1..=100).contains(&width) || !(1..=200).contains(&height) {
            return Err(bad());
        }
        Ok(Placement {
            anchor: Cell::parse(anchor)?,
            width,
            height,
        })
    }
}

/// Adds a chart of `range` on sheet `name`: its first row names the
/// series, its first column holds the categories (x values for scatter),
/// each further column is one series.
pub fn add_chart(
    ws: &mut Worksheet,
    kind: ChartKind,
    range: Range,
    at: &Placement,
    title: Option<&str>,
) -> Result<(), SheetError> {
    if range.width() < 2 || range.height() < 2 {
        return Err(SheetError::Invalid(format!(
            "{range} is too small: give a header row and a first column of labels, then one column per series (e.g. A1:C13)"
        )));
    }
    let name = ws.name().to_string();
    let body = |col: u32| {
        Range::new(
            Cell {
                col,
                row: range.start.row + 1,
            },
            Cell {
                col,
                row: range.end.row,
            },
        )
        .absolute_on(&name)
    };
    let series_cols: Vec<u32> = (range.start.col + 1..=range.end.col).collect();
    let refs: Vec<String> = match kind {
        ChartKind::Scatter => series_cols
            .iter()
            .flat_map(|c| [body(range.start.col), body(*c)])
            .collect(),
        _ => series_cols.iter().map(|c| body(*c)).collect(),
    };
    let mut from = MarkerType::default();
    from.set_coordinate(at.anchor.to_string());
    let mut to = MarkerType::default();
    to.set_coordinate(at.anchor.offset(at.width, at.height).to_string());
    let mut chart = Chart::default();
    chart.new_chart(
        &chart_type(kind),
        from,
        to,
        refs.iter().map(String::as_str).collect(),
    );
    let names: Vec<String> = series_cols
        .iter()
        .map(|c| {
            series_name(
                ws,
                Cell {
                    col: *c,
                    row: range.start.row,
                },
            )
        })
        .collect();
    chart.set_series_title(names);
    if kind != ChartKind::Scatter {
        set_categories(&mut chart, &body(range.start.col));
    }
    unstack(&mut chart, kind);
    if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
        chart.set_title(t);
    }
    ws.add_chart(chart);
    Ok(())
}

fn chart_type(kind: ChartKind) -> ChartType {
    match kind {
        ChartKind::Column | ChartKind::Bar => ChartType::BarChart,
        ChartKind::Line => ChartType::LineChart,
        ChartKind::Pie => ChartType::PieChart,
        ChartKind::Scatter => ChartType::ScatterChart,
        ChartKind::Area => ChartType::AreaChart,
    }
}

fn series_name(ws: &Worksheet, at: Cell) -> String {
    match read_value(ws, at) {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => format!("Series {}", column_name(at.col)),
        other => other.to_string(),
    }
}

fn set_categories(chart: &mut Chart, reference: &str) {
    for series in chart.area_chart_series_list_mut().area_chart_series_mut() {
        let mut data = CategoryAxisData::default();
        let mut sref = umya_spreadsheet::drawing::charts::StringReference::default();
        sref.formula_mut().set_address_str(reference);
        data.set_string_reference(sref);
        series.set_category_axis_data(data);
    }
}

/// umya-spreadsheet makes bar, line and area charts stacked; a chart of
/// several series side by side is what "make a chart" means. Bars turn
/// horizontal for `bar`.
fn unstack(chart: &mut Chart, kind: ChartKind) {
    let plot = chart.plot_area_mut();
    if let Some(bar) = plot.bar_chart_mut() {
        bar.grouping_mut().set_val(GroupingValues::Standard);
        bar.overlap_mut().set_val(0);
        if kind == ChartKind::Bar {
            bar.bar_direction_mut()
                .set_val(umya_spreadsheet::drawing::charts::BarDirectionValues::Bar);
        }
    }
    if let Some(line) = plot.line_chart_mut() {
        line.grouping_mut().set_val(GroupingValues::Standard);
    }
    if let Some(area) = plot.area_chart_mut() {
        area.grouping_mut().set_val(GroupingValues::Standard);
    }
}
