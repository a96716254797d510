//! Rows and columns inserted or deleted in the user's own package, as
//! Excel does it: cells move, and so does every reference to them:
//! formulas on every sheet, defined names, merged ranges, conditional
//! formats, validations, hyperlinks, tables, comments, drawings' anchors,
//! charts' series and pivot sources. Every other byte stays. What cannot
//! be moved exactly in place (a shared formula across the edit, a merged
//! range or table cut by a deletion) is a [`NotInPlace`], and the save
//! then goes through the model with its loss check.

use std::collections::HashMap;
use std::sync::LazyLock;

use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesStart, BytesText, Event};
use regex::Regex;

use crate::addr::{Cell, column_name};
use crate::opc::{self, Zip, sheet_parts};

/// Excel's last row and column.
const MAX_ROW: u32 = 1_048_576;
const MAX_COL: u32 = 16_384;

/// Which way cells move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Rows.
    Rows,
    /// Columns.
    Columns,
}

/// Rows or columns inserted or deleted on one sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shift {
    /// The sheet's name.
    pub sheet: String,
    /// Rows or columns.
    pub axis: Axis,
    /// The first row or column inserted or deleted (1-based).
    pub at: u32,
    /// How many.
    pub count: u32,
    /// Deleted rather than inserted.
    pub delete: bool,
}

/// Why a shift is not written in place, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotInPlace(pub String);

impl Shift {
    /// A shift on a sheet named later (by the tool that knows it).
    pub fn new(axis: Axis, at: u32, count: u32, delete: bool) -> Shift {
        Shift {
            sheet: String::new(),
            axis,
            at,
            count,
            delete,
        }
    }

    /// Where index `i` (a row or column, by the axis) goes; `None` when it
    /// is deleted or pushed off the sheet.
    pub fn index(&self, i: u32) -> Option<u32> {
        let max = match self.axis {
            Axis::Rows => MAX_ROW,
            Axis::Columns => MAX_COL,
        };
        if i < self.at {
            Some(i)
        } else if !self.delete {
            Some(i + self.count).filter(|n| *n <= max)
        } else if i < self.at + self.count {
            None
        } else {
            Some(i - self.count)
        }
    }

    /// Where the span `a..=b` goes: a span cut by a deletion shrinks,
    /// one wholly deleted is `None`, one an insertion falls inside grows.
    pub fn span(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        if !self.delete {
            return Some((self.index(a)?, self.index(b).unwrap_or(b)));
        }
        let end = self.at + self.count - 1;
        let gone = |i: u32| i >= self.at && i <= end;
        if gone(a) && gone(b) {
            return None;
        }
        let na = if gone(a) { self.at } else { self.index(a)? };
        let nb = if gone(b) { self.at - 1 } else { self.index(b)? };
        (na <= nb).then_some((na, nb))
    }

    /// Where cell `c` goes.
    pub fn cell(&self, c: Cell) -> Option<Cell> {
        Some(match self.axis {
            Axis::Rows => Cell {
                row: self.index(c.row)?,
                ..c
            },
            Axis::Columns => Cell {
                col: self.index(c.col)?,
                ..c
            },
        })
    }

    /// Whether this shift is on the sheet named `name`.
    fn on(&self, name: &str) -> bool {
        self.sheet.to_lowercase() == name.to_lowercase()
    }

    /// Whether the span `a..=b` is cut in a way that cannot move as one
    /// block: an insertion inside it, or a deletion of part of it.
    fn splits(&self, a: u32, b: u32) -> bool {
        let end = self.at + self.count - 1;
        if self.delete {
            let overlaps = a <= end && b >= self.at;
            overlaps && !(a >= self.at && b <= end)
        } else {
            a < self.at && b >= self.at
        }
    }
}

/// A reference, optionally with its sheet: `A1`, `$B$2:C9`, `A:C`,
/// `3:5`, `'My sheet'!A1`. Strings and bracketed parts (structured
/// references, other workbooks) are masked out before matching.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        (?P<sheet>'(?:[^']|'')+'!|[\p{L}\p{N}_.]+!)?
        (?P<ref>
            \$?[A-Za-z]{1,3}\$?[0-9]+(?::\$?[A-Za-z]{1,3}\$?[0-9]+)?
          | \$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}
          | \$?[0-9]+:\$?[0-9]+
        )",
    )
    .expect("a valid pattern")
});

/// One end of a reference: a column and/or a row, each maybe `$`-fixed.
#[derive(Debug, Clone, Copy)]
struct End {
    col: Option<(bool, u32)>,
    row: Option<(bool, u32)>,
}

impl End {
    fn parse(text: &str) -> Option<End> {
        let (mut col, mut row) = (None, None);
        let mut rest = text;
        let fixed = |r: &mut &str| match r.strip_prefix('$') {
            Some(t) => {
                *r = t;
                true
            }
            None => false,
        };
        let f = fixed(&mut rest);
        let letters = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if letters > 0 {
            col = Some((f, crate::addr::parse_column(&rest[..letters]).ok()?));
            rest = &rest[letters..];
            let f = fixed(&mut rest);
            if !rest.is_empty() {
                row = Some((f, rest.parse().ok()?));
            }
        } else {
            row = Some((f, rest.parse().ok()?));
        }
        Some(End { col, row })
    }

    fn write(&self) -> String {
        let mut s = String::new();
        if let Some((f, c)) = self.col {
            s.push_str(if f { "$" } else { "" });
            s.push_str(&column_name(c));
        }
        if let Some((f, r)) = self.row {
            s.push_str(if f { "$" } else { "" });
            s.push_str(&r.to_string());
        }
        s
    }

    fn get(&self, axis: Axis) -> Option<u32> {
        match axis {
            Axis::Rows => self.row.map(|r| r.1),
            Axis::Columns => self.col.map(|c| c.1),
        }
    }

    fn set(&mut self, axis: Axis, v: u32) {
        match axis {
            Axis::Rows => self.row = self.row.map(|(f, _)| (f, v)),
            Axis::Columns => self.col = self.col.map(|(f, _)| (f, v)),
        }
    }
}

/// A reference's text moved by `shift`; `None` when what it names is
/// deleted.
fn moved_reference(text: &str, shift: &Shift) -> Option<String> {
    let (a, b) = match text.split_once(':') {
        Some((a, b)) => (End::parse(a)?, Some(End::parse(b)?)),
        None => (End::parse(text)?, None),
    };
    let (Some(i), second) = (a.get(shift.axis), b.map(|b| b.get(shift.axis))) else {
        return Some(text.to_string());
    };
    let mut a = a;
    match (b, second) {
        (Some(mut b), Some(Some(j))) => {
            let (ni, nj) = shift.span(i.min(j), i.max(j))?;
            a.set(shift.axis, ni);
            b.set(shift.axis, nj);
            Some(format!("{}:{}", a.write(), b.write()))
        }
        (None, _) => {
            a.set(shift.axis, shift.index(i)?);
            Some(a.write())
        }
        _ => Some(text.to_string()),
    }
}

/// Byte ranges of `f` inside string literals and brackets.
fn masked(f: &str) -> Vec<(usize, usize)> {
    let b = f.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() {
                    if b[i] == b'"' && b.get(i + 1) == Some(&b'"') {
                        i += 2;
                    } else if b[i] == b'"' {
                        break;
                    } else {
                        i += 1;
                    }
                }
                out.push((start, i + 1));
            }
            b'[' => {
                let (start, mut depth) = (i, 0);
                while i < b.len() {
                    depth += i32::from(b[i] == b'[') - i32::from(b[i] == b']');
                    if depth == 0 {
                        break;
                    }
                    i += 1;
                }
                out.push((start, i + 1));
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The sheet a qualifier names (`'It''s'!` → `It's`).
fn qualifier_name(q: &str) -> String {
    let q = q.trim_end_matches('!');
    match q.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
        Some(inner) => inner.replace("''", "'"),
        None => q.to_string(),
    }
}

/// What becomes of one reference in a formula.
enum Change {
    /// It stays as written.
    Keep,
    /// It becomes this.
    To(String),
    /// What it names is gone: `#REF!`, as Excel writes it.
    Gone,
}

/// Formula `f` with `each` applied to every reference (given its sheet
/// qualifier's name, if any, and the reference without it).
fn map_references(f: &str, mut each: impl FnMut(Option<&str>, &str) -> Change) -> String {
    let mask = masked(f);
    let mut out = String::with_capacity(f.len());
    let mut copied = 0;
    for m in REFERENCE.captures_iter(f) {
        let whole = m.get(0).expect("the whole match");
        let (s, e) = (whole.start(), whole.end());
        if mask.iter().any(|(a, b)| s < *b && e > *a) {
            continue;
        }
        let before = f[..s].chars().next_back();
        let after = f[e..].chars().next();
        let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '\\' | ']');
        if before.is_some_and(word)
            || after.is_some_and(|c| word(c) || matches!(c, '(' | '!' | '['))
        {
            continue;
        }
        let sheet = m.name("sheet").map(|q| qualifier_name(q.as_str()));
        let r = m.name("ref").expect("a reference");
        match each(sheet.as_deref(), r.as_str()) {
            Change::Keep => continue,
            Change::To(t) => {
                out.push_str(&f[copied..r.start()]);
                out.push_str(&t);
            }
            Change::Gone => {
                out.push_str(&f[copied..s]);
                out.push_str("#REF!");
            }
        }
        copied = e;
    }
    out.push_str(&f[copied..]);
    out
}

/// Formula `f` (on sheet `own`, or none for defined names and charts)
/// with its references to the shifted sheet moved; a reference to
/// something deleted becomes `#REF!`.
pub(crate) fn moved_formula(f: &str, own: Option<&str>, shift: &Shift) -> String {
    map_references(f, |sheet, r| {
        let ours = match (sheet, own) {
            (Some(name), _) => shift.on(name),
            (None, Some(own)) => shift.on(own),
            (None, None) => false,
        };
        if !ours {
            return Change::Keep;
        }
        moved_reference(r, shift).map_or(Change::Gone, Change::To)
    })
}

/// Formula `f` as written `dr` rows and `dc` columns away: its relative
/// references move, `$`-fixed ones stay (how a shared formula's master
/// reads in each cell of its range).
fn offset_formula(f: &str, dr: i64, dc: i64) -> String {
    map_references(f, |_, r| {
        let moved: Option<Vec<String>> = r
            .split(':')
            .map(|end| {
                let mut e = End::parse(end)?;
                if let Some((false, c)) = e.col {
                    let c = u32::try_from(i64::from(c) + dc)
                        .ok()
                        .filter(|c| (1..=MAX_COL).contains(c))?;
                    e.col = Some((false, c));
                }
                if let Some((false, row)) = e.row {
                    let row = u32::try_from(i64::from(row) + dr)
                        .ok()
                        .filter(|r| (1..=MAX_ROW).contains(r))?;
                    e.row = Some((false, row));
                }
                Some(e.write())
            })
            .collect();
        moved.map_or(Change::Gone, |m| Change::To(m.join(":")))
    })
}

/// A space-separated list of ranges (`sqref`) moved; what is deleted
/// leaves the list (`None` when nothing is left).
fn moved_list(list: &str, shift: &Shift) -> Option<String> {
    let items: Vec<String> = list
        .split_whitespace()
        .filter_map(|r| moved_reference(r, shift))
        .collect();
    (!items.is_empty()).then(|| items.join(" "))
}

/// Attributes that hold references to cells of their own sheet.
const REFERENCE_ATTRS: &[&str] = &["ref", "sqref", "activeCell", "topLeftCell"];

/// Elements whose text is a formula.
const FORMULA_TEXT: &[&str] = &[
    "f",
    "formula",
    "formula1",
    "formula2",
    "definedName",
    "sqref",
];

/// Elements that may lose their range to a deletion (the rest refuse).
const DROPPABLE: &[&str] = &["selection", "pane"];

/// The package with `shift` applied.
pub(crate) fn apply(package: &[u8], shift: &Shift) -> Result<Vec<u8>, NotInPlace> {
    let no = |e: String| NotInPlace(e);
    let mut zip = opc::open(package).map_err(no)?;
    let sheets = sheet_parts(&mut zip).map_err(no)?;
    let part = sheets
        .iter()
        .find(|(n, _)| shift.on(n))
        .map(|(_, p)| p.clone())
        .ok_or_else(|| NotInPlace(format!("no sheet `{}`", shift.sheet)))?;
    let mut replaced: HashMap<String, String> = HashMap::new();
    for (name, p) in &sheets {
        let xml = opc::read_text(&mut zip, p).map_err(no)?;
        let own = *p == part;
        let text = rewrite(&xml, Some(name), shift, own)?;
        if text != xml {
            replaced.insert(p.clone(), text);
        }
    }
    let workbook = opc::read_text(&mut zip, "xl/workbook.xml").map_err(no)?;
    replaced.insert(
        "xl/workbook.xml".into(),
        rewrite(&workbook, None, shift, false)?,
    );
    linked_parts(&mut zip, &part, shift, &mut replaced)?;
    other_parts(&mut zip, shift, &mut replaced)?;
    crate::patch::finish(&mut zip, replaced).map_err(no)
}

/// The tables, comments and drawings of the shifted sheet, moved.
fn linked_parts(
    zip: &mut Zip<'_>,
    part: &str,
    shift: &Shift,
    replaced: &mut HashMap<String, String>,
) -> Result<(), NotInPlace> {
    for rel in opc::rels(zip, part) {
        let kind = rel.kind.rsplit('/').next().unwrap_or_default().to_string();
        let Ok(text) = opc::read_text(zip, &rel.target) else {
            continue;
        };
        let new = match kind.as_str() {
            "vmlDrawing" => moved_vml(&text, shift)?,
            "drawing" => moved_anchors(&text, shift)?,
            "table" | "comments" | "pivotTable" => rewrite(&text, Some(&shift.sheet), shift, true)?,
            _ => continue,
        };
        if new != text {
            replaced.insert(rel.target, new);
        }
    }
    Ok(())
}

/// Charts' series and pivot caches' sources that name the sheet, moved.
fn other_parts(
    zip: &mut Zip<'_>,
    shift: &Shift,
    replaced: &mut HashMap<String, String>,
) -> Result<(), NotInPlace> {
    let names: Vec<String> = (0..zip.len())
        .filter_map(|i| {
            zip.name_for_index(i)
                .and_then(Result::ok)
                .map(|n| n.into_owned())
        })
        .filter(|n| {
            n.starts_with("xl/charts/chart") || n.starts_with("xl/pivotCache/pivotCacheDefinition")
        })
        .filter(|n| n.ends_with(".xml"))
        .collect();
    for name in names {
        let text = opc::read_text(zip, &name).map_err(NotInPlace)?;
        let new = if name.starts_with("xl/charts/") {
            rewrite(&text, None, shift, false)?
        } else {
            moved_pivot_source(&text, shift)?
        };
        if new != text {
            replaced.insert(name, new);
        }
    }
    Ok(())
}

/// A pivot cache's `<worksheetSource ref=… sheet=…>` moved when it is on
/// the sheet.
fn moved_pivot_source(xml: &str, shift: &Shift) -> Result<String, NotInPlace> {
    let on_sheet = opc::elements(xml, "worksheetSource")
        .iter()
        .any(|a| a.get("sheet").is_some_and(|s| shift.on(s)));
    if !on_sheet {
        return Ok(xml.to_string());
    }
    rewrite(xml, Some(&shift.sheet), shift, true)
}

/// The legacy (VML) comment boxes: their `<x:Row>`/`<x:Column>` and
/// anchors, 0-based. VML is often not well-formed XML, so it is edited
/// as text.
fn moved_vml(xml: &str, shift: &Shift) -> Result<String, NotInPlace> {
    static ROW: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"<x:(Row|Column)>\s*(\d+)\s*</x:(?:Row|Column)>").expect("valid")
    });
    static ANCHOR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"<x:Anchor>([^<]*)</x:Anchor>").expect("valid"));
    let mut failed = None;
    let text = ROW.replace_all(xml, |c: &regex::Captures<'_>| {
        let kind = &c[1];
        let n: u32 = c[2].parse().unwrap_or(0);
        let axis = if kind == "Row" {
            Axis::Rows
        } else {
            Axis::Columns
        };
        if axis != shift.axis {
            return c[0].to_string();
        }
        match shift.index(n + 1) {
            Some(m) => format!("<x:{kind}>{}</x:{kind}>", m - 1),
            None => {
                failed = Some("a comment is on a deleted cell".to_string());
                c[0].to_string()
            }
        }
    });
    let text = ANCHOR.replace_all(&text, |c: &regex::Captures<'_>| {
        let mut v: Vec<String> = c[1].split(',').map(|s| s.trim().to_string()).collect();
        let slots: &[usize] = if shift.axis == Axis::Rows {
            &[2, 6]
        } else {
            &[0, 4]
        };
        for &i in slots {
            if let Some(n) = v.get(i).and_then(|s| s.parse::<u32>().ok()) {
                v[i] = shift.index(n + 1).map_or(n, |m| m - 1).to_string();
            }
        }
        format!("<x:Anchor>{}</x:Anchor>", v.join(", "))
    });
    match failed {
        Some(why) => Err(NotInPlace(why)),
        None => Ok(text.into_owned()),
    }
}

/// A drawing's anchors (`<xdr:from>`/`<xdr:to>` rows or columns,
/// 0-based) moved as Excel moves pictures and charts with their cells.
fn moved_anchors(xml: &str, shift: &Shift) -> Result<String, NotInPlace> {
    static MARK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"<(\w+:)?(row|col)>\s*(\d+)\s*</(?:\w+:)?(?:row|col)>").expect("valid")
    });
    let mut failed = None;
    let text = MARK.replace_all(xml, |c: &regex::Captures<'_>| {
        let p = c.get(1).map_or("", |m| m.as_str());
        let kind = &c[2];
        let axis = if kind == "row" {
            Axis::Rows
        } else {
            Axis::Columns
        };
        let n: u32 = c[3].parse().unwrap_or(0);
        if axis != shift.axis {
            return c[0].to_string();
        }
        match shift.index(n + 1) {
            Some(m) => format!("<{p}{kind}>{}</{p}{kind}>", m - 1),
            None => {
                failed = Some("a picture or chart is anchored in a deleted cell".to_string());
                c[0].to_string()
            }
        }
    });
    match failed {
        Some(why) => Err(NotInPlace(why)),
        None => Ok(text.into_owned()),
    }
}

/// Where the rewrite is inside a worksheet.
#[derive(Default)]
struct Walk {
    row: u32,
    col: u32,
    /// Skipping a deleted element: its depth.
    skip: Option<usize>,
    depth: usize,
    /// Inside an element whose text is a formula: the text so far.
    formula: Option<String>,
    /// Shared formulas cut by the shift, by `si`: each cell gets its own
    /// formula, from the master's cell and text.
    expand: HashMap<String, (Cell, String)>,
    /// The master of such a group is being read: its `si`.
    master: Option<String>,
    /// Containers some of whose elements were dropped.
    emptied: Vec<&'static str>,
}

/// What an element start becomes.
enum Out<'a> {
    /// Written (moved).
    Keep(BytesStart<'a>),
    /// Left out with its contents (deleted).
    Drop,
    /// A cell of a shared formula cut by the shift: its own formula
    /// (the element's name as written, its text).
    Formula(String, String),
}

type Writer = quick_xml::Writer<Vec<u8>>;

fn put(w: &mut Writer, ev: Event<'_>) -> Result<(), NotInPlace> {
    w.write_event(ev).map_err(|e| NotInPlace(e.to_string()))
}

/// Part `xml` with `shift` applied: formulas everywhere (`sheet` is the
/// part's own sheet, for unqualified references), and when `own`, its
/// cells, rows, columns and reference attributes too.
fn rewrite(xml: &str, sheet: Option<&str>, shift: &Shift, own: bool) -> Result<String, NotInPlace> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut w = quick_xml::Writer::new(Vec::with_capacity(xml.len() + 256));
    let mut s = Walk::default();
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| NotInPlace(format!("the XML: {e}")))?;
        if s.skip.is_some() {
            if skipped(&mut s, &ev) {
                break;
            }
            continue;
        }
        match ev {
            Event::Start(e) => {
                s.depth += 1;
                let out = start(&e, &mut s, shift, own)?;
                opened(
                    &mut w,
                    &mut s,
                    e.local_name().into_inner(),
                    out,
                    true,
                    sheet,
                    shift,
                )?;
            }
            Event::Empty(e) => {
                let out = start(&e, &mut s, shift, own)?;
                opened(
                    &mut w,
                    &mut s,
                    e.local_name().into_inner(),
                    out,
                    false,
                    sheet,
                    shift,
                )?;
            }
            Event::Text(t) if s.formula.is_some() => {
                s.formula.as_mut().expect("checked").push_str(&t);
            }
            Event::GeneralRef(r) if s.formula.is_some() => {
                crate::scan::push_ref(s.formula.as_mut().expect("checked"), &r);
            }
            Event::End(e) => {
                s.depth = s.depth.saturating_sub(1);
                if let Some(f) = s.formula.take() {
                    let local = e.local_name().into_inner();
                    let moved = formula_text(&mut s, local, f, sheet, shift, own)?;
                    put(
                        &mut w,
                        Event::Text(BytesText::from_escaped(quick_xml::escape::partial_escape(
                            &moved,
                        ))),
                    )?;
                }
                put(&mut w, Event::End(e))?;
            }
            Event::Eof => break,
            other => put(&mut w, other)?,
        }
    }
    let text = String::from_utf8(w.into_inner()).map_err(|e| NotInPlace(e.to_string()))?;
    Ok(tidy_containers(text, &s.emptied))
}

/// One event while skipping a deleted element; whether the part ended.
fn skipped(s: &mut Walk, ev: &Event<'_>) -> bool {
    match ev {
        Event::Start(_) => s.depth += 1,
        Event::End(_) => {
            s.depth -= 1;
            if s.skip.is_some_and(|d| s.depth < d) {
                s.skip = None;
            }
        }
        Event::Eof => return true,
        _ => {}
    }
    false
}

/// Writes what an element start became (`started`: it has contents).
fn opened(
    w: &mut Writer,
    s: &mut Walk,
    local: &str,
    out: Out<'_>,
    started: bool,
    sheet: Option<&str>,
    shift: &Shift,
) -> Result<(), NotInPlace> {
    match out {
        Out::Keep(e) if started => {
            if FORMULA_TEXT.contains(&local) {
                s.formula = Some(String::new());
            }
            put(w, Event::Start(e))
        }
        Out::Keep(e) => put(w, Event::Empty(e)),
        Out::Drop if started => {
            s.skip = Some(s.depth);
            Ok(())
        }
        Out::Drop => Ok(()),
        Out::Formula(name, f) => {
            if started {
                s.skip = Some(s.depth);
            }
            let moved = moved_formula(&f, sheet, shift);
            put(w, Event::Start(BytesStart::new(name.clone())))?;
            put(
                w,
                Event::Text(BytesText::from_escaped(quick_xml::escape::partial_escape(
                    &moved,
                ))),
            )?;
            put(w, Event::End(quick_xml::events::BytesEnd::new(name)))
        }
    }
}

/// A formula element's text, moved (a range list, when `sqref`).
fn formula_text(
    s: &mut Walk,
    local: &str,
    f: String,
    sheet: Option<&str>,
    shift: &Shift,
    own: bool,
) -> Result<String, NotInPlace> {
    if let Some(si) = s.master.take()
        && let Some(group) = s.expand.get_mut(&si)
    {
        group.1 = f.clone();
    }
    if local != "sqref" {
        return Ok(moved_formula(&f, sheet, shift));
    }
    if !own {
        return Ok(f);
    }
    moved_list(&f, shift)
        .ok_or_else(|| NotInPlace(format!("the deletion removes all of a range ({f})")))
}

/// An element start moved, dropped (deleted with its contents), or a
/// shared formula's cell given its own formula.
fn start<'a>(
    e: &BytesStart<'a>,
    s: &mut Walk,
    shift: &Shift,
    own: bool,
) -> Result<Out<'a>, NotInPlace> {
    if !own {
        return Ok(Out::Keep(e.clone()));
    }
    let local = e.local_name().into_inner().to_string();
    let mut set: Vec<(&str, Option<String>)> = Vec::new();
    match local.as_str() {
        "row" => {
            s.row = opc::num_attr(e, "r").unwrap_or(s.row + 1);
            s.col = 0;
            if shift.axis == Axis::Rows {
                let Some(r) = shift.index(s.row) else {
                    return Ok(Out::Drop);
                };
                set.push(("r", Some(r.to_string())));
            } else {
                set.push(("spans", None));
            }
        }
        "c" => {
            let at = opc::attr(e, "r").and_then(|r| Cell::parse(&r).ok());
            s.col = at.map_or(s.col + 1, |c| c.col);
            let here = Cell {
                col: s.col,
                row: s.row,
            };
            let Some(new) = shift.cell(here) else {
                return Ok(Out::Drop);
            };
            set.push(("r", Some(new.to_string())));
        }
        "col" if shift.axis == Axis::Columns => {
            let (a, b) = (opc::num_attr(e, "min"), opc::num_attr(e, "max"));
            let (Some(a), Some(b)) = (a, b) else {
                return Ok(Out::Keep(e.clone()));
            };
            let Some((na, nb)) = shift.span(a, b) else {
                return Ok(Out::Drop);
            };
            set.push(("min", Some(na.to_string())));
            set.push(("max", Some(nb.to_string())));
        }
        "f" => {
            if let Some(out) = shared_formula(e, s, shift, &mut set)? {
                return Ok(out);
            }
        }
        "table" | "autoFilter" | "location" => {
            if let Some(r) = opc::attr(e, "ref") {
                check_block(&r, shift, &local)?;
            }
        }
        _ => {}
    }
    if local != "c" && reference_attrs(e, &local, shift, &mut set)? {
        if let Some((_, Some(c))) = GONE_WITH_CELLS.iter().find(|(l, _)| *l == local)
            && !s.emptied.contains(c)
        {
            s.emptied.push(c);
        }
        return Ok(Out::Drop);
    }
    Ok(Out::Keep(with_attrs(e, &set)))
}

/// A formula element's sharing: a master whose range the shift cuts
/// loses its sharing (and each cell of the group will get its own
/// formula); a cell of such a group gets its own formula now.
fn shared_formula<'a>(
    e: &BytesStart<'a>,
    s: &mut Walk,
    shift: &Shift,
    set: &mut Vec<(&str, Option<String>)>,
) -> Result<Option<Out<'a>>, NotInPlace> {
    let kind = opc::attr(e, "t");
    let range = opc::attr(e, "ref");
    let here = Cell {
        col: s.col,
        row: s.row,
    };
    match (kind.as_deref(), range, opc::attr(e, "si")) {
        (Some("shared"), Some(r), Some(si)) => {
            if check_block(&r, shift, "f").is_err() {
                s.expand.insert(si.clone(), (here, String::new()));
                s.master = Some(si);
                set.extend([("t", None), ("ref", None), ("si", None)]);
            }
            Ok(None)
        }
        (Some("shared"), None, Some(si)) => match s.expand.get(&si) {
            Some((master, text)) => {
                let dr = i64::from(here.row) - i64::from(master.row);
                let dc = i64::from(here.col) - i64::from(master.col);
                let name = e.name().as_ref().to_string();
                Ok(Some(Out::Formula(name, offset_formula(text, dr, dc))))
            }
            None => Ok(None),
        },
        (_, Some(r), _) => check_block(&r, shift, "f").map(|()| None),
        _ => Ok(None),
    }
}

/// The reference attributes of `e` moved into `set`; what a deletion
/// wholly removes drops the element where that is harmless.
fn reference_attrs(
    e: &BytesStart<'_>,
    local: &str,
    shift: &Shift,
    set: &mut Vec<(&'static str, Option<String>)>,
) -> Result<bool, NotInPlace> {
    for name in REFERENCE_ATTRS {
        let Some(v) = opc::attr(e, name) else {
            continue;
        };
        match moved_list(&v, shift) {
            Some(m) => set.push((name, Some(m))),
            None if local == "dimension" => set.push((name, Some("A1".into()))),
            None if DROPPABLE.contains(&local) => set.push((name, None)),
            None if GONE_WITH_CELLS.iter().any(|(l, _)| *l == local) => return Ok(true),
            None => {
                return Err(NotInPlace(format!(
                    "the deleted cells hold all of a {} ({v})",
                    words(local)
                )));
            }
        }
    }
    Ok(false)
}

/// What an element is to the user.
fn words(local: &str) -> &str {
    match local {
        "sortState" | "sortCondition" => "sort",
        "tablePart" | "table" => "table",
        "comment" => "comment",
        other => other,
    }
}

/// Elements that go when the deletion takes all their cells, as in
/// Excel, with the container whose `count` then no longer holds.
const GONE_WITH_CELLS: &[(&str, Option<&str>)] = &[
    ("mergeCell", Some("mergeCells")),
    ("dataValidation", Some("dataValidations")),
    ("hyperlink", Some("hyperlinks")),
    ("protectedRange", Some("protectedRanges")),
    ("ignoredError", Some("ignoredErrors")),
    ("conditionalFormatting", None),
];

/// `xml` after elements of the `emptied` containers were dropped: their
/// `count` goes (it is optional), and a container left empty goes too
/// (it must hold at least one).
fn tidy_containers(xml: String, emptied: &[&str]) -> String {
    let mut xml = xml;
    for c in emptied {
        let count = Regex::new(&format!(
            r#"(<(?:\w+:)?{c}\b[^>]*?)\s+count=["'][0-9]*["']"#
        ))
        .expect("valid");
        xml = count.replace_all(&xml, "$1").into_owned();
        let empty = Regex::new(&format!(r"<(?:\w+:)?{c}\b[^>]*?(?:/>|>\s*</(?:\w+:)?{c}>)"))
            .expect("valid");
        xml = empty.replace_all(&xml, "").into_owned();
    }
    xml
}

/// A block that must move whole (a shared or array formula's range, a
/// table, a filter) is not cut by the shift.
fn check_block(r: &str, shift: &Shift, what: &str) -> Result<(), NotInPlace> {
    let Some((a, b)) = r.split_once(':') else {
        return Ok(());
    };
    let (Some(a), Some(b)) = (End::parse(a), End::parse(b)) else {
        return Ok(());
    };
    let (Some(i), Some(j)) = (a.get(shift.axis), b.get(shift.axis)) else {
        return Ok(());
    };
    // Rows added to or taken from a table or filter below its header
    // grow or shrink it, as in Excel.
    let below_header =
        matches!(what, "table" | "autoFilter") && shift.axis == Axis::Rows && shift.at > i;
    if shift.splits(i, j) && !below_header {
        let kind = match what {
            "f" => "a shared or array formula",
            "table" => "a table",
            "location" => "a pivot table",
            _ => "a filter",
        };
        return Err(NotInPlace(format!("{kind} ({r}) would be cut")));
    }
    Ok(())
}

/// `e` with the attributes in `set` replaced (`None`: removed), the
/// others kept as written.
pub(crate) fn with_attrs<'a>(e: &BytesStart<'a>, set: &[(&str, Option<String>)]) -> BytesStart<'a> {
    if set.is_empty() {
        return e.clone();
    }
    let name = e.name().as_ref().to_string();
    let mut out = BytesStart::new(name);
    let mut done: Vec<&str> = Vec::new();
    for a in e.attributes().with_checks(false).flatten() {
        let key = a.key.as_ref().to_string();
        match set.iter().find(|(k, _)| *k == key) {
            Some((k, Some(v))) => {
                out.push_attribute((key.as_str(), v.as_str()));
                done.push(k);
            }
            Some((k, None)) => done.push(k),
            None if a.value.contains('"') => {
                let v = opc::unescape(&a.value);
                out.push_attribute((key.as_str(), v.as_str()));
            }
            None => out.push_attribute(Attribute {
                key: a.key,
                value: a.value.clone(),
            }),
        }
    }
    for (k, v) in set {
        if let (false, Some(v)) = (done.contains(k), v) {
            out.push_attribute((*k, v.as_str()));
        }
    }
    out.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(at: u32, count: u32, delete: bool) -> Shift {
        Shift {
            sheet: "Data".into(),
            axis: Axis::Rows,
            at,
            count,
            delete,
        }
    }

    #[test]
    fn formulas_move_as_excel_moves_them() {
        let ins = rows(3, 2, false);
        let own = Some("Data");
        assert_eq!(
            moved_formula("SUM(A1:A10)+$B$5*B2", own, &ins),
            "SUM(A1:A12)+$B$7*B2"
        );
        assert_eq!(
            moved_formula("Other!A5+Data!A5+'Data'!A5", Some("Other"), &ins),
            "Other!A5+Data!A7+'Data'!A7"
        );
        assert_eq!(
            moved_formula("\"A5\"&LOG10(A5)&Table1[A5]", own, &ins),
            "\"A5\"&LOG10(A7)&Table1[A5]"
        );
        assert_eq!(
            moved_formula("SUM(4:6)+SUM(B:B)", own, &ins),
            "SUM(6:8)+SUM(B:B)"
        );
        assert_eq!(
            offset_formula("B2*$C$2+Other!A1:B$3", 3, 1),
            "C5*$C$2+Other!B4:C$3"
        );
        assert_eq!(offset_formula("A1", -1, 0), "#REF!");
        let del = rows(3, 2, true);
        assert_eq!(
            moved_formula("A3+A5+SUM(A1:A4)+SUM(A3:A4)", own, &del),
            "#REF!+A3+SUM(A1:A2)+SUM(#REF!)"
        );
        assert_eq!(moved_formula("Data!A3", None, &del), "#REF!");
        let cols = Shift {
            axis: Axis::Columns,
            ..rows(2, 1, false)
        };
        assert_eq!(
            moved_formula("A1+B1+$C$1+SUM(A:C)", own, &cols),
            "A1+C1+$D$1+SUM(A:D)"
        );
    }

    #[test]
    fn a_sheet_moves_its_cells_ranges_and_drops_deleted_rows() {
        let xml = r#"<worksheet><dimension ref="A1:B4"/><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><f>A1*2</f><v>2</v></c></row><row r="4"><c r="B4" t="s"><v>0</v></c></row></sheetData><mergeCells count="1"><mergeCell ref="A4:B4"/></mergeCells><dataValidations><dataValidation sqref="B2:B9"><formula1>$A$1:$A$4</formula1></dataValidation></dataValidations></worksheet>"#;
        let out = rewrite(xml, Some("Data"), &rows(2, 1, false), true).unwrap();
        assert_eq!(
            out,
            r#"<worksheet><dimension ref="A1:B5"/><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="A3"><f>A1*2</f><v>2</v></c></row><row r="5"><c r="B5" t="s"><v>0</v></c></row></sheetData><mergeCells count="1"><mergeCell ref="A5:B5"/></mergeCells><dataValidations><dataValidation sqref="B3:B10"><formula1>$A$1:$A$5</formula1></dataValidation></dataValidations></worksheet>"#
        );
        let out = rewrite(xml, Some("Data"), &rows(2, 1, true), true).unwrap();
        assert!(
            out.contains(
                r#"<sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="B3" t="s">"#
            ),
            "{out}"
        );
        assert!(
            out.contains(r#"<dataValidation sqref="B2:B8"><formula1>$A$1:$A$3</formula1>"#),
            "{out}"
        );
    }

    #[test]
    fn a_shared_formula_cut_by_the_insertion_gives_each_cell_its_own_formula() {
        let xml = r#"<x:worksheet><x:sheetData><x:row r="1"><x:c r="B1"><x:f t="shared" ref="B1:B3" si="0">A1*$C$1</x:f></x:c></x:row><x:row r="2"><x:c r="B2"><x:f t="shared" si="0"/></x:c></x:row><x:row r="3"><x:c r="B3"><x:f t="shared" si="0"></x:f><x:v>1</x:v></x:c></x:row></x:sheetData></x:worksheet>"#;
        let out = rewrite(xml, Some("Data"), &rows(2, 1, false), true).unwrap();
        assert_eq!(
            out,
            r#"<x:worksheet><x:sheetData><x:row r="1"><x:c r="B1"><x:f>A1*$C$1</x:f></x:c></x:row><x:row r="3"><x:c r="B3"><x:f>A3*$C$1</x:f></x:c></x:row><x:row r="4"><x:c r="B4"><x:f>A4*$C$1</x:f><x:v>1</x:v></x:c></x:row></x:sheetData></x:worksheet>"#
        );
        // Below the group, it moves whole and stays shared.
        let out = rewrite(xml, Some("Data"), &rows(9, 1, false), true).unwrap();
        assert!(
            out.contains(r#"<x:f t="shared" ref="B1:B3" si="0">A1*$C$1</x:f>"#),
            "{out}"
        );
        // An array formula cannot be cut.
        let array = r#"<worksheet><sheetData><row r="1"><c r="B1"><f t="array" ref="B1:B3">A1:A3</f></c></row></sheetData></worksheet>"#;
        assert!(rewrite(array, Some("Data"), &rows(2, 1, false), true).is_err());
    }
}
