//! Baton's engine, assembled from the settings: the one place that turns
//! settings, providers and the keychain into providers, toolboxes, the
//! workspace index, attachment contexts, agents and the session store.
//! The CLI, the desktop shell and the HTTP server are thin front doors
//! over an [`Engine`]; none of them builds these parts itself.

mod agents;
pub mod api;
mod attachments;
mod build;
mod conversation;
mod conversations;
mod diagnostics;
mod error;
mod first_run;
mod index;
pub mod keys;
mod models;
mod now;
mod projects;
mod prompts;
mod providers;
mod readiness;
mod research;
mod restore;
mod run;
mod schedule;
mod team;
mod tools;
mod user_providers;
mod voice;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use baton_config::{BatonPaths, Secrets, Settings, SettingsError};
use baton_convert::ConvertOptions;
use baton_docs::ConversionCache;
use baton_llm::{LoadOptions, ProvidersFile};

pub use agents::{AgentInfo, Agents, ToolboxInfo, Toolkit, compaction_for};
pub use attachments::{AttachmentStore, read_attachments};
pub use build::LoadListener;
pub use conversation::{
    ConfirmMode, Conversation, ConversationOptions, IndexChoice, Turn, TurnControls, UserMessage,
    attachment_note, drop_last_exchange,
};
pub use conversations::{Conversations, ExportScope, ImportReport};
pub use diagnostics::{DIAGNOSTIC_TOOLS_ENV, Diagnostics, diagnostics_enabled};
pub use error::EngineError;
pub use first_run::{
    ChoiceReason, PROBE_TIMEOUT, ProviderChoice, entry_name as local_server_entry_name,
};
pub use index::{IndexListener, IndexState, refresh_in_background};
pub use models::{CatalogModel, Models, PulledModel};
pub use now::{Clock, NowContext};
pub use projects::{Projects, RemovedProject};
pub use providers::{ProviderInfo, Providers};
pub use readiness::local_readiness;
pub use research::{ResearchRequest, ResearchRun, Researching};
pub use restore::{RestoreFileError, RestoredFile};
pub use run::{EventSource, Run, RunParts};
pub use schedule::{CurrentEngine, LOOK_EVERY, OnRun, Scheduled, Scheduler, TaskReport};
pub use team::{Team, TeamRequest, TeamRun};
pub use tools::Tools;
pub use voice::{
    AgentResponder, Dictation, VOICE_INSTRUCTIONS, Voice, VoiceChoices, VoiceControls, VoiceInput,
    VoiceLanguage, VoiceRequest, VoiceRun, check_stt_language, spoken_action, spoken_yes_no,
    tool_cue,
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

/// What an engine makes on first use: one of each for the process,
/// shared by the engines of its projects.
#[derive(Default)]
struct Shared {
    conversions: OnceLock<Arc<ConversionCache>>,
    convert: OnceLock<ConvertOptions>,
    /// Picks the passages of attachments too long for the prompt.
    passages: OnceLock<Arc<baton_index::PassageFinder>>,
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
    /// The local embedding model, shared by the workspace indexes and the
    /// attachment passages (loaded on first use; stopped by `close`).
    embedder: OnceLock<Arc<baton_embed::SharedEmbedder>>,
    /// What the user asked Baton to remember (`memory.json`).
    memory: OnceLock<Arc<baton_memory::MemoryStore>>,
    /// The remembered texts' vectors, for recall by meaning (the user's
    /// and every project's memory).
    memory_vectors: OnceLock<Arc<baton_memory::MemoryVectors>>,
    /// The scheduled tasks (`schedule.json`).
    tasks: OnceLock<Arc<baton_schedule::TaskStore>>,
}

/// Loaded configuration and the shared parts made from it.
pub struct Engine {
    /// Baton's folders.
    paths: BatonPaths,
    /// The settings.
    settings: Settings,
    /// The merged providers.
    providers: ProvidersFile,
    /// Keychain access (opened lazily).
    secrets: Secrets,
    /// The workspace root after overrides.
    workspace: PathBuf,
    /// Warnings from loading settings and providers, for the user.
    warnings: Vec<String>,
    overrides: Overrides,
    /// The parts made on first use, shared with the engines of its
    /// projects.
    shared: Arc<Shared>,
    /// The named agents.
    agents_file: baton_config::LoadedAgents,
    /// Where conversations get the time (the system clock unless a test
    /// sets one).
    clock: Option<Clock>,
    /// The agents kept between turns, and what each was built for.
    kept_agents: tokio::sync::Mutex<Vec<(String, Arc<baton_agent::Agent>)>>,
    /// The project this engine works in (`None`: the user's workspace).
    project: Option<baton_config::Project>,
    /// The engines of the projects opened so far (each keeps its agents).
    project_engines: std::sync::Mutex<Vec<Arc<Engine>>>,
    /// Model servers found running on this computer; `None` until
    /// [`Engine::discover`] looked.
    found_servers: Option<Vec<baton_models::FoundServer>>,
    /// The provider picked because none was chosen.
    choice: Option<ProviderChoice>,
    /// The providers files chose the default (see
    /// [`baton_llm::LoadedProviders::default_chosen`]).
    default_chosen: bool,
}

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
            shared: Arc::default(),
            agents_file,
            clock: None,
            kept_agents: tokio::sync::Mutex::new(Vec::new()),
            project: None,
            project_engines: std::sync::Mutex::new(Vec::new()),
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
            first_run::apply_discovery(&mut engine, found.clone());
        }
        engine.project = self.project.clone();
        Ok(engine)
    }

    /// [`reload`](Self::reload) when the files on disk now make a
    /// different engine (settings, providers or agents changed since this
    /// one was loaded, e.g. by `baton config set` in another process);
    /// `None` when they say what this one already does (a front door's
    /// own save, an editor saving an unchanged file).
    pub fn reload_if_changed(&self) -> Result<Option<Self>, EngineError> {
        let fresh = self.reload()?;
        let same = fresh.settings == self.settings
            && fresh.providers == self.providers
            && fresh.agents_file == self.agents_file;
        Ok((!same).then_some(fresh))
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

    /// Looks for model servers on this computer (unless the
    /// `probeLocalServers` setting is off), lists their models as
    /// providers, and picks a provider when none is chosen.
    pub async fn discover(mut self, timeout: std::time::Duration) -> Self {
        let found = if self.settings.probe_local_servers {
            baton_models::probe(&self.settings.local_servers, timeout).await
        } else {
            Vec::new()
        };
        first_run::apply_discovery(&mut self, found);
        self
    }

    /// Baton's folders.
    pub fn paths(&self) -> &BatonPaths {
        &self.paths
    }

    /// The settings the engine was loaded with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The workspace folder after overrides (the documents the agent sees
    /// as `/`).
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The project this engine works in (`None`: the user's workspace);
    /// see [`Projects::engine`].
    pub fn project(&self) -> Option<&baton_config::Project> {
        self.project.as_ref()
    }

    /// This engine over `project`'s folder, sharing its settings and the
    /// parts made on first use.
    fn in_project(&self, project: baton_config::Project) -> Engine {
        let mut overrides = self.overrides.clone();
        overrides.workspace = Some(project.folder.clone());
        Engine {
            paths: self.paths.clone(),
            settings: self.settings.clone(),
            providers: self.providers.clone(),
            secrets: self.secrets.clone(),
            workspace: project.folder.clone(),
            warnings: Vec::new(),
            overrides,
            shared: Arc::clone(&self.shared),
            agents_file: self.agents_file.clone(),
            clock: self.clock.clone(),
            kept_agents: tokio::sync::Mutex::new(Vec::new()),
            project: Some(project),
            project_engines: std::sync::Mutex::new(Vec::new()),
            found_servers: self.found_servers.clone(),
            choice: self.choice.clone(),
            default_chosen: self.default_chosen,
        }
    }

    /// Warnings from loading settings, providers and agents, for the user.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The OS keychain (API keys and mail passwords; opened lazily).
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Changes the settings: `change` edits a copy of the settings as they
    /// are on disk now (so a change made elsewhere meanwhile is kept), the
    /// result is checked, saved atomically, and the engine re-read from
    /// it is returned for the front door to use from now on. On an error
    /// nothing is written.
    pub fn update_settings(
        &self,
        change: impl FnOnce(&mut Settings) -> Result<(), SettingsError>,
    ) -> Result<Self, EngineError> {
        self.save_settings(change)?;
        self.reload()
    }

    /// [`update_settings`](Self::update_settings) without re-reading the
    /// engine (for a change this engine need not see).
    fn save_settings(
        &self,
        change: impl FnOnce(&mut Settings) -> Result<(), SettingsError>,
    ) -> Result<(), SettingsError> {
        let file = self.paths.settings_file();
        let loaded = Settings::load(&file);
        // A file that could not be read is not the user's latest word.
        let mut settings = match loaded.warnings.is_empty() {
            true => loaded.settings,
            false => self.settings.clone(),
        };
        change(&mut settings)?;
        settings.save(&file)
    }

    /// Closes the agents kept between turns (their toolboxes), a browser
    /// Baton started (an attached one keeps running) and the MCP servers
    /// and plugins; the next turn builds a new agent, and the browser and
    /// servers start again when needed.
    pub async fn close(&self) {
        let mut kept: Vec<_> = self.kept_agents.lock().await.drain(..).collect();
        let projects: Vec<_> = std::mem::take(
            &mut *self
                .project_engines
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        for engine in projects {
            kept.extend(engine.kept_agents.lock().await.drain(..));
        }
        for (_, agent) in kept {
            agent.close().await;
        }
        for hub in [self.shared.browser.get(), self.shared.printer.get()]
            .into_iter()
            .flatten()
        {
            hub.shutdown().await;
        }
        // The MCP servers and plugins it started stop too.
        if let Some(mcp) = self.shared.mcp.get() {
            mcp.close().await;
        }
        // Background indexers finish the chunk batch they are embedding
        // and embed no more (a later scan embeds what they left).
        if let Some(embedder) = self.shared.embedder.get().cloned() {
            let _ = tokio::task::spawn_blocking(move || embedder.stop()).await;
        }
    }

    /// Memory across chats: what the user asked Baton to remember, in the
    /// data folder (`baton memory`, the `remember` tool; recalled into each
    /// turn while the `memory` setting is on).
    pub fn memory(&self) -> Arc<baton_memory::MemoryStore> {
        Arc::clone(
            self.shared
                .memory
                .get_or_init(|| Arc::new(baton_memory::MemoryStore::in_dir(&self.paths.data_dir))),
        )
    }

    /// The scheduled tasks file, in the data folder (one for the process:
    /// tasks are the user's, not a project's).
    pub(crate) fn task_store(&self) -> Arc<baton_schedule::TaskStore> {
        Arc::clone(
            self.shared
                .tasks
                .get_or_init(|| Arc::new(baton_schedule::TaskStore::in_dir(&self.paths.data_dir))),
        )
    }

    /// The engine's clock (a test's, else the system's) in UTC, for parts
    /// that keep it.
    pub(crate) fn utc_clock(&self) -> baton_schedule::UtcClock {
        match &self.clock {
            Some(c) => {
                let c = Arc::clone(c);
                Arc::new(move || c().with_timezone(&chrono::Utc))
            }
            None => Arc::new(chrono::Utc::now),
        }
    }

    /// The time now, on the engine's clock.
    pub(crate) fn utc_now(&self) -> chrono::DateTime<chrono::Utc> {
        (self.utc_clock())()
    }

    /// The local embedding model (none installed, or `searchByMeaning`
    /// off: nothing is embedded), one for the process.
    pub(crate) fn embedder(&self) -> Arc<baton_embed::SharedEmbedder> {
        Arc::clone(self.shared.embedder.get_or_init(|| {
            baton_embed::SharedEmbedder::new(
                self.settings
                    .search_by_meaning
                    .then(|| baton_embed::ModelFiles::in_models_dir(&self.paths.models_dir))
                    .flatten(),
            )
        }))
    }

    /// The remembered texts' vectors from the local embedding model, one
    /// set for the process (recall by meaning; by words without a model).
    pub(crate) fn memory_vectors(&self) -> Arc<baton_memory::MemoryVectors> {
        Arc::clone(
            self.shared
                .memory_vectors
                .get_or_init(|| baton_memory::MemoryVectors::new(self.embedder())),
        )
    }

    /// Conversations: opening, sessions and attached files.
    pub fn conversations(self: &Arc<Self>) -> Conversations<'_> {
        Conversations { e: self }
    }

    /// Projects: groups of chats with their own folder, instructions,
    /// agent, provider and memory.
    pub fn projects(self: &Arc<Self>) -> Projects<'_> {
        Projects { e: self }
    }

    /// The project's own memory, in a project.
    pub(crate) fn project_memory(&self) -> Option<Arc<baton_memory::MemoryStore>> {
        let p = self.project.as_ref()?;
        Some(Arc::new(baton_memory::MemoryStore::in_dir(
            &projects::data_dir(&self.paths, &p.id),
        )))
    }

    /// Where what is remembered here goes: the project's memory in a
    /// project, else the user's.
    pub fn memory_here(&self) -> Arc<baton_memory::MemoryStore> {
        self.project_memory().unwrap_or_else(|| self.memory())
    }

    /// Forgets memory `id`, the user's or any project's (ids are unique).
    pub fn forget_memory(
        self: &Arc<Self>,
        id: &baton_memory::MemoryId,
    ) -> Result<baton_memory::Memory, EngineError> {
        let not_found = |r: &Result<_, baton_memory::MemoryError>| {
            matches!(r, Err(baton_memory::MemoryError::NotFound(_)))
        };
        let mut done = self.memory().remove(id);
        for p in self.projects().list()? {
            if !not_found(&done) {
                break;
            }
            done = self.projects().memory(&p.id).remove(id);
        }
        Ok(done?)
    }

    /// The named agents and what each resolves to.
    pub fn agents(&self) -> Agents<'_> {
        Agents { e: self }
    }

    /// Provider entries: choosing, opening, readiness, the user's file.
    pub fn providers(&self) -> Providers<'_> {
        Providers { e: self }
    }

    /// The catalog of local models: listing, pulling, deleting.
    pub fn models(&self) -> Models<'_> {
        Models { e: self }
    }

    /// The toolboxes and what they share: the sandbox, the index, the
    /// browser, the mailbox, MCP servers and plugins, backups.
    pub fn tools(&self) -> Tools<'_> {
        Tools { e: self }
    }

    /// Voice: speech models, speech engines, voice conversations.
    pub fn voice(self: &Arc<Self>) -> Voice<'_> {
        Voice { e: self }
    }

    /// Teams of agents (orchestration).
    pub fn team(self: &Arc<Self>) -> Team<'_> {
        Team { e: self }
    }

    /// Deep research: a question answered from many web sources, each
    /// claim with the passage it was read in.
    pub fn research(self: &Arc<Self>) -> Researching<'_> {
        Researching { e: self }
    }

    /// Scheduled tasks: prompts run on their own on a schedule, each in a
    /// chat of its own, and the scheduler that runs them.
    pub fn schedule(self: &Arc<Self>) -> Scheduled<'_> {
        Scheduled { e: self }
    }

    /// The per-call context of conversations on the engine's clock: the
    /// time and the workspace.
    fn now(&self) -> NowContext {
        let workspace = self.workspace.clone();
        match &self.clock {
            Some(c) => NowContext::with_clock(workspace, Arc::clone(c)),
            None => NowContext::new(workspace),
        }
    }
}
