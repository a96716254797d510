//! Spreadsheets (XLSX, XLS, ODS) through calamine: one section per sheet,
//! a Markdown table of the used range with formulas' cached values and dates
//! written as dates.

use std::io::Cursor;

use calamine::{Data, Reader, Sheets, open_workbook_auto_from_rs};

use crate::markdown::table;
use crate::{Conversion, ConvertError, ConvertOptions, Format};

fn label(format: Format) -> &'static str {
    format.label()
}

fn open(format: Format, bytes: &[u8]) -> Result<Sheets<Cursor<&[u8]>>, ConvertError> {
    let cursor = Cursor::new(bytes);
    let opened = match format {
        Format::Xlsx => calamine::open_workbook_from_rs::<calamine::Xlsx<_>, _>(cursor)
            .map(Sheets::Xlsx)
            .map_err(|e| e.to_string()),
        Format::Xls => calamine::open_workbook_from_rs::<calamine::Xls<_>, _>(cursor)
            .map(Sheets::Xls)
            .map_err(|e| e.to_string()),
        Format::Ods => calamine::open_workbook_from_rs::<calamine::Ods<_>, _>(cursor)
            .map(Sheets::Ods)
            .map_err(|e| e.to_string()),
        _ => open_workbook_auto_from_rs(cursor).map_err(|e| e.to_string()),
    };
    opened.map_err(|reason| {
        if reason.to_ascii_lowercase().contains("password") {
            ConvertError::Encrypted {
                format: label(format),
            }
        } else {
            ConvertError::Corrupt {
                format: label(format),
                reason,
            }
        }
    })
}

/// A cell as text: integral floats without `.0`, dates as `YYYY-MM-DD`
/// (with the time when there is one), errors as Excel shows them.
fn cell_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(s) => s.clone(),
        Data::Int(i) => i.to_string(),
        Data::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 1e15 {
                format!("{}", *f as i64)
            } else {
                let s = format!("{f:.10}");
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            }
        }
        Data::Bool(b) => {
            if *b {
                "TRUE".into()
            } else {
                "FALSE".into()
            }
        }
        Data::DateTime(dt) => {
            if dt.is_duration() {
                return format!("{}", dt.as_f64());
            }
            match dt.as_datetime() {
                Some(d) if d.time() == chrono::NaiveTime::MIN => d.format("%Y-%m-%d").to_string(),
                Some(d) => d.format("%Y-%m-%d %H:%M:%S").to_string(),
                None => format!("{}", dt.as_f64()),
            }
        }
        Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Error(e) => format!("{e}"),
    }
}

/// Formula cells whose cached value is missing.
fn missing_formula_values(
    workbook: &mut Sheets<Cursor<&[u8]>>,
    name: &str,
    values: &calamine::Range<Data>,
) -> usize {
    let Ok(formulas) = workbook.worksheet_formula(name) else {
        return 0;
    };
    let (row0, col0) = formulas.start().unwrap_or((0, 0));
    formulas
        .used_cells()
        .filter(|(_, _, f)| !f.is_empty())
        .filter(|(r, c, _)| {
            matches!(
                values.get_value((row0 + *r as u32, col0 + *c as u32)),
                None | Some(Data::Empty)
            )
        })
        .count()
}

pub(crate) fn convert(
    format: Format,
    bytes: &[u8],
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let mut workbook = open(format, bytes)?;
    let names = workbook.sheet_names();
    let mut md = String::new();
    let mut warnings = Vec::new();
    for name in &names {
        md.push_str(&format!("## Sheet: {name}\n\n"));
        let range = match workbook.worksheet_range(name) {
            Ok(r) => r,
            Err(e) => {
                let w = format!("sheet `{name}` could not be read: {e}");
                md.push_str(&format!("*{w}*\n\n"));
                warnings.push(w);
                continue;
            }
        };
        let missing = missing_formula_values(&mut workbook, name, &range);
        if missing > 0 {
            let note = format!(
                "Sheet `{name}`: {missing} formula cell(s) have no saved result (the file was saved without recalculating), so they are shown empty."
            );
            md.push_str(&format!("*{note}*\n\n"));
            warnings.push(note);
        }
        let mut rows: Vec<Vec<String>> = range
            .rows()
            .map(|r| r.iter().map(cell_text).collect::<Vec<_>>())
            .filter(|r| r.iter().any(|c| !c.is_empty()))
            .collect();
        if rows.is_empty() {
            md.push_str("*(empty sheet)*\n\n");
            continue;
        }
        // Drop columns empty in every row (calamine's range can start at A1).
        let width = rows.iter().map(Vec::len).max().unwrap_or(0);
        let keep: Vec<usize> = (0..width)
            .filter(|&c| rows.iter().any(|r| r.get(c).is_some_and(|v| !v.is_empty())))
            .collect();
        if keep.len() < width {
            for r in &mut rows {
                *r = keep
                    .iter()
                    .map(|&c| r.get(c).cloned().unwrap_or_default())
                    .collect();
            }
        }
        let data_rows = rows.len() - 1;
        let kept = data_rows.min(options.max_table_rows);
        md.push_str(&table(&rows[..=kept]));
        if kept < data_rows {
            let note = format!("Sheet `{name}` truncated: showing {kept} of {data_rows} rows.");
            md.push_str(&format!("\n*{note}*\n"));
            warnings.push(note);
        }
        md.push('\n');
    }
    let mut c = Conversion::new(format, md);
    c.pages = Some(names.len());
    c.warnings = warnings;
    Ok(c)
}
