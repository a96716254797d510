//! A written workbook read back before it replaces anything: every XML
//! part it changed must parse, and every cell must hold what was meant.
//! A save that fails this check is refused and the user's file stays as
//! it was: a backup keeps the data, but a saved file that Excel refuses
//! would still be a broken file with nothing said.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use quick_xml::events::Event;
use serde_json::Value;
use umya_spreadsheet::Workbook;

use crate::addr::Cell;
use crate::opc::{self, Zip, sheet_parts};
use crate::patch::{Edits, Written};
use crate::scan::{self, RawCell, Stored, StyleTable};
use crate::shift::Shift;

/// A cell as stored: how, its format, whether it has a formula, its text.
type Stored4 = (Stored, u32, bool, String);

/// Checks the package `written`, made from `original` by writing `edits`
/// into it: the same parts (the calculation chain aside), each changed
/// part well-formed, and in each edited sheet every other cell exactly
/// as it was and each edited cell holding its edit, once.
pub(crate) fn check_patched(original: &[u8], written: &[u8], edits: &Edits) -> Result<(), String> {
    let mut before = opc::open(original)?;
    let mut after = opc::open(written).map_err(|e| format!("the written file: {e}"))?;
    same_parts(&before, &after)?;
    well_formed(&mut before, &mut after)?;
    let parts: HashMap<String, String> = sheet_parts(&mut after)?.into_iter().collect();
    for (sheet, cells) in edits {
        let part = parts
            .get(sheet)
            .ok_or_else(|| format!("sheet `{sheet}` is missing"))?;
        let old = stored_cells(&mut before, part)?;
        let new = stored_cells(&mut after, part)?;
        for (at, was) in &old {
            if !cells.contains_key(&(at.row, at.col)) && new.get(at) != Some(was) {
                return Err(format!("cell {at} of `{sheet}` changed"));
            }
        }
        for ((row, col), edit) in cells {
            let at = Cell {
                col: *col,
                row: *row,
            };
            if !holds(new.get(&at), &edit.written) {
                return Err(format!("cell {at} of `{sheet}` does not hold the edit"));
            }
        }
        let extra = new
            .keys()
            .find(|at| !old.contains_key(at) && !cells.contains_key(&(at.row, at.col)));
        if let Some(at) = extra {
            return Err(format!("cell {at} of `{sheet}` appeared"));
        }
    }
    Ok(())
}

/// Checks the package `written`, made from `original` by moving rows or
/// columns (`shift`; none: a change of looks): the same parts, each changed part well-formed, the
/// shifted sheet's cells each where the shift puts it (the deleted ones
/// gone) and stored as before, formulas aside (and cell formats, when
/// `restyled`), and every other sheet's cells as they were.
pub(crate) fn check_moved(
    original: &[u8],
    written: &[u8],
    shift: Option<&Shift>,
    restyled: bool,
) -> Result<(), String> {
    let mut before = opc::open(original)?;
    let mut after = opc::open(written).map_err(|e| format!("the written file: {e}"))?;
    same_parts(&before, &after)?;
    well_formed(&mut before, &mut after)?;
    for (sheet, part) in sheet_parts(&mut after)? {
        let old = stored_cells(&mut before, &part)?;
        let new = stored_cells(&mut after, &part)?;
        let ours = shift.filter(|s| sheet.to_lowercase() == s.sheet.to_lowercase());
        let mut expected = 0;
        for (at, was) in &old {
            let to = match ours {
                Some(shift) => shift.cell(*at),
                None => Some(*at),
            };
            let Some(to) = to else { continue };
            expected += 1;
            let same = new.get(&to).is_some_and(|now| {
                (now.0, now.2) == (was.0, was.2)
                    && (restyled || now.1 == was.1)
                    && (now.2 || now.3 == was.3)
            });
            if !same {
                return Err(format!(
                    "cell {at} of `{sheet}` did not arrive at {to} as it was"
                ));
            }
        }
        if new.len() != expected {
            return Err(format!(
                "`{sheet}` has {} cells where {expected} were meant",
                new.len()
            ));
        }
    }
    Ok(())
}

/// Checks the package `written` from the whole model `model`: every XML
/// part well-formed, and every sheet's values those of the model.
pub(crate) fn check_model(written: &[u8], model: &Workbook) -> Result<(), String> {
    let mut zip = opc::open(written).map_err(|e| format!("the written file: {e}"))?;
    for i in 0..zip.len() {
        let name = entry_name(&mut zip, i)?;
        parses(&mut zip, &name)?;
    }
    let styles = StyleTable::read(&mut zip);
    let strings = scan::shared_strings(&mut zip)?;
    let parts: HashMap<String, String> = sheet_parts(&mut zip)?.into_iter().collect();
    for ws in model.sheet_collection() {
        let part = parts
            .get(ws.name())
            .ok_or_else(|| format!("sheet `{}` is missing", ws.name()))?;
        let mut read: HashMap<Cell, (Value, bool)> = HashMap::new();
        scan::walk(&mut zip, part, |c| {
            read.insert(c.at, (c.value(&styles, &strings), c.formula));
        })?;
        for cell in ws.collection_to_hashmap().values() {
            let at = Cell {
                col: cell.coordinate().col_num(),
                row: cell.coordinate().row_num(),
            };
            let (got, formula) = read.get(&at).cloned().unwrap_or((Value::Null, false));
            if cell.is_formula() {
                if !formula {
                    return Err(format!("cell {at} of `{}` lost its formula", ws.name()));
                }
                continue;
            }
            let meant = crate::values::read_value(ws, at);
            if meant != got {
                return Err(format!(
                    "cell {at} of `{}` reads {got} instead of {meant}",
                    ws.name()
                ));
            }
        }
    }
    Ok(())
}

/// The same part names in both packages, the calculation chain aside.
fn same_parts(before: &Zip<'_>, after: &Zip<'_>) -> Result<(), String> {
    let names = |z: &Zip<'_>| -> HashSet<String> {
        (0..z.len())
            .filter_map(|i| {
                z.name_for_index(i)
                    .and_then(Result::ok)
                    .map(|n| n.into_owned())
            })
            .filter(|n| !n.eq_ignore_ascii_case("xl/calcChain.xml"))
            .collect()
    };
    let (b, a) = (names(before), names(after));
    if let Some(gone) = b.difference(&a).next() {
        return Err(format!("the part {gone} is missing"));
    }
    if let Some(new) = a.difference(&b).next() {
        return Err(format!("an unexpected part {new} appeared"));
    }
    Ok(())
}

/// Every XML part of `after` whose bytes differ from `before`'s parses.
fn well_formed(before: &mut Zip<'_>, after: &mut Zip<'_>) -> Result<(), String> {
    for i in 0..after.len() {
        let name = entry_name(after, i)?;
        let crc = after.by_index_raw(i).map_err(|e| e.to_string())?.crc32();
        let same = before.by_name(&name).is_ok_and(|e| e.crc32() == crc);
        if !same {
            parses(after, &name)?;
        }
    }
    Ok(())
}

/// The name of entry `i`.
fn entry_name(zip: &mut Zip<'_>, i: usize) -> Result<String, String> {
    zip.name_for_index(i)
        .and_then(Result::ok)
        .map(|n| n.into_owned())
        .ok_or_else(|| format!("the written file has no entry {i}"))
}

/// Part `name` of `zip` parses as XML to its end, its tags balanced
/// (other parts, pictures say, pass).
fn parses(zip: &mut Zip<'_>, name: &str) -> Result<(), String> {
    let lower = name.to_ascii_lowercase();
    // VML is often HTML-like rather than XML: Office reads it leniently.
    if !(lower.ends_with(".xml") || lower.ends_with(".rels")) {
        return Ok(());
    }
    let mut bytes = Vec::new();
    zip.by_name(name)
        .and_then(|mut e| e.read_to_end(&mut bytes).map_err(Into::into))
        .map_err(|e| format!("the part {name} cannot be read: {e}"))?;
    let mut reader = quick_xml::Reader::from_reader(bytes.as_slice());
    let mut buf = Vec::new();
    let mut depth = 0usize;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(_)) => depth += 1,
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(Event::Eof) if depth == 0 => return Ok(()),
            Ok(Event::Eof) => return Err(format!("the part {name} ends inside an element")),
            Err(e) => return Err(format!("the part {name} is not well-formed XML: {e}")),
            Ok(_) => {}
        }
        buf.clear();
    }
}

/// Every cell of sheet `part` as stored (read as text, so a part in
/// another encoding reads too); an address twice is an error.
fn stored_cells(zip: &mut Zip<'_>, part: &str) -> Result<HashMap<Cell, Stored4>, String> {
    let text = opc::read_text(zip, part)?;
    let mut out = HashMap::new();
    let mut twice = None;
    scan::walk_reader(text.as_bytes(), part, |c: &RawCell<'_>| {
        let v = (c.stored, c.s, c.formula, c.text.to_string());
        if out.insert(c.at, v).is_some() {
            twice.get_or_insert(c.at);
        }
    })?;
    match twice {
        Some(at) => Err(format!("cell {at} is written twice in {part}")),
        None => Ok(out),
    }
}

/// Whether the stored cell `got` holds `written`.
fn holds(got: Option<&Stored4>, written: &Written) -> bool {
    let Some((stored, _, formula, text)) = got else {
        return *written == Written::Empty;
    };
    match written {
        Written::Empty => !formula && text.is_empty(),
        Written::Formula(_) => *formula,
        Written::Number(n) => {
            *stored == Stored::Number && !formula && text.trim().parse::<f64>() == Ok(*n)
        }
        Written::Bool(b) => *stored == Stored::Bool && text.trim() == if *b { "1" } else { "0" },
        Written::Error(e) => *stored == Stored::Error && text == e,
        Written::Text(t) => *stored == Stored::Inline && text == t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::{CellEdit, FormatChange};
    use std::io::Write;

    /// A package of the given parts.
    fn package(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, text) in parts {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(text.as_bytes()).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn book(sheet: &str) -> Vec<u8> {
        package(&[
            (
                "xl/workbook.xml",
                r#"<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
            ),
            (
                "xl/_rels/workbook.xml.rels",
                r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#,
            ),
            ("xl/worksheets/sheet1.xml", sheet),
        ])
    }

    fn edit(row: u32, col: u32, n: f64) -> Edits {
        let cell = CellEdit {
            written: Written::Number(n),
            format: FormatChange::Keep,
        };
        Edits::from([("S".to_string(), [((row, col), cell)].into())])
    }

    const SHEET: &str =
        r#"<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>"#;

    #[test]
    fn a_good_edit_passes() {
        let after = book(
            r#"<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row></sheetData></worksheet>"#,
        );
        check_patched(&book(SHEET), &after, &edit(1, 2, 2.0)).unwrap();
    }

    #[test]
    fn malformed_moved_doubled_or_missing_is_refused() {
        let broken = book(
            r#"<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></r<row r="9"></row></sheetData></worksheet>"#,
        );
        let e = check_patched(&book(SHEET), &broken, &edit(9, 1, 2.0)).unwrap_err();
        assert!(e.contains("not well-formed"), "{e}");
        let changed = book(
            r#"<worksheet><sheetData><row r="1"><c r="A1"><v>7</v></c><c r="B1"><v>2</v></c></row></sheetData></worksheet>"#,
        );
        let e = check_patched(&book(SHEET), &changed, &edit(1, 2, 2.0)).unwrap_err();
        assert_eq!(e, "cell A1 of `S` changed");
        let twice = book(
            r#"<worksheet><sheetData><row r="1"><c r="A1"><v>2</v></c><c r="A1"><v>1</v></c></row></sheetData></worksheet>"#,
        );
        let e = check_patched(&book(SHEET), &twice, &edit(1, 1, 2.0)).unwrap_err();
        assert!(e.contains("written twice"), "{e}");
        let e = check_patched(&book(SHEET), &book(SHEET), &edit(1, 2, 2.0)).unwrap_err();
        assert_eq!(e, "cell B1 of `S` does not hold the edit");
    }
}
