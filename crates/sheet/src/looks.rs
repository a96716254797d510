//! Column widths and frozen panes written into the user's own package:
//! only the sheet's `<cols>` or its first `<sheetView>` change, so files
//! made by openpyxl, LibreOffice or .NET keep everything else.

use quick_xml::events::Event;
use regex::Regex;

use crate::addr::Cell;
use crate::opc::{self, section_items, sheet_parts};
use crate::patch::set_attr;
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
}

impl Look {
    fn sheet(&self) -> &str {
        match self {
            Look::Width { sheet, .. } | Look::Freeze { sheet, .. } => sheet,
        }
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
    let new = match look {
        Look::Width { col, width, .. } => with_width(&xml, *col, *width)?,
        Look::Freeze { at, .. } => with_frozen(&xml, *at)?,
    };
    let replaced = [(part, new)].into_iter().collect();
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

#[cfg(test)]
mod tests {
    use super::*;

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
