//! The conversations service: opening a conversation (new, saved, or over
//! a front door's own history), the saved sessions, and attached files.

use std::sync::Arc;

use baton_agent::{Session, SessionId, SessionRepo, SessionStore};
use baton_docs::{AttachmentContext, FileAttachment};
use baton_llm::FileRef;

use crate::{AttachmentStore, Conversation, ConversationOptions, Engine, EngineError};

/// Which saved conversations an export writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportScope {
    /// Every one.
    All,
    /// These.
    Chats(Vec<SessionId>),
    /// Those of this project.
    Project(baton_config::ProjectId),
}

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

    /// The saved conversations (every one, or those in `only`), each with
    /// when it was last changed, for `baton export`.
    pub fn export(
        &self,
        only: Option<&[SessionId]>,
    ) -> Result<Vec<baton_transfer::Dated>, EngineError> {
        let store = self.store();
        let ids: Vec<SessionId> = match only {
            Some(ids) => ids.to_vec(),
            None => store.summaries().into_iter().map(|s| s.id).collect(),
        };
        ids.iter()
            .map(|id| {
                let session = store.load(id)?;
                let when = std::fs::metadata(store.path(id))
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                Ok(baton_transfer::Dated::new(session, when))
            })
            .collect()
    }

    /// Writes the saved conversations of `scope` into the folder `dir` as
    /// `format` (PDFs through the document printer, headless; Markdown
    /// with the attached files beside it); how many. Files are read and
    /// written on a blocking thread.
    pub async fn export_to(
        &self,
        scope: &ExportScope,
        format: baton_transfer::ExportFormat,
        dir: &std::path::Path,
    ) -> Result<usize, EngineError> {
        let failed = |e: &dyn std::fmt::Display| EngineError::TransferFile {
            path: dir.to_path_buf(),
            reason: e.to_string(),
        };
        let only: Option<Vec<SessionId>> = match scope {
            ExportScope::All => None,
            ExportScope::Chats(ids) => Some(ids.clone()),
            ExportScope::Project(id) => {
                self.e.projects().get(id)?;
                Some(
                    self.e
                        .projects()
                        .chats(id)
                        .into_iter()
                        .map(|c| c.id)
                        .collect(),
                )
            }
        };
        let engine = Arc::clone(self.e);
        let (out, text) = (dir.to_path_buf(), format.text());
        let all = tokio::task::spawn_blocking(move || {
            let all = engine.conversations().export(only.as_deref())?;
            let written = match text {
                Some(t) => baton_transfer::write_export(&all, t, &out).map(drop),
                None => std::fs::create_dir_all(&out),
            };
            let written = written.and_then(|()| match text {
                Some(baton_transfer::TextFormat::Markdown) => {
                    copy_attachments(&engine.conversations().attachment_store(), &all, &out)
                }
                _ => Ok(()),
            });
            written.map_err(|e| EngineError::TransferFile {
                path: out,
                reason: e.to_string(),
            })?;
            Ok::<_, EngineError>(all)
        })
        .await
        .map_err(|e| failed(&e))??;
        if text.is_none() {
            self.print_pdfs(&all, dir).await.map_err(|e| failed(&e))?;
        }
        Ok(all.len())
    }

    /// Each conversation printed to `dir/ID.pdf` from its Markdown.
    async fn print_pdfs(
        &self,
        all: &[baton_transfer::Dated],
        dir: &std::path::Path,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let printer = self.e.tools().printer();
        for d in all {
            let title = match d.session.title.as_str() {
                "" => "Conversation",
                t => t,
            };
            let pdf = printer
                .markdown_pdf(title, &baton_transfer::markdown(d))
                .await?;
            tokio::fs::write(dir.join(format!("{}.pdf", d.session.id)), pdf).await?;
        }
        Ok(())
    }

    /// [`import`](Self::import) of the export file at `path`.
    pub fn import_file(&self, path: &std::path::Path) -> Result<ImportReport, EngineError> {
        let bytes = std::fs::read(path).map_err(|e| EngineError::TransferFile {
            path: path.to_path_buf(),
            reason: format!("cannot be read ({e})"),
        })?;
        self.import(&bytes)
    }

    /// Brings in the conversations of an export (Baton JSON, ChatGPT's
    /// or Claude's `conversations.json`): read whole first, so a damaged
    /// file imports nothing; one already here (the same id) is left as it
    /// is, so importing twice adds nothing; each keeps its date.
    pub fn import(&self, bytes: &[u8]) -> Result<ImportReport, EngineError> {
        let read = baton_transfer::read_export(bytes)?;
        let store = self.store();
        let mut report = ImportReport {
            format: read.format,
            imported: Vec::new(),
            already_here: Vec::new(),
            left_out: read.left_out,
        };
        for dated in read.sessions {
            let id = dated.session.id.clone();
            if store.path(&id).exists() {
                report.already_here.push(id);
                continue;
            }
            let path = store.save(&dated.session)?;
            let dated_file = std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(dated.when()));
            dated_file.map_err(|e| EngineError::TransferFile {
                path,
                reason: e.to_string(),
            })?;
            report.imported.push(id);
        }
        Ok(report)
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

/// The files attached in `all`, copied beside a Markdown export (where
/// its links point); one whose bytes are gone is said in the log.
fn copy_attachments(
    store: &AttachmentStore,
    all: &[baton_transfer::Dated],
    dir: &std::path::Path,
) -> std::io::Result<()> {
    for d in all {
        let files = d.session.history.iter().flat_map(|m| match m {
            baton_llm::Message::User { content } => content.as_slice(),
            _ => &[],
        });
        for part in files {
            let baton_llm::ContentPart::File(f) = part else {
                continue;
            };
            let Some(file) = store.load(f) else {
                tracing::warn!(file = %f.name, session = %d.session.id, "an attached file's copy is gone; not exported");
                continue;
            };
            let path = dir.join(baton_transfer::attachment_path(&d.session.id, f));
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, &file.bytes)?;
        }
    }
    Ok(())
}

/// Where `engine` saves sessions.
pub(crate) fn session_store(engine: &Engine) -> SessionStore {
    SessionStore::new(engine.paths.data_dir.join("sessions"))
}

/// What [`Conversations::import`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// The export's format.
    pub format: baton_transfer::Format,
    /// The conversations brought in.
    #[specta(type = Vec<String>)]
    pub imported: Vec<SessionId>,
    /// Those already here (imported before), left as they were.
    #[specta(type = Vec<String>)]
    pub already_here: Vec<SessionId>,
    /// What could not come over, in words.
    pub left_out: Vec<String>,
}
