//! What the index holds per file: size, modification time and content
//! hash, so a scan re-reads only what changed. Saved atomically next to
//! the index.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One indexed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub size: u64,
    pub modified: u64,
    pub hash: String,
    /// Why it could not be converted, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Its chunks have vectors.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub embedded: bool,
}

/// The manifest file.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub version: u32,
    pub root: PathBuf,
    pub files: BTreeMap<String, Entry>,
}

impl Manifest {
    pub(crate) fn path(index_dir: &Path) -> PathBuf {
        index_dir.join("manifest.json")
    }

    /// The saved manifest; a missing or unreadable one is empty (the scan
    /// then re-reads everything, which is safe).
    pub(crate) fn load(index_dir: &Path) -> Manifest {
        let path = Self::path(index_dir);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %path.display(), error = %e, "index manifest unreadable; rescanning everything");
                Manifest::default()
            }),
            Err(_) => Manifest::default(),
        }
    }

    pub(crate) fn save(&self, index_dir: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        baton_stdx::atomic_write(&Self::path(index_dir), &bytes)
    }
}
