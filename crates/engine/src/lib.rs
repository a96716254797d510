//! Baton's engine, assembled from the settings: the one place that turns
//! settings, providers and the keychain into providers, toolboxes, the
//! workspace index, attachment contexts, agents and the session store.
//! The CLI, the desktop shell and the HTTP server are thin front doors
//! over an [`Engine`]; none of them builds these parts itself.

mod agents;
mod attachments;
mod build;
mod conversation;
mod diagnostics;
mod error;
mod first_run;
mod index;
mod models;
mod now;
mod prompts;
mod readiness;
mod restore;
mod team;
mod user_providers;
mod voice;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use baton_config::{BatonPaths, Secrets, Settings};
use baton_convert::ConvertOptions;
use baton_docs::ConversionCache;
use baton_llm::{LoadOptions, ProviderConfig, ProvidersFile};

pub use agents::{AgentInfo, ToolboxInfo, Toolkit, compaction_for};
pub use attachments::{AttachmentStore, read_attachments};
pub use build::LoadListener;
pub use conversation::{
    ConfirmMode, Conversation, ConversationOptions, IndexChoice, Turn, UserMessage,
    attachment_note, drop_last_exchange,
};
pub use diagnostics::{DIAGNOSTIC_TOOLS_ENV, Diagnostics, diagnostics_enabled};
pub use error::EngineError;
pub use first_run::{
    ChoiceReason, PROBE_TIMEOUT, ProviderChoice, entry_name as local_server_entry_name,
};
pub use index::{IndexListener, IndexState, refresh_in_background};
pub use models::{CatalogModel, PulledModel};
pub use now::{Clock, NowContext};
pub use readiness::local_readiness;
pub use restore::{RestoreFileError, RestoredFile};
pub use voice::{
    AgentResponder, VOICE_INSTRUCTIONS, check_stt_language, spoken_action, spoken_yes_no, tool_cue,
};

/// What a front door may override when loading the engine.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// The workspace folder, instead of the setting.
    pub workspace: Option<PathBuf>,
    /// A providers file to use instead of the shipped one.
    pub providers: Option<PathBuf>,
    /// The folder of the shipped `providers.json` (default: next to the
    /// running executable).
    pub shipped_dir: Option<PathBuf>,
}

/// The environment variable naming the workspace folder (`--workspace`).
pub const ENV_WORKSPACE: &str = "BATON_WORKSPACE";
/// The environment variable naming a providers file (`--providers`).
pub const ENV_PROVIDERS: &str = "BATON_PROVIDERS";

impl Overrides {
    /// The overrides every front door takes from the environment:
    /// [`ENV_WORKSPACE`] and [`ENV_PROVIDERS`], an empty value counting as
    /// unset. (The folders — `BATON_CONFIG_DIR`, `BATON_DATA_DIR`,
    /// `BATON_MODELS_DIR` — are read by [`BatonPaths::from_env`].)
    pub fn from_env() -> Self {
        Self::from_lookup(|k| std::env::var_os(k))
    }

    /// [`from_env`](Self::from_env) with variables read through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<std::ffi::OsString>) -> Self {
        let path = |k: &str| lookup(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        Self {
            workspace: path(ENV_WORKSPACE),
            providers: path(ENV_PROVIDERS),
            shipped_dir: None,
        }
    }
}

/// Loaded configuration and the shared parts made from it.
pub struct Engine {
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
    /// Warnings from loading settings and providers, for the user.
    pub warnings: Vec<String>,
    overrides: Overrides,
    conversions: OnceLock<Arc<ConversionCache>>,
    convert: OnceLock<ConvertOptions>,
    /// The named agents.
    agents_file: baton_config::LoadedAgents,
    /// Where conversations get the time (the system clock unless a test
    /// sets one).
    clock: Option<Clock>,
    /// The agents kept between turns, and what each was built for.
    kept_agents: tokio::sync::Mutex<Vec<(String, Arc<baton_agent::Agent>)>>,
    /// The browser every browser toolbox shares (connected on first use).
    browser: OnceLock<Arc<baton_web::BrowserHub>>,
    /// The headless browser documents are printed and drawn in (started
    /// on first use; never a tab in the user's browser).
    printer: OnceLock<Arc<baton_web::BrowserHub>>,
    /// The user's mailbox every e-mail toolbox shares (its IMAP session
    /// is kept between calls).
    mail: OnceLock<Arc<baton_mail::MailClient>>,
    /// The MCP servers of `mcp.json` (started on first use).
    mcp: OnceLock<Arc<baton_mcp::McpHub>>,
    /// Model servers found running on this computer; `None` until
    /// [`Engine::discover`] looked.
    found_servers: Option<Vec<baton_models::FoundServer>>,
    /// The provider picked because none was chosen.
    choice: Option<ProviderChoice>,
    /// The providers files chose the default (see
    /// [`baton_llm::LoadedProviders::default_chosen`]).
    default_chosen: bool,
}

/// How long an MCP tool may run.
const MCP_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

impl Engine {
    /// Loads settings and providers from Baton's folders.
    pub fn load(overrides: Overrides) -> Result<Self, EngineError> {
        let paths = BatonPaths::from_env()?;
        Self::load_with(paths, overrides)
    }

    /// Loads settings and providers from the given folders.
    pub fn load_with(paths: BatonPaths, overrides: Overrides) -> Result<Self, EngineError> {
        let loaded = Settings::load(&paths.settings_file());
        let mut warnings = loaded.warnings.clone();
        let shipped = overrides
            .shipped_dir
            .clone()
            .or_else(|| {
                std::env::current_exe()
                    .ok()
                    .and_then(|exe| exe.parent().map(Path::to_path_buf))
            })
            .map(|d| d.join("providers.json"));
        let providers = ProvidersFile::load(&LoadOptions {
            explicit: overrides.providers.clone(),
            shipped,
            user: Some(paths.user_providers_file()),
        })?;
        warnings.extend(providers.warnings.iter().cloned());
        let agents_file = baton_config::LoadedAgents::load(&paths.user_agents_file());
        warnings.extend(agents_file.warnings.iter().cloned());
        let workspace = loaded
            .settings
            .workspace_root(overrides.workspace.as_deref());
        Ok(Self {
            paths,
            settings: loaded.settings,
            providers: providers.file,
            secrets: Secrets::new(),
            workspace,
            warnings,
            overrides,
            conversions: OnceLock::new(),
            convert: OnceLock::new(),
            agents_file,
            clock: None,
            kept_agents: tokio::sync::Mutex::new(Vec::new()),
            browser: OnceLock::new(),
            printer: OnceLock::new(),
            mail: OnceLock::new(),
            mcp: OnceLock::new(),
            found_servers: None,
            choice: None,
            default_chosen: providers.default_chosen,
        })
    }

    /// The same engine re-read from disk (after settings or providers
    /// changed), keeping the overrides it was loaded with.
    /// The model servers found earlier are kept (not probed again), and
    /// the first-run choice is made again.
    pub fn reload(&self) -> Result<Self, EngineError> {
        let mut engine = Self::load_with(self.paths.clone(), self.overrides.clone())?;
        if let Some(found) = &self.found_servers {
            engine.apply_discovery(found.clone());
        }
        Ok(engine)
    }

    /// The same engine with the agents of `file` over the shipped ones,
    /// instead of the user's `agents.json` (`baton orchestrate --agents`).
    pub fn with_agents_file(mut self, file: &Path) -> Self {
        self.agents_file = baton_config::LoadedAgents::load(file);
        self.warnings
            .extend(self.agents_file.warnings.iter().cloned());
        self
    }

    /// The same engine telling conversations the time from `clock`.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The per-call context of conversations: the time and the workspace.
    pub fn now_context(&self) -> Arc<NowContext> {
        let workspace = self.workspace.clone();
        Arc::new(match &self.clock {
            Some(c) => NowContext::with_clock(workspace, Arc::clone(c)),
            None => NowContext::new(workspace),
        })
    }

    /// The entry to use: `name`, else the setting, else the default.
    pub fn provider_config(&self, name: Option<&str>) -> Result<ProviderConfig, EngineError> {
        let name = name
            .or(self.settings.provider.as_deref())
            .unwrap_or(&self.providers.default);
        Ok(self.providers.require(name)?.clone())
    }

    /// The name of the entry in use (the setting, else the default).
    pub fn selected_provider(&self) -> &str {
        self.settings
            .provider
            .as_deref()
            .unwrap_or(&self.providers.default)
    }

    /// Conversions cached by content hash in the data folder, shared by
    /// FileTool and attachments.
    pub fn conversion_cache(&self) -> Arc<ConversionCache> {
        Arc::clone(self.conversions.get_or_init(|| {
            Arc::new(ConversionCache::on_disk(
                self.paths.data_dir.join("cache").join("conversions"),
            ))
        }))
    }

    /// Conversion options with the OCR engine chosen for this machine
    /// (made once, then shared).
    pub fn convert_options(&self) -> ConvertOptions {
        self.convert
            .get_or_init(|| {
                let mut options = ConvertOptions::default();
                if let Some(engine) = self.vision_ocr() {
                    options.ocr = Some(engine);
                }
                options
            })
            .clone()
    }

    /// The browser the browser toolboxes share: nothing starts until a
    /// tool needs it; Baton's own profile lives in the data folder.
    pub fn browser_hub(&self) -> Arc<baton_web::BrowserHub> {
        Arc::clone(self.browser.get_or_init(|| {
            Arc::new(
                baton_web::BrowserHub::new(
                    self.settings.browser.clone(),
                    self.paths.data_dir.join("browser-profile"),
                )
                .with_downloads(self.workspace.join("Downloads")),
            )
        }))
    }

    /// The printer documents use: a headless browser of Baton's own (the
    /// `browser.path` program when set), started on first use.
    pub fn printer(&self) -> Arc<baton_publish::Printer> {
        let hub = self.printer.get_or_init(|| {
            let settings = baton_config::BrowserSettings {
                mode: Some(baton_config::BrowserMode::Headless),
                path: self.settings.browser.path.clone(),
                ..Default::default()
            };
            Arc::new(baton_web::BrowserHub::new(
                settings,
                self.paths.data_dir.join("printer-profile"),
            ))
        });
        Arc::new(baton_publish::Printer::new(Arc::clone(hub)))
    }

    /// The user's mail account (the `imap`, `smtp` and `email` settings,
    /// passwords from the keychain when a connection is made).
    pub fn mail(&self) -> Arc<baton_mail::MailClient> {
        Arc::clone(self.mail.get_or_init(|| {
            Arc::new(baton_mail::MailClient::new(
                baton_mail::MailAccount::from_settings(&self.settings, &self.secrets),
            ))
        }))
    }

    /// The MCP servers of `mcp.json` in the config folder and the plugins
    /// of the plugins folder (what cannot be used is left out, with a
    /// warning in the log and in [`baton_mcp::McpHub::problems`]). Inside a
    /// Tokio runtime both are watched, and read again once they have been
    /// quiet for the `pluginsReloadSecs` setting after a change.
    pub fn mcp(&self) -> Arc<baton_mcp::McpHub> {
        Arc::clone(self.mcp.get_or_init(|| {
            let secrets = self.secrets.clone();
            let lookup: baton_mcp::config::SecretLookup =
                Arc::new(move |name: &str| match secrets.api_key(name, None) {
                    Ok(key) => Ok(key.map(|k| k.value)),
                    Err(e) => Err(e.to_string()),
                });
            let hub = Arc::new(
                baton_mcp::McpHub::open(
                    self.paths.config_dir.clone(),
                    self.plugins_dir(),
                    MCP_CALL_TIMEOUT,
                )
                .with_secrets(lookup),
            );
            for (source, why) in hub.problems() {
                tracing::warn!(%source, "MCP servers left out: {why}");
            }
            let quiet = std::time::Duration::from_secs(self.settings.plugins_reload_secs.max(1));
            if tokio::runtime::Handle::try_current().is_ok()
                && let Err(e) = hub.watch(quiet)
            {
                tracing::warn!("plugins are not watched: {e}");
            }
            hub
        }))
    }

    /// The plugins folder: the `pluginsDir` setting (relative to the data
    /// folder), else `Tools` in the data folder.
    pub fn plugins_dir(&self) -> PathBuf {
        match &self.settings.plugins_dir {
            Some(dir) => self.paths.data_dir.join(dir), // absolute stays as is
            None => self.paths.data_dir.join("Tools"),
        }
    }

    /// Starts the MCP servers not running yet, so that toolkits made next
    /// offer their tools (quick once they run).
    pub async fn start_mcp(&self) {
        self.mcp().start().await;
    }

    /// Where sessions are saved.
    pub fn session_store(&self) -> baton_agent::SessionStore {
        baton_agent::SessionStore::new(self.paths.data_dir.join("sessions"))
    }
}
