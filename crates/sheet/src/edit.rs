//! Values in and out of ranges, rows and columns, sheets, sorting and
//! finding.

use serde::Serialize;
use serde_json::Value;
use umya_spreadsheet::{Workbook, Worksheet};

use crate::SheetError;
use crate::addr::{Cell, Range};
use crate::values::{Prepared, ValueType, prepare, read_value, shown_value, write_value};

/// Most cells one get_range_values returns.
pub const MAX_READ_CELLS: u64 = 10_000;
/// Rows and columns of a change shown back as a preview.
const PREVIEW_ROWS: u32 = 8;
const PREVIEW_COLS: u32 = 8;

/// The values of `range`, row by row (at most [`MAX_READ_CELLS`]), and
/// whether rows were left out.
pub fn range_values(ws: &Worksheet, range: Range) -> (Vec<Vec<Value>>, bool) {
    let max_rows = (MAX_READ_CELLS / u64::from(range.width())).max(1) as u32;
    let rows = range.height().min(max_rows);
    let out = (0..rows)
        .map(|r| {
            (0..range.width())
                .map(|c| shown_value(ws, range.start.offset(c, r)))
                .collect()
        })
        .collect();
    (out, rows < range.height())
}

/// The top-left corner of a changed range, as the user sees it after the
/// change (a few rows and columns).
pub fn preview(ws: &Worksheet, range: Range) -> Vec<Vec<Value>> {
    let r = Range::new(
        range.start,
        Cell {
            col: range.end.col.min(range.start.col + PREVIEW_COLS - 1),
            row: range.end.row.min(range.start.row + PREVIEW_ROWS - 1),
        },
    );
    range_values(ws, r).0
}

/// The range `values` (rows) fill from `start`; an error when empty.
pub fn block(start: Cell, values: &[Vec<Value>]) -> Result<Range, SheetError> {
    let width = values.iter().map(Vec::len).max().unwrap_or(0) as u32;
    if values.is_empty() || width == 0 {
        return Err(SheetError::Invalid(
            "`values` is empty: give rows of values, e.g. [[\"Month\", \"Total\"], [\"Jan\", 120]]"
                .into(),
        ));
    }
    Ok(Range::new(
        start,
        start.offset(width - 1, values.len() as u32 - 1),
    ))
}

/// Writes `values` (rows) from `start`; the range they filled.
pub fn set_values(
    ws: &mut Worksheet,
    start: Cell,
    values: &[Vec<Value>],
    ty: Option<ValueType>,
) -> Result<Range, SheetError> {
    let range = block(start, values)?;
    for (r, row) in values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            write_value(ws, start.offset(c as u32, r as u32), v, ty)?;
        }
    }
    Ok(range)
}

/// `values` (rows) from `start`, each checked and typed; nothing is
/// written when one is wrong.
pub fn prepare_block(
    start: Cell,
    values: &[Vec<Value>],
    ty: Option<ValueType>,
) -> Result<Vec<(Cell, Prepared)>, SheetError> {
    let mut out = Vec::with_capacity(values.iter().map(Vec::len).sum());
    for (r, row) in values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let at = start.offset(c as u32, r as u32);
            out.push((at, prepare(v, ty, at)?));
        }
    }
    Ok(out)
}

/// The preview of `range` filled with `prepared` values (every cell of
/// it), as [`preview`] shows a model's.
pub fn preview_of(prepared: &[(Cell, Prepared)], range: Range) -> Vec<Vec<Value>> {
    let rows = range.height().min(PREVIEW_ROWS);
    let cols = range.width().min(PREVIEW_COLS);
    let mut out = vec![vec![Value::Null; cols as usize]; rows as usize];
    for (at, p) in prepared {
        let (r, c) = (at.row - range.start.row, at.col - range.start.col);
        if r < rows && c < cols {
            out[r as usize][c as usize] = p.shown();
        }
    }
    out
}

/// A sheet name Excel accepts: 1–31 characters, none of `[]:*?/\`.
pub fn check_sheet_name(name: &str) -> Result<(), SheetError> {
    let bad = name.trim().is_empty()
        || name.chars().count() > 31
        || name.contains(['[', ']', ':', '*', '?', '/', '\\'])
        || name.starts_with('\'');
    if bad {
        return Err(SheetError::Invalid(format!(
            "`{name}` cannot be a sheet name: 1 to 31 characters, none of [ ] : * ? / \\"
        )));
    }
    Ok(())
}

fn taken(book: &Workbook, name: &str) -> Result<(), SheetError> {
    if book
        .sheet_collection_no_check()
        .iter()
        .any(|s| s.name().eq_ignore_ascii_case(name))
    {
        return Err(SheetError::Invalid(format!(
            "there is already a sheet named `{name}`"
        )));
    }
    check_sheet_name(name)
}

/// Adds an empty sheet at the end.
pub fn add_sheet(book: &mut Workbook, name: &str) -> Result<(), SheetError> {
    taken(book, name)?;
    book.new_sheet(name)
        .map_err(|e| SheetError::Invalid(e.to_string()))?;
    Ok(())
}

/// Renames sheet `index`.
pub fn rename_sheet(book: &mut Workbook, index: usize, name: &str) -> Result<(), SheetError> {
    taken(book, name)?;
    book.set_sheet_name(index, name)
        .map_err(|e| SheetError::Invalid(e.to_string()))
}

/// Deletes sheet `index` (never the last one).
pub fn delete_sheet(book: &mut Workbook, index: usize) -> Result<(), SheetError> {
    if book.sheet_count() <= 1 {
        return Err(SheetError::Invalid(
            "a workbook keeps at least one sheet; add another before deleting this one".into(),
        ));
    }
    book.remove_sheet(index)
        .map_err(|e| SheetError::Invalid(e.to_string()))?;
    book.set_active_sheet(0);
    Ok(())
}

/// Copies sheet `index` to a new sheet `name` at the end; its tables get
/// new names (a table name is unique in a workbook).
pub fn copy_sheet(book: &mut Workbook, index: usize, name: &str) -> Result<(), SheetError> {
    taken(book, name)?;
    let mut copy = book.sheet_collection_no_check()[index].clone();
    copy.set_name(name);
    let mut n = 2;
    for t in copy.tables_mut() {
        let fresh = loop {
            let candidate = format!("{}_{n}", t.name());
            n += 1;
            if !all_tables(book).any(|existing| existing.eq_ignore_ascii_case(&candidate)) {
                break candidate;
            }
        };
        t.set_name(&fresh);
        t.set_display_name(&fresh);
    }
    book.add_sheet(copy)
        .map_err(|e| SheetError::Invalid(e.to_string()))?;
    Ok(())
}

/// Every table name in the workbook.
pub fn all_tables(book: &Workbook) -> impl Iterator<Item = String> + '_ {
    book.sheet_collection_no_check()
        .iter()
        .flat_map(|s| s.tables().iter().map(|t| t.name().to_string()))
}

/// Sorts the rows of `range` by `column` (cells move whole: value,
/// formula, style); with `header`, its first row stays on top.
pub fn sort_range(
    ws: &mut Worksheet,
    range: Range,
    column: u32,
    descending: bool,
    header: bool,
) -> Result<(), SheetError> {
    if !(range.start.col..=range.end.col).contains(&column) {
        return Err(SheetError::Invalid(format!(
            "the sort column is outside {range}"
        )));
    }
    let first = range.start.row + u32::from(header);
    if first >= range.end.row {
        return Ok(());
    }
    let mut rows: Vec<(Value, Vec<Option<umya_spreadsheet::Cell>>)> = (first..=range.end.row)
        .map(|row| {
            let key = read_value(ws, Cell { col: column, row });
            let cells = (range.start.col..=range.end.col)
                .map(|col| ws.cell((col, row)).cloned())
                .collect();
            (key, cells)
        })
        .collect();
    rows.sort_by(|a, b| {
        let o = compare(&a.0, &b.0);
        if descending && !a.0.is_null() && !b.0.is_null() {
            o.reverse()
        } else {
            o
        }
    });
    for (i, (_, cells)) in rows.into_iter().enumerate() {
        let row = first + i as u32;
        for (j, cell) in cells.into_iter().enumerate() {
            let col = range.start.col + j as u32;
            ws.remove_cell((col, row));
            if let Some(mut c) = cell {
                c.coordinate_mut().set_col_num(col).set_row_num(row);
                ws.set_cell(c);
            }
        }
    }
    Ok(())
}

/// Numbers before text, text without case, empty cells last.
fn compare(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Value::Number(_), _) => Ordering::Less,
        (_, Value::Number(_)) => Ordering::Greater,
        (x, y) => text(x).to_lowercase().cmp(&text(y).to_lowercase()),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A cell found by find.
#[derive(Debug, Serialize)]
pub struct Found {
    /// Its sheet.
    pub sheet: String,
    /// Its address.
    pub cell: String,
    /// Its value.
    pub value: Value,
}

/// Most cells find returns.
pub const MAX_FOUND: usize = 200;

/// Cells of `sheets` whose value equals `needle` (a number) or contains
/// it (text, any case; also a formula's text).
pub fn find(sheets: &[&Worksheet], needle: &Value) -> Vec<Found> {
    let needle_text = text(needle).to_lowercase();
    let mut out = Vec::new();
    for ws in sheets {
        let mut cells: Vec<Cell> = ws
            .collection_to_hashmap()
            .keys()
            .map(|(r, c)| Cell { col: *c, row: *r })
            .collect();
        cells.sort_by_key(|c| (c.row, c.col));
        for at in cells {
            let value = read_value(ws, at);
            let hit = match needle {
                Value::Number(n) => value.as_f64() == n.as_f64(),
                _ => {
                    text(&value).to_lowercase().contains(&needle_text) && !value.is_null()
                        || crate::values::read_formula(ws, at)
                            .is_some_and(|f| f.to_lowercase().contains(&needle_text))
                }
            };
            if hit {
                out.push(Found {
                    sheet: ws.name().to_string(),
                    cell: at.to_string(),
                    value,
                });
                if out.len() >= MAX_FOUND {
                    return out;
                }
            }
        }
    }
    out
}
