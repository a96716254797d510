//! Baton's configuration: where its files live, the user's settings
//! (`setup.json`) and the secrets kept in the OS keychain.
//!
//! Settings are plain JSON in the platform config directory; secrets never
//! touch that file: they live in the keychain (Secret Service, macOS
//! Keychain, Windows Credential Manager) and environment variables override
//! them.
//!
//! Files are written atomically (`baton_stdx::atomic_write_private`).

mod agents;
mod paths;
mod projects;
mod secrets;
mod seed_setup;
mod settings;
mod watch;

pub use agents::{
    AGENTS_FILE, AgentDef, AgentsError, DEFAULT_AGENT, FACTORY_AGENTS_JSON, LoadedAgents,
    ToolboxRef, parse_agents,
};
pub use paths::{BatonPaths, PathsError};
pub use projects::{
    BadProjectId, MAX_NAME_CHARS as MAX_PROJECT_NAME_CHARS, NewProject, PROJECTS_FILE, Project,
    ProjectError, ProjectId, ProjectStore,
};
pub use secrets::{
    KEYCHAIN_SERVICE, KeySource, ResolvedKey, SecretError, SecretName, Secrets, conventional_env,
};
pub use settings::{
    BrowserMode, BrowserSettings, DEFAULT_QUICK_SHORTCUT, DEFAULT_TALK_SHORTCUT, DesktopSettings,
    EmailSettings, InteractionMode, Language, LoadedSettings, LocalServer, LocalServerKind,
    MailAuth, MailSecurity, MailServer, ResearchSearch, ResearchSettings, SETTINGS_FILE,
    ServerSettings, Settings, SettingsError, TalkMode, VoiceSettings, default_local_servers,
};
pub use watch::{ConfigWatcher, WatchError, watch_config};
