//! The looks of an .ods workbook (OpenDocument): cell styles (with their
//! parents and column defaults), number styles turned into Excel format
//! codes (`numbers`), column widths and merged (spanned) cells.
//!
//! Written here: calamine reads an ods file's values only, and no crate
//! reads OpenDocument styles; the parts are read with zip and quick-xml.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use quick_xml::events::{BytesStart, Event};

use super::carry::{Align, CellLook, Font, Line, Rgb, SheetLooks, Sides};
use super::numbers::NumberStyles;
use crate::addr::{Cell, MAX_COL, MAX_ROW, Range};
use crate::opc::attrs;

/// A repeat longer than this styles a whole row or column: carried as
/// nothing (Excel would hold every cell).
const MAX_REPEAT: u32 = 1024;
/// A part larger than this is not read for looks.
const MAX_PART: u64 = 256 << 20;

/// Each sheet's looks, in workbook order.
pub(crate) fn read(bytes: &[u8]) -> Result<Vec<SheetLooks>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let styles = member(&mut zip, "styles.xml").unwrap_or_default();
    let content = member(&mut zip, "content.xml")?;
    let mut book = Styles::default();
    book.read(&styles);
    book.read(&content);
    Ok(Tables::new(&book).read(&content))
}

fn member(zip: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> Result<String, String> {
    let file = zip.by_name(name).map_err(|e| format!("{name}: {e}"))?;
    let mut text = String::new();
    file.take(MAX_PART)
        .read_to_string(&mut text)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(text)
}

/// A cell style's own properties; `None` inherits from the parent.
#[derive(Debug, Clone, Default)]
struct Props {
    parent: Option<String>,
    data_style: Option<String>,
    font_name: Option<String>,
    size: Option<f64>,
    bold: Option<bool>,
    italic: Option<bool>,
    underline: Option<Option<&'static str>>,
    strike: Option<bool>,
    color: Option<Option<Rgb>>,
    fill: Option<Option<Rgb>>,
    sides: [Option<Option<Line>>; 4],
    align: Option<Option<Align>>,
    wrap: Option<bool>,
}

impl Props {
    /// Takes what a `style:*-properties` element says.
    fn take(&mut self, element: &str, a: &HashMap<String, String>) {
        match element {
            "style:text-properties" => self.take_text(a),
            "style:table-cell-properties" => self.take_cell(a),
            "style:paragraph-properties" => {
                if let Some(v) = a.get("text-align") {
                    self.align = Some(match v.as_str() {
                        "center" => Some(Align::Center),
                        "end" | "right" => Some(Align::Right),
                        "justify" => Some(Align::Justify),
                        "start" | "left" => Some(Align::Left),
                        _ => None,
                    });
                }
            }
            _ => {}
        }
    }

    fn take_text(&mut self, a: &HashMap<String, String>) {
        if let Some(v) = a.get("font-name").or(a.get("font-family")) {
            self.font_name = Some(v.trim_matches('\'').to_string());
        }
        if let Some(v) = a.get("font-size").and_then(|v| points(v)) {
            self.size = Some(v);
        }
        if let Some(v) = a.get("font-weight") {
            self.bold = Some(v == "bold" || v.parse::<u32>().is_ok_and(|w| w >= 600));
        }
        if let Some(v) = a.get("font-style") {
            self.italic = Some(v == "italic" || v == "oblique");
        }
        if let Some(v) = a.get("text-underline-style") {
            let double = a.get("text-underline-type").is_some_and(|t| t == "double");
            self.underline = Some(match (v.as_str(), double) {
                ("none", _) => None,
                (_, true) => Some("double"),
                _ => Some("single"),
            });
        }
        if let Some(v) = a.get("text-line-through-style") {
            self.strike = Some(v != "none");
        }
        if a.get("use-window-font-color").is_some_and(|v| v == "true") {
            self.color = Some(None);
        } else if let Some(v) = a.get("color") {
            self.color = Some(hex(v));
        }
    }

    fn take_cell(&mut self, a: &HashMap<String, String>) {
        if let Some(v) = a.get("background-color") {
            self.fill = Some(hex(v));
        }
        if let Some(v) = a.get("border") {
            self.sides = std::array::from_fn(|_| Some(line(v)));
        }
        for (i, side) in ["border-left", "border-right", "border-top", "border-bottom"]
            .iter()
            .enumerate()
        {
            if let Some(v) = a.get(*side) {
                self.sides[i] = Some(line(v));
            }
        }
        if let Some(v) = a.get("wrap-option") {
            self.wrap = Some(v == "wrap");
        }
    }

    /// `self` over `base`.
    fn over(&self, base: &Props) -> Props {
        Props {
            parent: None,
            data_style: self.data_style.clone().or(base.data_style.clone()),
            font_name: self.font_name.clone().or(base.font_name.clone()),
            size: self.size.or(base.size),
            bold: self.bold.or(base.bold),
            italic: self.italic.or(base.italic),
            underline: self.underline.or(base.underline),
            strike: self.strike.or(base.strike),
            color: self.color.or(base.color),
            fill: self.fill.or(base.fill),
            sides: std::array::from_fn(|i| self.sides[i].clone().or(base.sides[i].clone())),
            align: self.align.or(base.align),
            wrap: self.wrap.or(base.wrap),
        }
    }
}

/// A length (`11pt`, `0.5in`, `1.2cm`) in points.
fn points(v: &str) -> Option<f64> {
    let unit_at = v.find(|c: char| c.is_ascii_alphabetic())?;
    let (n, unit) = v.split_at(unit_at);
    let n: f64 = n.trim().parse().ok()?;
    Some(match unit {
        "pt" => n,
        "in" => n * 72.0,
        "cm" => n * 72.0 / 2.54,
        "mm" => n * 72.0 / 25.4,
        "pc" => n * 12.0,
        "px" => n * 0.75,
        _ => return None,
    })
}

/// `#1f4e79` as a colour; `transparent` as none.
pub(super) fn hex(v: &str) -> Option<Rgb> {
    let h = v.strip_prefix('#').filter(|h| h.len() == 6)?;
    let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

/// `1.76pt solid #1f4e79` as an xlsx line; `none` as none.
fn line(v: &str) -> Option<Line> {
    let mut width = 0.75;
    let mut kind = "solid";
    let mut color = None;
    for word in v.split_whitespace() {
        if let Some(w) = points(word) {
            width = w;
        } else if word.starts_with('#') {
            color = hex(word);
        } else {
            kind = match word {
                "none" | "hidden" => return None,
                "solid" | "double" | "dotted" | "dashed" | "dash-dot" | "dash-dot-dot" => word,
                _ => kind,
            };
        }
    }
    let heavy = width >= 1.25;
    let style = match kind {
        "double" => "double",
        "dotted" => "dotted",
        "dashed" if heavy => "mediumDashed",
        "dashed" => "dashed",
        "dash-dot" if heavy => "mediumDashDot",
        "dash-dot" => "dashDot",
        "dash-dot-dot" if heavy => "mediumDashDotDot",
        "dash-dot-dot" => "dashDotDot",
        _ if width < 0.5 => "hair",
        _ if width < 1.25 => "thin",
        _ if width < 2.25 => "medium",
        _ => "thick",
    };
    Some(Line {
        style,
        color: color.filter(|c| *c != [0, 0, 0]),
    })
}

/// Every cell and column style and number style of the document.
#[derive(Default)]
struct Styles {
    cells: HashMap<String, Props>,
    /// Column styles' widths in characters.
    widths: HashMap<String, f64>,
    numbers: NumberStyles,
}

impl Styles {
    fn read(&mut self, xml: &str) {
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut cell: Option<(String, Props)> = None;
        let mut column: Option<String> = None;
        loop {
            let (e, empty) = match reader.read_event() {
                Ok(Event::Start(e)) => (e, false),
                Ok(Event::Empty(e)) => (e, true),
                Ok(Event::End(e)) => {
                    if e.name().as_ref() == "style:style" {
                        self.keep(cell.take());
                        column = None;
                    }
                    self.numbers.end(e.name().as_ref());
                    continue;
                }
                Ok(Event::Text(t)) => {
                    self.numbers.text(&t);
                    continue;
                }
                Ok(Event::GeneralRef(r)) => {
                    let mut text = String::new();
                    crate::scan::push_ref(&mut text, &r);
                    self.numbers.text(&text);
                    continue;
                }
                Ok(Event::Eof) | Err(_) => break,
                _ => continue,
            };
            self.start(&e, empty, &mut cell, &mut column);
        }
    }

    fn start(
        &mut self,
        e: &BytesStart<'_>,
        empty: bool,
        cell: &mut Option<(String, Props)>,
        column: &mut Option<String>,
    ) {
        let name = e.name();
        let name = name.as_ref();
        if name.starts_with("number:") || (name == "style:map" && self.numbers.open()) {
            self.numbers.start(name, &attrs(e), empty);
            return;
        }
        if name == "style:text-properties" && self.numbers.open() {
            self.numbers.start(name, &attrs(e), empty);
            return;
        }
        let a = attrs(e);
        match name {
            "style:style" | "style:default-style" => {
                let Some(style) = a.get("name").cloned() else {
                    return;
                };
                match a.get("family").map(String::as_str) {
                    Some("table-cell") => {
                        let props = Props {
                            parent: a.get("parent-style-name").cloned(),
                            data_style: a.get("data-style-name").cloned(),
                            ..Props::default()
                        };
                        *cell = Some((style, props));
                    }
                    Some("table-column") => *column = Some(style),
                    _ => {}
                }
                if empty {
                    self.keep(cell.take());
                    *column = None;
                }
            }
            "style:table-column-properties" => {
                let width = a.get("column-width").and_then(|w| points(w));
                if let (Some(col), Some(pt)) = (column.as_ref(), width) {
                    self.widths.insert(col.clone(), chars(pt));
                }
            }
            other => {
                if let Some((_, props)) = cell.as_mut() {
                    props.take(other, &a);
                }
            }
        }
    }

    fn keep(&mut self, cell: Option<(String, Props)>) {
        if let Some((name, props)) = cell {
            self.cells.insert(name, props);
        }
    }

    /// A style with its parents' properties filled in.
    fn resolved(&self, name: &str) -> Props {
        let mut props = Props::default();
        let mut next = Some(name.to_string());
        for _ in 0..16 {
            let Some(style) = next.as_deref().and_then(|n| self.cells.get(n)) else {
                break;
            };
            props = props.over(style);
            next = style.parent.clone();
        }
        props
    }

    /// How a cell of style `name` looks, as it differs from `base` (the
    /// document's default cell style).
    fn look(&self, name: &str, base: &Props) -> CellLook {
        let p = self.resolved(name);
        let differs = |a: &Option<String>, b: &Option<String>| (a != b).then(|| a.clone());
        CellLook {
            number_format: p.data_style.as_deref().and_then(|d| self.numbers.code(d)),
            font: Font {
                name: differs(&p.font_name, &base.font_name).flatten(),
                size: p.size.filter(|s| Some(*s) != base.size),
                bold: p.bold.unwrap_or(false),
                italic: p.italic.unwrap_or(false),
                underline: p.underline.flatten(),
                strike: p.strike.unwrap_or(false),
                color: p
                    .color
                    .flatten()
                    .filter(|c| Some(Some(*c)) != base.color && *c != [0; 3]),
            },
            fill: p.fill.flatten(),
            borders: Sides {
                left: p.sides[0].clone().flatten(),
                right: p.sides[1].clone().flatten(),
                top: p.sides[2].clone().flatten(),
                bottom: p.sides[3].clone().flatten(),
            },
            align: p.align.flatten(),
            wrap: p.wrap.unwrap_or(false),
        }
    }
}

/// A column width in points as characters, as LibreOffice converts them
/// (a digit of its default fonts, Calibri 11 and Liberation Sans 10, is
/// 111 twips), so that a width set in Excel comes back as it was.
fn chars(pt: f64) -> f64 {
    (pt * 20.0 / 111.0 * 256.0).round() / 256.0
}

/// Walks the tables of content.xml.
struct Tables<'a> {
    styles: &'a Styles,
    base: Props,
    looks: HashMap<String, CellLook>,
    out: Vec<SheetLooks>,
    /// The current table's columns: (first, count, style, default cell style).
    columns: Vec<(u32, u32, Option<String>, Option<String>)>,
    row: u32,
    row_repeat: u32,
    row_style: Option<String>,
    col: u32,
}

impl<'a> Tables<'a> {
    fn new(styles: &'a Styles) -> Tables<'a> {
        Tables {
            styles,
            base: styles.resolved("Default"),
            looks: HashMap::new(),
            out: Vec::new(),
            columns: Vec::new(),
            row: 1,
            row_repeat: 1,
            row_style: None,
            col: 1,
        }
    }

    fn read(mut self, xml: &str) -> Vec<SheetLooks> {
        let mut reader = quick_xml::Reader::from_str(xml);
        // Open tables: those inside a cell (depth > 1) are skipped.
        let mut depth = 0usize;
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) => {
                    if e.name().as_ref() == "table:table" {
                        depth += 1;
                    }
                    if depth == 1 {
                        self.start(&e, false);
                    }
                }
                Ok(Event::Empty(e)) if depth == 1 => self.start(&e, true),
                Ok(Event::End(e)) => match e.name().as_ref() {
                    "table:table" => {
                        if depth == 1 {
                            self.finish_table();
                        }
                        depth = depth.saturating_sub(1);
                    }
                    "table:table-row" if depth == 1 => {
                        self.row = self.row.saturating_add(self.row_repeat)
                    }
                    _ => {}
                },
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
        self.out
    }

    fn start(&mut self, e: &BytesStart<'_>, empty: bool) {
        let a = attrs(e);
        let repeat = |key: &str| a.get(key).and_then(|n| n.parse::<u32>().ok()).unwrap_or(1);
        match e.name().as_ref() {
            "table:table" => {
                self.out.push(SheetLooks {
                    name: a.get("name").cloned().unwrap_or_default(),
                    ..SheetLooks::default()
                });
                self.columns.clear();
                (self.row, self.col) = (1, 1);
            }
            "table:table-column" => {
                let first = self.columns.last().map_or(1, |c| c.0.saturating_add(c.1));
                let style = a.get("style-name").cloned();
                let cells = a.get("default-cell-style-name").cloned();
                self.columns
                    .push((first, repeat("number-columns-repeated"), style, cells));
            }
            "table:table-row" => {
                self.row_repeat = repeat("number-rows-repeated");
                self.row_style = a.get("default-cell-style-name").cloned();
                self.col = 1;
                if empty {
                    self.row = self.row.saturating_add(self.row_repeat);
                }
            }
            name @ ("table:table-cell" | "table:covered-table-cell") => {
                let count = repeat("number-columns-repeated");
                if name == "table:table-cell" {
                    self.merge(
                        repeat("number-columns-spanned"),
                        repeat("number-rows-spanned"),
                    );
                }
                let style = a.get("style-name").cloned();
                self.style_cells(style, count);
                self.col = self.col.saturating_add(count);
            }
            _ => {}
        }
    }

    /// Whether the current cell is inside Excel's grid.
    fn in_grid(&self) -> bool {
        self.row <= MAX_ROW && self.col <= MAX_COL
    }

    fn merge(&mut self, cols: u32, rows: u32) {
        if (cols > 1 || rows > 1) && self.in_grid() {
            let at = Cell {
                col: self.col,
                row: self.row,
            };
            let end = at.offset(cols.saturating_sub(1), rows.saturating_sub(1));
            if let Some(sheet) = self.out.last_mut() {
                sheet.merges.push(Range::new(at, end));
            }
        }
    }

    fn style_cells(&mut self, own: Option<String>, count: u32) {
        if count > MAX_REPEAT || self.row_repeat > MAX_REPEAT || !self.in_grid() {
            return;
        }
        for col in self.col..self.col.saturating_add(count).min(MAX_COL + 1) {
            let name = own
                .clone()
                .or_else(|| self.row_style.clone())
                .or_else(|| self.column(col).and_then(|c| c.3.clone()));
            let Some(name) = name else { continue };
            let look = self.look(&name);
            if look.is_plain() {
                continue;
            }
            let Some(sheet) = self.out.last_mut() else {
                return;
            };
            for row in self.row..self.row.saturating_add(self.row_repeat).min(MAX_ROW + 1) {
                sheet.cells.push((Cell { col, row }, look.clone()));
            }
        }
    }

    fn column(&self, col: u32) -> Option<&(u32, u32, Option<String>, Option<String>)> {
        self.columns
            .iter()
            .find(|c| c.0 <= col && col < c.0.saturating_add(c.1))
    }

    fn look(&mut self, name: &str) -> CellLook {
        if let Some(look) = self.looks.get(name) {
            return look.clone();
        }
        let look = self.styles.look(name, &self.base);
        self.looks.insert(name.to_string(), look.clone());
        look
    }

    fn finish_table(&mut self) {
        let Some(sheet) = self.out.last_mut() else {
            return;
        };
        for (first, count, style, _) in &self.columns {
            let width = style.as_ref().and_then(|s| self.styles.widths.get(s));
            match width {
                Some(&width) if *count <= MAX_REPEAT => sheet
                    .widths
                    .extend((*first..first.saturating_add(*count)).map(|c| (c, width))),
                // The run to the sheet's last column: every other column.
                Some(&width) => sheet.default_width = Some(width),
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_repeats_and_spans_are_bounded() {
        let content = concat!(
            r#"<office:document-content><office:body><office:spreadsheet>"#,
            r#"<table:table table:name="S"><table:table-column table:number-columns-repeated="4294967295"/>"#,
            r#"<table:table-column table:style-name="x" table:number-columns-repeated="4294967295"/>"#,
            r#"<table:table-row><table:table-cell table:style-name="b" table:number-columns-spanned="0" table:number-rows-spanned="3"/></table:table-row>"#,
            r#"<table:table-row table:number-rows-repeated="4294967295"><table:table-cell table:style-name="b" table:number-columns-repeated="4294967295"/></table:table-row>"#,
            r#"<table:table-row table:number-rows-repeated="4294967295"/>"#,
            r#"</table:table></office:spreadsheet></office:body></office:document-content>"#,
        );
        let mut styles = Styles::default();
        styles.read(
            r#"<s><style:style style:name="b" style:family="table-cell"><style:text-properties fo:font-weight="bold"/></style:style></s>"#,
        );
        let sheets = Tables::new(&styles).read(content);
        assert_eq!(sheets.len(), 1);
        assert_eq!(sheets[0].cells.len(), 1, "only the spanned cell is styled");
        assert_eq!(sheets[0].merges, [Range::parse("A1:A3").unwrap()]);
    }
}
