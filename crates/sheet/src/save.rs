//! Saving: the workbook encoded in its format, checked against what the
//! file had, the old file backed up, the new one written atomically.

use std::path::Path;

use baton_tools::Place;
use serde::Serialize;

use crate::SheetError;
use crate::book::{Format, Op, OpenBook, Stamp};
use crate::error::io;
use crate::package;
use umya_spreadsheet::Workbook;

/// What a save did.
#[derive(Debug, Serialize)]
pub struct Saved {
    /// The file written.
    pub path: String,
    /// Its format.
    pub format: &'static str,
    /// Bytes written.
    pub bytes: usize,
    /// Where the replaced version was backed up, if one was replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// What the saved file does not have of the original (a save_as to
    /// CSV, or a save forced over unkept features).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// Whether the whole workbook was rewritten from the spreadsheet
    /// library's model, rather than the edits written into the file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub whole_workbook: bool,
}

/// Where a save goes and what it may do.
pub struct Target<'a> {
    /// Where it is written, checked and held by the sandbox.
    pub place: &'a Place,
    /// The agent path, for messages.
    pub agent: &'a str,
    /// The format written.
    pub format: Format,
    /// Whether it replaces the file the workbook was read from.
    pub over_original: bool,
    /// Save even if something is dropped or the file changed on disk.
    pub force: bool,
}

/// The workbook in `format`, as bytes.
fn encode(model: &Workbook, format: Format, host: &Path) -> Result<Vec<u8>, String> {
    match format {
        Format::Csv => {
            let tsv = host
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
            crate::foreign::write_csv(model, if tsv { b'\t' } else { b',' })
        }
        Format::Xlsx | Format::Xlsm => {
            let mut book = model.clone();
            drop_empty_anchors(&mut book);
            let mut out = Vec::new();
            let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                umya_spreadsheet::writer::xlsx::write_writer(&book, &mut out)
            }));
            match written {
                Ok(Ok(())) => package::mark_recalculate(&out),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("the spreadsheet library failed while writing it".into()),
            }
        }
        Format::Xls | Format::Ods => Err(format!("Baton does not write .{} files", format.label())),
    }
}

/// Drawing anchors left empty (what umya-spreadsheet keeps of a chart it
/// could not read): written as they are, they make the file unreadable
/// to openpyxl and make Excel offer a repair. Pictures whose shape the
/// library did not read (a `prstGeom` declaring its own namespace) get
/// the plain rectangle every picture has, instead of an empty, invalid
/// one.
fn drop_empty_anchors(book: &mut umya_spreadsheet::Workbook) {
    for ws in book.sheet_collection_mut() {
        let drawing = ws.worksheet_drawing_mut();
        drawing
            .one_cell_anchor_collection_mut()
            .retain(|a| a.picture().is_some() || a.shape().is_some() || a.group_shape().is_some());
        for a in drawing.one_cell_anchor_collection_mut() {
            if let Some(p) = a.picture_mut() {
                rectangle_if_unshaped(p);
            }
        }
        for a in drawing.two_cell_anchor_collection_mut() {
            if let Some(p) = a.picture_mut() {
                rectangle_if_unshaped(p);
            }
        }
        for image in ws.image_collection_mut() {
            if let Some(p) = image.one_cell_anchor_mut().and_then(|a| a.picture_mut()) {
                rectangle_if_unshaped(p);
            }
            if let Some(p) = image.two_cell_anchor_mut().and_then(|a| a.picture_mut()) {
                rectangle_if_unshaped(p);
            }
        }
    }
}

fn rectangle_if_unshaped(picture: &mut umya_spreadsheet::drawing::spreadsheet::Picture) {
    let geometry = picture.shape_properties_mut().geometry_mut();
    if geometry.geometry().is_empty() {
        geometry.set_geometry("rect");
    }
}

/// What writing `bytes` as `format` leaves out of `open`'s original.
fn dropped(
    open: &OpenBook,
    sheets: usize,
    format: Format,
    bytes: &[u8],
) -> Result<Vec<String>, String> {
    if format == Format::Csv {
        let mut d = Vec::new();
        if open.format != Format::Csv {
            d.push("formatting, formulas (their values are kept), tables and charts: CSV holds values only".to_string());
        }
        if sheets > 1 {
            d.push(format!(
                "{} sheets after the first: CSV holds one sheet",
                sheets - 1
            ));
        }
        return Ok(d);
    }
    let mut d: Vec<String> = open
        .unkept
        .iter()
        .map(|u| format!("{} ({})", u.feature, u.part))
        .collect();
    if let Some(original) = &open.original {
        d.extend(crate::patch::lost_markup(original, bytes));
    }
    if !open.parts.is_empty() {
        let after = package::content_types(bytes)?;
        d.extend(package::lost_parts(&open.parts, &after));
    }
    Ok(d)
}

/// Whether the save writes the edited cells into the original package
/// (nothing else changes) rather than the whole model.
fn patchable(open: &OpenBook, format: Format) -> bool {
    matches!(format, Format::Xlsx | Format::Xlsm)
        && open.format == format
        && open.original.is_some()
        && !open.structural
}

/// The bytes to write and what they leave out of the original, read
/// back first ([`crate::verify`]): a file that does not read back as
/// meant is refused in words and nothing is written.
fn prepare(
    open: &mut OpenBook,
    target: &Target<'_>,
    whole_because: &mut Option<String>,
) -> Result<(Vec<u8>, Vec<String>), SheetError> {
    let fail = |r: String| SheetError::Invalid(format!("cannot save `{}`: {r}", target.agent));
    let unreadable = |r: String| {
        tracing::warn!(path = target.agent, reason = %r, "a written workbook did not read back; not saved");
        SheetError::Invalid(format!(
            "cannot save `{}`: the file Baton wrote did not read back as meant ({r}), so it was not saved and the file is unchanged",
            target.agent
        ))
    };
    if let (true, Some(original)) = (patchable(open, target.format), open.original.clone()) {
        match moved_in_place(&original, &open.ops) {
            Ok(moved) => {
                let edits = match open.model() {
                    Some(model) => {
                        crate::patch::edits_from_model(model, &open.touched).map_err(fail)?
                    }
                    None => crate::patch::edits_from_pending(&open.pending),
                };
                let bytes = crate::patch::patch(&moved, edits.clone()).map_err(fail)?;
                crate::verify::check_patched(&moved, &bytes, &edits).map_err(unreadable)?;
                return Ok((bytes, Vec::new()));
            }
            Err(MoveFailed::NotInPlace(why)) => {
                tracing::info!(path = target.agent, reason = %why, "rows or columns not moved in place; saving the whole workbook");
                *whole_because = Some(why);
            }
            Err(MoveFailed::Unreadable(why)) => return Err(unreadable(why)),
        }
    }
    let model = open.book()?;
    let sheets = model.sheet_count();
    let bytes = encode(model, target.format, target.place.io()).map_err(fail)?;
    if matches!(target.format, Format::Xlsx | Format::Xlsm) {
        crate::verify::check_model(&bytes, open.book()?).map_err(unreadable)?;
    }
    let dropped =
        dropped(open, sheets, target.format, &bytes).map_err(|reason| SheetError::Read {
            path: target.agent.to_string(),
            reason,
        })?;
    Ok((bytes, dropped))
}

/// Why rows and columns were not moved in the package itself.
enum MoveFailed {
    /// Not possible exactly (the save writes the whole model instead).
    NotInPlace(String),
    /// Moved, but the result did not read back as meant.
    Unreadable(String),
}

/// The package `original` with `ops` applied in order, each result
/// read back ([`crate::verify::check_moved`]).
fn moved_in_place(original: &[u8], ops: &[Op]) -> Result<Vec<u8>, MoveFailed> {
    let mut bytes = original.to_vec();
    for op in ops {
        let (moved, shift, restyled) = match op {
            Op::Shift(shift) => (crate::shift::apply(&bytes, shift), Some(shift), false),
            Op::Look(look) => (crate::looks::apply(&bytes, look), None, look.restyles()),
        };
        let moved = moved.map_err(|e| MoveFailed::NotInPlace(e.0))?;
        crate::verify::check_moved(&bytes, &moved, shift, restyled)
            .map_err(MoveFailed::Unreadable)?;
        bytes = moved;
    }
    Ok(bytes)
}

/// Saves `open` to `target`: refuses to drop anything over the original
/// or to overwrite another program's changes unless forced; backs up
/// what it replaces; writes atomically (the file's mode is kept). The
/// saved workbook is the new original of `open` when it replaced it.
pub fn save(open: &mut OpenBook, target: &Target<'_>) -> Result<Saved, SheetError> {
    let mut whole_because = None;
    let patchable_now = patchable(open, target.format);
    let (bytes, dropped) = prepare(open, target, &mut whole_because)?;
    let exists = target.place.io().exists();
    if target.over_original && !target.force {
        if target.format != Format::Csv && !dropped.is_empty() {
            let why = whole_because
                .map(|w| {
                    format!(
                        " (Baton writes rows and columns into the file itself, but not here: {w})"
                    )
                })
                .unwrap_or_default();
            return Err(SheetError::WouldLose {
                path: target.agent.to_string(),
                features: format!("{}{why}", dropped.join(", ")),
            });
        }
        if exists && open.stamp.is_some() && Stamp::of(target.place.io()) != open.stamp {
            return Err(SheetError::ChangedOnDisk(target.agent.to_string()));
        }
    }
    let backup = if exists {
        Some(baton_stdx::backup_file(target.place.io()).map_err(io("back up", target.agent))?)
    } else {
        None
    };
    baton_stdx::atomic_write(target.place.io(), &bytes).map_err(io("write", target.agent))?;
    tracing::info!(path = target.agent, bytes = bytes.len(), "workbook saved");
    let saved = Saved {
        path: target.agent.to_string(),
        format: target.format.label(),
        bytes: bytes.len(),
        backup: backup.map(|b| target.place.shown(&b).display().to_string()),
        dropped,
        whole_workbook: whole_because.is_some() || !patchable_now,
    };
    open.format = target.format;
    open.saved_as(bytes, Stamp::of(target.place.io()));
    Ok(saved)
}
