//! Why a spreadsheet call failed, in words the user (and the model) can
//! act on.

use baton_tools::SandboxError;

/// A failed spreadsheet call.
#[derive(Debug, thiserror::Error)]
pub enum SheetError {
    /// A path the agent may not use.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// Nothing there.
    #[error("`{0}` does not exist")]
    NotFound(String),
    /// Not a spreadsheet format.
    #[error("`{0}` is not a spreadsheet Baton can open (xlsx, xlsm, xls, ods, csv)")]
    Format(String),
    /// The file could not be read as a workbook.
    #[error("cannot read `{path}` as a workbook: {reason}")]
    Read {
        /// The agent path.
        path: String,
        /// Why.
        reason: String,
    },
    /// No sheet of that name.
    #[error("`{path}` has no sheet `{sheet}`; its sheets: {sheets}")]
    NoSheet {
        /// The agent path.
        path: String,
        /// The name asked for.
        sheet: String,
        /// The sheets there are, comma-separated.
        sheets: String,
    },
    /// Opened from a format Baton only reads.
    #[error(
        "`{0}` is open read-only (Baton writes .xlsx, .xlsm and .csv); use save_as with a .xlsx path to keep the changes"
    )]
    ReadOnly(String),
    /// Saving would drop what the file has and Baton cannot write back.
    #[error(
        "saving over `{path}` would drop {features}; use save_as with a new path, or pass force=true to save anyway"
    )]
    WouldLose {
        /// The agent path.
        path: String,
        /// What would be lost, in words.
        features: String,
    },
    /// Changes not saved.
    #[error("`{0}` has unsaved changes; save it, or pass force=true to discard them")]
    Unsaved(String),
    /// The file changed on disk since it was opened.
    #[error(
        "`{0}` was changed by another program since Baton opened it; close it (force=true discards Baton's changes) and open it again, or pass force=true to save over the other program's changes (they are backed up first)"
    )]
    ChangedOnDisk(String),
    /// A target that already exists.
    #[error("`{0}` already exists; pass force=true to replace it (it is backed up first)")]
    Exists(String),
    /// A bad argument, explained.
    #[error("{0}")]
    Invalid(String),
    /// Any other I/O failure.
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The agent path.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Maps an I/O error on `path` (not found is its own case).
pub(crate) fn io<'a>(
    action: &'static str,
    path: &'a str,
) -> impl FnOnce(std::io::Error) -> SheetError + 'a {
    move |source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            SheetError::NotFound(path.to_string())
        } else {
            SheetError::Io {
                action,
                path: path.to_string(),
                source,
            }
        }
    }
}
