//! A workbook open in memory: its format, the umya-spreadsheet model,
//! what it had that Baton cannot write back, and the file's stamp when it
//! was read (to notice another program's changes).

use std::io::Cursor;
use std::path::Path;
use std::time::SystemTime;

use umya_spreadsheet::Workbook;

use crate::SheetError;
use crate::error::io;
use crate::package;

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

/// One workbook in memory.
pub struct OpenBook {
    /// What it was read from (and is saved as).
    pub format: Format,
    /// The model every method reads and edits.
    pub book: Workbook,
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
    /// Cells edited since then.
    pub touched: crate::patch::Touched,
    /// Whether an edit since then changed more than cells (rows,
    /// columns, sheets, tables, charts, looks): then the save writes the
    /// whole model.
    pub structural: bool,
}

impl OpenBook {
    /// A new, empty workbook with one sheet named `sheet`.
    pub fn create(format: Format, sheet: &str) -> Result<OpenBook, SheetError> {
        let mut book = umya_spreadsheet::new_file_empty_worksheet();
        book.new_sheet(sheet)
            .map_err(|e| SheetError::Invalid(format!("cannot name a sheet `{sheet}`: {e}")))?;
        let mut open = OpenBook::fresh(book);
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
            Format::Xlsx | Format::Xlsm => load_package(&bytes, agent)?,
            Format::Csv => OpenBook::fresh(crate::foreign::read_csv(&bytes, host, agent)?),
            Format::Xls | Format::Ods => {
                OpenBook::fresh(crate::foreign::read_calamine(bytes, agent)?)
            }
        };
        open.format = format;
        open.stamp = stamp;
        Ok(open)
    }

    fn fresh(book: Workbook) -> OpenBook {
        OpenBook {
            format: Format::Xlsx,
            book,
            dirty: false,
            unkept: Vec::new(),
            parts: Vec::new(),
            stamp: None,
            original: None,
            touched: Default::default(),
            structural: false,
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
        self.structural = false;
        self.dirty = false;
        self.stamp = stamp;
    }

    /// The sheet names, in order.
    pub fn sheet_names(&self) -> Vec<String> {
        self.book
            .sheet_collection_no_check()
            .iter()
            .map(|s| s.name().to_string())
            .collect()
    }
}

/// An xlsx or xlsm package: normalized when it bends the standard, read
/// whole (umya-spreadsheet panics on some broken XML: that is a read error
/// here, never a crash).
fn load_package(bytes: &[u8], agent: &str) -> Result<OpenBook, SheetError> {
    let read_err = |reason: String| SheetError::Read {
        path: agent.to_string(),
        reason,
    };
    let normalized =
        baton_convert::normalize_package(bytes).map_err(|e| read_err(e.to_string()))?;
    let bytes = normalized.as_deref().unwrap_or(bytes);
    let parts = package::part_names(bytes).map_err(read_err)?;
    let unkept = package::unkept(&parts);
    let parts = package::content_types(bytes).map_err(read_err)?;
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        umya_spreadsheet::reader::xlsx::read_reader(Cursor::new(bytes), true)
    }));
    let book = match read {
        Ok(Ok(book)) => book,
        Ok(Err(e)) => return Err(read_err(e.to_string())),
        Err(_) => return Err(read_err("its XML is malformed".into())),
    };
    Ok(OpenBook {
        unkept,
        parts,
        original: Some(bytes.to_vec()),
        ..OpenBook::fresh(book)
    })
}
