//! What every tool call gets besides its arguments: a cancellation token
//! (the turn's Stop), and what each method declares it does.

use std::sync::{Arc, Mutex};

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
    /// Changes state outside the workspace without sending the user's
    /// data anywhere new (a field or setting on a signed-in site, a
    /// message moved or drafted in the mailbox): needs the user's
    /// confirmation.
    Change,
    /// Sends something off the machine (an e-mail, a form, a page opened
    /// on a new site or with data in its address): needs the user's
    /// confirmation.
    External,
}

impl Effect {
    /// A short word for listings (`read`, `write`, `change`, `external`).
    pub fn label(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Change => "change",
            Effect::External => "external",
        }
    }

    /// Whether a call waits for the user's card (changes elsewhere and
    /// sending off the machine).
    pub fn asks(self) -> bool {
        matches!(self, Effect::Change | Effect::External)
    }
}

/// A picture a tool call produced.
#[derive(Clone, PartialEq, Eq)]
pub struct ToolImage {
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// The image file's bytes.
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for ToolImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ToolImage({}, {} bytes)",
            self.mime_type,
            self.bytes.len()
        )
    }
}

/// The pictures of one call: for the model to look at, and a small one
/// for the front door's step card.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pictures {
    /// Shown to the model with the result (when it reads images).
    pub for_model: Vec<ToolImage>,
    /// A thumbnail for the user's view of the step, not sent to the model.
    pub preview: Option<ToolImage>,
}

/// The context of one tool call.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    cancel: CancellationToken,
    previews: bool,
    pictures: Arc<Mutex<Pictures>>,
    sources: crate::Sources,
    conversation: Option<String>,
}

impl ToolContext {
    /// A context cancelled with `cancel`.
    pub fn new(cancel: CancellationToken) -> Self {
        Self {
            cancel,
            ..Self::default()
        }
    }

    /// The same context, with thumbnails of each step wanted (a front door
    /// that shows them, like the desktop chat) or not.
    pub fn with_previews(mut self, on: bool) -> Self {
        self.previews = on;
        self
    }

    /// Whether the front door shows thumbnails: tools skip making them
    /// otherwise.
    pub fn wants_previews(&self) -> bool {
        self.previews
    }

    /// The same context, numbering its passages in `sources` (the turn's,
    /// shared by all of its calls).
    pub fn with_sources(mut self, sources: crate::Sources) -> Self {
        self.sources = sources;
        self
    }

    /// The same context, in conversation `id` (its session id).
    pub fn in_conversation(mut self, id: Option<String>) -> Self {
        self.conversation = id;
        self
    }

    /// The conversation the call was made in, when known.
    pub fn conversation(&self) -> Option<&str> {
        self.conversation.as_deref()
    }

    /// Registers a passage given to the model: the number the answer cites
    /// it by (`[n]`), to put in the result beside the passage.
    pub fn cite(&self, source: crate::Source) -> u32 {
        self.sources.cite(source)
    }

    /// Adds a picture for the model to look at with the result.
    pub fn show_model(&self, image: ToolImage) {
        self.lock().for_model.push(image);
    }

    /// Sets the step's thumbnail for the front door.
    pub fn show_preview(&self, image: ToolImage) {
        self.lock().preview = Some(image);
    }

    /// The same cancellation, previews, sources and conversation, with no
    /// pictures yet: each call gets its own.
    pub(crate) fn for_call(&self) -> Self {
        Self {
            cancel: self.cancel.clone(),
            previews: self.previews,
            pictures: Arc::default(),
            sources: self.sources.clone(),
            conversation: self.conversation.clone(),
        }
    }

    /// Takes the pictures the call made (the dispatcher puts them in the
    /// call's record).
    pub fn take_pictures(&self) -> Pictures {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pictures> {
        self.pictures.lock().unwrap_or_else(|e| e.into_inner())
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

/// A call that would wait for the user's card, as a toolbox sees it when
/// asked whether this one really must ([`crate::Toolbox::card_needed`]).
#[derive(Debug, Clone, Copy)]
pub struct PendingCall<'a> {
    /// The method.
    pub method: &'a str,
    /// Its arguments, validated.
    pub args: &'a serde_json::Value,
    /// What the user typed in this conversation (their own words only:
    /// no attachment, page, mail or tool text).
    pub user_words: &'a str,
}
