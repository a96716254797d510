//! The engine's failures, in words a user can act on.

/// Why the engine could not do what a front door asked.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Baton's folders could not be found.
    #[error(transparent)]
    Paths(#[from] baton_config::PathsError),
    /// The settings could not be changed or saved.
    #[error(transparent)]
    Settings(#[from] baton_config::SettingsError),
    /// The providers file is missing or invalid, or names no such entry.
    #[error(transparent)]
    Providers(#[from] baton_llm::ProvidersError),
    /// A provider could not be opened.
    #[error(transparent)]
    Provider(#[from] baton_llm::LlmError),
    /// The workspace folder cannot be used.
    #[error("the workspace {path} cannot be used ({reason}); choose another folder")]
    Workspace {
        /// The folder.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
    /// The search index could not be opened.
    #[error(transparent)]
    Index(#[from] baton_index::IndexError),
    /// The toolboxes could not be registered.
    #[error(transparent)]
    Catalog(#[from] baton_tools::CatalogError),
    /// The user's providers file cannot be edited.
    #[error("cannot change {path}: {reason}")]
    UserProviders {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
    /// A named agent does not exist or cannot be built as configured.
    #[error("agent `{name}`: {reason}")]
    Agent {
        /// The agent's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A project could not be found, made or changed.
    #[error(transparent)]
    Project(#[from] baton_config::ProjectError),
    /// What the user asked to remember could not be read or changed.
    #[error(transparent)]
    Memory(#[from] baton_memory::MemoryError),
    /// A scheduled task could not be made, found or kept.
    #[error(transparent)]
    Schedule(#[from] baton_schedule::ScheduleError),
    /// A research job could not start (its search is not set up) or its
    /// report could not be saved.
    #[error("research: {0}")]
    Research(String),
    /// A branch that is not there.
    #[error(transparent)]
    Branch(#[from] baton_agent::BranchError),
    /// A saved conversation could not be loaded or saved.
    #[error(transparent)]
    Session(#[from] baton_agent::SessionError),
    /// An export that could not be read (nothing was imported).
    #[error(transparent)]
    Transfer(#[from] baton_transfer::TransferError),
    /// A conversation file that could not be written on export or import.
    #[error("{path}: {reason}")]
    TransferFile {
        /// The file.
        path: std::path::PathBuf,
        /// The system's words.
        reason: String,
    },
    /// An attachment could not be read.
    #[error("cannot read the attachment {path}: {source}")]
    Attachment {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A catalog model could not be found, downloaded or removed.
    #[error(transparent)]
    ModelCatalog(#[from] baton_models::CatalogError),
    /// A download failed.
    #[error(transparent)]
    Pull(#[from] baton_models::PullError),
    /// The speech engine could not start.
    #[error(transparent)]
    Speech(#[from] baton_voice::TtsError),
    /// Speech recognition could not start (no model, no worker).
    #[error(transparent)]
    Listen(#[from] baton_voice::stt::SttError),
    /// A microphone, speaker or recording could not be opened.
    #[error(transparent)]
    Audio(#[from] baton_voice::audio::AudioError),
    /// A voice conversation could not start for another reason.
    #[error("the voice conversation could not start: {0}")]
    VoiceStart(String),
    /// A control was sent to a voice conversation that has ended.
    #[error("no voice conversation is running")]
    VoiceEnded,
}
