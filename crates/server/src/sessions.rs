//! Server-side conversations for clients that send `x-baton-session: ID`:
//! the history lives on the server (slash commands and compaction work as
//! in `baton chat`), kept in memory or in the engine's session files.
//! Without the header the API is stateless, as OpenAI's is.

use std::collections::HashMap;

use baton_agent::{Session, SessionError, SessionStore};
use tokio::sync::Mutex;

use crate::ApiError;
use axum::http::StatusCode;

/// Where `x-baton-session` conversations are kept.
pub enum Sessions {
    /// In this process (gone when it stops).
    Memory(Mutex<HashMap<String, Session>>),
    /// The engine's session files (what `baton chat --session` and the
    /// desktop use).
    File(SessionStore),
}

/// Which store `baton serve --sessions` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionKind {
    /// In memory.
    #[default]
    Memory,
    /// On disk.
    File,
}

fn store_error(e: SessionError) -> ApiError {
    ApiError::server(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the session store failed: {e}"),
    )
}

/// Checks a client's session id (it becomes a file name).
pub(crate) fn valid_id(id: &str) -> Result<&str, ApiError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c));
    if ok {
        Ok(id)
    } else {
        Err(ApiError::invalid(
            "`x-baton-session` is 1 to 64 letters, digits, `-` or `_`",
            None,
        ))
    }
}

impl Sessions {
    /// The session `id`, or a new one by that id.
    pub(crate) async fn load(&self, id: &str) -> Result<Session, ApiError> {
        let found = match self {
            Sessions::Memory(m) => m.lock().await.get(id).cloned(),
            Sessions::File(store) => match store.load(id) {
                Ok(s) => Some(s),
                Err(SessionError::NotFound(_)) => None,
                Err(e) => return Err(store_error(e)),
            },
        };
        Ok(found.unwrap_or_else(|| Session {
            id: id.to_string(),
            ..Session::new()
        }))
    }

    /// Keeps `session` (after a turn or a command).
    pub(crate) async fn save(&self, session: Session) -> Result<(), ApiError> {
        match self {
            Sessions::Memory(m) => {
                m.lock().await.insert(session.id.clone(), session);
                Ok(())
            }
            Sessions::File(store) => store.save(&session).map(drop).map_err(store_error),
        }
    }
}
