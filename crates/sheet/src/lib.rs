//! The spreadsheet toolbox: open, read, edit, create and save workbooks in
//! the workspace, through the [`Sandbox`] only.
//!
//! Editing keeps the user's file whole: workbooks are read into
//! umya-spreadsheet's model, which writes back the styles, merged ranges,
//! number formats, column widths, tables, charts, images and macros it
//! read (rust_xlsxwriter, named in the design, only writes new files and
//! calamine only reads, so neither can edit a file in place). What the
//! model does not hold (pivot tables, slicers, links to other workbooks…)
//! is named on open, and a save over such a file is refused unless forced.
//! Every save backs up the file it replaces (`name.xlsx.001.bak`, …) and
//! writes atomically, keeping the file's permissions; FileTool's
//! `list_backups` and `restore` bring a version back.

mod addr;
mod book;
mod describe;
mod edit;
mod error;
mod foreign;
mod objects;
mod package;
mod patch;
mod save;
mod style;
mod tool;
mod values;

pub use addr::{Cell, Range, column_name};
pub use describe::Description;
pub use error::SheetError;
pub use objects::ChartKind;
pub use package::Unkept;
pub use save::Saved;
pub use tool::SpreadsheetTool;
pub use values::ValueType;
