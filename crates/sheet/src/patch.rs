//! Cell edits written into the user's own package: only the edited
//! cells of the edited sheets change (and a cell format added to the
//! styles when a number format changed); every other byte of every other
//! part is copied. This is how a value, formula or number-format edit
//! keeps everything, including what umya-spreadsheet cannot write back
//! (charts it cannot read, data-validation lists, pivot tables…).
//! Structural edits (rows, columns, sheets, tables, charts, looks) go
//! through the model instead, with the loss check of [`crate::save`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Cursor, Write};

use quick_xml::events::{BytesStart, Event};
use umya_spreadsheet::{CellRawValue, Workbook, Worksheet};

use crate::addr::Cell;
use crate::opc::{self, Zip, elements, escape, read_text, section_items, sheet_parts};
use crate::values::{Prepared, builtin_format, is_date_format};

/// Edited cells per sheet name: (row, column) → the number format to
/// give the cell, when it changed.
pub type Touched = BTreeMap<String, BTreeMap<(u32, u32), Option<String>>>;

/// Cell edits not yet in a model, per sheet name: (row, column) → value.
pub type Pending = BTreeMap<String, BTreeMap<(u32, u32), Prepared>>;

/// What an edited cell holds, as the sheet stores it.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// No value (the style stays).
    Empty,
    /// A number.
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// An error code.
    Error(String),
    /// Text.
    Text(String),
    /// A formula, without `=`, with no stored result.
    Formula(String),
}

/// How an edited cell's number format changes.
#[derive(Debug, Clone, PartialEq)]
pub enum FormatChange {
    /// It keeps its format.
    Keep,
    /// It gets this one.
    Set(String),
    /// It gets this one unless its format already shows dates.
    DateUnlessDated(&'static str),
}

/// One edited cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellEdit {
    /// Its value.
    pub written: Written,
    /// Its number format.
    pub format: FormatChange,
}

/// Edited cells per sheet name, by (row, column).
pub type Edits = BTreeMap<String, BTreeMap<(u32, u32), CellEdit>>;

/// The `touched` cells of the model `book`, as edits.
pub fn edits_from_model(book: &Workbook, touched: &Touched) -> Result<Edits, String> {
    let mut out = Edits::new();
    for (name, cells) in touched {
        let ws = book
            .sheet_by_name(name)
            .map_err(|_| format!("no sheet `{name}`"))?;
        let edits = cells
            .iter()
            .map(|(&(row, col), fmt)| {
                let edit = CellEdit {
                    written: written_of(ws, Cell { col, row }),
                    format: fmt.clone().map_or(FormatChange::Keep, FormatChange::Set),
                };
                ((row, col), edit)
            })
            .collect();
        out.insert(name.clone(), edits);
    }
    Ok(out)
}

/// Prepared values not yet in a model, as edits.
pub fn edits_from_pending(pending: &Pending) -> Edits {
    let edit = |p: &Prepared| CellEdit {
        written: match p {
            Prepared::Blank => Written::Empty,
            Prepared::Number(n) | Prepared::Date { serial: n, .. } => Written::Number(*n),
            Prepared::Bool(b) => Written::Bool(*b),
            Prepared::Formula(f) => Written::Formula(f.clone()),
            Prepared::Text(t) => Written::Text(t.clone()),
        },
        format: p
            .date_format()
            .map_or(FormatChange::Keep, FormatChange::DateUnlessDated),
    };
    pending
        .iter()
        .map(|(name, cells)| {
            let cells = cells.iter().map(|(at, p)| (*at, edit(p))).collect();
            (name.clone(), cells)
        })
        .collect()
}

/// What the model's cell `at` holds.
fn written_of(ws: &Worksheet, at: Cell) -> Written {
    let Some(cell) = ws.cell(at.xy()) else {
        return Written::Empty;
    };
    if cell.is_formula() {
        return Written::Formula(cell.formula().to_string());
    }
    match cell.cell_value().raw_value() {
        CellRawValue::Numeric(n) => Written::Number(*n),
        CellRawValue::Bool(b) => Written::Bool(*b),
        CellRawValue::Error(e) => Written::Error(e.to_string()),
        CellRawValue::Empty => Written::Empty,
        other => Written::Text(other.to_string()),
    }
}

/// The package `original` with the `edits` written in.
pub fn patch(original: &[u8], edits: Edits) -> Result<Vec<u8>, String> {
    let mut zip = opc::open(original)?;
    let parts: HashMap<String, String> = sheet_parts(&mut zip)?.into_iter().collect();
    let mut styles = Styles::read(&mut zip)?;
    let mut replaced: HashMap<String, String> = HashMap::new();
    for (name, cells) in edits {
        let part = parts
            .get(&name)
            .ok_or_else(|| format!("the package has no part for sheet `{name}`"))?;
        let xml = read_text(&mut zip, part)?;
        replaced.insert(part.clone(), patch_sheet(&xml, cells, &mut styles)?);
    }
    if let Some(s) = styles.finish() {
        replaced.insert("xl/styles.xml".into(), s);
    }
    finish(&mut zip, replaced)
}

/// The package with the `replaced` parts, its workbook set to
/// recalculate on open and its calculation chain unlinked (Excel
/// rebuilds it; an old one naming moved cells would need a repair).
pub(crate) fn finish(
    zip: &mut Zip<'_>,
    mut replaced: HashMap<String, String>,
) -> Result<Vec<u8>, String> {
    let workbook = match replaced.remove("xl/workbook.xml") {
        Some(w) => w,
        None => read_text(zip, "xl/workbook.xml")?,
    };
    replaced.insert(
        "xl/workbook.xml".into(),
        crate::package::with_full_calc(&workbook),
    );
    for part in ["[Content_Types].xml", "xl/_rels/workbook.xml.rels"] {
        let text = read_text(zip, part)?;
        replaced.insert(part.into(), without_calc_chain(&text));
    }
    repack(zip, &replaced)
}

/// Every entry copied (still compressed), `replaced` ones written anew,
/// the calculation chain left out (Excel rebuilds it).
fn repack(zip: &mut Zip<'_>, replaced: &HashMap<String, String>) -> Result<Vec<u8>, String> {
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for i in 0..zip.len() {
        let entry = zip.by_index_raw(i).map_err(|e| e.to_string())?;
        let name = entry.name().map_err(|e| e.to_string())?.into_owned();
        if name.eq_ignore_ascii_case("xl/calcChain.xml") {
            continue;
        }
        match replaced.get(&name) {
            Some(text) => {
                drop(entry);
                out.start_file(name, options).map_err(|e| e.to_string())?;
                out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
            }
            None => out.raw_copy_file(entry).map_err(|e| e.to_string())?,
        }
    }
    Ok(out.finish().map_err(|e| e.to_string())?.into_inner())
}

/// Element names a rewrite of a worksheet may lose without losing
/// anything: cell-level markup (values are compared by the model), and
/// markup whose values are recomputed.
const CELL_LEVEL: &[&str] = &["c", "v", "f", "is", "t", "r", "rPr", "row"];

/// What kinds of markup each sheet of `before` had that the same sheet
/// in `after` has not, and the same for the styles part, in words
/// (`sheet `Notes`: formula1`). A part-level check misses these: a
/// data-validation list's values, say, live inside the sheet part.
pub fn lost_markup(before: &[u8], after: &[u8]) -> Vec<String> {
    let (Ok(mut a), Ok(mut b)) = (opc::open(before), opc::open(after)) else {
        return Vec::new();
    };
    let (Ok(pa), Ok(pb)) = (sheet_parts(&mut a), sheet_parts(&mut b)) else {
        return Vec::new();
    };
    let pb: HashMap<String, String> = pb.into_iter().collect();
    let mut out = Vec::new();
    let mut pairs: Vec<(String, String, String)> = pa
        .iter()
        .filter_map(|(name, part)| {
            Some((
                format!("sheet `{name}`"),
                part.clone(),
                pb.get(name)?.clone(),
            ))
        })
        .collect();
    pairs.sort();
    pairs.push((
        "the styles".into(),
        "xl/styles.xml".into(),
        "xl/styles.xml".into(),
    ));
    for (label, old, new) in pairs {
        let (Ok(x), Ok(y)) = (read_text(&mut a, &old), read_text(&mut b, &new)) else {
            continue;
        };
        let kept = element_names(&y);
        let lost: Vec<String> = element_names(&x)
            .into_iter()
            .filter(|n| !kept.contains(n) && !CELL_LEVEL.contains(&n.as_str()))
            .collect();
        if !lost.is_empty() {
            let mut words: Vec<&str> = Vec::new();
            for n in &lost {
                let w = markup_words(n);
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            out.push(format!(
                "{label}: {} ({})",
                words.join(", "),
                lost.join(", ")
            ));
        }
    }
    out
}

/// What a kind of markup is to the user.
fn markup_words(element: &str) -> &'static str {
    match element {
        "formula1" | "formula2" | "dataValidation" | "dataValidations" => "data validation rules",
        "colors" | "indexedColors" | "rgbColor" | "mruColors" => "a custom colour palette",
        "sheetPr" | "outlinePr" | "pageSetUpPr" | "pageSetup" | "printOptions" | "pageMargins" => {
            "print and outline settings"
        }
        "drawing" | "legacyDrawing" | "picture" => "drawings (pictures, charts, comment boxes)",
        "conditionalFormatting" | "cfRule" | "dxf" | "dxfs" => "conditional formatting",
        "hyperlink" | "hyperlinks" => "hyperlinks",
        "mergeCell" | "mergeCells" => "merged ranges",
        "headerFooter" | "oddHeader" | "oddFooter" => "headers and footers",
        "sheetProtection" | "protectedRange" => "protection",
        "autoFilter" | "filterColumn" | "sortState" => "filters",
        "extLst" | "ext" => "newer Excel features (sparklines, extensions)",
        _ => "other settings",
    }
}

/// The distinct element names in `xml`, in order.
fn element_names(xml: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out: Vec<String> = Vec::new();
    while let Ok(ev) = reader.read_event() {
        match ev {
            Event::Start(e) | Event::Empty(e) => {
                let n = e.local_name().into_inner().to_string();
                if !out.contains(&n) {
                    out.push(n);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

/// `text` without the element that names the calculation chain.
fn without_calc_chain(text: &str) -> String {
    let Some(at) = text.find("calcChain.xml") else {
        return text.to_string();
    };
    let start = text[..at].rfind('<').unwrap_or(at);
    let end = text[at..].find("/>").map_or(text.len(), |e| at + e + 2);
    format!("{}{}", &text[..start], &text[end..])
}

/// The styles part, with cell formats added for changed number formats.
struct Styles {
    xml: Option<String>,
    /// Custom number formats: code → id.
    codes: HashMap<String, u32>,
    /// And id → code.
    by_id: HashMap<u32, String>,
    next_id: u32,
    /// The cell formats (`<xf …>`) as written, in order.
    xfs: Vec<String>,
    added_fmts: Vec<String>,
    added_xfs: Vec<String>,
    made: HashMap<(u32, String), u32>,
    /// The namespace prefix the part writes (`x:`), or `""`.
    prefix: String,
}

impl Styles {
    fn read(zip: &mut Zip<'_>) -> Result<Styles, String> {
        let xml = read_text(zip, "xl/styles.xml").ok();
        let text = xml.clone().unwrap_or_default();
        let codes: HashMap<String, u32> = elements(&text, "numFmt")
            .into_iter()
            .filter_map(|a| {
                Some((
                    a.get("formatCode")?.clone(),
                    a.get("numFmtId")?.parse().ok()?,
                ))
            })
            .collect();
        let next_id = codes.values().copied().max().unwrap_or(163).max(163) + 1;
        let by_id = codes.iter().map(|(c, i)| (*i, c.clone())).collect();
        let xfs = section_items(&text, "cellXfs", "xf");
        let prefix = opc::root_prefix(&text).to_string();
        Ok(Styles {
            prefix,
            xml,
            codes,
            by_id,
            next_id,
            xfs,
            added_fmts: Vec::new(),
            added_xfs: Vec::new(),
            made: HashMap::new(),
        })
    }

    /// Whether cell format `s` shows dates.
    fn is_date(&self, s: u32) -> bool {
        let Some(id) = self
            .xfs
            .get(s as usize)
            .and_then(|xf| opc::tag_attr(xf, "numFmtId"))
            .and_then(|id| id.parse::<u32>().ok())
        else {
            return false;
        };
        let code = self.by_id.get(&id).map(String::as_str);
        code.or_else(|| builtin_format(id))
            .is_some_and(|c| c != "General" && is_date_format(c))
    }

    /// The index of a cell format like `base` with number format `code`.
    fn with_format(&mut self, base: u32, code: &str) -> Result<u32, String> {
        if let Some(i) = self.made.get(&(base, code.to_string())) {
            return Ok(*i);
        }
        let id = match self.codes.get(code) {
            Some(id) => *id,
            None => {
                let id = self.next_id;
                self.next_id += 1;
                self.codes.insert(code.to_string(), id);
                self.added_fmts.push(format!(
                    "<{}numFmt numFmtId=\"{id}\" formatCode=\"{}\"/>",
                    self.prefix,
                    escape(code)
                ));
                id
            }
        };
        let template = self
            .xfs
            .get(base as usize)
            .cloned()
            .ok_or("the styles part has no cell formats")?;
        let xf = set_attr(
            &set_attr(&template, "numFmtId", &id.to_string()),
            "applyNumberFormat",
            "1",
        );
        let index = (self.xfs.len() + self.added_xfs.len()) as u32;
        self.added_xfs.push(xf);
        self.made.insert((base, code.to_string()), index);
        Ok(index)
    }

    /// The styles part with what was added, if anything was.
    fn finish(self) -> Option<String> {
        if self.added_xfs.is_empty() {
            return None;
        }
        let mut xml = self.xml?;
        if !self.added_fmts.is_empty() {
            xml = append_items(&xml, "numFmts", &self.added_fmts, Some("fonts"));
        }
        Some(append_items(&xml, "cellXfs", &self.added_xfs, None))
    }
}

/// `element`'s start tag with `name="value"` set (its value replaced
/// whichever quotes it has, or the attribute added).
pub(crate) fn set_attr(element: &str, name: &str, value: &str) -> String {
    let tag_end = element.find('>').unwrap_or(element.len());
    let tag = &element[..tag_end];
    if let Some((v_start, v_end)) = attr_value_span(tag, name) {
        return format!(
            "{}\"{}\"{}",
            &element[..v_start - 1],
            value,
            &element[v_end + 1..]
        );
    }
    let insert = if tag.ends_with('/') {
        tag_end - 1
    } else {
        tag_end
    };
    format!(
        "{} {name}=\"{value}\"{}",
        &element[..insert],
        &element[insert..]
    )
}

/// Where attribute `name`'s value lies in `tag` (inside its quotes).
fn attr_value_span(tag: &str, name: &str) -> Option<(usize, usize)> {
    tag.match_indices(name).find_map(|(at, _)| {
        let spaced = tag[..at].ends_with(|c: char| c.is_ascii_whitespace());
        let rest = tag[at + name.len()..].trim_start();
        let rest = rest.strip_prefix('=')?.trim_start();
        let quote = rest.chars().next().filter(|q| *q == '"' || *q == '\'')?;
        let v_start = tag.len() - rest.len() + 1;
        let v_end = tag[v_start..].find(quote)? + v_start;
        spaced.then_some((v_start, v_end))
    })
}

/// `items` appended to the `section` element (any prefix; made before
/// `before`, or first in the document element, when absent), its
/// `count` updated.
pub(crate) fn append_items(
    xml: &str,
    section: &str,
    items: &[String],
    before: Option<&str>,
) -> String {
    let joined = items.concat();
    let Some((at, p)) = opc::find_open(xml, section) else {
        let p = opc::root_prefix(xml);
        let block = format!(
            "<{p}{section} count=\"{}\">{joined}</{p}{section}>",
            items.len()
        );
        let spot = before
            .and_then(|b| opc::find_open(xml, b))
            .map(|(a, _)| a)
            .or_else(|| root_content_start(xml))
            .unwrap_or(xml.len());
        return format!("{}{}{}", &xml[..spot], block, &xml[spot..]);
    };
    let tag_end = xml[at..].find('>').map_or(xml.len() - 1, |e| at + e);
    let tag = &xml[at..=tag_end];
    let item = match section {
        "numFmts" => "numFmt",
        "fonts" => "font",
        "fills" => "fill",
        "borders" => "border",
        _ => "xf",
    };
    let count = section_items(xml, section, item).len() + items.len();
    let self_closing = tag.ends_with("/>");
    let open_tag = if self_closing {
        format!("{}>", tag[..tag.len() - 2].trim_end())
    } else {
        tag.to_string()
    };
    let new_tag = set_attr(&open_tag, "count", &count.to_string());
    let rest = &xml[tag_end + 1..];
    if self_closing {
        return format!("{}{new_tag}{joined}</{p}{section}>{rest}", &xml[..at]);
    }
    let close = format!("</{p}{section}>");
    let c = rest.find(&close).unwrap_or(0);
    format!(
        "{}{new_tag}{}{joined}{}",
        &xml[..at],
        &rest[..c],
        &rest[c..]
    )
}

/// Just after the document element's start tag.
fn root_content_start(xml: &str) -> Option<usize> {
    let (at, _) = xml
        .match_indices('<')
        .find(|(i, _)| !xml[i + 1..].starts_with(['?', '!']))?;
    xml[at..].find('>').map(|e| at + e + 1)
}

/// A worksheet part with the edited `cells` written in.
fn patch_sheet(
    xml: &str,
    cells: BTreeMap<(u32, u32), CellEdit>,
    styles: &mut Styles,
) -> Result<String, String> {
    let mut pending = Rows::new();
    for ((row, col), edit) in cells {
        pending.entry(row).or_default().insert(col, edit);
    }
    let existing = existing_cells(xml, &pending)?;
    let mut w = SheetWriter {
        xml,
        styles,
        out: String::with_capacity(xml.len() + 4096),
        copied: 0,
        prefix: String::new(),
        existing,
    };
    w.run(&mut pending)?;
    Ok(w.out)
}

/// Edited cells waiting to be written: row → column → edit.
type Rows = BTreeMap<u32, BTreeMap<u32, CellEdit>>;

/// Which of the edited rows and cells the sheet already has, wherever
/// they are (rows and cells may be out of order, and rows or cells
/// without a number follow the one before): an existing one is replaced
/// where it stands, only a new one is inserted.
#[derive(Default)]
struct Existing {
    rows: HashSet<u32>,
    cells: HashSet<(u32, u32)>,
}

/// The edited rows and cells of `pending` that `xml` already has.
fn existing_cells(xml: &str, pending: &Rows) -> Result<Existing, String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found = Existing::default();
    let (mut row, mut col, mut in_data) = (0u32, 0u32, false);
    loop {
        match reader
            .read_event()
            .map_err(|e| format!("the sheet's XML: {e}"))?
        {
            Event::Start(e) if e.local_name().into_inner() == "sheetData" => in_data = true,
            Event::End(e) if e.local_name().into_inner() == "sheetData" => in_data = false,
            Event::Start(e) | Event::Empty(e) if in_data => match e.local_name().into_inner() {
                "row" => {
                    row = row_number(&e, row);
                    col = 0;
                    if pending.contains_key(&row) {
                        found.rows.insert(row);
                    }
                }
                "c" => {
                    col = cell_attrs(&e).0.map_or(col + 1, |c| c.col);
                    if pending.get(&row).is_some_and(|r| r.contains_key(&col)) {
                        found.cells.insert((row, col));
                    }
                }
                _ => {}
            },
            Event::Eof => return Ok(found),
            _ => {}
        }
    }
}

/// Walks a worksheet part, copying it, splicing edited cells and rows.
struct SheetWriter<'a> {
    xml: &'a str,
    styles: &'a mut Styles,
    out: String,
    copied: usize,
    prefix: String,
    existing: Existing,
}

impl SheetWriter<'_> {
    /// Copies the original up to `at`.
    fn copy_to(&mut self, at: usize) {
        self.out.push_str(&self.xml[self.copied..at]);
        self.copied = at;
    }

    fn run(&mut self, pending: &mut Rows) -> Result<(), String> {
        let mut reader = quick_xml::Reader::from_str(self.xml);
        let (mut row, mut col, mut in_data) = (0u32, 0u32, false);
        let mut row_cells: BTreeMap<u32, CellEdit> = BTreeMap::new();
        loop {
            let before = reader.buffer_position() as usize;
            let ev = reader
                .read_event()
                .map_err(|e| format!("the sheet's XML: {e}"))?;
            let after = reader.buffer_position() as usize;
            let is_start = matches!(ev, Event::Start(_));
            match ev {
                Event::Start(e) if e.local_name().into_inner() == "sheetData" => {
                    in_data = true;
                    self.prefix = prefix_of(&e);
                }
                Event::Empty(e) if e.local_name().into_inner() == "sheetData" => {
                    self.prefix = prefix_of(&e);
                    self.fill_empty_data(pending, before, after)?;
                }
                Event::Start(e) if in_data && e.local_name().into_inner() == "row" => {
                    row = row_number(&e, row);
                    col = 0;
                    if pending.is_empty() && row_cells.is_empty() {
                        continue;
                    }
                    self.copy_to(before);
                    self.flush_rows(pending, row)?;
                    row_cells = pending.remove(&row).unwrap_or_default();
                }
                Event::Empty(e) if in_data && e.local_name().into_inner() == "row" => {
                    row = row_number(&e, row);
                    self.fill_empty_row(pending, row, before, after)?;
                }
                Event::Start(e) | Event::Empty(e)
                    if in_data && e.local_name().into_inner() == "c" =>
                {
                    if row_cells.is_empty() {
                        continue;
                    }
                    let (r, s) = cell_attrs(&e);
                    col = r.map_or(col + 1, |c| c.col);
                    self.copy_to(before);
                    self.write_before(&mut row_cells, Cell { col, row })?;
                    if let Some(edit) = row_cells.remove(&col) {
                        let end = if is_start {
                            skip_element(&mut reader)?
                        } else {
                            after
                        };
                        self.write_cell(Cell { col, row }, s, edit)?;
                        self.copied = end;
                    }
                }
                Event::End(e) if in_data && e.local_name().into_inner() == "row" => {
                    if row_cells.is_empty() {
                        continue;
                    }
                    self.copy_to(before);
                    let rest = std::mem::take(&mut row_cells);
                    self.write_cells(row, rest)?;
                }
                Event::End(e) if e.local_name().into_inner() == "sheetData" => {
                    self.copy_to(before);
                    self.flush_rows(pending, u32::MAX)?;
                    in_data = false;
                }
                Event::Eof => break,
                _ => {}
            }
        }
        self.copy_to(self.xml.len());
        if !pending.is_empty() {
            return Err("the sheet has no cell data section".into());
        }
        Ok(())
    }

    /// `<sheetData/>`: the pending rows go inside it.
    fn fill_empty_data(
        &mut self,
        pending: &mut Rows,
        before: usize,
        after: usize,
    ) -> Result<(), String> {
        self.copy_to(before);
        let p = self.prefix.clone();
        self.out.push_str(&format!("<{p}sheetData>"));
        self.flush_rows(pending, u32::MAX)?;
        self.out.push_str(&format!("</{p}sheetData>"));
        self.copied = after;
        Ok(())
    }

    /// `<row …/>` (row `row`): its pending cells go inside it.
    fn fill_empty_row(
        &mut self,
        pending: &mut Rows,
        row: u32,
        before: usize,
        after: usize,
    ) -> Result<(), String> {
        if pending.is_empty() {
            return Ok(());
        }
        self.copy_to(before);
        self.flush_rows(pending, row)?;
        if let Some(cells) = pending.remove(&row) {
            let tag = &self.xml[before..after];
            self.out.push_str(&tag.replacen("/>", ">", 1));
            self.write_cells(row, cells)?;
            self.out.push_str(&format!("</{}row>", self.prefix));
            self.copied = after;
        }
        Ok(())
    }

    /// The pending cells of `at`'s row left of it, written before it.
    fn write_before(
        &mut self,
        row_cells: &mut BTreeMap<u32, CellEdit>,
        at: Cell,
    ) -> Result<(), String> {
        let earlier: Vec<u32> = row_cells
            .range(..at.col)
            .map(|(c, _)| *c)
            .filter(|c| !self.existing.cells.contains(&(at.row, *c)))
            .collect();
        for c in earlier {
            if let Some(edit) = row_cells.remove(&c) {
                self.write_cell(
                    Cell {
                        col: c,
                        row: at.row,
                    },
                    None,
                    edit,
                )?;
            }
        }
        Ok(())
    }

    /// New rows for the pending rows before `before` that the sheet has
    /// not (every pending row when `before` is `u32::MAX`).
    fn flush_rows(&mut self, pending: &mut Rows, before: u32) -> Result<(), String> {
        let due: Vec<u32> = pending
            .range(..before)
            .map(|(r, _)| *r)
            .filter(|r| before == u32::MAX || !self.existing.rows.contains(r))
            .collect();
        for r in due {
            let Some(cells) = pending.remove(&r) else {
                continue;
            };
            let p = self.prefix.clone();
            self.out.push_str(&format!("<{p}row r=\"{r}\">"));
            self.write_cells(r, cells)?;
            self.out.push_str(&format!("</{p}row>"));
        }
        Ok(())
    }

    fn write_cells(&mut self, row: u32, cells: BTreeMap<u32, CellEdit>) -> Result<(), String> {
        for (col, edit) in cells {
            self.write_cell(Cell { col, row }, None, edit)?;
        }
        Ok(())
    }

    /// One edited cell as XML, with style `s` (its original one), or a
    /// format like it with the edit's number format.
    fn write_cell(&mut self, at: Cell, s: Option<u32>, edit: CellEdit) -> Result<(), String> {
        let s = match edit.format {
            FormatChange::Keep => s,
            FormatChange::Set(code) => Some(self.styles.with_format(s.unwrap_or(0), &code)?),
            FormatChange::DateUnlessDated(code) => {
                if self.styles.is_date(s.unwrap_or(0)) {
                    s
                } else {
                    Some(self.styles.with_format(s.unwrap_or(0), code)?)
                }
            }
        };
        self.out
            .push_str(&cell_xml(&self.prefix, at, &edit.written, s));
        Ok(())
    }
}

/// A `<row>`'s number: its `r`, else the one after `prev`.
fn row_number(e: &BytesStart<'_>, prev: u32) -> u32 {
    opc::num_attr(e, "r").unwrap_or(prev + 1)
}

/// A cell's address (`r`) and cell format (`s`), read without allocating.
fn cell_attrs(e: &BytesStart<'_>) -> (Option<Cell>, Option<u32>) {
    let (mut r, mut s) = (None, None);
    for a in e.attributes().with_checks(false).flatten() {
        match a.key.local_name().into_inner() {
            "r" => r = Cell::parse(&a.value).ok(),
            "s" => s = a.value.parse().ok(),
            _ => {}
        }
    }
    (r, s)
}

/// `x:` when the element is written `<x:sheetData>`.
fn prefix_of(e: &BytesStart<'_>) -> String {
    e.name()
        .prefix()
        .map(|p| format!("{}:", p.into_inner()))
        .unwrap_or_default()
}

/// Reads to the end of the element just started; the offset after it.
fn skip_element(reader: &mut quick_xml::Reader<&[u8]>) -> Result<usize, String> {
    let mut depth = 1;
    loop {
        match reader.read_event().map_err(|e| e.to_string())? {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    return Ok(reader.buffer_position() as usize);
                }
            }
            Event::Eof => return Err("a cell is not closed".into()),
            _ => {}
        }
    }
}

/// The XML of an edited cell `at`: a formula (no stored result: the
/// workbook recalculates on open), a number, a boolean, an error, text
/// (inline), or an empty cell keeping its style.
fn cell_xml(p: &str, at: Cell, written: &Written, s: Option<u32>) -> String {
    let style = s
        .filter(|s| *s != 0)
        .map(|s| format!(" s=\"{s}\""))
        .unwrap_or_default();
    let open = |t: &str| format!("<{p}c r=\"{at}\"{style}{t}>");
    match written {
        Written::Formula(f) => format!("{}<{p}f>{}</{p}f></{p}c>", open(""), escape(f)),
        Written::Number(n) => format!("{}<{p}v>{n}</{p}v></{p}c>", open("")),
        Written::Bool(b) => format!("{}<{p}v>{}</{p}v></{p}c>", open(" t=\"b\""), u8::from(*b)),
        Written::Error(e) => format!("{}<{p}v>{}</{p}v></{p}c>", open(" t=\"e\""), escape(e)),
        Written::Empty => format!("<{p}c r=\"{at}\"{style}/>"),
        Written::Text(t) => format!(
            "{}<{p}is><{p}t xml:space=\"preserve\">{}</{p}t></{p}is></{p}c>",
            open(" t=\"inlineStr\""),
            escape(t)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_set_or_added() {
        assert_eq!(
            set_attr("<xf numFmtId=\"0\" fontId=\"1\"/>", "numFmtId", "164"),
            "<xf numFmtId=\"164\" fontId=\"1\"/>"
        );
        assert_eq!(
            set_attr("<xf fontId=\"1\"/>", "applyNumberFormat", "1"),
            "<xf fontId=\"1\" applyNumberFormat=\"1\"/>"
        );
        assert_eq!(
            set_attr("<x:xf\n  numFmtId='0' xfId=\"0\"/>", "numFmtId", "9"),
            "<x:xf\n  numFmtId=\"9\" xfId=\"0\"/>"
        );
        assert_eq!(
            set_attr("<xf xnumFmtId=\"1\"/>", "numFmtId", "9"),
            "<xf xnumFmtId=\"1\" numFmtId=\"9\"/>"
        );
        assert_eq!(
            set_attr("<xf fontId=\"1\"><alignment/></xf>", "numFmtId", "7"),
            "<xf fontId=\"1\" numFmtId=\"7\"><alignment/></xf>"
        );
    }

    #[test]
    fn items_are_appended_with_their_count() {
        let xml = "<styleSheet><fonts/><cellXfs count=\"1\"><xf a=\"1\"/></cellXfs></styleSheet>";
        let out = append_items(xml, "cellXfs", &["<xf b=\"2\"/>".into()], None);
        assert_eq!(
            out,
            "<styleSheet><fonts/><cellXfs count=\"2\"><xf a=\"1\"/><xf b=\"2\"/></cellXfs></styleSheet>"
        );
        let out = append_items(
            xml,
            "numFmts",
            &["<numFmt numFmtId=\"164\" formatCode=\"0.0\"/>".into()],
            Some("fonts"),
        );
        assert!(
            out.starts_with("<styleSheet><numFmts count=\"1\"><numFmt"),
            "{out}"
        );
    }

    fn no_styles() -> Styles {
        Styles {
            xml: None,
            codes: HashMap::new(),
            by_id: HashMap::new(),
            next_id: 164,
            xfs: Vec::new(),
            added_fmts: Vec::new(),
            added_xfs: Vec::new(),
            made: HashMap::new(),
            prefix: String::new(),
        }
    }

    fn number(row: u32, col: u32, n: f64) -> ((u32, u32), CellEdit) {
        let edit = CellEdit {
            written: Written::Number(n),
            format: FormatChange::Keep,
        };
        ((row, col), edit)
    }

    #[test]
    fn cells_and_rows_out_of_order_or_unnumbered_are_replaced_where_they_stand() {
        // C1 before A1 and B1: editing B1 replaces it, nothing doubles.
        let xml = r#"<x:worksheet><x:sheetData><x:row r="3"><x:c r="A3"><x:v>3</x:v></x:c></x:row><x:row r="1"><x:c r="C1"><x:v>1</x:v></x:c><x:c r="A1"/><x:c r="B1"><x:v>2</x:v></x:c></x:row></x:sheetData></x:worksheet>"#;
        let out = patch_sheet(
            xml,
            [number(1, 2, 9.0), number(2, 1, 5.0)].into(),
            &mut no_styles(),
        )
        .unwrap();
        assert_eq!(
            out,
            r#"<x:worksheet><x:sheetData><x:row r="2"><x:c r="A2"><x:v>5</x:v></x:c></x:row><x:row r="3"><x:c r="A3"><x:v>3</x:v></x:c></x:row><x:row r="1"><x:c r="C1"><x:v>1</x:v></x:c><x:c r="A1"/><x:c r="B1"><x:v>9</x:v></x:c></x:row></x:sheetData></x:worksheet>"#
        );
        // Rows and cells without numbers follow the one before.
        let xml = "<worksheet><sheetData><row><c><v>1</v></c><c><v>2</v></c></row><row><c><v>3</v></c></row></sheetData></worksheet>";
        let out = patch_sheet(
            xml,
            [number(2, 1, 7.0), number(1, 3, 8.0)].into(),
            &mut no_styles(),
        )
        .unwrap();
        assert_eq!(
            out,
            r#"<worksheet><sheetData><row><c><v>1</v></c><c><v>2</v></c><c r="C1"><v>8</v></c></row><row><c r="A2"><v>7</v></c></row></sheetData></worksheet>"#
        );
    }

    #[test]
    fn the_calc_chain_is_unlinked() {
        let rels = r#"<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/><Relationship Id="rId9" Type="x" Target="calcChain.xml"/></Relationships>"#;
        assert_eq!(
            without_calc_chain(rels),
            r#"<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>"#
        );
    }
}
