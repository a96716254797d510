//! The folders Baton uses, from the platform conventions (`directories`)
//! unless environment variables say otherwise.

use std::path::{Path, PathBuf};

/// Overrides the config folder (settings, user `providers.json`).
pub const ENV_CONFIG_DIR: &str = "BATON_CONFIG_DIR";
/// Overrides the data folder (sessions, index, models).
pub const ENV_DATA_DIR: &str = "BATON_DATA_DIR";
/// Overrides the models folder.
pub const ENV_MODELS_DIR: &str = "BATON_MODELS_DIR";

/// Failure to work out where Baton's files go.
#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    /// No home directory, and no override in the environment.
    #[error(
        "cannot find a home directory for Baton's files: set {ENV_CONFIG_DIR} and {ENV_DATA_DIR}"
    )]
    NoHome,
}

/// The folders Baton reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatonPaths {
    /// Settings (`setup.json`) and the user's `providers.json`.
    pub config_dir: PathBuf,
    /// Sessions, indexes and other data.
    pub data_dir: PathBuf,
    /// GGUF and other model files.
    pub models_dir: PathBuf,
}

impl BatonPaths {
    /// Platform folders, with `BATON_CONFIG_DIR`, `BATON_DATA_DIR` and
    /// `BATON_MODELS_DIR` taking precedence.
    pub fn from_env() -> Result<Self, PathsError> {
        let env_dir = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dirs = directories::ProjectDirs::from("", "", "baton");
        let config_dir = env_dir(ENV_CONFIG_DIR)
            .or_else(|| dirs.as_ref().map(|d| d.config_dir().to_path_buf()))
            .ok_or(PathsError::NoHome)?;
        let data_dir = env_dir(ENV_DATA_DIR)
            .or_else(|| dirs.as_ref().map(|d| d.data_dir().to_path_buf()))
            .ok_or(PathsError::NoHome)?;
        let models_dir = env_dir(ENV_MODELS_DIR).unwrap_or_else(|| data_dir.join("models"));
        Ok(Self {
            config_dir,
            data_dir,
            models_dir,
        })
    }

    /// All folders under one root (tests, portable installs).
    pub fn under(root: &Path) -> Self {
        Self {
            config_dir: root.join("config"),
            data_dir: root.join("data"),
            models_dir: root.join("data/models"),
        }
    }

    /// The settings file.
    pub fn settings_file(&self) -> PathBuf {
        self.config_dir.join(crate::SETTINGS_FILE)
    }

    /// The user's named agents, over the shipped ones.
    pub fn user_agents_file(&self) -> PathBuf {
        self.config_dir.join(crate::AGENTS_FILE)
    }

    /// The user's provider overrides.
    pub fn user_providers_file(&self) -> PathBuf {
        self.config_dir.join("providers.json")
    }
}
