//! Column widths, frozen panes and the header row's look written into the
//! user's own package: only the sheet's `<cols>`, its first `<sheetView>`
//! or the header cells' formats (and the formats they add to the styles)
//! change, so files made by openpyxl, LibreOffice or .NET keep
//! everything else.

use std::collections::HashMap;

use quick_xml::events::Event;
use regex::Regex;

use crate::addr::Cell;
use crate::opc::{self, section_items, sheet_parts};
use crate::patch::{append_items, set_attr};
use crate::shift::NotInPlace;

/// A change to how a sheet looks.
#[derive(Debug, Clone, PartialEq)]
pub enum Look {
    /// Column `col` is `width` characters wide.
    Width {
        /// The sheet's name.
        sheet: String,
        /// The column (1-based).
        col: u32,
        /// Its width in characters.
        width: f64,
    },
    /// Rows above and columns left of `at` are frozen (`A1`: none).
    Freeze {
        /// The sheet's name.
        sheet: String,
        /// The first cell that scrolls.
        at: Cell,
    },
    /// The cells of `row` from column `first` to `last` are a header:
    /// bold, filled, a thin line below.
    Header {
        /// The sheet's name.
        sheet: String,
        /// The row.
        row: u32,
        /// Its first and last columns.
        first: u32,
        /// See `first`.
        last: u32,
    },
}

impl Look {
    fn sheet(&self) -> &str {
        match self {
            Look::Width { sheet, .. } | Look::Freeze { sheet, .. } | Look::Header { sheet, .. } => {
                sheet
            }
        }
    }

    /// Whether it changes cells' formats.
    pub(crate) fn restyles(&self) -> bool {
        matches!(self, Look::Header { .. })
    }
}

/// The package with `look` written into its sheet.
pub(crate) fn apply(package: &[u8], look: &Look) -> Result<Vec<u8>, NotInPlace> {
    let no = NotInPlace;
    let mut zip = opc::open(package).map_err(no)?;
    let part = sheet_parts(&mut zip)
        .map_err(no)?
        .into_iter()
        .find(|(n, _)| n.to_lowercase() == look.sheet().to_lowercase())
        .map(|(_, p)| p)
        .ok_or_else(|| NotInPlace(format!("no sheet `{}`", look.sheet())))?;
    let xml = opc::read_text(&mut zip, &part).map_err(no)?;
    let mut replaced: HashMap<String, String> = HashMap::new();
    let new = match look {
        Look::Width { col, width, .. } => with_width(&xml, *col, *width)?,
        Look::Freeze { at, .. } => with_frozen(&xml, *at)?,
        Look::Header {
            row, first, last, ..
        } => {
            let styles = opc::read_text(&mut zip, "xl/styles.xml")
                .map_err(|_| NotInPlace("the workbook has no styles part".into()))?;
            let mut header = HeaderStyles::new(styles);
            let sheet = with_header(&xml, *row, (*first, *last), &mut header)?;
            replaced.insert("xl/styles.xml".into(), header.finish());
            sheet
        }
    };
    replaced.insert(part, new);
    crate::patch::finish(&mut zip, replaced).map_err(no)
}

/// Where element `local` lies: its start, the end of its start tag, its
/// end (the same as the start tag's for an empty element).
fn span(xml: &str, local: &str) -> Option<(usize, usize, usize)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found: Option<(usize, usize)> = None;
    let mut depth = 0usize;
    loop {
        let before = reader.buffer_position() as usize;
        let ev = reader.read_event().ok()?;
        let after = reader.buffer_position() as usize;
        match ev {
            Event::Empty(e) if found.is_none() && e.local_name().into_inner() == local => {
                return Some((before, after, after));
            }
            Event::Start(e) if found.is_none() && e.local_name().into_inner() == local => {
                found = Some((before, after));
                depth = 1;
            }
            Event::Start(_) if found.is_some() => depth += 1,
            Event::End(_) if found.is_some() => {
                depth -= 1;
                if depth == 0 {
                    let (s, t) = found.expect("checked");
                    return Some((s, t, after));
                }
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// The sheet with column `col` `width` wide (its `<col>` span split
/// around it, or a new one; `<cols>` made before the cells if absent).
fn with_width(xml: &str, col: u32, width: f64) -> Result<String, NotInPlace> {
    let p = opc::root_prefix(xml);
    let mut spans: Vec<(u32, u32, String)> = section_items(xml, "cols", "col")
        .into_iter()
        .filter_map(|raw| {
            let min = opc::tag_attr(&raw, "min")?.parse().ok()?;
            let max = opc::tag_attr(&raw, "max")?.parse().ok()?;
            Some((min, max, raw))
        })
        .collect();
    let mine = |raw: &str| {
        let raw = set_attr(
            &set_attr(raw, "min", &col.to_string()),
            "max",
            &col.to_string(),
        );
        set_attr(
            &set_attr(&raw, "width", &width.to_string()),
            "customWidth",
            "1",
        )
    };
    let at = spans.iter().position(|(a, b, _)| *a <= col && col <= *b);
    match at {
        Some(i) => {
            let (a, b, raw) = spans.remove(i);
            let piece = |x: u32, y: u32| {
                let r = set_attr(
                    &set_attr(&raw, "min", &x.to_string()),
                    "max",
                    &y.to_string(),
                );
                (x, y, r)
            };
            if a < col {
                spans.push(piece(a, col - 1));
            }
            spans.push((col, col, mine(&raw)));
            if col < b {
                spans.push(piece(col + 1, b));
            }
        }
        None => spans.push((col, col, mine(&format!("<{p}col min=\"1\" max=\"1\"/>")))),
    }
    spans.sort_by_key(|(a, _, _)| *a);
    let items: String = spans.into_iter().map(|(_, _, r)| r).collect();
    if let Some((s, _, e)) = span(xml, "cols") {
        let open = opc::find_open(&xml[s..], "cols").map_or("", |(_, p)| p);
        return Ok(format!(
            "{}<{open}cols>{items}</{open}cols>{}",
            &xml[..s],
            &xml[e..]
        ));
    }
    let (data, _, _) = span(xml, "sheetData")
        .ok_or_else(|| NotInPlace("the sheet has no cell data section".into()))?;
    Ok(format!(
        "{}<{p}cols>{items}</{p}cols>{}",
        &xml[..data],
        &xml[data..]
    ))
}

/// The sheet with its first view frozen at `at` (or unfrozen at `A1`):
/// its pane and selections replaced, anything else in it kept.
fn with_frozen(xml: &str, at: Cell) -> Result<String, NotInPlace> {
    let p = opc::root_prefix(xml);
    let pane = frozen_pane(p, at);
    let Some((s, t, e)) = span(xml, "sheetView") else {
        let spot = ["sheetFormatPr", "cols", "sheetData"]
            .iter()
            .find_map(|l| span(xml, l).map(|(s, _, _)| s))
            .ok_or_else(|| NotInPlace("the sheet has no cell data section".into()))?;
        let views = format!(
            "<{p}sheetViews><{p}sheetView workbookViewId=\"0\">{pane}</{p}sheetView></{p}sheetViews>"
        );
        return Ok(format!("{}{views}{}", &xml[..spot], &xml[spot..]));
    };
    let tag = &xml[s..t];
    let view_prefix = opc::find_open(tag, "sheetView").map_or("", |(_, p)| p);
    let (open, inner) = if t == e {
        (
            format!(
                "{}>",
                tag.trim_end_matches('>').trim_end_matches('/').trim_end()
            ),
            "",
        )
    } else {
        let close = format!("</{view_prefix}sheetView>");
        (tag.to_string(), &xml[t..e - close.len()])
    };
    let old = Regex::new(r"<(?:\w+:)?(?:pane|selection)\b[^>]*/>").expect("valid");
    let rest = old.replace_all(inner, "");
    Ok(format!(
        "{}{open}{pane}{rest}</{view_prefix}sheetView>{}",
        &xml[..s],
        &xml[e..]
    ))
}

/// The `<pane>` and `<selection>` of panes frozen at `at` (none at A1).
fn frozen_pane(p: &str, at: Cell) -> String {
    if at.col <= 1 && at.row <= 1 {
        return String::new();
    }
    let active = match (at.col > 1, at.row > 1) {
        (true, true) => "bottomRight",
        (true, false) => "topRight",
        _ => "bottomLeft",
    };
    let x = if at.col > 1 {
        format!(" xSplit=\"{}\"", at.col - 1)
    } else {
        String::new()
    };
    let y = if at.row > 1 {
        format!(" ySplit=\"{}\"", at.row - 1)
    } else {
        String::new()
    };
    format!(
        "<{p}pane{x}{y} topLeftCell=\"{at}\" activePane=\"{active}\" state=\"frozen\"/><{p}selection pane=\"{active}\" activeCell=\"{at}\" sqref=\"{at}\"/>"
    )
}

/// The header look added to a styles part: per cell format used in the
/// header row, a copy that is bold, filled and underlined.
struct HeaderStyles {
    xml: String,
    prefix: String,
    fonts: Vec<String>,
    borders: Vec<String>,
    xfs: Vec<String>,
    fill: Option<usize>,
    added: (Vec<String>, Vec<String>, Vec<String>, Vec<String>),
    made: HashMap<u32, u32>,
    /// Bold fonts and underlined borders made, by the original's index.
    copies: (HashMap<usize, usize>, HashMap<usize, usize>),
}

/// The header fill (as the model's `format_header_row` uses).
const HEADER_FILL: &str = "FFD9E1F2";

impl HeaderStyles {
    fn new(xml: String) -> HeaderStyles {
        HeaderStyles {
            prefix: opc::root_prefix(&xml).to_string(),
            fonts: section_items(&xml, "fonts", "font"),
            borders: section_items(&xml, "borders", "border"),
            xfs: section_items(&xml, "cellXfs", "xf"),
            xml,
            fill: None,
            added: Default::default(),
            made: HashMap::new(),
            copies: Default::default(),
        }
    }

    /// The index of the header format made from cell format `s`.
    fn header_of(&mut self, s: u32) -> Result<u32, NotInPlace> {
        if let Some(i) = self.made.get(&s) {
            return Ok(*i);
        }
        let p = self.prefix.clone();
        let xf = self
            .xfs
            .get(s as usize)
            .cloned()
            .ok_or_else(|| NotInPlace("a cell uses a format the styles part lacks".into()))?;
        let id = |name: &str| {
            opc::tag_attr(&xf, name)
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0)
        };
        let (font, border) = (id("fontId"), id("borderId"));
        let font_id = match self.copies.0.get(&font) {
            Some(i) => *i,
            None => {
                let raw = self
                    .fonts
                    .get(font)
                    .cloned()
                    .unwrap_or_else(|| format!("<{p}font/>"));
                let i = self.fonts.len() + self.added.0.len();
                self.added.0.push(bold(&raw, &p));
                self.copies.0.insert(font, i);
                i
            }
        };
        let fill_id = self.fill_id();
        let border_id = match self.copies.1.get(&border) {
            Some(i) => *i,
            None => {
                let raw = self
                    .borders
                    .get(border)
                    .cloned()
                    .unwrap_or_else(|| format!("<{p}border/>"));
                let i = self.borders.len() + self.added.2.len();
                self.added.2.push(underlined(&raw, &p));
                self.copies.1.insert(border, i);
                i
            }
        };
        let mut new = xf.clone();
        for (k, v) in [
            ("fontId", font_id.to_string()),
            ("fillId", fill_id.to_string()),
            ("borderId", border_id.to_string()),
            ("applyFont", "1".into()),
            ("applyFill", "1".into()),
            ("applyBorder", "1".into()),
        ] {
            new = set_attr(&new, k, &v);
        }
        let index = (self.xfs.len() + self.added.3.len()) as u32;
        self.added.3.push(new);
        self.made.insert(s, index);
        Ok(index)
    }

    /// The header fill's index (added once).
    fn fill_id(&mut self) -> usize {
        if let Some(i) = self.fill {
            return i;
        }
        let p = &self.prefix;
        let i = section_items(&self.xml, "fills", "fill").len();
        self.added.1.push(format!(
            "<{p}fill><{p}patternFill patternType=\"solid\"><{p}fgColor rgb=\"{HEADER_FILL}\"/><{p}bgColor indexed=\"64\"/></{p}patternFill></{p}fill>"
        ));
        self.fill = Some(i);
        i
    }

    /// The styles part with what was added.
    fn finish(self) -> String {
        let mut xml = self.xml;
        let (fonts, fills, borders, xfs) = self.added;
        for (section, items, before) in [
            ("fonts", fonts, "fills"),
            ("fills", fills, "borders"),
            ("borders", borders, "cellStyleXfs"),
            ("cellXfs", xfs, "cellStyles"),
        ] {
            if !items.is_empty() {
                xml = append_items(&xml, section, &items, Some(before));
            }
        }
        xml
    }
}

/// A `<font>` made bold.
fn bold(font: &str, p: &str) -> String {
    let b = Regex::new(r"<(?:\w+:)?b\b[^>]*/>").expect("valid");
    let font = b.replace_all(font, "");
    match font.strip_suffix("/>") {
        Some(open) => format!("{}><{p}b/></{p}font>", open.trim_end()),
        None => {
            let at = font.find('>').map_or(font.len(), |i| i + 1);
            format!("{}<{p}b/>{}", &font[..at], &font[at..])
        }
    }
}

/// A `<border>` with a thin line below.
fn underlined(border: &str, p: &str) -> String {
    let line = format!("<{p}bottom style=\"thin\"><{p}color auto=\"1\"/></{p}bottom>");
    let old =
        Regex::new(r"(?s)<(?:\w+:)?bottom\b[^>]*?(?:/>|>.*?</(?:\w+:)?bottom>)").expect("valid");
    if old.is_match(border) {
        return old.replace(border, line.as_str()).into_owned();
    }
    let after = Regex::new(r"<(?:\w+:)?(?:diagonal|vertical|horizontal)\b").expect("valid");
    if let Some(m) = after.find(border) {
        return format!("{}{line}{}", &border[..m.start()], &border[m.start()..]);
    }
    match border.strip_suffix("/>") {
        Some(open) => format!("{}>{line}</{p}border>", open.trim_end()),
        None => {
            let close = border.rfind("</").unwrap_or(border.len());
            format!("{}{line}{}", &border[..close], &border[close..])
        }
    }
}

/// The sheet with the cells of `row` in columns `cols` given header
/// formats (cells the row does not have stay as they are).
fn with_header(
    xml: &str,
    row: u32,
    cols: (u32, u32),
    styles: &mut HeaderStyles,
) -> Result<String, NotInPlace> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut w = quick_xml::Writer::new(Vec::with_capacity(xml.len() + 256));
    let (mut r, mut c) = (0u32, 0u32);
    let put = |w: &mut quick_xml::Writer<Vec<u8>>, ev: Event<'_>| {
        w.write_event(ev).map_err(|e| NotInPlace(e.to_string()))
    };
    loop {
        match reader
            .read_event()
            .map_err(|e| NotInPlace(format!("the XML: {e}")))?
        {
            Event::Eof => break,
            ev @ (Event::Start(_) | Event::Empty(_)) => {
                let (Event::Start(e) | Event::Empty(e)) = &ev else {
                    unreachable!("matched above")
                };
                if e.local_name().into_inner() == "row" {
                    r = opc::num_attr(e, "r").unwrap_or(r + 1);
                    c = 0;
                }
                if e.local_name().into_inner() != "c" {
                    put(&mut w, ev.clone())?;
                    continue;
                }
                c = opc::attr(e, "r")
                    .and_then(|a| Cell::parse(&a).ok())
                    .map_or(c + 1, |a| a.col);
                if r != row || c < cols.0 || c > cols.1 {
                    put(&mut w, ev.clone())?;
                    continue;
                }
                let s = opc::num_attr(e, "s").unwrap_or(0);
                let e =
                    crate::shift::with_attrs(e, &[("s", Some(styles.header_of(s)?.to_string()))]);
                match ev {
                    Event::Start(_) => put(&mut w, Event::Start(e))?,
                    _ => put(&mut w, Event::Empty(e))?,
                }
            }
            ev => put(&mut w, ev)?,
        }
    }
    String::from_utf8(w.into_inner()).map_err(|e| NotInPlace(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_gets_bold_filled_underlined_copies_of_its_cells_formats() {
        let styles = r#"<x:styleSheet><x:fonts count="1"><x:font><x:sz val="11"/></x:font></x:fonts><x:fills count="2"><x:fill/><x:fill/></x:fills><x:borders count="1"><x:border><x:left/><x:right/><x:top/><x:bottom/><x:diagonal/></x:border></x:borders><x:cellStyleXfs count="1"><x:xf/></x:cellStyleXfs><x:cellXfs count="2"><x:xf numFmtId="0" fontId="0"/><x:xf numFmtId="14" fontId="0"/></x:cellXfs><x:cellStyles/></x:styleSheet>"#;
        let mut h = HeaderStyles::new(styles.into());
        let sheet = r#"<x:worksheet><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" s="1"/></x:row><x:row r="2"><x:c r="A2"/></x:row></x:sheetData></x:worksheet>"#;
        let out = with_header(sheet, 1, (1, 2), &mut h).unwrap();
        assert_eq!(
            out,
            r#"<x:worksheet><x:sheetData><x:row r="1"><x:c r="A1" t="s" s="2"><x:v>0</x:v></x:c><x:c r="B1" s="3"/></x:row><x:row r="2"><x:c r="A2"/></x:row></x:sheetData></x:worksheet>"#
        );
        let styles = h.finish();
        assert!(styles.contains(r#"<x:fonts count="2"><x:font><x:sz val="11"/></x:font><x:font><x:b/><x:sz val="11"/></x:font></x:fonts>"#), "{styles}");
        assert!(styles.contains(r#"<x:fills count="3">"#), "{styles}");
        assert!(
            styles
                .contains(r#"<x:bottom style="thin"><x:color auto="1"/></x:bottom><x:diagonal/>"#),
            "{styles}"
        );
        assert!(styles.contains(r#"<x:cellXfs count="4">"#), "{styles}");
        assert!(styles.contains(r#"<x:xf numFmtId="14" fontId="1" fillId="2" borderId="1" applyFont="1" applyFill="1" applyBorder="1"/>"#), "{styles}");
    }

    #[test]
    fn a_width_splits_the_span_it_falls_in_or_makes_cols() {
        let xml = r#"<x:worksheet><x:cols><x:col min="1" max="4" width="9" style="2"/><x:col min='6' max='6' width='20'/></x:cols><x:sheetData/></x:worksheet>"#;
        assert_eq!(
            with_width(xml, 2, 30.5).unwrap(),
            r#"<x:worksheet><x:cols><x:col min="1" max="1" width="9" style="2"/><x:col min="2" max="2" width="30.5" style="2" customWidth="1"/><x:col min="3" max="4" width="9" style="2"/><x:col min='6' max='6' width='20'/></x:cols><x:sheetData/></x:worksheet>"#
        );
        let bare = "<worksheet><sheetFormatPr defaultRowHeight=\"15\"/><sheetData/></worksheet>";
        assert_eq!(
            with_width(bare, 3, 12.0).unwrap(),
            "<worksheet><sheetFormatPr defaultRowHeight=\"15\"/><cols><col min=\"3\" max=\"3\" width=\"12\" customWidth=\"1\"/></cols><sheetData/></worksheet>"
        );
    }

    #[test]
    fn panes_are_frozen_in_the_first_view_keeping_the_rest() {
        let xml = r#"<worksheet><sheetViews><sheetView tabSelected="1" workbookViewId="0"><selection activeCell="C3" sqref="C3"/><extLst/></sheetView></sheetViews><sheetData/></worksheet>"#;
        assert_eq!(
            with_frozen(xml, Cell { col: 1, row: 2 }).unwrap(),
            r#"<worksheet><sheetViews><sheetView tabSelected="1" workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/><extLst/></sheetView></sheetViews><sheetData/></worksheet>"#
        );
        let none = "<worksheet><sheetFormatPr/><sheetData/></worksheet>";
        assert!(with_frozen(none, Cell { col: 2, row: 2 }).unwrap().starts_with(
            "<worksheet><sheetViews><sheetView workbookViewId=\"0\"><pane xSplit=\"1\" ySplit=\"1\""
        ));
        let empty_view = r#"<worksheet><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetData/></worksheet>"#;
        let frozen = with_frozen(empty_view, Cell { col: 1, row: 3 }).unwrap();
        assert_eq!(
            with_frozen(&frozen, Cell { col: 1, row: 1 }).unwrap(),
            r#"<worksheet><sheetViews><sheetView workbookViewId="0"></sheetView></sheetViews><sheetData/></worksheet>"#
        );
    }
}
