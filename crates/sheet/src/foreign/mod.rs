//! Formats other than xlsx: CSV read into a one-sheet workbook (and
//! written back as CSV), xls and ods read through calamine (values,
//! formulas and dates) with their looks read beside (`biff`, `odf`) so
//! that saving them as .xlsx keeps formats, fonts, fills, borders,
//! widths and merged ranges (Baton does not write xls or ods).

mod biff;
mod carry;
mod numbers;
mod odf;

use std::io::Cursor;
use std::path::Path;

use calamine::{Data, Reader};
use umya_spreadsheet::Workbook;

use crate::SheetError;
use crate::addr::Cell;
use crate::values::{ValueType, write_value};

fn read_err(agent: &str, reason: impl ToString) -> SheetError {
    SheetError::Read {
        path: agent.to_string(),
        reason: reason.to_string(),
    }
}

fn one_sheet(name: &str, agent: &str) -> Result<Workbook, SheetError> {
    let mut book = umya_spreadsheet::new_file_empty_worksheet();
    book.new_sheet(name).map_err(|e| read_err(agent, e))?;
    Ok(book)
}

/// A CSV file (delimiter sniffed, any common encoding) as a workbook of
/// one sheet named after the file; numbers become numbers, ISO dates
/// dates, the rest text (formulas in a CSV stay text).
pub fn read_csv(bytes: &[u8], host: &Path, agent: &str) -> Result<Workbook, SheetError> {
    let text = baton_convert::decode_text(bytes);
    let tsv = host
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
    let delimiter = if tsv {
        b'\t'
    } else {
        baton_convert::sniff_delimiter(&text)
    };
    let name: String = host
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .chars()
                .filter(|c| !"[]:*?/\\".contains(*c))
                .take(31)
                .collect()
        })
        .filter(|s: &String| !s.trim().is_empty())
        .unwrap_or_else(|| "Sheet1".into());
    let mut book = one_sheet(&name, agent)?;
    let ws = book.sheet_mut(0).map_err(|e| read_err(agent, e))?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(false)
        .from_reader(text.as_bytes());
    for (r, record) in reader.records().enumerate() {
        let record = record.map_err(|e| read_err(agent, e))?;
        for (c, field) in record.iter().enumerate() {
            if field.is_empty() {
                continue;
            }
            let at = Cell {
                col: c as u32 + 1,
                row: r as u32 + 1,
            };
            let value = serde_json::Value::String(field.to_string());
            let ty = if field.trim().parse::<f64>().is_ok() {
                ValueType::Number
            } else if field.starts_with('=') {
                ValueType::Text
            } else {
                guess(field)
            };
            write_value(ws, at, &value, Some(ty))?;
        }
    }
    Ok(book)
}

fn guess(field: &str) -> ValueType {
    if crate::values::iso_to_serial(field).is_some() {
        ValueType::Date
    } else {
        ValueType::Text
    }
}

/// An xls or ods workbook through calamine: every sheet's values, the
/// formulas where calamine reads them, dates as dates; then its looks.
pub fn read_calamine(bytes: Vec<u8>, agent: &str) -> Result<Workbook, SheetError> {
    let mut wb = calamine::open_workbook_auto_from_rs(Cursor::new(bytes.as_slice()))
        .map_err(|e| read_err(agent, e))?;
    let mut book = umya_spreadsheet::new_file_empty_worksheet();
    for name in wb.sheet_names() {
        let values = wb.worksheet_range(&name).map_err(|e| read_err(agent, e))?;
        let formulas = wb.worksheet_formula(&name).ok();
        let ws = book.new_sheet(&name).map_err(|e| read_err(agent, e))?;
        for (r, c, v) in values.used_cells() {
            let at = Cell {
                col: values.start().map_or(0, |s| s.1) + c as u32 + 1,
                row: values.start().map_or(0, |s| s.0) + r as u32 + 1,
            };
            put(ws, at, v)?;
        }
        let Some(formulas) = formulas else { continue };
        for (r, c, f) in formulas.used_cells() {
            if f.is_empty() {
                continue;
            }
            let at = Cell {
                col: formulas.start().map_or(0, |s| s.1) + c as u32 + 1,
                row: formulas.start().map_or(0, |s| s.0) + r as u32 + 1,
            };
            ws.cell_mut(at.xy()).set_formula(f.trim_start_matches('='));
        }
    }
    carry_looks(&mut book, &bytes, agent);
    Ok(book)
}

/// Writes the looks of the xls or ods file `bytes` into `book`; a file
/// whose looks cannot be read keeps its values (and says so in the log).
fn carry_looks(book: &mut Workbook, bytes: &[u8], agent: &str) {
    let looks = if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        biff::read(bytes)
    } else {
        odf::read(bytes)
    };
    let looks = match looks {
        Ok(looks) => looks,
        Err(reason) => {
            tracing::warn!(file = agent, %reason, "the workbook's formats were not read; its values are");
            return;
        }
    };
    for sheet in &looks {
        if let Ok(ws) = book.sheet_by_name_mut(&sheet.name) {
            carry::apply(ws, sheet);
        }
    }
}

fn put(ws: &mut umya_spreadsheet::Worksheet, at: Cell, v: &Data) -> Result<(), SheetError> {
    use serde_json::Value;
    let (value, ty) = match v {
        Data::Empty => return Ok(()),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => {
            (Value::String(s.clone()), ValueType::Text)
        }
        Data::Int(i) => (Value::from(*i), ValueType::Number),
        Data::Float(f) => (Value::from(*f), ValueType::Number),
        Data::Bool(b) => (Value::Bool(*b), ValueType::Bool),
        Data::Error(e) => (Value::String(e.to_string()), ValueType::Text),
        Data::DateTime(dt) => match dt.as_datetime() {
            Some(d) if !dt.is_duration() => (
                Value::String(
                    d.format("%Y-%m-%d %H:%M:%S")
                        .to_string()
                        .replace(" 00:00:00", ""),
                ),
                ValueType::Date,
            ),
            _ => (Value::from(dt.as_f64()), ValueType::Number),
        },
    };
    write_value(ws, at, &value, Some(ty))
}

/// The first sheet of `book` as CSV text (values; a formula's cached
/// result, else its text), `delimiter` between fields.
pub fn write_csv(book: &Workbook, delimiter: u8) -> Result<Vec<u8>, String> {
    let ws = book
        .sheet_collection_no_check()
        .first()
        .ok_or("the workbook has no sheet")?;
    let (cols, rows) = ws.highest_column_and_row();
    let mut out = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    for row in 1..=rows {
        let fields: Vec<String> = (1..=cols)
            .map(
                |col| match crate::values::shown_value(ws, Cell { col, row }) {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                },
            )
            .collect();
        out.write_record(&fields).map_err(|e| e.to_string())?;
    }
    out.into_inner().map_err(|e| e.to_string())
}
