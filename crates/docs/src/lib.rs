//! Document toolboxes and attachments for Baton's agent: [`FileTool`], the
//! agent's hands on the sandboxed workspace (files, documents converted to
//! Markdown, search), and [`AttachmentContext`], the budgeted prompt block
//! for files the user attached.

mod attachments;
mod file_tool;
mod vision_ocr;

pub use attachments::{
    AttachmentContext, AttachmentSummary, ChosenPassages, ConversionCache, FileAttachment, Focus,
    split_prompt,
};
pub use file_tool::{
    BackupEntry, CitedHit, DocumentOutline, DocumentSlice, FileEntry, FileInfo, FileTool,
    FileToolError, OutlineEntry, ReadResult, RestoreResult, WriteResult, restore_in,
};
pub use vision_ocr::ProviderOcr;
