//! API keys for Baton's network doors (`baton serve` and `baton mcp
//! serve`): made by `baton serve keys add NAME` (shown once), stored only
//! as SHA-256 hashes in `server-keys.json` in the data folder (written
//! atomically, readable by the user only), compared in constant time, and
//! re-read by a running server when the file changes ([`LiveKeys`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The file the keys' hashes live in, inside the data folder.
pub const KEYS_FILE: &str = "server-keys.json";

/// What is kept of one key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredKey {
    /// The name it was given (who uses it).
    pub name: String,
    /// Its first characters, to recognise it.
    pub prefix: String,
    /// SHA-256 of the key, hex.
    pub hash: String,
    /// When it was made (RFC 3339).
    pub created: String,
}

/// Key store failures.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The file could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The keys file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A name already in use.
    #[error("there is already a key named `{0}` (revoke it first)")]
    Exists(String),
    /// No key by that name.
    #[error("no key named `{0}`")]
    Unknown(String),
    /// A name that cannot be used.
    #[error("a key name is 1 to 64 letters, digits, `-`, `_` or `.`, not `{0}`")]
    BadName(String),
}

/// One version of the keys file, to tell when it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileVersion {
    modified: Option<std::time::SystemTime>,
    len: u64,
    inode: u64,
}

/// The keys file of a data folder.
#[derive(Debug, Clone)]
pub struct KeyStore {
    path: PathBuf,
}

fn hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl KeyStore {
    /// The store in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(KEYS_FILE),
        }
    }

    fn io(&self, e: impl std::fmt::Display) -> KeyError {
        KeyError::Io {
            path: self.path.clone(),
            reason: e.to_string(),
        }
    }

    /// Which version of the keys file is there (`None`: there is none):
    /// its modification time, size and inode, so that a change within the
    /// clock's resolution is seen too (an atomic write makes a new inode).
    pub fn version(&self) -> Option<FileVersion> {
        let meta = std::fs::metadata(&self.path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(FileVersion {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode,
        })
    }

    /// The stored keys (none when there is no file).
    pub fn list(&self) -> Result<Vec<StoredKey>, KeyError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.io(e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(self.io(e)),
        }
    }

    fn save(&self, keys: &[StoredKey]) -> Result<(), KeyError> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        }
        let json = serde_json::to_vec_pretty(keys).map_err(|e| self.io(e))?;
        baton_stdx::atomic_write_private(&self.path, &json).map_err(|e| self.io(e))
    }

    /// Makes a key named `name`; the key itself is returned once and
    /// never stored.
    pub fn add(&self, name: &str) -> Result<String, KeyError> {
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !ok {
            return Err(KeyError::BadName(name.to_string()));
        }
        let mut keys = self.list()?;
        if keys.iter().any(|k| k.name == name) {
            return Err(KeyError::Exists(name.to_string()));
        }
        // Two v4 UUIDs: 244 random bits from the OS.
        let key = format!(
            "bk-{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        keys.push(StoredKey {
            name: name.to_string(),
            prefix: key[..10].to_string(),
            hash: hex(&hash(&key)),
            created: chrono::Utc::now().to_rfc3339(),
        });
        self.save(&keys)?;
        Ok(key)
    }

    /// Removes the key named `name`.
    pub fn revoke(&self, name: &str) -> Result<(), KeyError> {
        let mut keys = self.list()?;
        let before = keys.len();
        keys.retain(|k| k.name != name);
        if keys.len() == before {
            return Err(KeyError::Unknown(name.to_string()));
        }
        self.save(&keys)
    }
}

/// The keys a running server accepts (their hashes, read at start).
#[derive(Debug, Clone, Default)]
pub struct Keys {
    hashes: Vec<(String, [u8; 32])>,
}

impl Keys {
    /// From the stored keys (a malformed hash is skipped).
    pub fn from_stored(stored: &[StoredKey]) -> Self {
        let parse = |h: &str| -> Option<[u8; 32]> {
            let bytes: Vec<u8> = (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
                .collect::<Option<_>>()?;
            bytes.try_into().ok()
        };
        Self {
            hashes: stored
                .iter()
                .filter_map(|k| Some((k.name.clone(), parse(&k.hash)?)))
                .collect(),
        }
    }

    /// No key is configured: the server is open (on loopback only).
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The name of the key `presented` is, compared in constant time
    /// (every stored hash is compared, whatever matched).
    pub fn check(&self, presented: &str) -> Option<&str> {
        let h = hash(presented);
        let mut found = None;
        for (name, stored) in &self.hashes {
            if bool::from(stored.ct_eq(&h)) {
                found = Some(name.as_str());
            }
        }
        found
    }
}

/// The keys a running door accepts, re-read when the keys file changes (a
/// key made or revoked counts from the next request, without a restart).
#[derive(Debug)]
pub struct LiveKeys {
    store: KeyStore,
    /// Keys were required at start: a server that listens beyond this
    /// computer never becomes open, even with every key revoked.
    required: bool,
    current: std::sync::RwLock<(Option<FileVersion>, Keys)>,
}

impl LiveKeys {
    /// The keys in `data_dir`, as they are now.
    pub fn open(data_dir: &Path) -> Result<Self, KeyError> {
        let store = KeyStore::new(data_dir);
        let version = store.version();
        let keys = Keys::from_stored(&store.list()?);
        Ok(Self {
            required: !keys.is_empty(),
            current: std::sync::RwLock::new((version, keys)),
            store,
        })
    }

    /// Whether a key was needed when the door opened.
    pub fn required(&self) -> bool {
        self.required
    }

    /// The keys now (`None`: none was ever needed and none is now, so the
    /// door is open to this computer).
    pub fn now(&self) -> Option<Keys> {
        let version = self.store.version();
        let stale = self.current.read().map(|c| c.0 != version).unwrap_or(true);
        if stale
            && let Ok(stored) = self.store.list()
            && let Ok(mut c) = self.current.write()
        {
            *c = (version, Keys::from_stored(&stored));
        }
        let keys = self.current.read().map(|c| c.1.clone()).unwrap_or_default();
        (self.required || !keys.is_empty()).then_some(keys)
    }

    /// The name of the key `presented` is, among the keys now.
    pub fn check(&self, presented: &str) -> Option<String> {
        self.now()?.check(presented).map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_made_and_revoked_count_at_once_and_a_guarded_door_stays_guarded() {
        let dir = tempfile::tempdir().unwrap();
        let open = LiveKeys::open(dir.path()).unwrap();
        assert!(!open.required() && open.now().is_none());
        let store = KeyStore::new(dir.path());
        let key = store.add("laptop").unwrap();
        assert_eq!(open.check(&key).as_deref(), Some("laptop"));
        let guarded = LiveKeys::open(dir.path()).unwrap();
        assert!(guarded.required());
        // Revoked, then another made at once: each is seen.
        store.revoke("laptop").unwrap();
        assert_eq!(guarded.check(&key), None);
        assert!(guarded.now().is_some_and(|k| k.is_empty()));
        let other = store.add("phone").unwrap();
        assert_eq!(guarded.check(&other).as_deref(), Some("phone"));
        assert_eq!(guarded.check("bk-guess"), None);
        let stored = std::fs::read_to_string(dir.path().join(KEYS_FILE)).unwrap();
        assert!(!stored.contains(&other), "only hashes are kept");
    }
}
