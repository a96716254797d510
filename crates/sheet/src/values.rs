//! Cell values between JSON (what the model sends and reads) and the
//! workbook: numbers, text, booleans, dates (serial numbers with a date
//! format) and formulas.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use serde::Deserialize;
use serde_json::{Value, json};
use umya_spreadsheet::{CellRawValue, NumberingFormat, Worksheet};

use crate::SheetError;
use crate::addr::Cell;

/// What a value is written as; without it, numbers stay numbers, `true`
/// and `false` booleans, text starting with `=` a formula, an ISO date
/// (`2026-12-01`) a date, and anything else text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// A number (`12.5`, `"1,250.00"` is read as 1250).
    Number,
    /// Text exactly as given (even `=…` or `2026-12-01`).
    Text,
    /// `true` or `false`.
    Bool,
    /// A date or date and time (`2026-12-01`, `2026-12-01 14:30`).
    Date,
    /// A formula (`=SUM(B2:B13)`; the `=` may be left out).
    Formula,
}

/// The date format given to dates written without a format of their own.
const DATE_FORMAT: &str = "yyyy-mm-dd";
const DATETIME_FORMAT: &str = "yyyy-mm-dd hh:mm";

/// Whether an Excel number format shows a date or time.
pub fn is_date_format(code: &str) -> bool {
    let mut quoted = false;
    let mut bracket = false;
    let mut prev = ' ';
    for c in code.chars() {
        match c {
            '"' => quoted = !quoted,
            '[' if !quoted => bracket = true,
            ']' if !quoted => bracket = false,
            'd' | 'm' | 'y' | 'h' | 's' | 'D' | 'M' | 'Y' | 'H' | 'S'
                if !quoted && !bracket && prev != '\\' =>
            {
                return !code.eq_ignore_ascii_case("general");
            }
            _ => {}
        }
        prev = c;
    }
    false
}

fn epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(1899, 12, 30)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .expect("a valid date")
}

/// An Excel serial date as ISO text (`2026-12-01`, or with `hh:mm[:ss]`).
pub fn serial_to_iso(serial: f64) -> Option<String> {
    if !(0.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let ms = (serial * 86_400_000.0).round() as i64;
    let t = epoch() + chrono::Duration::milliseconds(ms);
    Some(if t.num_seconds_from_midnight() == 0 {
        format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day())
    } else if t.second() == 0 {
        t.format("%Y-%m-%d %H:%M").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    })
}

/// ISO text (`2026-12-01`, `2026-12-01 14:30`, `2026-12-01T14:30:05`) as
/// an Excel serial date, and whether it had a time.
pub fn iso_to_serial(text: &str) -> Option<(f64, bool)> {
    let t = text.trim();
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        let dt = d.and_hms_opt(0, 0, 0)?;
        return Some(((dt - epoch()).num_days() as f64, false));
    }
    let dt = [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())?;
    let secs = (dt - epoch()).num_seconds() as f64;
    Some((secs / 86_400.0, true))
}

/// A number written as text: `1,250.50`, `12 %` stays text (the model
/// should send 0.12 with a percent format).
fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim().replace(',', "");
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// The JSON value of a cell as the model reads it: numbers, text,
/// booleans, dates as ISO text, errors as their code (`#DIV/0!`); a
/// formula's cached result (null when the file stores none).
pub fn read_value(ws: &Worksheet, at: Cell) -> Value {
    let Some(cell) = ws.cell(at.xy()) else {
        return Value::Null;
    };
    match cell.cell_value().raw_value() {
        CellRawValue::Numeric(n) => {
            let date = cell
                .style()
                .number_format()
                .is_some_and(|f| is_date_format(f.format_code()));
            match (date, serial_to_iso(*n)) {
                (true, Some(iso)) => Value::String(iso),
                _ => number(*n),
            }
        }
        CellRawValue::Bool(b) => Value::Bool(*b),
        CellRawValue::Empty => Value::Null,
        CellRawValue::Error(e) => Value::String(e.to_string()),
        other => {
            let s = other.to_string();
            if s.is_empty() {
                Value::Null
            } else {
                Value::String(s)
            }
        }
    }
}

/// A number as JSON: whole numbers without a fraction (`120`, not
/// `120.0`).
pub fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// A cell's formula with its `=`, if it has one.
pub fn read_formula(ws: &Worksheet, at: Cell) -> Option<String> {
    let cell = ws.cell(at.xy())?;
    cell.is_formula().then(|| format!("={}", cell.formula()))
}

/// What a cell holds, for the value lists of get_range_values: its value,
/// or its formula when the file stores no result.
pub fn shown_value(ws: &Worksheet, at: Cell) -> Value {
    match read_value(ws, at) {
        Value::Null => read_formula(ws, at)
            .map(Value::String)
            .unwrap_or(Value::Null),
        v => v,
    }
}

/// The kind of `value` after `ty` and the rules of [`ValueType`].
fn kind_of(value: &Value, ty: Option<ValueType>) -> ValueType {
    if let Some(t) = ty {
        return t;
    }
    match value {
        Value::Number(_) => ValueType::Number,
        Value::Bool(_) => ValueType::Bool,
        Value::String(s) if s.starts_with('=') && s.len() > 1 => ValueType::Formula,
        Value::String(s) if iso_to_serial(s).is_some() => ValueType::Date,
        _ => ValueType::Text,
    }
}

fn wrong(value: &Value, ty: &str, at: Cell) -> SheetError {
    SheetError::Invalid(format!("{at}: {value} is not {ty}"))
}

/// Writes `value` into `at` as `ty` (or as its own kind); `null` empties
/// the cell's value (its style stays). Dates without a date format get
/// `yyyy-mm-dd` (or with `hh:mm`).
pub fn write_value(
    ws: &mut Worksheet,
    at: Cell,
    value: &Value,
    ty: Option<ValueType>,
) -> Result<(), SheetError> {
    if value.is_null() {
        ws.cell_mut(at.xy()).set_blank();
        return Ok(());
    }
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match kind_of(value, ty) {
        ValueType::Number => {
            let n = value
                .as_f64()
                .or_else(|| parse_number(&text))
                .ok_or_else(|| wrong(value, "a number", at))?;
            ws.cell_mut(at.xy()).set_value_number(n);
        }
        ValueType::Bool => {
            let b = value
                .as_bool()
                .or_else(|| match text.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" => Some(true),
                    "false" | "no" => Some(false),
                    _ => None,
                });
            ws.cell_mut(at.xy())
                .set_value_bool(b.ok_or_else(|| wrong(value, "true or false", at))?);
        }
        ValueType::Date => {
            write_date(ws, at, &text).ok_or_else(|| wrong(value, "a date like 2026-12-01", at))?
        }
        ValueType::Formula => {
            let f = text.trim().trim_start_matches('=');
            if f.is_empty() {
                return Err(wrong(value, "a formula", at));
            }
            ws.cell_mut(at.xy()).set_formula(f);
        }
        ValueType::Text => {
            ws.cell_mut(at.xy()).set_value_string(text);
        }
    }
    Ok(())
}

fn write_date(ws: &mut Worksheet, at: Cell, text: &str) -> Option<()> {
    let (serial, timed) = iso_to_serial(text)?;
    let cell = ws.cell_mut(at.xy());
    cell.set_value_number(serial);
    let has_date_format = cell
        .style()
        .number_format()
        .is_some_and(|f| is_date_format(f.format_code()));
    if !has_date_format {
        let code = if timed { DATETIME_FORMAT } else { DATE_FORMAT };
        let mut f = NumberingFormat::default();
        f.set_format_code(code);
        cell.style_mut().set_number_format(f);
    }
    Some(())
}

/// The type word describe_worksheet uses for a cell's value.
pub fn type_word(value: &Value, date: bool) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) if date => "date",
        Value::String(s) if s.starts_with('#') && s.ends_with(['!', '?', 'A']) => "error",
        _ => "text",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_formats_are_told_from_number_formats() {
        for d in [
            "yyyy-mm-dd",
            "d/m/yy",
            "mmm yyyy",
            "hh:mm",
            "[$-409]d-mmm;@",
            "dd\"th\" mmm",
        ] {
            assert!(is_date_format(d), "{d}");
        }
        for n in [
            "General",
            "0.00",
            "\"$\"#,##0.00",
            "0.0%",
            "[Red]0",
            "#,##0 \"days\"",
        ] {
            assert!(!is_date_format(n), "{n}");
        }
    }

    #[test]
    fn serial_dates_round_trip() {
        let (s, timed) = iso_to_serial("2026-12-01").unwrap();
        assert_eq!((s, timed), (46357.0, false));
        assert_eq!(serial_to_iso(s).unwrap(), "2026-12-01");
        let (s, timed) = iso_to_serial("2026-12-01T14:30").unwrap();
        assert!(timed);
        assert_eq!(serial_to_iso(s).unwrap(), "2026-12-01 14:30");
        assert!(iso_to_serial("1 Dec 2026").is_none());
        assert_eq!(parse_number(" 1,250.50 "), Some(1250.5));
    }
}
