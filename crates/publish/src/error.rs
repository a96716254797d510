//! Why a document could not be made, in words the model and the user can
//! act on.

/// A document toolbox failure.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The path is outside the workspace or names no usable file.
    #[error("{0}")]
    Path(String),
    /// The format is not one Baton writes.
    #[error("{0}")]
    Format(String),
    /// The headless browser that prints PDFs and draws diagrams failed.
    #[error("the browser that prints documents: {0}")]
    Browser(baton_web::WebError),
    /// Reading or writing a file failed.
    #[error("{0}")]
    Io(String),
    /// The user stopped the turn.
    #[error("cancelled")]
    Cancelled,
}
