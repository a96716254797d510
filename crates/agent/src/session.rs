//! Conversations on disk: one JSON file per session, written atomically.

use std::path::{Path, PathBuf};

use baton_llm::Message;
use serde::{Deserialize, Serialize};

/// A conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Identifier (also the file name).
    pub id: String,
    /// Title (from the first user message).
    pub title: String,
    /// The stored history (never holds per-call dynamic context).
    pub history: Vec<Message>,
    /// Model override (`/model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extra instructions (`/instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// A new, empty session with a fresh id.
    pub fn new() -> Self {
        Self {
            id: uuid::Uuid::new_v4().simple().to_string()[..12].to_string(),
            title: String::new(),
            history: Vec::new(),
            model: None,
            instructions: None,
        }
    }

    /// Sets the title from the first user message if there is none yet.
    pub fn title_from(&mut self, prompt: &str) {
        if self.title.is_empty() {
            let line = prompt
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim();
            self.title = line.chars().take(60).collect();
        }
    }
}

/// Session store failures, naming the session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No such session.
    #[error("no saved session named `{0}`")]
    NotFound(String),
    /// A name that cannot be a file name.
    #[error("`{0}` is not a usable session name (letters, digits, `-`, `_` and `.` only)")]
    BadName(String),
    /// Reading or writing failed.
    #[error("session `{name}`: {source}")]
    Io {
        /// The session.
        name: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not a session.
    #[error("session `{name}` is damaged: {reason}")]
    Corrupt {
        /// The session.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

/// A folder of session files.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
}

fn valid(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl SessionStore {
    /// A store in `dir` (created on first save).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, name: &str) -> Result<PathBuf, SessionError> {
        if !valid(name) {
            return Err(SessionError::BadName(name.to_string()));
        }
        Ok(self.dir.join(format!("{name}.json")))
    }

    /// Saves under the session's id.
    pub fn save(&self, session: &Session) -> Result<PathBuf, SessionError> {
        let path = self.path(&session.id)?;
        let text = serde_json::to_vec_pretty(session).expect("session serializes");
        baton_config::atomic_write(&path, &text).map_err(|source| SessionError::Io {
            name: session.id.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Saves a copy named `name`.
    pub fn save_as(&self, name: &str, session: &Session) -> Result<PathBuf, SessionError> {
        let mut copy = session.clone();
        copy.id = name.to_string();
        self.save(&copy)
    }

    /// Loads a session by name or id.
    pub fn load(&self, name: &str) -> Result<Session, SessionError> {
        let path = self.path(name)?;
        let bytes = std::fs::read(&path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                SessionError::NotFound(name.to_string())
            } else {
                SessionError::Io {
                    name: name.to_string(),
                    source,
                }
            }
        })?;
        serde_json::from_slice(&bytes).map_err(|e| SessionError::Corrupt {
            name: name.to_string(),
            reason: e.to_string(),
        })
    }

    /// Deletes a session; `Ok(false)` when there was none.
    pub fn delete(&self, name: &str) -> Result<bool, SessionError> {
        match std::fs::remove_file(self.path(name)?) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(SessionError::Io {
                name: name.to_string(),
                source,
            }),
        }
    }

    /// Saved sessions: (id, title), by name.
    pub fn list(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e
                    .file_name()
                    .to_string_lossy()
                    .strip_suffix(".json")?
                    .to_string();
                let s: Session = serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok()?;
                Some((name, s.title))
            })
            .collect();
        out.sort();
        out
    }
}
