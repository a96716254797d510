//! What every tool call gets besides its arguments: a cancellation token
//! (the turn's Stop), and what each method declares it does.

use serde::Serialize;
use tokio_util::sync::CancellationToken;

/// What a tool method does to the world, declared with `#[effect(…)]` on
/// the method. The declaration (not the method's name) decides which
/// results count as produced files, when the repeat guard forgets earlier
/// calls, and which calls wait for the user's confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Effect {
    /// Only reads (the default).
    #[default]
    Read,
    /// Writes inside the workspace (a `path` in its result is a produced
    /// file).
    Write,
    /// Sends something off the machine (an e-mail, a form, an HTTP post):
    /// needs the user's confirmation.
    External,
}

impl Effect {
    /// A short word for listings (`read`, `write`, `external`).
    pub fn label(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::External => "external",
        }
    }
}

/// The context of one tool call.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    cancel: CancellationToken,
}

impl ToolContext {
    /// A context cancelled with `cancel`.
    pub fn new(cancel: CancellationToken) -> Self {
        Self { cancel }
    }

    /// The call's cancellation token (cancelled when the user stops the
    /// turn): long methods check it between steps.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// `Err(ToolError::Cancelled)` once the call was cancelled, for `?`
    /// between the steps of a long method.
    pub fn check(&self) -> Result<(), crate::ToolError> {
        if self.is_cancelled() {
            Err(crate::ToolError::Cancelled)
        } else {
            Ok(())
        }
    }
}
