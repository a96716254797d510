//! Baton's document toolbox: Markdown written out as Word (DOCX), PDF,
//! HTML or Markdown files in the workspace.
//!
//! - [`DocumentTool`]: `create_document` and `diagram_types`.
//! - [`Printer`]: a headless Chromium of Baton's own that draws Mermaid
//!   diagrams (Mermaid.js from the npm package, bundled at build time) and
//!   prints pages to PDF.
//! - [`DIAGRAMS`]: the diagram kinds, in one list.

mod diagrams;
mod docx;
mod error;
mod markdown;
mod page;
mod printer;
mod tool;

pub use diagrams::{DIAGRAMS, Diagram};
pub use error::PublishError;
pub use printer::{Drawn, Failure, Printer};
pub use tool::{Created, DocFormat, DocumentTool};
