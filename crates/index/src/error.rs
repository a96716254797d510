//! Index failures.

/// Why an index operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Another process holds the writer lock.
    #[error(
        "the search index is busy: another Baton process is updating it; search still works, and this one will not index until that one stops"
    )]
    Busy,
    /// The index folder cannot be used.
    #[error("the search index at `{path}` cannot be opened: {reason}")]
    Open {
        /// The folder.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// A query that cannot run.
    #[error("the search could not run: {0}")]
    Query(String),
    /// tantivy failed.
    #[error("the search index failed: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// File system failure.
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The watcher could not start.
    #[error("cannot watch the workspace for changes: {0}")]
    Watch(String),
}
