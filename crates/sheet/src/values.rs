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

/// A value ready to be written: checked and typed, not yet in a cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    /// Empties the value (the cell's style stays).
    Blank,
    /// A number.
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// A date as a serial number; `timed` when it has a time of day. It
    /// gets a date format unless the cell already shows dates.
    Date {
        /// Days since 1899-12-30.
        serial: f64,
        /// Whether it has a time of day.
        timed: bool,
    },
    /// A formula, without its `=`.
    Formula(String),
    /// Text.
    Text(String),
}

impl Prepared {
    /// The number format a date gets when its cell has no date format.
    pub fn date_format(&self) -> Option<&'static str> {
        match self {
            Prepared::Date { timed: true, .. } => Some(DATETIME_FORMAT),
            Prepared::Date { .. } => Some(DATE_FORMAT),
            _ => None,
        }
    }

    /// What the cell shows once written, as get_range_values reads it
    /// (a new formula has no result yet, so it shows itself).
    pub fn shown(&self) -> Value {
        match self {
            Prepared::Blank => Value::Null,
            Prepared::Number(n) => number(*n),
            Prepared::Bool(b) => Value::Bool(*b),
            Prepared::Date { serial, .. } => {
                serial_to_iso(*serial).map_or_else(|| number(*serial), Value::String)
            }
            Prepared::Formula(f) => Value::String(format!("={f}")),
            Prepared::Text(t) => Value::String(t.clone()),
        }
    }
}

/// `value` checked and typed as `ty` (or as its own kind, after the
/// rules of [`ValueType`]) for the cell `at`; `null` empties the cell.
pub fn prepare(value: &Value, ty: Option<ValueType>, at: Cell) -> Result<Prepared, SheetError> {
    if value.is_null() {
        return Ok(Prepared::Blank);
    }
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Ok(match kind_of(value, ty) {
        ValueType::Number => Prepared::Number(
            value
                .as_f64()
                .or_else(|| parse_number(&text))
                .ok_or_else(|| wrong(value, "a number", at))?,
        ),
        ValueType::Bool => Prepared::Bool(
            value
                .as_bool()
                .or_else(|| match text.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" => Some(true),
                    "false" | "no" => Some(false),
                    _ => None,
                })
                .ok_or_else(|| wrong(value, "true or false", at))?,
        ),
        ValueType::Date => {
            let (serial, timed) =
                iso_to_serial(&text).ok_or_else(|| wrong(value, "a date like 2026-12-01", at))?;
            Prepared::Date { serial, timed }
        }
        ValueType::Formula => {
            let f = text.trim().trim_start_matches('=');
            if f.is_empty() {
                return Err(wrong(value, "a formula", at));
            }
            Prepared::Formula(f.to_string())
        }
        ValueType::Text => Prepared::Text(text),
    })
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
    apply(ws, at, &prepare(value, ty, at)?);
    Ok(())
}

/// Writes a prepared value into the model's cell `at`.
pub fn apply(ws: &mut Worksheet, at: Cell, value: &Prepared) {
    let cell = ws.cell_mut(at.xy());
    match value {
        Prepared::Blank => {
            cell.set_blank();
        }
        Prepared::Number(n) => {
            cell.set_value_number(*n);
        }
        Prepared::Bool(b) => {
            cell.set_value_bool(*b);
        }
        Prepared::Formula(f) => {
            cell.set_formula(f.as_str());
        }
        Prepared::Text(t) => {
            cell.set_value_string(t.as_str());
        }
        Prepared::Date { serial, .. } => {
            cell.set_value_number(*serial);
            let has_date_format = cell
                .style()
                .number_format()
                .is_some_and(|f| is_date_format(f.format_code()));
            if let Some(code) = value.date_format().filter(|_| !has_date_format) {
                let mut f = NumberingFormat::default();
                f.set_format_code(code);
                cell.style_mut().set_number_format(f);
            }
        }
    }
}

/// The code of a built-in number format (`numFmtId` below 164 that a
/// file need not spell out), as umya-spreadsheet names them.
pub fn builtin_format(id: u32) -> Option<&'static str> {
    Some(match id {
        0 => "General",
        1 => "0",
        2 => "0.00",
        3 => "#,##0",
        4 => "#,##0.00",
        9 => "0%",
        10 => "0.00%",
        11 => "0.00E+00",
        12 => "# ?/?",
        13 => "# ??/??",
        14 => "m/d/yyyy",
        15 => "d-mmm-yy",
        16 => "d-mmm",
        17 => "mmm-yy",
        18 => "h:mm AM/PM",
        19 => "h:mm:ss AM/PM",
        20 => "h:mm",
        21 => "h:mm:ss",
        22 => "m/d/yyyy h:mm",
        37 => "#,##0_);(#,##0)",
        38 => "#,##0_);[Red](#,##0)",
        39 => "#,##0.00_);(#,##0.00)",
        40 => "#,##0.00_);[Red](#,##0.00)",
        44 => r#"_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)"#,
        45 => "mm:ss",
        46 => "[h]:mm:ss",
        47 => "mm:ss.0",
        48 => "##0.0E+0",
        49 => "@",
        _ => return None,
    })
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
