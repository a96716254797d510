//! API keys for Baton's network doors (`baton serve` and `baton mcp
//! --http`): made by `baton serve keys add NAME` or `baton mcp keys add
//! NAME` (shown once), each opening its own door only, stored only as
//! SHA-256 hashes in `server-keys.json` in the data folder (written
//! atomically under a lock, readable by the user only), compared in
//! constant time, and re-read by a running server when the file changes
//! ([`LiveKeys`]; a file that cannot be read then refuses every key).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The file the keys' hashes live in, inside the data folder.
pub const KEYS_FILE: &str = "server-keys.json";

/// Which network door a key opens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Door {
    /// `baton serve`: the OpenAI-compatible HTTP API (keys made before
    /// doors existed open this one only).
    #[default]
    Serve,
    /// `baton mcp --http`: Baton's toolboxes over MCP.
    Mcp,
}

impl Door {
    /// The command that makes a key for this door.
    pub fn command(self) -> &'static str {
        match self {
            Door::Serve => "baton serve keys",
            Door::Mcp => "baton mcp keys",
        }
    }
}

/// What is kept of one key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredKey {
    /// The name it was given (who uses it).
    pub name: String,
    /// The door it opens.
    #[serde(default)]
    pub door: Door,
    /// Its first characters, to recognise it.
    pub prefix: String,
    /// SHA-256 of the key, hex.
    pub hash: String,
    /// When it was made (RFC 3339).
    pub created: String,
    /// The owner chose to keep this key's conversations with the desktop's
    /// own (they appear in its history); off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shares_sessions: bool,
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
    /// A name already in use at that door.
    #[error("there is already a key named `{0}` (revoke it first)")]
    Exists(String),
    /// No key by that name at that door.
    #[error("no key named `{0}`")]
    Unknown(String),
    /// A name that cannot be used.
    #[error("a key name is 1 to 64 letters, digits, `-`, `_` or `.`, not `{0}`")]
    BadName(String),
    /// A key to be kept in the keychain could not be.
    #[error("the API key could not be kept in the keychain: {0}")]
    Keychain(String),
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

    /// The stored keys of every door (none when there is no file).
    pub fn list(&self) -> Result<Vec<StoredKey>, KeyError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.io(e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(self.io(e)),
        }
    }

    /// The stored keys that open `door`.
    pub fn list_for(&self, door: Door) -> Result<Vec<StoredKey>, KeyError> {
        let mut keys = self.list()?;
        keys.retain(|k| k.door == door);
        Ok(keys)
    }

    fn save(&self, keys: &[StoredKey]) -> Result<(), KeyError> {
        let json = serde_json::to_vec_pretty(keys).map_err(|e| self.io(e))?;
        baton_stdx::atomic_write_private(&self.path, &json).map_err(|e| self.io(e))
    }

    /// Reads, changes and writes the keys as one step: another writer
    /// (thread or process) waits for the lock, so a key made meanwhile
    /// cannot bring a revoked one back.
    fn edit<T>(
        &self,
        change: impl FnOnce(&mut Vec<StoredKey>) -> Result<T, KeyError>,
    ) -> Result<T, KeyError> {
        let _one_writer = baton_stdx::lock_beside(&self.path).map_err(|e| self.io(e))?;
        let mut keys = self.list()?;
        let out = change(&mut keys)?;
        self.save(&keys)?;
        Ok(out)
    }

    /// Makes a key named `name` that opens `door`; the key itself is
    /// returned once and never stored.
    pub fn add(&self, name: &str, door: Door) -> Result<String, KeyError> {
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !ok {
            return Err(KeyError::BadName(name.to_string()));
        }
        // Two v4 UUIDs: 244 random bits from the OS.
        let key = format!(
            "bk-{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        self.edit(|keys| {
            if keys.iter().any(|k| k.name == name && k.door == door) {
                return Err(KeyError::Exists(name.to_string()));
            }
            keys.push(StoredKey {
                name: name.to_string(),
                door,
                prefix: key[..10].to_string(),
                hash: hex(&hash(&key)),
                created: chrono::Utc::now().to_rfc3339(),
                shares_sessions: false,
            });
            Ok(())
        })?;
        Ok(key)
    }

    /// Keeps the conversations of key `name` (at `door`) with the desktop's
    /// own when `share`, apart again when not (from its next request).
    pub fn share_sessions(&self, name: &str, door: Door, share: bool) -> Result<(), KeyError> {
        self.edit(|keys| {
            let key = keys
                .iter_mut()
                .find(|k| k.name == name && k.door == door)
                .ok_or_else(|| KeyError::Unknown(name.to_string()))?;
            key.shares_sessions = share;
            Ok(())
        })
    }

    /// Removes the key named `name` from `door`.
    pub fn revoke(&self, name: &str, door: Door) -> Result<(), KeyError> {
        self.edit(|keys| {
            let before = keys.len();
            keys.retain(|k| !(k.name == name && k.door == door));
            if keys.len() == before {
                return Err(KeyError::Unknown(name.to_string()));
            }
            Ok(())
        })
    }
}

/// The key named `name` for `door` that this computer's own app keeps in
/// the keychain (the desktop's key for the HTTP API it starts), so the user
/// can copy it into a client at any time: made on first use, and made anew
/// when the one kept was revoked (`baton serve keys revoke`) or lost.
pub fn kept_key(
    data_dir: &Path,
    secrets: &baton_config::Secrets,
    name: &str,
    door: Door,
) -> Result<String, KeyError> {
    let store = KeyStore::new(data_dir);
    let secret = format!("server-key:{name}");
    let keychain = |e: baton_config::SecretError| KeyError::Keychain(e.to_string());
    let kept = secrets.get(&secret).map_err(keychain)?;
    let stored = store.list_for(door)?;
    if let Some(key) = kept
        && Keys::from_stored(&stored, door)
            .check(&key)
            .is_some_and(|h| h.name == name)
    {
        return Ok(key);
    }
    if stored.iter().any(|k| k.name == name) {
        store.revoke(name, door)?;
    }
    let key = store.add(name, door)?;
    if let Err(e) = secrets.set(&secret, &key) {
        // A key nobody can copy is no use: it goes again.
        let _ = store.revoke(name, door);
        return Err(keychain(e));
    }
    Ok(key)
}

/// A key that was presented and accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHolder {
    /// The key's name.
    pub name: String,
    /// Tells this key from every other ever made (16 hex digits of its
    /// hash): what its holder keeps on a server (sessions, files) is filed
    /// under it, so a key revoked and made again under the same name does
    /// not see what the old one kept.
    pub tag: String,
    /// Its conversations are kept with the desktop's (the owner chose it).
    pub shares_sessions: bool,
}

/// The keys a running door accepts (their hashes).
#[derive(Debug, Clone, Default)]
pub struct Keys {
    hashes: Vec<(String, [u8; 32], bool)>,
}

impl Keys {
    /// The stored keys that open `door` (a malformed hash is skipped).
    pub fn from_stored(stored: &[StoredKey], door: Door) -> Self {
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
                .filter(|k| k.door == door)
                .filter_map(|k| Some((k.name.clone(), parse(&k.hash)?, k.shares_sessions)))
                .collect(),
        }
    }

    /// No key is configured: the door is open (on loopback only).
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Who holds the key `presented`, compared in constant time (every
    /// stored hash is compared, whatever matched).
    pub fn check(&self, presented: &str) -> Option<KeyHolder> {
        let h = hash(presented);
        let mut found = None;
        for (name, stored, shares_sessions) in &self.hashes {
            if bool::from(stored.ct_eq(&h)) {
                found = Some(KeyHolder {
                    name: name.clone(),
                    tag: hex(&stored[..8]),
                    shares_sessions: *shares_sessions,
                });
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
    door: Door,
    /// Keys were required at start: a server that listens beyond this
    /// computer never becomes open, even with every key revoked.
    required: bool,
    /// The file's version and its keys (`None`: it could not be read).
    current: std::sync::RwLock<(Option<FileVersion>, Option<Keys>)>,
}

impl LiveKeys {
    /// The keys in `data_dir` that open `door`, as they are now.
    pub fn open(data_dir: &Path, door: Door) -> Result<Self, KeyError> {
        let store = KeyStore::new(data_dir);
        let version = store.version();
        let keys = Keys::from_stored(&store.list()?, door);
        Ok(Self {
            required: !keys.is_empty(),
            current: std::sync::RwLock::new((version, Some(keys))),
            store,
            door,
        })
    }

    /// Whether a key was needed when the door opened.
    pub fn required(&self) -> bool {
        self.required
    }

    /// The keys now (`None`: none was ever needed and none is now, so the
    /// door is open to this computer). A keys file that cannot be read
    /// (damaged, unreadable) accepts no key at all until it is mended.
    pub fn now(&self) -> Option<Keys> {
        let version = self.store.version();
        let stale = self.current.read().map(|c| c.0 != version).unwrap_or(true);
        if stale && let Ok(mut c) = self.current.write() {
            let read = self.store.list().map(|s| Keys::from_stored(&s, self.door));
            if let Err(e) = &read {
                tracing::error!(error = %e, "the API keys cannot be read: every key is refused");
            }
            *c = (version, read.ok());
        }
        match self.current.read().map(|c| c.1.clone()) {
            Ok(Some(keys)) => (self.required || !keys.is_empty()).then_some(keys),
            Ok(None) | Err(_) => Some(Keys::default()),
        }
    }

    /// Who holds the key `presented`, among the keys now.
    pub fn check(&self, presented: &str) -> Option<KeyHolder> {
        self.now()?.check(presented)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_made_and_revoked_count_at_once_and_a_guarded_door_stays_guarded() {
        let dir = tempfile::tempdir().unwrap();
        let open = LiveKeys::open(dir.path(), Door::Serve).unwrap();
        assert!(!open.required() && open.now().is_none());
        let store = KeyStore::new(dir.path());
        let key = store.add("laptop", Door::Serve).unwrap();
        let holder = open.check(&key).unwrap();
        assert_eq!(holder.name, "laptop");
        assert_eq!(holder.tag.len(), 16);
        let guarded = LiveKeys::open(dir.path(), Door::Serve).unwrap();
        assert!(guarded.required());
        // Revoked, then another made at once under the same name: each is
        // seen, and the new one is a different holder.
        store.revoke("laptop", Door::Serve).unwrap();
        assert_eq!(guarded.check(&key), None);
        assert!(guarded.now().is_some_and(|k| k.is_empty()));
        let again = store.add("laptop", Door::Serve).unwrap();
        let new_holder = guarded.check(&again).unwrap();
        assert_ne!(new_holder.tag, holder.tag);
        assert_eq!(guarded.check("bk-guess"), None);
        let stored = std::fs::read_to_string(dir.path().join(KEYS_FILE)).unwrap();
        assert!(!stored.contains(&again), "only hashes are kept");
    }

    #[test]
    fn a_key_opens_its_own_door_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::new(dir.path());
        let api = store.add("bot", Door::Serve).unwrap();
        let tools = store.add("bot", Door::Mcp).unwrap();
        let serve = LiveKeys::open(dir.path(), Door::Serve).unwrap();
        let mcp = LiveKeys::open(dir.path(), Door::Mcp).unwrap();
        assert!(serve.check(&api).is_some() && serve.check(&tools).is_none());
        assert!(mcp.check(&tools).is_some() && mcp.check(&api).is_none());
        store.revoke("bot", Door::Mcp).unwrap();
        assert!(mcp.check(&tools).is_none() && serve.check(&api).is_some());
        assert_eq!(store.list_for(Door::Serve).unwrap().len(), 1);
        // A key stored before doors existed opens `serve` only.
        let old = r#"[{"name":"old","prefix":"bk-","hash":"00","created":""}]"#;
        let parsed: Vec<StoredKey> = serde_json::from_str(old).unwrap();
        assert_eq!(parsed[0].door, Door::Serve);
    }

    #[test]
    fn a_keys_file_that_cannot_be_read_refuses_every_key() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::new(dir.path());
        let key = store.add("bot", Door::Serve).unwrap();
        let live = LiveKeys::open(dir.path(), Door::Serve).unwrap();
        assert!(live.check(&key).is_some());
        std::fs::write(dir.path().join(KEYS_FILE), b"[{ damaged").unwrap();
        assert_eq!(live.check(&key), None);
        assert!(live.now().is_some(), "a guarded door does not open");
        let open = LiveKeys::open(tempfile::tempdir().unwrap().path(), Door::Serve).unwrap();
        assert!(open.now().is_none());
    }

    #[test]
    fn a_kept_key_is_made_once_and_anew_when_revoked_or_lost() {
        // The session's keychain (the tests run on a private Secret Service).
        let secrets = baton_config::Secrets::new();
        let dir = tempfile::tempdir().unwrap();
        let name = format!("kept-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let kept = || kept_key(dir.path(), &secrets, &name, Door::Serve).unwrap();
        let first = kept();
        assert_eq!(kept(), first, "the same key while it stands");
        let live = LiveKeys::open(dir.path(), Door::Serve).unwrap();
        assert!(live.check(&first).is_some());
        KeyStore::new(dir.path())
            .revoke(&name, Door::Serve)
            .unwrap();
        let second = kept();
        assert_ne!(second, first);
        assert!(live.check(&first).is_none() && live.check(&second).is_some());
        secrets.delete(&format!("server-key:{name}")).unwrap();
        let third = kept();
        assert_ne!(third, second);
        assert!(live.check(&second).is_none(), "the lost key is revoked");
        assert_eq!(KeyStore::new(dir.path()).list().unwrap().len(), 1);
        secrets.delete(&format!("server-key:{name}")).unwrap();
        // Without a keychain: said so, and no key made that nobody can copy.
        let none = baton_config::Secrets::without_keychain("no D-Bus session");
        let other = tempfile::tempdir().unwrap();
        let e = kept_key(other.path(), &none, "desktop", Door::Serve).unwrap_err();
        assert!(matches!(e, KeyError::Keychain(_)), "{e}");
        assert!(KeyStore::new(other.path()).list().unwrap().is_empty());
    }

    #[test]
    fn a_concurrent_add_never_brings_a_revoked_key_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::new(dir.path());
        for round in 0..20 {
            let victim = store.add(&format!("old{round}"), Door::Serve).unwrap();
            let (a, b) = (store.clone(), store.clone());
            let adder = std::thread::spawn(move || {
                for i in 0..5 {
                    a.add(&format!("new{round}-{i}"), Door::Serve).unwrap();
                }
            });
            let revoker =
                std::thread::spawn(move || b.revoke(&format!("old{round}"), Door::Serve).unwrap());
            adder.join().unwrap();
            revoker.join().unwrap();
            let keys = Keys::from_stored(&store.list().unwrap(), Door::Serve);
            assert_eq!(
                keys.check(&victim),
                None,
                "round {round}: revoked key is back"
            );
            assert_eq!(store.list().unwrap().len(), 5 * (round + 1));
        }
    }
}
