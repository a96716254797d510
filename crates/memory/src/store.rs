//! The memory file: `memory.json` in Baton's data folder, written
//! atomically under a lock beside it (the desktop and the CLI both edit
//! it), read again only when it changed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::MAX_ENTRY_CHARS;

/// Why a memory operation failed.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The memory file could not be read or written.
    #[error("the memory file {path} could not be {doing}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// `read` or `written`.
        doing: &'static str,
        /// The system's words.
        reason: String,
    },
    /// The memory file is not Baton's (damaged or foreign); it is left as
    /// it is.
    #[error("the memory file {path} is damaged ({reason}); it was left untouched")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The text to remember is empty or too long.
    #[error("{0}")]
    BadText(String),
    /// No entry has this id.
    #[error("no memory has the id {0}")]
    NotFound(MemoryId),
}

/// An entry's id: `m` and eight hexadecimal digits (`m3f9a02c1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct MemoryId(String);

/// Text that is not a memory id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a memory id (m and eight hexadecimal digits, as `baton memory list` shows)")]
pub struct BadMemoryId(pub String);

impl MemoryId {
    /// A fresh id.
    pub fn new() -> MemoryId {
        MemoryId(baton_stdx::short_id('m'))
    }

    /// Reads an id as the user typed it.
    pub fn parse(text: &str) -> Result<MemoryId, BadMemoryId> {
        let t = text.trim();
        baton_stdx::is_short_id(t, 'm')
            .then(|| MemoryId(t.to_string()))
            .ok_or_else(|| BadMemoryId(text.to_string()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for MemoryId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for MemoryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for MemoryId {
    type Err = BadMemoryId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MemoryId::parse(s)
    }
}

impl TryFrom<String> for MemoryId {
    type Error = BadMemoryId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        MemoryId::parse(&s)
    }
}

impl From<MemoryId> for String {
    fn from(id: MemoryId) -> String {
        id.0
    }
}

/// Who put an entry there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum MemorySource {
    /// The user, directly (`baton memory add`, the Memory page).
    User,
    /// The model's `remember` tool, in the user's words or with their yes.
    Chat,
}

/// One thing remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    /// Its id.
    #[specta(type = String)]
    pub id: MemoryId,
    /// What to remember, in one or two sentences.
    pub text: String,
    /// Who added it.
    pub source: MemorySource,
    /// The conversation it was added in, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// When it was added, seconds since the Unix epoch.
    #[specta(type = u32)]
    pub created: u64,
}

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct MemoryFile {
    version: u32,
    memories: Vec<Memory>,
}

baton_stdx::from_json_file_error!(MemoryError);

/// What was read last, and the file's size and time when it was.
#[derive(Default)]
struct Cached {
    stamp: Option<(u64, SystemTime)>,
    memories: Arc<Vec<Memory>>,
}

/// The memory file of one Baton data folder.
pub struct MemoryStore {
    file: baton_stdx::JsonFile,
    cache: Mutex<Cached>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("path", &self.file.path())
            .finish()
    }
}

impl MemoryStore {
    /// The memory kept in `data_dir` (`memory.json`; made on the first
    /// entry).
    pub fn in_dir(data_dir: &Path) -> MemoryStore {
        MemoryStore {
            file: baton_stdx::JsonFile::new(data_dir.join("memory.json")),
            cache: Mutex::default(),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Every entry, oldest first.
    pub fn list(&self) -> Result<Vec<Memory>, MemoryError> {
        Ok(self.snapshot()?.as_ref().clone())
    }

    /// Every entry, oldest first, shared: the same `Arc` until the file
    /// changes (recall keeps what it worked out per snapshot).
    pub fn snapshot(&self) -> Result<Arc<Vec<Memory>>, MemoryError> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let stamp = std::fs::metadata(self.file.path())
            .ok()
            .map(|m| (m.len(), m.modified().unwrap_or(UNIX_EPOCH)));
        if stamp.is_none() || cache.stamp != stamp {
            cache.memories = Arc::new(self.read()?);
            cache.stamp = stamp;
        }
        Ok(Arc::clone(&cache.memories))
    }

    /// Keeps `text` (the same text again returns the entry already kept).
    pub fn add(
        &self,
        text: &str,
        source: MemorySource,
        session: Option<String>,
    ) -> Result<Memory, MemoryError> {
        let text = checked_text(text)?;
        self.edit(|list| {
            if let Some(same) = list.iter().find(|m| same_text(&m.text, &text)) {
                return Ok(same.clone());
            }
            let created = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let memory = Memory {
                id: MemoryId::new(),
                text,
                source,
                session,
                created,
            };
            list.push(memory.clone());
            Ok(memory)
        })
    }

    /// Replaces the text of entry `id`.
    pub fn update(&self, id: &MemoryId, text: &str) -> Result<Memory, MemoryError> {
        let text = checked_text(text)?;
        self.edit(|list| {
            let m = list
                .iter_mut()
                .find(|m| &m.id == id)
                .ok_or_else(|| MemoryError::NotFound(id.clone()))?;
            m.text = text;
            Ok(m.clone())
        })
    }

    /// Forgets entry `id`.
    pub fn remove(&self, id: &MemoryId) -> Result<Memory, MemoryError> {
        self.edit(|list| {
            let at = list
                .iter()
                .position(|m| &m.id == id)
                .ok_or_else(|| MemoryError::NotFound(id.clone()))?;
            Ok(list.remove(at))
        })
    }

    /// Forgets everything; how many entries there were.
    pub fn clear(&self) -> Result<usize, MemoryError> {
        self.edit(|list| Ok(std::mem::take(list).len()))
    }

    /// Reads, changes and writes the list under the lock beside the file.
    fn edit<T>(
        &self,
        change: impl FnOnce(&mut Vec<Memory>) -> Result<T, MemoryError>,
    ) -> Result<T, MemoryError> {
        let out = self.file.edit(|f: &mut MemoryFile| {
            f.version = 1;
            change(&mut f.memories)
        })?;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        *cache = Cached::default();
        Ok(out)
    }

    /// The entries in the file (none when there is no file yet).
    fn read(&self) -> Result<Vec<Memory>, MemoryError> {
        Ok(self.file.read::<MemoryFile>()?.memories)
    }
}

/// The text trimmed to one line's spacing, or why it cannot be kept.
fn checked_text(text: &str) -> Result<String, MemoryError> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(MemoryError::BadText("there is nothing to remember".into()));
    }
    let n = text.chars().count();
    if n > MAX_ENTRY_CHARS {
        return Err(MemoryError::BadText(format!(
            "a memory holds at most {MAX_ENTRY_CHARS} characters; this is {n}: keep one fact per entry"
        )));
    }
    Ok(text)
}

/// Whether two texts say the same, ignoring case and a final full stop.
fn same_text(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().trim_end_matches('.').to_lowercase();
    norm(a) == norm(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_added_listed_changed_and_forgotten_across_stores() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::in_dir(dir.path());
        assert!(store.list().unwrap().is_empty());
        let a = store
            .add("Prefers  metric\nunits.", MemorySource::User, None)
            .unwrap();
        assert_eq!(a.text, "Prefers metric units.");
        let again = store
            .add("prefers metric units", MemorySource::Chat, None)
            .unwrap();
        assert_eq!(again.id, a.id, "the same fact is kept once");
        let b = store
            .add(
                "Works at the port of Gdynia",
                MemorySource::Chat,
                Some("s1".into()),
            )
            .unwrap();
        // Another process (a second store on the same folder) sees them.
        let other = MemoryStore::in_dir(dir.path());
        let texts: Vec<String> = other.list().unwrap().into_iter().map(|m| m.text).collect();
        assert_eq!(
            texts,
            ["Prefers metric units.", "Works at the port of Gdynia"]
        );
        other.update(&b.id, "Works at the port of Gdańsk").unwrap();
        assert_eq!(store.list().unwrap()[1].text, "Works at the port of Gdańsk");
        store.remove(&a.id).unwrap();
        assert!(matches!(other.remove(&a.id), Err(MemoryError::NotFound(_))));
        assert_eq!(store.clear().unwrap(), 1);
        assert!(other.list().unwrap().is_empty());
    }

    #[test]
    fn bad_text_ids_and_damaged_files_are_named_and_nothing_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::in_dir(dir.path());
        assert!(matches!(
            store.add("   ", MemorySource::User, None),
            Err(MemoryError::BadText(_))
        ));
        let long = "x".repeat(MAX_ENTRY_CHARS + 1);
        let err = store.add(&long, MemorySource::User, None).unwrap_err();
        assert!(err.to_string().contains("one fact per entry"), "{err}");
        assert!(MemoryId::parse("m0123abcd").is_ok());
        for bad in [
            "",
            "m123",
            "x0123abcd",
            "m0123ABCD",
            "m0123abcg",
            "../m0123ab",
        ] {
            let e = MemoryId::parse(bad).unwrap_err();
            assert!(e.to_string().contains("baton memory list"), "{e}");
        }
        std::fs::write(store.path(), b"{not json").unwrap();
        let err = store.add("a fact", MemorySource::User, None).unwrap_err();
        assert!(matches!(err, MemoryError::Damaged { .. }), "{err}");
        assert!(err.to_string().contains("left untouched"), "{err}");
        assert_eq!(std::fs::read(store.path()).unwrap(), b"{not json");
    }
}
