//! What every command starts from: folders, settings, providers, secrets.

use std::path::PathBuf;

use anyhow::Context as _;
use baton_config::{BatonPaths, Secrets, Settings};
use baton_llm::{LoadOptions, ProviderConfig, ProvidersFile};

use crate::args::Global;

/// Loaded configuration for one command.
pub struct Context {
    /// Baton's folders.
    pub paths: BatonPaths,
    /// The settings.
    pub settings: Settings,
    /// The merged providers.
    pub providers: ProvidersFile,
    /// Keychain access (opened lazily).
    pub secrets: Secrets,
    /// The workspace root after overrides.
    pub workspace: PathBuf,
    /// The conversion cache, made on first use and shared by the command.
    pub(crate) conversions: std::sync::OnceLock<std::sync::Arc<baton_docs::ConversionCache>>,
    /// Conversion options (with the chosen OCR engine), made on first use.
    pub(crate) convert: std::sync::OnceLock<baton_convert::ConvertOptions>,
}

impl Context {
    /// Loads settings and providers, printing their warnings on stderr.
    pub fn load(global: &Global) -> anyhow::Result<Self> {
        let paths = BatonPaths::from_env()?;
        let loaded = Settings::load(&paths.settings_file());
        for w in &loaded.warnings {
            eprintln!("warning: {w}");
        }
        let shipped = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(|d| d.join("providers.json")));
        let providers = ProvidersFile::load(&LoadOptions {
            explicit: global.providers.clone(),
            shipped,
            user: Some(paths.user_providers_file()),
        })
        .context("loading providers")?;
        for w in &providers.warnings {
            eprintln!("warning: {w}");
        }
        let workspace = loaded.settings.workspace_root(global.workspace.as_deref());
        Ok(Self {
            paths,
            settings: loaded.settings,
            providers: providers.file,
            secrets: Secrets::new(),
            workspace,
            conversions: Default::default(),
            convert: Default::default(),
        })
    }

    /// The entry to use: `--provider`, else the setting, else the default.
    pub fn provider_config(&self, flag: Option<&str>) -> anyhow::Result<ProviderConfig> {
        let name = flag
            .or(self.settings.provider.as_deref())
            .unwrap_or(&self.providers.default);
        Ok(self.providers.require(name)?.clone())
    }
}
