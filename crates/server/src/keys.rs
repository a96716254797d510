//! API keys for `baton serve`: made by `baton serve keys add NAME` (shown
//! once), stored only as SHA-256 hashes in `server-keys.json` in the data
//! folder (written atomically, readable by the user only), compared in
//! constant time.

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

    /// When the keys file last changed (`None`: there is none).
    pub fn modified(&self) -> Option<std::time::SystemTime> {
        std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok()
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
