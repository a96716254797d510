//! Document toolboxes for Baton's agent. Today: [`FileTool`], the agent's
//! hands on the sandboxed workspace.

mod file_tool;

pub use file_tool::{FileEntry, FileInfo, FileTool, FileToolError, ReadResult, WriteResult};
