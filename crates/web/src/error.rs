//! Why a browser tool failed, in words the model and the user can act on.

use crate::discover::AttachProblem;

/// A browser toolbox failure.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// No browser program is available.
    #[error("no browser: {0}")]
    NoBrowser(String),
    /// The user's browser cannot be attached to (yet).
    #[error(transparent)]
    Attach(AttachProblem),
    /// The browser did not start or answer.
    #[error("the browser: {0}")]
    Launch(String),
    /// The address is not allowed.
    #[error("refused: {0}")]
    Refused(String),
    /// The element named is not usable.
    #[error("{0}")]
    Target(String),
    /// The page failed or did not answer.
    #[error("{0}")]
    Page(String),
    /// A workspace path is wrong or cannot be written.
    #[error("{0}")]
    Path(String),
    /// The user stopped the turn.
    #[error("cancelled")]
    Cancelled,
}
