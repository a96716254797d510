//! Local models: the catalog with this computer's fit, downloads that
//! become `local` provider entries, and removal.

use std::path::PathBuf;

use baton_models::{Catalog, CatalogEntry, Fit, Hardware, HashLedger, Progress, PullOptions};
use serde::Serialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::{Engine, EngineError};

/// The local models of an [`Engine`] (see [`Engine::models`]).
pub struct Models<'a> {
    pub(crate) e: &'a Engine,
}

/// The user's catalog entries, beside the settings.
const USER_CATALOG: &str = "models-catalog.json";

/// One catalog entry as a listing shows it.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogModel {
    /// The entry.
    #[serde(flatten)]
    pub entry: CatalogEntry,
    /// Its file is in the models folder.
    pub pulled: bool,
    /// A part file from an interrupted download, and its size.
    #[specta(type = Option<u32>)]
    pub partial_bytes: Option<u64>,
    /// How it fits this computer.
    pub fit: Fit,
    /// The fit in words.
    pub hint: String,
}

/// A model that was downloaded and made a provider.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PulledModel {
    /// The provider entry's name (the catalog name).
    pub provider: String,
    /// Where the file is.
    pub path: PathBuf,
    /// Its SHA-256.
    pub sha256: String,
    /// False when it was already there.
    pub downloaded: bool,
    /// Bytes reused from an interrupted download.
    #[specta(type = u32)]
    pub resumed_from: u64,
    /// The hash was not published: this one was recorded for later pulls.
    pub hash_recorded: bool,
}

impl Models<'_> {
    /// The shipped catalog with the user's `models-catalog.json` over it.
    pub fn catalog(&self) -> Catalog {
        let (catalog, warning) = Catalog::load(&self.e.paths.config_dir.join(USER_CATALOG));
        if let Some(w) = warning {
            tracing::warn!("{w}");
        }
        catalog
    }

    /// Every catalog entry with whether it is here and how it fits.
    pub fn catalog_models(&self, hardware: &Hardware) -> Vec<CatalogModel> {
        let dir = &self.e.paths.models_dir;
        self.catalog()
            .entries
            .into_iter()
            .map(|entry| {
                let pulled = dir.join(&entry.file).is_file();
                let part = dir.join(format!("{}.part", entry.file));
                CatalogModel {
                    pulled,
                    partial_bytes: std::fs::metadata(part).ok().map(|m| m.len()),
                    fit: hardware.fit(&entry),
                    hint: hardware.hint(&entry),
                    entry,
                }
            })
            .collect()
    }

    /// Downloads catalog model `name` (resuming an earlier part) and adds
    /// it to the user's providers as a `local` entry of the same name.
    pub async fn pull(
        &self,
        name: &str,
        cancel: CancellationToken,
        on_progress: impl FnMut(Progress) + Send,
    ) -> Result<PulledModel, EngineError> {
        let catalog = self.catalog();
        let entry = catalog.get(name)?;
        if self.e.providers.get(&entry.name).is_some() && !self.is_model_entry(entry) {
            return Err(self.providers_error(format!(
                "you have a provider named `{}` of your own; it is left as is: rename it to download this model",
                entry.name
            )));
        }
        let dir = &self.e.paths.models_dir;
        let mut ledger = HashLedger::open(dir);
        let mut opts = PullOptions::new(dir.clone());
        opts.cancel = cancel;
        opts.expected_sha256 = entry
            .sha256
            .clone()
            .or_else(|| ledger.get(&entry.file).map(str::to_string));
        let pulled = baton_models::pull(entry, &opts, on_progress).await?;
        let hash_recorded = opts.expected_sha256.is_none() && pulled.downloaded;
        if hash_recorded {
            ledger
                .record(&entry.file, &pulled.sha256)
                .map_err(|e| self.providers_error(e.to_string()))?;
        }
        self.e.providers().set_user(local_entry(entry))?;
        Ok(PulledModel {
            provider: entry.name.clone(),
            path: pulled.path,
            sha256: pulled.sha256,
            downloaded: pulled.downloaded,
            resumed_from: pulled.resumed_from,
            hash_recorded,
        })
    }

    /// Deletes catalog model `name` (and any part file) and its provider
    /// entry; a `provider` setting that named it is cleared (the next
    /// start picks a provider again). Returns whether a file was there.
    pub fn remove(&self, name: &str) -> Result<bool, EngineError> {
        let catalog = self.catalog();
        let entry = catalog.get(name)?;
        let dir = &self.e.paths.models_dir;
        let mut found = false;
        for file in [entry.file.clone(), format!("{}.part", entry.file)] {
            match std::fs::remove_file(dir.join(&file)) {
                Ok(()) => found = true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.providers_error(format!("cannot delete {file}: {e}"))),
            }
        }
        if self.is_model_entry(entry) {
            self.e.providers().remove_user(&entry.name)?;
        }
        if self.e.settings.provider.as_deref() == Some(entry.name.as_str()) {
            self.e
                .save_settings(|s| {
                    if s.provider.as_deref() == Some(entry.name.as_str()) {
                        s.provider = None;
                    }
                    Ok(())
                })
                .map_err(|e| self.providers_error(e.to_string()))?;
        }
        Ok(found)
    }

    /// The catalog models in the models folder that have a provider
    /// entry, largest first.
    pub fn pulled(&self) -> Vec<CatalogEntry> {
        let mut pulled: Vec<CatalogEntry> = self
            .catalog()
            .entries
            .into_iter()
            .filter(|e| self.e.paths.models_dir.join(&e.file).is_file())
            .filter(|e| self.e.providers.get(&e.name).is_some())
            .collect();
        pulled.sort_by_key(|e| std::cmp::Reverse(e.size));
        pulled
    }

    /// Whether the provider named like `entry` is the `local` entry of its
    /// file (one a pull made), not another entry of the user's.
    fn is_model_entry(&self, entry: &CatalogEntry) -> bool {
        self.e.providers.get(&entry.name).is_some_and(|p| {
            p.dialect == baton_llm::Dialect::Local
                && p.model_path.as_deref() == Some(entry.file.as_str())
        })
    }

    fn providers_error(&self, reason: String) -> EngineError {
        EngineError::UserProviders {
            path: self.e.paths.user_providers_file(),
            reason,
        }
    }
}

/// The provider entry of a pulled model.
fn local_entry(entry: &CatalogEntry) -> Value {
    json!({
        "name": entry.name,
        "dialect": "local",
        "modelPath": entry.file,
        "model": entry.title,
        "contextWindow": entry.context_length.min(8192),
        "maxOutputTokens": 2048,
        "temperature": 0.2,
        "cacheType": "PrefixCache",
        "interactionMode": "API",
        "nativeTools": true,
        "tools": entry.tasks.contains(&baton_models::Task::Tools),
    })
}
