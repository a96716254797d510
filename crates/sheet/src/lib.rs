//! The spreadsheet toolbox: open, read, edit, create and save workbooks in
//! the workspace, through the [`Sandbox`] only.
//!
//! Reading is streamed: open and describe_worksheet read an unedited xlsx
//! sheet once from its package (`scan`) without building a model, and
//! cell edits (values, formulas, dates) wait as prepared values until save
//! writes them into the user's own package (`patch`), every other byte
//! kept. Editing anything else keeps the user's file whole too: the
//! workbook is then read into umya-spreadsheet's model, which writes back
//! the styles, merged ranges, number formats, column widths, tables, charts, images and macros it
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
mod looks;
mod objects;
mod opc;
mod package;
mod patch;
mod save;
mod scan;
mod shift;
mod style;
mod tool;
mod values;
mod verify;

pub use addr::{Cell, Range, column_name};
pub use describe::Description;
pub use error::SheetError;
pub use objects::ChartKind;
pub use package::Unkept;
pub use save::Saved;
pub use tool::SpreadsheetTool;
pub use values::ValueType;
