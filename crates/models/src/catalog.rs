//! The model catalog: shipped entries (`catalog.json`, compiled in) with
//! the user's `models-catalog.json` over them, and the ledger of hashes
//! recorded at first download for entries whose publisher lists none.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The shipped catalog.
const SHIPPED: &str = include_str!("../catalog.json");

/// What a model is good for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum Task {
    /// Conversation, summaries, writing.
    Chat,
    /// Calling Baton's tools reliably.
    Tools,
    /// Reading images (OCR of scans and photos).
    Vision,
}

/// One recommended model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// Short name used on the command line and as the provider entry's
    /// name (`qwen2.5-3b`).
    pub name: String,
    /// Display name (`Qwen2.5 3B Instruct`).
    pub title: String,
    /// File name in the models folder.
    pub file: String,
    /// Where the file is downloaded from (the publisher's own listing).
    pub url: String,
    /// File size in bytes (a TypeScript `number`: exact to 2^53).
    #[specta(type = u32)]
    pub size: u64,
    /// SHA-256 of the file as the publisher lists it; `None` when no
    /// published hash could be confirmed (the first download records the
    /// hash it got, and later downloads must match it).
    #[serde(default)]
    pub sha256: Option<String>,
    /// Where the hash was read.
    #[serde(default)]
    pub sha256_source: Option<String>,
    /// Licence name.
    pub licence: String,
    /// Context length the model was trained for, in tokens.
    pub context_length: u32,
    /// Parameter count in words (`3.1 B`).
    pub parameters: String,
    /// Memory needed to run it with a working context, in MB.
    #[specta(type = u32)]
    pub ram_mb: u64,
    /// What it suits.
    pub tasks: Vec<Task>,
    /// A line on what it is like.
    #[serde(default)]
    pub notes: String,
}

/// The catalog file's shape.
#[derive(Debug, Deserialize)]
struct CatalogFile {
    models: Vec<CatalogEntry>,
}

/// A problem with a catalog file.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The file is not a valid catalog.
    #[error("{origin} is not a valid model catalog: {reason}")]
    Invalid {
        /// The file.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// No entry has the name asked for.
    #[error("no model named `{name}` in the catalog; known models: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
}

/// The models Baton knows how to download.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// Entries, shipped first, then the user's new ones.
    pub entries: Vec<CatalogEntry>,
}

impl Catalog {
    /// The compiled-in catalog.
    pub fn shipped() -> Self {
        Self::parse(SHIPPED, "the shipped catalog").expect("the shipped catalog is valid (tested)")
    }

    /// The shipped catalog with the entries of `user_file` (if it exists)
    /// over it: an entry replaces the one of the same name, new ones are
    /// added. A broken user file is a warning, and the shipped catalog is
    /// used as is.
    pub fn load(user_file: &Path) -> (Self, Option<String>) {
        let mut catalog = Self::shipped();
        let Ok(text) = std::fs::read_to_string(user_file) else {
            return (catalog, None);
        };
        match Self::parse(&text, &user_file.display().to_string()) {
            Ok(user) => {
                for entry in user.entries {
                    match catalog.entries.iter_mut().find(|e| e.name == entry.name) {
                        Some(slot) => *slot = entry,
                        None => catalog.entries.push(entry),
                    }
                }
                (catalog, None)
            }
            Err(e) => (
                catalog,
                Some(format!("{e}; your catalog entries are ignored")),
            ),
        }
    }

    /// Parses and checks a catalog's text.
    pub fn parse(text: &str, origin: &str) -> Result<Self, CatalogError> {
        let invalid = |reason: String| CatalogError::Invalid {
            origin: origin.to_string(),
            reason,
        };
        let file: CatalogFile = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        for e in &file.models {
            check_entry(e).map_err(|why| invalid(format!("entry `{}`: {why}", e.name)))?;
        }
        Ok(Self {
            entries: file.models,
        })
    }

    /// The entry named `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Result<&CatalogEntry, CatalogError> {
        self.entries
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| CatalogError::Unknown {
                name: name.to_string(),
                known: self
                    .entries
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The entry whose file is `file`, if any.
    pub fn by_file(&self, file: &str) -> Option<&CatalogEntry> {
        self.entries.iter().find(|e| e.file == file)
    }
}

/// What makes an entry unusable.
fn check_entry(e: &CatalogEntry) -> Result<(), String> {
    let safe_file = !e.file.is_empty()
        && !e.file.contains(['/', '\\', ':'])
        && !e.file.starts_with('.')
        && e.file.to_ascii_lowercase().ends_with(".gguf");
    if !safe_file {
        return Err(format!(
            "`file` must be a plain `.gguf` file name, not `{}`",
            e.file
        ));
    }
    if !(e.url.starts_with("https://") || e.url.starts_with("http://")) {
        return Err(format!("`url` must be an http(s) address, not `{}`", e.url));
    }
    if let Some(h) = &e.sha256
        && (h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(format!("`sha256` must be 64 hex digits, not `{h}`"));
    }
    if e.name.trim().is_empty() || e.size == 0 {
        return Err("`name` and `size` are required".into());
    }
    Ok(())
}

/// Hashes recorded at first download (for entries whose publisher lists
/// none), kept as `hashes.json` in the models folder.
#[derive(Debug, Clone, Default)]
pub struct HashLedger {
    path: PathBuf,
    hashes: BTreeMap<String, String>,
}

impl HashLedger {
    /// The ledger of `models_dir` (empty when there is none yet).
    pub fn open(models_dir: &Path) -> Self {
        let path = models_dir.join("hashes.json");
        let hashes = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        Self { path, hashes }
    }

    /// The hash recorded for `file`.
    pub fn get(&self, file: &str) -> Option<&str> {
        self.hashes.get(file).map(String::as_str)
    }

    /// Records the hash `file` had at its first download.
    pub fn record(&mut self, file: &str, sha256: &str) -> std::io::Result<()> {
        self.hashes.insert(file.to_string(), sha256.to_string());
        let text = serde_json::to_string_pretty(&self.hashes).map_err(std::io::Error::other)?;
        baton_stdx::atomic_write(&self.path, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalog_is_valid_and_names_are_unique() {
        let c = Catalog::shipped();
        assert!(c.entries.len() >= 6, "{}", c.entries.len());
        let mut names: Vec<_> = c.entries.iter().map(|e| e.name.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), c.entries.len());
        for e in &c.entries {
            assert!(
                e.sha256.is_none() || e.sha256_source.is_some(),
                "{}: a hash says where it was read",
                e.name
            );
        }
    }

    #[test]
    fn user_entries_replace_and_extend_and_bad_ones_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("models-catalog.json");
        let first = Catalog::shipped().entries[0].clone();
        let mut replaced = first.clone();
        replaced.title = "Mine".into();
        let mut extra = first.clone();
        extra.name = "extra".into();
        let text = serde_json::json!({"models": [replaced, extra]}).to_string();
        std::fs::write(&user, text).unwrap();
        let (c, warning) = Catalog::load(&user);
        assert!(warning.is_none());
        assert_eq!(c.get(&first.name).unwrap().title, "Mine");
        assert!(c.get("EXTRA").is_ok());
        let e = c.get("nope").unwrap_err().to_string();
        assert!(e.contains("known models"), "{e}");

        let mut bad = first.clone();
        bad.file = "../escape.gguf".into();
        std::fs::write(&user, serde_json::json!({"models": [bad]}).to_string()).unwrap();
        let (c, warning) = Catalog::load(&user);
        assert!(warning.unwrap().contains("plain `.gguf` file name"));
        assert_eq!(c, Catalog::shipped());
    }
}
