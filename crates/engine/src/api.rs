//! The vocabulary of the front doors: every type a front door (the CLI,
//! the desktop shell, the HTTP and MCP servers) names when it talks to the
//! engine, re-exported from the crates that define it. A front door
//! depends on `baton-engine` alone (plus `baton-server` where it hosts
//! it, and telemetry) and imports from here, so a change inside the
//! agent, provider or toolbox crates reaches it only through this list.
//!
//! The top level holds what a turn is made of (messages, events, outcomes,
//! sessions, confirmations); each concern has a module of its own.

pub use baton_agent::{
    ActionResult, AgentEvent, BadSessionId, BranchError, Confirmations, Fork, MemorySessions,
    Questions, SESSION_ID_MAX, Session, SessionError, SessionId, SessionInfo, SessionRepo,
    SessionStore, StopReason, TurnEvent, TurnId, TurnOutcome, VoiceTurn, branch_of,
};
pub use baton_docs::{FileAttachment, split_prompt};
pub use baton_stdx::{error_chain, excerpt, mask};
pub use baton_tools::{Citation, Source};

/// API keys of the network doors.
pub use crate::keys;
pub use baton_llm::{
    ContentPart, Dialect, Image, InteractionMode, LlmError, Message, Readiness, ToolCall, Usage,
};

pub use crate::{
    AgentInfo, AgentResponder, Agents, AttachmentStore, CatalogModel, ChoiceReason, Clock,
    ConfirmMode, Conversation, ConversationOptions, Conversations, DIAGNOSTIC_TOOLS_ENV, Dictation,
    ENV_PROVIDERS, ENV_WORKSPACE, Engine, EngineError, IndexChoice, IndexListener, IndexState,
    LoadListener, Models, Overrides, PROBE_TIMEOUT, ProviderChoice, Providers, PulledModel,
    RestoreFileError, RestoredFile, Run, RunParts, Team, TeamRequest, TeamRun, ToolboxInfo,
    Toolkit, Tools, Turn, TurnControls, UserMessage, Voice, VoiceControls, VoiceInput,
    VoiceRequest, VoiceRun, read_attachments, refresh_in_background,
};

/// Settings, folders and the keychain.
pub mod settings {
    pub use baton_config::{
        BrowserMode, BrowserSettings, ConfigWatcher, DEFAULT_QUICK_SHORTCUT, DEFAULT_TALK_SHORTCUT,
        DesktopSettings, EmailSettings, InteractionMode, KeySource, Language, MailAuth,
        MailSecurity, MailServer, ResearchSearch, ResearchSettings, SecretError, SecretName,
        Secrets, ServerSettings, Settings, SettingsError, TalkMode, VoiceSettings, WatchError,
        conventional_env, parse_agents, watch_config,
    };
    /// A name the network doors answer to, checked (`server.hostNames`).
    pub use baton_stdx::host_name;
}

/// The workspace search index.
pub mod index {
    pub use baton_index::{IndexError, IndexProgress, WorkspaceIndex};
}

/// Converting files to Markdown.
pub mod convert {
    pub use baton_convert::convert_bounded;
}

/// Voice: devices, speech to text, text to speech and the voice loop.
pub mod voice {
    pub use baton_voice::{
        AudioSink, Control, EspeakTts, ListenMode, SentenceSplitter, Speech, SplitterOptions,
        TextToSpeech, TurnRecord, VoiceEvent, VoiceParts, run_voice_loop,
    };

    pub use crate::{check_stt_language, spoken_action, spoken_yes_no, tool_cue};

    /// Microphones, speakers and audio files.
    pub mod audio {
        pub use baton_voice::audio::{
            AudioChunks, DeviceInfo, Microphone, Speaker, decode_file, input_devices, open_speaker,
            output_devices, paced_source,
        };
    }

    /// Speech to text (Whisper).
    pub mod stt {
        pub use baton_voice::stt::{
            MULTILINGUAL_MODEL, Pass, STT_SAMPLE_RATE, SpeechToText, WHISPER_LANGUAGES,
            WhisperWorker, find_worker_binary, is_multilingual, is_whisper_language,
            whisper_models,
        };
    }
}

/// Teams of agents (orchestration).
pub mod team {
    pub use baton_orchestrator::{
        Assignment, Attachment, CancellationToken, EventHandler, Options, OrchestrationEvent,
        OrchestrationResult, OrchestratorError, Phase, SharedState, Stage, StateFactory,
    };
}

/// MCP servers and plugins, and serving Baton's tools over MCP.
pub mod mcp {
    pub use baton_mcp::{
        MCP_FILE, McpConfigError, ServerState, ServerStatus, Source, TRUST_FILE, Trust,
    };

    /// Serving Baton's toolboxes to other agents over MCP.
    pub mod server {
        pub use baton_mcp::server::{
            Acting, CatalogFactory, HttpOptions, KeyCheck, serve_http, serve_stdio,
        };
    }
}

/// Conversations out of and into Baton (`baton export`, `baton import`).
pub mod transfer {
    pub use crate::{ExportScope, ImportReport};
    pub use baton_transfer::{Dated, ExportFormat, Format, TransferError, baton_json, markdown};
}

/// Memory across chats: what the user asked Baton to remember.
pub mod memory {
    pub use baton_memory::{
        BadMemoryId, Memory, MemoryError, MemoryId, MemorySource, MemoryStore, render,
    };
}

/// Scheduled tasks: prompts Baton runs on its own on a schedule.
pub mod schedule {
    pub use crate::{CurrentEngine, LOOK_EVERY, OnRun, Scheduled, Scheduler, TaskReport};
    pub use baton_schedule::{
        BadTaskId, NewTask, RunStatus, Schedule, ScheduleError, ScheduledTask, TaskId, TaskRun,
        WhenError, shown,
    };
    pub use chrono_tz::Tz;
}

/// Deep research: a question answered from many web sources, each claim
/// with the passage it was read in.
pub mod research {
    pub use crate::{ResearchRequest, ResearchRun, Researching};
    pub use baton_research::{
        Claim, Dropped, DroppedWhy, FailedPage, Limits, Report, ResearchError, ResearchEvent,
        Source, Stage,
    };
}

/// Projects: chats grouped with their own folder, instructions, agent,
/// provider and memory.
pub mod projects {
    pub use crate::{Projects, RemovedProject};
    pub use baton_config::{NewProject, Project, ProjectError, ProjectId};
}

/// Local models: the catalog, this computer's fit, the models folder.
pub mod models {
    pub use baton_local::{list_models, resolve_model_path};
    pub use baton_models::{BATON_SERVER_HEADER, Fit, Hardware, Progress, Task};
}

/// Tools: the catalog, calls, the sandbox.
pub mod tools {
    pub use baton_tools::{
        CancellationToken, Catalog, Sandbox, ToolContext, ToolOutcome, ToolboxId, split_call,
    };
}

/// The browser toolbox and finding the user's browsers.
pub mod web {
    pub use baton_web::{WebTool, discover};
}

/// The spreadsheet toolbox.
pub mod sheet {
    pub use baton_sheet::{Description, SpreadsheetTool};
}
