//! A streaming reader of an xlsx package's sheets: each cell as stored,
//! read once from the compressed part without building a model, plus the
//! sheet's frozen panes, merged ranges, tables and charts. describe_worksheet
//! and open use it on a workbook that has not been edited, so a sheet of
//! 100,000 rows is described in a fraction of a second.
//!
//! Written here rather than with calamine: calamine reads values (and
//! formulas, in a second pass) but not the number formats, charts or
//! panes describe reports, and a second reader would decompress the sheet
//! again.

use std::io::BufReader;

use quick_xml::events::{BytesRef, BytesStart, Event};
use serde_json::Value;

use crate::addr::{Cell, Range};
use crate::opc::{self, Zip, elements, read_text};
use crate::values::{builtin_format, is_date_format, number, serial_to_iso};

/// The number format of each cell format (`s` index) of a package.
#[derive(Default)]
pub(crate) struct StyleTable {
    formats: Vec<Option<(String, bool)>>,
}

impl StyleTable {
    /// The package's cell formats (none when it has no styles part).
    pub(crate) fn read(zip: &mut Zip<'_>) -> StyleTable {
        let Ok(xml) = read_text(zip, "xl/styles.xml") else {
            return StyleTable::default();
        };
        let custom: std::collections::HashMap<u32, String> = elements(&xml, "numFmt")
            .into_iter()
            .filter_map(|mut a| Some((a.get("numFmtId")?.parse().ok()?, a.remove("formatCode")?)))
            .collect();
        let formats = opc::section_items(&xml, "cellXfs", "xf")
            .iter()
            .map(|xf| {
                let id: u32 = opc::tag_attr(xf, "numFmtId")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                let code = custom
                    .get(&id)
                    .cloned()
                    .or_else(|| builtin_format(id).map(str::to_string))?;
                (code != "General").then(|| {
                    let date = is_date_format(&code);
                    (code, date)
                })
            })
            .collect();
        StyleTable { formats }
    }

    /// The number format of cell format `s` and whether it shows dates;
    /// `None` for General.
    pub(crate) fn format(&self, s: u32) -> Option<(&str, bool)> {
        self.formats
            .get(s as usize)?
            .as_ref()
            .map(|(c, d)| (c.as_str(), *d))
    }
}

/// The shared strings of a package, in order (rich text as its plain
/// text, phonetic guides left out).
pub(crate) fn shared_strings(zip: &mut Zip<'_>) -> Result<Vec<String>, String> {
    let Ok(file) = zip.by_name("xl/sharedStrings.xml") else {
        return Ok(Vec::new());
    };
    let mut reader = quick_xml::Reader::from_reader(BufReader::with_capacity(1 << 16, file));
    let mut buf = Vec::new();
    let (mut out, mut text, mut reading, mut phonetic) = (Vec::new(), String::new(), false, false);
    loop {
        let ev = reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("xl/sharedStrings.xml: {e}"))?;
        match ev {
            Event::Start(e) => match e.local_name().into_inner() {
                "t" if !phonetic => reading = true,
                "rPh" => phonetic = true,
                _ => {}
            },
            Event::Text(t) if reading => text.push_str(&t),
            Event::GeneralRef(r) if reading => push_ref(&mut text, &r),
            Event::End(e) => match e.local_name().into_inner() {
                "t" => reading = false,
                "rPh" => phonetic = false,
                "si" => out.push(std::mem::take(&mut text)),
                _ => {}
            },
            Event::Empty(e) if e.local_name().into_inner() == "si" => out.push(String::new()),
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(out)
}

/// An entity inside text (`&amp;`, `&#10;`) as what it stands for.
pub(crate) fn push_ref(text: &mut String, r: &BytesRef<'_>) {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        text.push(c);
        return;
    }
    text.push_str(match &*r.xml10_content() {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        _ => "",
    });
}

/// How a cell's value is stored (its `t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stored {
    /// A number (or nothing).
    Number,
    /// An index into the shared strings.
    Shared,
    /// Text inside the cell.
    Inline,
    /// A formula's text result.
    Str,
    /// `0` or `1`.
    Bool,
    /// An error code.
    Error,
}

/// One cell as the sheet stores it.
pub(crate) struct RawCell<'a> {
    /// Where it is.
    pub at: Cell,
    /// How its value is stored.
    pub stored: Stored,
    /// Its cell format.
    pub s: u32,
    /// Whether it has a formula.
    pub formula: bool,
    /// Its value's text as stored (empty when it has none).
    pub text: &'a str,
}

impl RawCell<'_> {
    /// Its value as the model reads it (see [`crate::values::read_value`]).
    pub(crate) fn value(&self, styles: &StyleTable, strings: &[String]) -> Value {
        let text = |s: &str| {
            if s.is_empty() {
                Value::Null
            } else {
                Value::String(s.to_string())
            }
        };
        match self.stored {
            Stored::Number => {
                let Ok(n) = self.text.trim().parse::<f64>() else {
                    return text(self.text);
                };
                let date = styles.format(self.s).is_some_and(|(_, d)| d);
                match (date, serial_to_iso(n)) {
                    (true, Some(iso)) => Value::String(iso),
                    _ => number(n),
                }
            }
            Stored::Shared => self
                .text
                .trim()
                .parse::<usize>()
                .ok()
                .and_then(|i| strings.get(i))
                .map_or(Value::Null, |s| text(s)),
            Stored::Inline | Stored::Str | Stored::Error => text(self.text),
            Stored::Bool => Value::Bool(self.text.trim() == "1"),
        }
    }
}

/// What a sheet has besides its cells.
#[derive(Debug, Default)]
pub(crate) struct SheetMeta {
    /// The first unfrozen cell, when panes are frozen.
    pub frozen_at: Option<String>,
    /// Merged ranges (the first 20).
    pub merged: Vec<String>,
}

/// Where the walk is inside a cell.
#[derive(Default)]
struct CellState {
    at: Option<Cell>,
    stored: Option<Stored>,
    s: u32,
    formula: bool,
    text: String,
    reading: bool,
    inline: bool,
    phonetic: bool,
}

/// Reads the sheet `part` once, calling `on_cell` for each cell in order.
pub(crate) fn walk(
    zip: &mut Zip<'_>,
    part: &str,
    on_cell: impl FnMut(&RawCell<'_>),
) -> Result<SheetMeta, String> {
    let file = zip.by_name(part).map_err(|e| format!("{part}: {e}"))?;
    walk_reader(BufReader::with_capacity(1 << 16, file), part, on_cell)
}

/// Reads the sheet part `part` from `input` once, calling `on_cell` for
/// each cell in order.
pub(crate) fn walk_reader(
    input: impl std::io::BufRead,
    part: &str,
    mut on_cell: impl FnMut(&RawCell<'_>),
) -> Result<SheetMeta, String> {
    let mut reader = quick_xml::Reader::from_reader(input);
    let mut buf = Vec::new();
    let (mut meta, mut c) = (SheetMeta::default(), CellState::default());
    let mut at = Cell { col: 0, row: 0 };
    loop {
        let ev = reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("{part}: {e}"))?;
        match ev {
            Event::Start(e) => {
                if e.local_name().into_inner() == "c" {
                    at = start_cell(&mut c, &e, at);
                } else {
                    other_start(&mut c, &mut meta, &mut at, &e);
                }
            }
            Event::Empty(e) => match e.local_name().into_inner() {
                "c" => {
                    at = start_cell(&mut c, &e, at);
                    end_cell(&mut c, &mut on_cell);
                }
                "f" => c.formula = true,
                _ => other_start(&mut c, &mut meta, &mut at, &e),
            },
            Event::Text(t) if c.reading => c.text.push_str(&t),
            Event::GeneralRef(r) if c.reading => push_ref(&mut c.text, &r),
            Event::End(e) => match e.local_name().into_inner() {
                "v" | "t" => c.reading = false,
                "is" => c.inline = false,
                "rPh" => c.phonetic = false,
                "c" => end_cell(&mut c, &mut on_cell),
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(meta)
}

/// A `<c>` begins: its address (the one after `prev` when unsaid),
/// storage and format.
fn start_cell(c: &mut CellState, e: &BytesStart<'_>, prev: Cell) -> Cell {
    let mut at = None;
    let (mut stored, mut s) = (Stored::Number, 0);
    for a in e.attributes().with_checks(false).flatten() {
        match a.key.local_name().into_inner() {
            "r" => at = Cell::parse(&a.value).ok(),
            "s" => s = a.value.parse().unwrap_or(0),
            "t" => {
                stored = match &*a.value {
                    "s" => Stored::Shared,
                    "inlineStr" => Stored::Inline,
                    "str" => Stored::Str,
                    "b" => Stored::Bool,
                    "e" => Stored::Error,
                    _ => Stored::Number,
                }
            }
            _ => {}
        }
    }
    let at = at.unwrap_or(Cell {
        col: prev.col + 1,
        row: prev.row.max(1),
    });
    c.text.clear();
    (c.at, c.stored, c.s, c.formula) = (Some(at), Some(stored), s, false);
    at
}

fn end_cell(c: &mut CellState, on_cell: &mut impl FnMut(&RawCell<'_>)) {
    if let (Some(at), Some(stored)) = (c.at.take(), c.stored.take()) {
        on_cell(&RawCell {
            at,
            stored,
            s: c.s,
            formula: c.formula,
            text: &c.text,
        });
    }
    c.reading = false;
}

/// Any element other than a cell starting (or empty).
fn other_start(c: &mut CellState, meta: &mut SheetMeta, at: &mut Cell, e: &BytesStart<'_>) {
    match e.local_name().into_inner() {
        "row" => {
            let row = opc::attr(e, "r").and_then(|r| r.parse().ok());
            *at = Cell {
                col: 0,
                row: row.unwrap_or(at.row + 1),
            };
        }
        "v" if c.at.is_some() => c.reading = true,
        "f" if c.at.is_some() => c.formula = true,
        "is" if c.at.is_some() => c.inline = true,
        "rPh" => c.phonetic = true,
        "t" if c.inline && !c.phonetic => c.reading = true,
        "pane" if meta.frozen_at.is_none() => {
            let frozen = opc::attr(e, "state").is_some_and(|s| s.starts_with("frozen"));
            meta.frozen_at = opc::attr(e, "topLeftCell").filter(|_| frozen);
        }
        "mergeCell" if meta.merged.len() < 20 => meta.merged.extend(opc::attr(e, "ref")),
        _ => {}
    }
}

/// The used range of sheet `part`: its `<dimension>` when the file states
/// a range, else every cell's address, read.
pub(crate) fn used_range(zip: &mut Zip<'_>, part: &str) -> Result<Option<Range>, String> {
    if let Some(r) = stated_dimension(zip, part)? {
        return Ok(Some(r));
    }
    let mut end = Cell { col: 0, row: 0 };
    walk(zip, part, |c| {
        end.col = end.col.max(c.at.col);
        end.row = end.row.max(c.at.row);
    })?;
    Ok((end.col > 0).then(|| Range::new(Cell { col: 1, row: 1 }, end)))
}

/// A `<dimension ref="A1:F100">` before the cells, when it spans more
/// than one cell (a single `A1` is also what writers put on empty sheets).
fn stated_dimension(zip: &mut Zip<'_>, part: &str) -> Result<Option<Range>, String> {
    let file = zip.by_name(part).map_err(|e| format!("{part}: {e}"))?;
    let mut reader = quick_xml::Reader::from_reader(BufReader::new(file));
    let mut buf = Vec::new();
    loop {
        match reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("{part}: {e}"))?
        {
            Event::Start(e) | Event::Empty(e) => match e.local_name().into_inner() {
                "dimension" => {
                    let first = Cell { col: 1, row: 1 };
                    let r = opc::attr(&e, "ref").and_then(|r| Range::parse(&r).ok());
                    return Ok(r
                        .filter(|r| r.end != first)
                        .map(|r| Range::new(first, r.end)));
                }
                "sheetData" => return Ok(None),
                _ => {}
            },
            Event::Eof => return Ok(None),
            _ => {}
        }
        buf.clear();
    }
}
