//! A JSON file that several processes edit (the desktop, the CLI, a
//! daemon): read whole, changed under the lock beside it, and written
//! atomically, readable by the user only. A file that is not what it
//! should be is never overwritten: the edit fails and says so.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Why a JSON file could not be read or changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonFileError {
    /// The file could not be read or written.
    #[error("{path} could not be {doing}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// `read` or `written`.
        doing: &'static str,
        /// The system's words.
        reason: String,
    },
    /// The file is not what it should be (damaged or foreign); it is left
    /// as it is.
    #[error("{path} is damaged ({reason}); it was left untouched")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// `From<JsonFileError>` for a crate's own error that has the same two
/// cases, `Io { path, doing, reason }` and `Damaged { path, reason }`
/// (so that each store keeps its own words for its file).
#[macro_export]
macro_rules! from_json_file_error {
    ($error:ty) => {
        impl From<$crate::JsonFileError> for $error {
            fn from(e: $crate::JsonFileError) -> Self {
                match e {
                    $crate::JsonFileError::Io {
                        path,
                        doing,
                        reason,
                    } => Self::Io {
                        path,
                        doing,
                        reason,
                    },
                    $crate::JsonFileError::Damaged { path, reason } => {
                        Self::Damaged { path, reason }
                    }
                }
            }
        }
    };
}

/// One JSON file of shape `T` (made with `T::default()` on the first edit).
#[derive(Debug, Clone)]
pub struct JsonFile {
    path: PathBuf,
}

impl JsonFile {
    /// The file at `path` (which need not exist yet).
    pub fn new(path: PathBuf) -> JsonFile {
        JsonFile { path }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What it holds (`T::default()` while there is no file).
    pub fn read<T: DeserializeOwned + Default>(&self) -> Result<T, JsonFileError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
            Err(e) => return Err(self.io("read", e)),
        };
        serde_json::from_slice(&bytes).map_err(|e| JsonFileError::Damaged {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }

    /// Reads it, lets `change` change it, and writes it, all under the
    /// lock beside it; nothing is written when `change` fails.
    pub fn edit<T, R, E>(&self, change: impl FnOnce(&mut T) -> Result<R, E>) -> Result<R, E>
    where
        T: Serialize + DeserializeOwned + Default,
        E: From<JsonFileError>,
    {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.io("written", e))?;
        }
        let _lock = crate::lock_beside(&self.path).map_err(|e| self.io("written", e))?;
        let mut value: T = self.read()?;
        let out = change(&mut value)?;
        let bytes = serde_json::to_vec_pretty(&value).map_err(|e| JsonFileError::Damaged {
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        crate::atomic_write_private(&self.path, &bytes).map_err(|e| self.io("written", e))?;
        Ok(out)
    }

    fn io(&self, doing: &'static str, e: std::io::Error) -> JsonFileError {
        JsonFileError::Io {
            path: self.path.clone(),
            doing,
            reason: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Counts {
        n: u32,
    }

    #[test]
    fn edits_are_kept_and_a_damaged_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = JsonFile::new(dir.path().join("deep/counts.json"));
        assert_eq!(file.read::<Counts>().unwrap(), Counts { n: 0 });
        let n = file
            .edit(|c: &mut Counts| {
                c.n += 2;
                Ok::<_, JsonFileError>(c.n)
            })
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(file.read::<Counts>().unwrap(), Counts { n: 2 });
        // A change that fails writes nothing.
        let failed = file.edit(|c: &mut Counts| {
            c.n = 99;
            Err::<(), _>(JsonFileError::Damaged {
                path: "x".into(),
                reason: "no".into(),
            })
        });
        assert!(failed.is_err());
        assert_eq!(file.read::<Counts>().unwrap(), Counts { n: 2 });
        std::fs::write(file.path(), "{ not json").unwrap();
        let e = file
            .edit(|c: &mut Counts| Ok::<_, JsonFileError>(c.n))
            .unwrap_err();
        assert!(matches!(e, JsonFileError::Damaged { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), "{ not json");
    }
}
