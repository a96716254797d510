//! `SpreadsheetTool`: the toolbox the model (and `baton tools call`)
//! uses. Each method names its workbook by `path`, so calls stand alone;
//! a workbook read once stays in memory, with its edits, until it is
//! saved or closed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use baton_tools::{Sandbox, toolbox};
use serde::Serialize;
use serde_json::Value;
use umya_spreadsheet::Worksheet;

use crate::SheetError;
use crate::addr::{Cell, Range, parse_column};
use crate::book::{Format, Op, OpenBook, Stamp, formats_of, note_cells};
use crate::describe::{Description, describe};
use crate::edit;
use crate::looks::Look;
use crate::objects::{self, ChartKind, Placement};
use crate::package::Unkept;
use crate::save::{self, Saved, Target};
use crate::shift::{Axis, Shift};
use crate::style;
use crate::values::{self, ValueType};

/// Workbooks in the user's workspace (xlsx, xlsm; xls and ods read-only; csv): read, describe, edit values, formulas, rows, columns and sheets, format, add tables and charts, sort, find, save with a numbered backup (FileTool's restore brings an earlier version back).
#[toolbox]
pub struct SpreadsheetTool {
    sandbox: Sandbox,
    books: Mutex<HashMap<PathBuf, OpenBook>>,
}

/// A sheet in a workbook's summary.
#[derive(Debug, Serialize)]
pub struct SheetSummary {
    /// Its name.
    pub name: String,
    /// Its used range (`A1:F13`), absent when empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_range: Option<String>,
}

/// What open answers.
#[derive(Debug, Serialize)]
pub struct Opened {
    /// The workbook.
    pub path: String,
    /// Its format.
    pub format: &'static str,
    /// Whether Baton can save it in place.
    pub read_only: bool,
    /// Its sheets.
    pub sheets: Vec<SheetSummary>,
    /// Unsaved edits in memory.
    pub unsaved_changes: bool,
    /// What it has that Baton cannot write back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cannot_keep: Vec<Unkept>,
    /// What to know before editing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One cell.
#[derive(Debug, Serialize)]
pub struct CellInfo {
    /// Its sheet.
    pub sheet: String,
    /// Its address.
    pub cell: String,
    /// Its value (a formula's last result; dates as ISO text).
    pub value: Value,
    /// `number`, `text`, `date`, `bool`, `error` or `empty`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its formula, with `=`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// Its number format, unless General.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number_format: Option<String>,
}

/// Values of a range.
#[derive(Debug, Serialize)]
pub struct RangeValues {
    /// The sheet.
    pub sheet: String,
    /// The range read.
    pub range: String,
    /// Row by row.
    pub values: Vec<Vec<Value>>,
    /// Whether rows were left out (10,000 cells at most).
    pub truncated: bool,
}

/// What an edit did (in memory until saved).
#[derive(Debug, Serialize)]
pub struct Edited {
    /// The workbook.
    pub path: String,
    /// The sheet changed.
    pub sheet: String,
    /// What changed.
    pub changed: String,
    /// The changed range's top-left corner now (up to 8 × 8).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preview: Vec<Vec<Value>>,
    /// Always false: call save to write the file.
    pub saved: bool,
}

/// What close did.
#[derive(Debug, Serialize)]
pub struct Closed {
    /// The workbook.
    pub path: String,
    /// Whether unsaved edits were thrown away.
    pub discarded_changes: bool,
}

impl SpreadsheetTool {
    /// A spreadsheet toolbox on `sandbox`.
    pub fn new(sandbox: Sandbox) -> Self {
        Self {
            sandbox,
            books: Mutex::new(HashMap::new()),
        }
    }

    fn agent(&self, host: &Path) -> String {
        self.sandbox
            .agent_path(host)
            .unwrap_or_else(|| host.display().to_string())
    }

    fn resolve(&self, path: &str) -> Result<(PathBuf, String), SheetError> {
        let host = self.sandbox.resolve(path)?;
        let agent = self.agent(&host);
        Ok((host, agent))
    }

    fn books(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, OpenBook>> {
        self.books.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the workbook at `path`, reading it first when it is not
    /// in memory (or is unchanged in memory but changed on disk).
    fn with<T>(
        &self,
        path: &str,
        f: impl FnOnce(&mut OpenBook, &str) -> Result<T, SheetError>,
    ) -> Result<T, SheetError> {
        let (host, agent) = self.resolve(path)?;
        let mut books = self.books();
        let stale = books
            .get(&host)
            .is_some_and(|b| !b.dirty && b.stamp.is_some() && Stamp::of(&host) != b.stamp);
        if stale || !books.contains_key(&host) {
            let place = self.sandbox.place(path, false)?;
            let open = OpenBook::load(place.io(), &agent)?;
            books.insert(host.clone(), open);
        }
        let open = books.get_mut(&host).expect("just inserted");
        f(open, &agent)
    }

    /// Runs `f` on one sheet of the workbook at `path`, marking it edited.
    fn edit<T>(
        &self,
        path: &str,
        sheet: Option<&str>,
        f: impl FnOnce(&mut Worksheet) -> Result<T, SheetError>,
    ) -> Result<(String, String, T), SheetError> {
        self.with(path, |open, agent| {
            let i = sheet_index(open, agent, sheet)?;
            let ws = sheet_mut(open, i)?;
            let out = f(ws)?;
            let name = ws.name().to_string();
            open.dirty = true;
            open.structural = true;
            Ok((agent.to_string(), name, out))
        })
    }

    /// Rows or columns inserted or deleted on one sheet: in the model
    /// (what later reads see) and noted for the save, which moves them in
    /// the user's own package ([`crate::shift`]).
    fn shift(
        &self,
        path: &str,
        sheet: Option<&str>,
        mut to: Shift,
        f: impl FnOnce(&mut Worksheet),
    ) -> Result<(String, String), SheetError> {
        self.in_place(path, sheet, |ws| {
            f(ws);
            to.sheet = ws.name().to_string();
            Ok(((), vec![Op::Shift(to)]))
        })
        .map(|(path, sheet, ())| (path, sheet))
    }

    /// An edit of one sheet made in the model by `f`, which also says
    /// what the save is to write into the package in place.
    fn in_place<T>(
        &self,
        path: &str,
        sheet: Option<&str>,
        f: impl FnOnce(&mut Worksheet) -> Result<(T, Vec<Op>), SheetError>,
    ) -> Result<(String, String, T), SheetError> {
        self.with(path, |open, agent| {
            let i = sheet_index(open, agent, sheet)?;
            let ws = sheet_mut(open, i)?;
            let (out, ops) = f(ws)?;
            let name = ws.name().to_string();
            open.dirty = true;
            for op in ops {
                match op {
                    Op::Shift(s) => open.note_shift(s),
                    Op::Look(l) => open.note_look(l),
                }
            }
            Ok((agent.to_string(), name, out))
        })
    }

    /// An edit of `range` on one sheet, answered with a preview.
    fn edit_range(
        &self,
        path: &str,
        sheet: Option<&str>,
        kind: Change,
        f: impl FnOnce(&mut Worksheet) -> Result<Range, SheetError>,
    ) -> Result<Edited, SheetError> {
        self.with(path, |open, agent| {
            let i = sheet_index(open, agent, sheet)?;
            let ws = sheet_mut(open, i)?;
            let before = match kind {
                Change::Cells(r) if r.cells() <= MAX_PATCHED_CELLS => formats_of(ws, r),
                _ => HashMap::new(),
            };
            let range = f(ws)?;
            let name = ws.name().to_string();
            let edited = Edited {
                path: agent.to_string(),
                sheet: name.clone(),
                changed: range.to_string(),
                preview: edit::preview(ws, range),
                saved: false,
            };
            let after = match kind {
                Change::Cells(_) if range.cells() <= MAX_PATCHED_CELLS => {
                    Some(formats_of(ws, range))
                }
                _ => None,
            };
            open.dirty = true;
            match after {
                Some(after) => note_cells(open.touched.entry(name).or_default(), &before, after),
                None => open.structural = true,
            }
            Ok(edited)
        })
    }

    /// Values written from `start`: into the model when it is built,
    /// else kept as prepared values for the save to write into the
    /// package (the model is not built for them).
    fn edit_cells(
        &self,
        path: &str,
        sheet: Option<&str>,
        start: Cell,
        values: &[Vec<Value>],
        ty: Option<ValueType>,
    ) -> Result<Edited, SheetError> {
        let range = edit::block(start, values)?;
        let rectangular = values.iter().all(|r| r.len() as u32 == range.width());
        let waiting = self.with(path, |open, agent| {
            let lazy = open.package_sheets().is_some() && rectangular;
            if !lazy || range.cells() > MAX_PATCHED_CELLS {
                return Ok(None);
            }
            let i = sheet_index(open, agent, sheet)?;
            let name = open.sheet_names().swap_remove(i);
            let prepared = edit::prepare_block(start, values, ty)?;
            let preview = edit::preview_of(&prepared, range);
            let cells = open.pending.entry(name.clone()).or_default();
            cells.extend(prepared.into_iter().map(|(at, p)| ((at.row, at.col), p)));
            open.dirty = true;
            Ok(Some(Edited {
                path: agent.to_string(),
                sheet: name,
                changed: range.to_string(),
                preview,
                saved: false,
            }))
        })?;
        match waiting {
            Some(edited) => Ok(edited),
            None => self.edit_range(path, sheet, Change::Cells(range), |ws| {
                edit::set_values(ws, start, values, ty)
            }),
        }
    }

    /// A change to the workbook's sheets.
    fn edit_book(
        &self,
        path: &str,
        changed: String,
        f: impl FnOnce(&mut OpenBook, &str) -> Result<String, SheetError>,
    ) -> Result<Edited, SheetError> {
        self.with(path, |open, agent| {
            let sheet = f(open, agent)?;
            open.dirty = true;
            open.structural = true;
            Ok(Edited {
                path: agent.to_string(),
                sheet,
                changed,
                preview: Vec::new(),
                saved: false,
            })
        })
    }

    fn saved(&self, mut s: Saved) -> Saved {
        s.backup = s.backup.map(|b| self.agent(Path::new(&b)));
        s
    }
}

/// What an edit changes.
#[derive(Clone, Copy)]
enum Change {
    /// Values, formulas, number formats, in this range (its number
    /// formats are read before the edit, to see which change).
    Cells(Range),
    /// Anything else (looks, order, structure).
    Structure,
}

/// More cells than this in one edit are saved through the whole model.
const MAX_PATCHED_CELLS: u64 = 200_000;

/// Sheet `i` of the model (built first if needed).
fn sheet_mut(open: &mut OpenBook, i: usize) -> Result<&mut Worksheet, SheetError> {
    open.book()?.sheet_mut(i).map_err(|e| {
        SheetError::Invalid(format!(
            "the spreadsheet library could not read sheet {} of this workbook ({e}); its cells can still be read and set",
            i + 1
        ))
    })
}

/// Sheet `i` of the model, to read (built first if needed).
fn sheet_ref(open: &mut OpenBook, i: usize) -> Result<&Worksheet, SheetError> {
    open.book()?;
    read_sheet(open, i)
}

/// Sheet `i` of the model, which is built.
fn read_sheet(open: &OpenBook, i: usize) -> Result<&Worksheet, SheetError> {
    let model = open
        .model()
        .ok_or_else(|| SheetError::Invalid("the workbook is not read yet".into()))?;
    model
        .sheet(i)
        .map_err(|e| SheetError::Invalid(e.to_string()))
}

fn ws_name(book: &umya_spreadsheet::Workbook, i: usize) -> String {
    book.sheet_collection_no_check()
        .get(i)
        .map(|s| s.name().to_string())
        .unwrap_or_default()
}

/// The index of `sheet` (any case), or of the active sheet.
fn sheet_index(open: &OpenBook, agent: &str, sheet: Option<&str>) -> Result<usize, SheetError> {
    let names = open.sheet_names();
    let Some(wanted) = sheet.filter(|s| !s.trim().is_empty()) else {
        let active = open.active_tab();
        return Ok(if active < names.len() { active } else { 0 });
    };
    names
        .iter()
        .position(|n| n == wanted)
        .or_else(|| {
            names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(wanted.trim()))
        })
        .ok_or_else(|| SheetError::NoSheet {
            path: agent.to_string(),
            sheet: wanted.to_string(),
            sheets: names.join(", "),
        })
}

fn opened(open: &mut OpenBook, agent: &str) -> Result<Opened, SheetError> {
    let read_only = !open.format.writable();
    let note = if read_only {
        Some(format!(
            "Opened read-only: Baton does not write .{} files. Edits stay in memory; use save_as with a .xlsx path to keep them.",
            open.format.label()
        ))
    } else if !open.unkept.is_empty() {
        Some("This workbook has features Baton cannot write back (cannot_keep). Saving over it is refused; save_as a new file, or save with force=true to drop them.".into())
    } else {
        None
    };
    Ok(Opened {
        path: agent.to_string(),
        format: open.format.label(),
        read_only,
        sheets: sheet_summaries(open, agent)?,
        unsaved_changes: open.dirty,
        cannot_keep: open.unkept.clone(),
        note,
    })
}

/// Each sheet's name and used range: streamed from the package while
/// there is no model.
fn sheet_summaries(open: &mut OpenBook, agent: &str) -> Result<Vec<SheetSummary>, SheetError> {
    let read_err = |reason: String| SheetError::Read {
        path: agent.to_string(),
        reason,
    };
    if let Some(sheets) = open.package_sheets().map(<[_]>::to_vec) {
        let mut out = Vec::with_capacity(sheets.len());
        for (name, part) in sheets {
            let used = match open.used.get(&name) {
                Some(used) => *used,
                None => {
                    let original = open.original.as_deref().unwrap_or_default();
                    let mut zip = crate::opc::open(original).map_err(read_err)?;
                    let used = crate::scan::used_range(&mut zip, &part).map_err(read_err)?;
                    open.used.insert(name.clone(), used);
                    used
                }
            };
            let edited = open.pending.get(&name).and_then(|cells| {
                let (rows, cols) = cells
                    .keys()
                    .fold((0, 0), |(r, c), (row, col)| (r.max(*row), c.max(*col)));
                (rows > 0).then(|| {
                    Range::new(
                        Cell { col: 1, row: 1 },
                        Cell {
                            col: cols,
                            row: rows,
                        },
                    )
                })
            });
            out.push(SheetSummary {
                used_range: union(used, edited).map(|r| r.to_string()),
                name,
            });
        }
        return Ok(out);
    }
    Ok(open
        .book()?
        .sheet_collection_no_check()
        .iter()
        .map(|ws| {
            let (c, r) = ws.highest_column_and_row();
            SheetSummary {
                name: ws.name().to_string(),
                used_range: (c > 0 && r > 0).then(|| {
                    Range::new(Cell { col: 1, row: 1 }, Cell { col: c, row: r }).to_string()
                }),
            }
        })
        .collect())
}

/// The smallest range from A1 holding both.
fn union(a: Option<Range>, b: Option<Range>) -> Option<Range> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Range::new(
            Cell { col: 1, row: 1 },
            Cell {
                col: a.end.col.max(b.end.col),
                row: a.end.row.max(b.end.row),
            },
        )),
        (a, b) => a.or(b),
    }
}

mod methods;
