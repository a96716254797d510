//! A workbook open in memory: its format, the umya-spreadsheet model,
//! what it had that Baton cannot write back, and the file's stamp when it
//! was read (to notice another program's changes).

use std::io::Cursor;
use std::path::Path;
use std::time::SystemTime;

use std::collections::{BTreeMap, HashMap};

use umya_spreadsheet::{Workbook, Worksheet};

use crate::SheetError;
use crate::addr::{Cell, Range};
use crate::error::io;
use crate::looks::Look;
use crate::patch::{Pending, Touched};
use crate::shift::Shift;
use crate::{opc, package, values};

/// The formats Baton opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Excel workbook.
    Xlsx,
    /// Excel workbook with macros (kept as they are).
    Xlsm,
    /// Comma- (or semicolon-, tab-) separated values: one sheet.
    Csv,
    /// Excel 97–2003, read-only.
    Xls,
    /// OpenDocument spreadsheet, read-only.
    Ods,
}

impl Format {
    /// The format of a file, by its extension.
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "xlsx" => Format::Xlsx,
            "xlsm" => Format::Xlsm,
            "csv" | "tsv" => Format::Csv,
            "xls" => Format::Xls,
            "ods" => Format::Ods,
            _ => return None,
        })
    }

    /// Whether Baton saves this format.
    pub fn writable(self) -> bool {
        matches!(self, Format::Xlsx | Format::Xlsm | Format::Csv)
    }

    /// A word for results.
    pub fn label(self) -> &'static str {
        match self {
            Format::Xlsx => "xlsx",
            Format::Xlsm => "xlsm",
            Format::Csv => "csv",
            Format::Xls => "xls",
            Format::Ods => "ods",
        }
    }
}

/// Size and modification time of a file when Baton read or wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// The stamp of `path` now (`None` when it is not there).
    pub fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

/// One workbook in memory. An xlsx or xlsm file is read lazily: its
/// package is kept as read, describe and open stream it, and cell edits
/// wait as prepared values to be written into it on save; the
/// umya-spreadsheet model is built only when a method needs it (reading
/// cells back, structural edits), and then the waiting edits go into it.
pub struct OpenBook {
    /// What it was read from (and is saved as).
    pub format: Format,
    /// Its path as the agent names it, for messages.
    label: String,
    /// The model, once built.
    model: Option<Workbook>,
    /// The package's sheets (name, part), while there is no model.
    sheets: Vec<(String, String)>,
    /// The package's selected sheet, while there is no model.
    active: usize,
    /// Edited since it was read or saved.
    pub dirty: bool,
    /// What the file has that Baton cannot write back.
    pub unkept: Vec<package::Unkept>,
    /// The content type of each of the package's parts as read (xlsx and
    /// xlsm), to check a save keeps every kind of part.
    pub parts: Vec<String>,
    /// The file's stamp when read or last saved.
    pub stamp: Option<Stamp>,
    /// The package as read or last saved (xlsx and xlsm), which cell
    /// edits are written into.
    pub original: Option<Vec<u8>>,
    /// Cells edited in the model since then.
    pub touched: Touched,
    /// Cell edits made before there was a model.
    pub pending: Pending,
    /// Each sheet's used range in the package, once streamed (so open
    /// after describe, or describe after open, reads a sheet once).
    pub used: HashMap<String, Option<Range>>,
    /// Whether an edit since then changed more than cells (rows,
    /// columns, sheets, tables, charts, looks): then the save writes the
    /// whole model.
    pub structural: bool,
    /// Rows and columns inserted or deleted, widths and frozen panes
    /// changed since then, in order, for the save to write in place
    /// (empty once `structural`).
    pub ops: Vec<Op>,
}

/// A change the save writes into the package in place.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Rows or columns inserted or deleted.
    Shift(Shift),
    /// A width or frozen panes.
    Look(Look),
}

impl OpenBook {
    /// A new, empty workbook with one sheet named `sheet`.
    pub fn create(format: Format, sheet: &str) -> Result<OpenBook, SheetError> {
        let mut book = umya_spreadsheet::new_file_empty_worksheet();
        book.new_sheet(sheet)
            .map_err(|e| SheetError::Invalid(format!("cannot name a sheet `{sheet}`: {e}")))?;
        let mut open = OpenBook::fresh(Some(book));
        open.format = format;
        open.dirty = true;
        open.structural = true;
        Ok(open)
    }

    /// Reads `host` (`agent` names it in messages).
    pub fn load(host: &Path, agent: &str) -> Result<OpenBook, SheetError> {
        let format = Format::of(host).ok_or_else(|| SheetError::Format(agent.to_string()))?;
        if host.is_dir() {
            return Err(SheetError::Format(agent.to_string()));
        }
        let stamp = Stamp::of(host);
        let bytes = std::fs::read(host).map_err(io("read", agent))?;
        let mut open = match format {
            Format::Xlsx | Format::Xlsm => load_package(bytes, agent)?,
            Format::Csv => OpenBook::fresh(Some(crate::foreign::read_csv(&bytes, host, agent)?)),
            Format::Xls | Format::Ods => {
                OpenBook::fresh(Some(crate::foreign::read_calamine(bytes, agent)?))
            }
        };
        open.format = format;
        open.stamp = stamp;
        open.label = agent.to_string();
        Ok(open)
    }

    fn fresh(model: Option<Workbook>) -> OpenBook {
        OpenBook {
            format: Format::Xlsx,
            label: String::new(),
            model,
            sheets: Vec::new(),
            active: 0,
            dirty: false,
            unkept: Vec::new(),
            parts: Vec::new(),
            stamp: None,
            original: None,
            touched: Default::default(),
            pending: Default::default(),
            used: HashMap::new(),
            structural: false,
            ops: Vec::new(),
        }
    }

    /// After a save of `bytes` (in this workbook's format): they are the
    /// new original, nothing is edited.
    pub fn saved_as(&mut self, bytes: Vec<u8>, stamp: Option<Stamp>) {
        if matches!(self.format, Format::Xlsx | Format::Xlsm) {
            self.parts = package::content_types(&bytes).unwrap_or_default();
            self.unkept = package::part_names(&bytes)
                .map(|p| package::unkept(&p))
                .unwrap_or_default();
            self.original = Some(bytes);
        } else {
            self.original = None;
        }
        self.touched.clear();
        self.pending.clear();
        self.used.clear();
        self.structural = false;
        self.ops.clear();
        self.dirty = false;
        self.stamp = stamp;
    }

    /// Notes rows or columns inserted or deleted (already done in the
    /// model): the cells edited so far move with them.
    pub fn note_shift(&mut self, shift: Shift) {
        if self.structural {
            return;
        }
        if let Some(cells) = self.touched.get_mut(&shift.sheet) {
            *cells = std::mem::take(cells)
                .into_iter()
                .filter_map(|((row, col), f)| {
                    let at = shift.cell(Cell { col, row })?;
                    Some(((at.row, at.col), f))
                })
                .collect();
        }
        self.ops.push(Op::Shift(shift));
    }

    /// Notes a change of looks (already done in the model).
    pub fn note_look(&mut self, look: Look) {
        if !self.structural {
            self.ops.push(Op::Look(look));
        }
    }

    /// The model, if it has been built.
    pub fn model(&self) -> Option<&Workbook> {
        self.model.as_ref()
    }

    /// The model, built from the package first if needed (with the cell
    /// edits waiting for it).
    pub fn book(&mut self) -> Result<&mut Workbook, SheetError> {
        if self.model.is_none() {
            let original = self.original.as_deref().unwrap_or_default();
            let mut model = read_model(original).map_err(|reason| SheetError::Read {
                path: self.label.clone(),
                reason,
            })?;
            for (name, cells) in std::mem::take(&mut self.pending) {
                let ws = model
                    .sheet_by_name_mut(&name)
                    .map_err(|e| SheetError::Invalid(format!("sheet `{name}`: {e}")))?;
                let noted = self.touched.entry(name).or_default();
                for ((row, col), value) in cells {
                    let at = Range::new(Cell { col, row }, Cell { col, row });
                    let before = formats_of(ws, at);
                    values::apply(ws, at.start, &value);
                    note_cells(noted, &before, formats_of(ws, at));
                }
            }
            self.model = Some(model);
        }
        Ok(self.model.as_mut().expect("just built"))
    }

    /// The package's sheets (name, part) while there is no model.
    pub fn package_sheets(&self) -> Option<&[(String, String)]> {
        self.model.is_none().then_some(self.sheets.as_slice())
    }

    /// The sheet names, in order.
    pub fn sheet_names(&self) -> Vec<String> {
        match &self.model {
            Some(book) => book
                .sheet_collection_no_check()
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            None => self.sheets.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    /// The index of the sheet selected when the file was saved.
    pub fn active_tab(&self) -> usize {
        match &self.model {
            Some(book) => book.workbook_view().active_tab() as usize,
            None => self.active,
        }
    }
}

/// Records the cells of `after` as edited, with their new number format
/// when it is not what it was `before`.
pub(crate) fn note_cells(
    cells: &mut BTreeMap<(u32, u32), Option<String>>,
    before: &HashMap<Cell, Option<String>>,
    after: HashMap<Cell, Option<String>>,
) {
    for (at, code) in after {
        let changed = before.get(&at).cloned().unwrap_or_default() != code;
        let slot = cells.entry((at.row, at.col)).or_default();
        if changed {
            *slot = Some(code.unwrap_or_else(|| "General".into()));
        }
    }
}

/// The number format of each cell of `range`, `None` for General.
pub(crate) fn formats_of(ws: &Worksheet, range: Range) -> HashMap<Cell, Option<String>> {
    (range.start.row..=range.end.row)
        .flat_map(|row| (range.start.col..=range.end.col).map(move |col| Cell { col, row }))
        .map(|at| {
            let code = ws
                .cell(at.xy())
                .and_then(|c| c.style().number_format())
                .map(|f| f.format_code().to_string());
            (at, code.filter(|f| f != "General"))
        })
        .collect()
}

/// An xlsx or xlsm package: normalized when it bends the standard, its
/// parts listed and its sheets found; the model is built later, if a
/// method needs it.
fn load_package(bytes: Vec<u8>, agent: &str) -> Result<OpenBook, SheetError> {
    let read_err = |reason: String| SheetError::Read {
        path: agent.to_string(),
        reason,
    };
    let bytes = match baton_convert::normalize_package(&bytes) {
        Ok(Some(fixed)) => fixed,
        Ok(None) => bytes,
        Err(e) => return Err(read_err(e.to_string())),
    };
    let parts = package::part_names(&bytes).map_err(read_err)?;
    let unkept = package::unkept(&parts);
    let parts = package::content_types(&bytes).map_err(read_err)?;
    let mut zip = opc::open(&bytes).map_err(read_err)?;
    let sheets = opc::sheet_parts(&mut zip).map_err(read_err)?;
    if sheets.is_empty() {
        return Err(read_err("it lists no sheets".into()));
    }
    let active = opc::active_tab(&mut zip);
    drop(zip);
    Ok(OpenBook {
        unkept,
        parts,
        sheets,
        active,
        original: Some(bytes),
        ..OpenBook::fresh(None)
    })
}

/// The umya-spreadsheet model of a package (it panics on some broken
/// XML: that is a read error here, never a crash).
fn read_model(bytes: &[u8]) -> Result<Workbook, String> {
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        umya_spreadsheet::reader::xlsx::read_reader(Cursor::new(bytes), true)
    }));
    match read {
        Ok(Ok(book)) => Ok(book),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("its XML is malformed".into()),
    }
}
