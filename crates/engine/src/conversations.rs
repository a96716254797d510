//! The conversations service: opening a conversation (new, saved, or over
//! a front door's own history), the saved sessions, and attached files.

use std::sync::Arc;

use baton_agent::{Session, SessionId, SessionRepo, SessionStore};
use baton_docs::{AttachmentContext, FileAttachment};
use baton_llm::FileRef;

use crate::{AttachmentStore, Conversation, ConversationOptions, Engine, EngineError};

/// Conversations of an [`Engine`] (see [`Engine::conversations`]).
pub struct Conversations<'a> {
    pub(crate) e: &'a Arc<Engine>,
}

impl Conversations<'_> {
    /// Opens conversation `id` (a saved session), or a new one; kept in
    /// the engine's session files.
    pub fn open(
        &self,
        id: Option<&SessionId>,
        options: ConversationOptions,
    ) -> Result<Conversation, EngineError> {
        let store = self.store();
        let session = match id {
            Some(id) => store.load(id)?,
            None => Session::new(),
        };
        Ok(Conversation::new(
            Arc::clone(self.e),
            Arc::new(store),
            session,
            options,
        ))
    }

    /// Opens conversation `id` kept in `repo` (a new, empty one when it
    /// has none by that id); the conversation saves there.
    pub async fn open_in(
        &self,
        repo: Arc<dyn SessionRepo>,
        id: &SessionId,
        options: ConversationOptions,
    ) -> Result<Conversation, EngineError> {
        let session = repo.load_or_new(id).await?;
        Ok(Conversation::new(
            Arc::clone(self.e),
            repo,
            session,
            options,
        ))
    }

    /// Opens a conversation over `session` as given (a front door that
    /// brings its own history: the HTTP API's posted messages); with
    /// `persist` it is saved in the engine's session files.
    pub fn open_with(&self, session: Session, options: ConversationOptions) -> Conversation {
        Conversation::new(Arc::clone(self.e), Arc::new(self.store()), session, options)
    }

    /// The engine's session files (what `baton chat --session` and the
    /// desktop's sidebar use).
    pub fn store(&self) -> SessionStore {
        session_store(self.e)
    }

    /// Converts attachments (in parallel, cached) into the budgeted
    /// context block (a file too long for its share gives the passages
    /// that bear on `question`); each item says whether it was cut or not
    /// read.
    pub fn attachment_context(
        &self,
        files: &[FileAttachment],
        question: &str,
    ) -> AttachmentContext {
        crate::attachments::attachment_context(self.e, files, question)
    }

    /// Keeps attached files (their bytes in the [`attachment_store`](Self::attachment_store),
    /// their conversions in the cache) and refers to them, as a user
    /// message's [`FileRef`]s; with what the user should hear about files
    /// that were cut, not read or not kept. Blocking: converts.
    pub fn keep_files(
        &self,
        files: &[FileAttachment],
        question: &str,
    ) -> (Vec<FileRef>, Vec<String>) {
        let store = self.attachment_store();
        let context = self.attachment_context(files, question);
        let mut notes = Vec::new();
        let refs = files
            .iter()
            .zip(&context.items)
            .map(|(f, item)| {
                if let Err(e) = store.save(f) {
                    notes.push(format!("{} could not be kept for later turns: {e}", f.name));
                }
                notes.extend(crate::conversation::attachment_note(item));
                FileRef {
                    name: f.name.clone(),
                    hash: f.hash().to_string(),
                    format: item.format.clone().unwrap_or_else(|| "unreadable".into()),
                    size: item.size,
                }
            })
            .collect();
        (refs, notes)
    }

    /// Where attached files are kept.
    pub fn attachment_store(&self) -> AttachmentStore {
        crate::attachments::attachment_store(self.e)
    }
}

/// Where `engine` saves sessions.
pub(crate) fn session_store(engine: &Engine) -> SessionStore {
    SessionStore::new(engine.paths.data_dir.join("sessions"))
}
