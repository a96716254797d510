//! Values that cross the IPC boundary, their TypeScript twins generated into
//! `ui/src/lib/bindings.ts` by tauri-specta (the UI and the shell cannot
//! drift). Numbers are `u32`, or finite `f64` as `number`; fields camelCase;
//! what is only sent to the UI is `Serialize` only.

use baton_engine::api::Citation;
use baton_engine::api::settings::{
    BrowserMode, BrowserSettings, EmailSettings, MailServer, ServerSettings, VoiceSettings,
};
use serde::{Deserialize, Serialize};
use specta::Type;
use specta_typescript::Number;

mod sessions;
pub use sessions::{
    BranchView, MessageView, SessionSummary, SessionView, SpokenView, ToolCallView,
};

/// A failure the UI can show: a stable code to branch on, a sentence for
/// the user and optional details (the underlying error chain).
#[derive(Debug, Clone, Serialize, Type, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct IpcError {
    /// What kind of failure.
    pub code: ErrorCode,
    /// One plain sentence for the user.
    pub message: String,
    /// More for the curious (the error chain), if any.
    pub details: Option<String>,
}

/// The kinds of failure a command reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request itself is wrong (empty message, unknown attachment id…).
    InvalidInput,
    /// A session, provider or attachment that does not exist.
    NotFound,
    /// The model provider failed (network, key, timeout).
    Provider,
    /// The OS keychain is unavailable or refused.
    Keychain,
    /// Reading or writing a file failed.
    Io,
    /// Something else is running (a turn in flight, an index rebuild).
    Busy,
    /// Settings or providers could not be saved or are invalid.
    Config,
    /// The microphone, speaker, speech-to-text or speech engine failed.
    Audio,
    /// A model download failed (network, disk space, wrong hash) or was stopped.
    Download,
    /// Anything else.
    Internal,
}

/// One thing that happened during a chat turn, streamed over the turn's
/// channel in order.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ChatEvent {
    /// The turn started; the session it belongs to (new chats get an id here).
    Started {
        /// Session id.
        session_id: String,
        /// Session title (from the first message).
        title: String,
    },
    /// More answer text (Markdown).
    TextDelta {
        /// The text.
        text: String,
    },
    /// A tool call starts.
    ToolStarted {
        /// Call id (pairs with `toolFinished`).
        id: String,
        /// Tool method.
        name: String,
        /// Arguments as pretty JSON text.
        arguments: String,
    },
    /// A tool call ended.
    ToolFinished {
        /// Call id.
        id: String,
        /// Tool method as resolved.
        name: String,
        /// Result (or the error the model saw) as pretty JSON text.
        result: String,
        /// Whether the call failed.
        is_error: bool,
        /// How long it took.
        #[specta(type = Number)]
        duration_ms: f64,
        /// A thumbnail of the step as a `data:` URL (a browser page after
        /// the step); absent when the step has none.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[specta(optional)]
        preview: Option<String>,
    },
    /// A subagent got a task.
    SubagentDelegated {
        /// Its session id.
        session_id: String,
        /// The task.
        task: String,
    },
    /// A subagent paused with a question for the user; the turn waits
    /// for `answerQuestion` (an answer, or `null` to let the delegating
    /// agent answer), or for Stop.
    SubagentAsked {
        /// Its session id (the question's id for `answerQuestion`).
        session_id: String,
        /// The question.
        question: String,
    },
    /// The user's answer reached the subagent; it goes on.
    SubagentAnswered {
        /// Its session id.
        session_id: String,
        /// The answer.
        answer: String,
    },
    /// A subagent finished.
    SubagentFinished {
        /// Its session id.
        session_id: String,
        /// It finished with an answer (not stopped early).
        answered: bool,
        /// Milliseconds since it was delegated to.
        #[specta(type = u32)]
        elapsed_ms: u64,
    },
    /// The history was compacted to fit the context.
    Compacted {
        /// Messages before.
        before: u32,
        /// Messages after.
        after: u32,
    },
    /// Tokens used by one model call.
    Usage {
        /// Prompt tokens.
        input_tokens: u32,
        /// Answer tokens.
        output_tokens: u32,
    },
    /// A tool that sends something off this machine waits for the user's
    /// yes or no (`answerConfirmation`).
    ConfirmationRequested {
        /// The request's id.
        id: String,
        /// The tool (`Toolbox.method`).
        tool: String,
        /// Its exact arguments as pretty JSON text.
        arguments: String,
        /// What will really happen, in words, when the tool can tell more
        /// than its arguments (the element a click lands on, where it leads).
        action: Option<String>,
    },
    /// A confirmation was answered (or the turn stopped).
    ConfirmationResolved {
        /// The request's id.
        id: String,
        /// Whether the action ran.
        approved: bool,
    },
    /// A note that is not part of the answer (an attachment cut or not read).
    Notice {
        /// The note.
        message: String,
    },
    /// A slash command's reply (no model call was made).
    CommandReply {
        /// The reply text.
        text: String,
    },
    /// Something failed; the turn ends after this.
    Error {
        /// Plain-words message.
        message: String,
    },
    /// The workspace passages the answer cites (sent before `done` when it
    /// cites any, or when citations to passages never given were taken
    /// out of it).
    Cited {
        /// Each citation, in the order first cited.
        citations: Vec<Citation>,
        /// Citations to passages the model was never given (taken out).
        dropped: u32,
        /// The answer with those taken out; absent when nothing was.
        answer: Option<String>,
    },
    /// The turn ended.
    Done {
        /// Why.
        reason: TurnEnd,
    },
}

/// The research settings as Settings → Research edits them.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ResearchSettingsView {
    /// The settings.
    #[serde(flatten)]
    pub settings: baton_engine::api::settings::ResearchSettings,
    /// Whether Brave Search's key is set (read-only).
    #[serde(default)]
    pub brave_key_set: bool,
    /// Whether Tavily's key is set (read-only).
    #[serde(default)]
    pub tavily_key_set: bool,
}

/// The kind of file a research report is saved as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Type)]
#[serde(rename_all = "lowercase")]
pub enum ReportFormat {
    /// A Word document.
    Docx,
    /// A PDF.
    Pdf,
    /// Markdown.
    Md,
}

impl ReportFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Docx => "docx",
            Self::Pdf => "pdf",
            Self::Md => "md",
        }
    }
}

/// Why a turn ended, as the chat view tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum TurnEnd {
    /// The answer (or a subagent's question) is complete.
    Answered,
    /// The user stopped it.
    Stopped,
    /// The model call failed.
    Error,
    /// A step, token or repeat limit stopped it.
    Limit,
    /// A slash command was answered.
    Command,
}

/// What the composer sends.
#[derive(Debug, Clone, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SendRequest {
    /// The session to continue; `null` starts a new one.
    pub session_id: Option<String>,
    /// The message (or a slash command such as `/model NAME`).
    pub text: String,
    /// Pending attachments to send with it (ids from `attachPaths`/`attachBytes`).
    pub attachment_ids: Vec<String>,
    /// Edit-and-resend: replace the last user message (and what followed
    /// it, kept as a branch).
    pub replace_last: bool,
    /// Edit user message number `n` (0: the first) and send it as a new
    /// branch; what followed it stays as a branch to switch back to.
    #[serde(default)]
    pub edit: Option<u32>,
    /// The named agent to talk to (`listAgents`); `null`: the
    /// conversation's own, else the default. The conversation remembers it.
    #[serde(default)]
    pub agent: Option<String>,
    /// A new conversation's project (its id; `null`: none).
    #[serde(default)]
    pub project: Option<String>,
}

/// What a finished turn left behind.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TurnResult {
    /// The session (new chats get one).
    pub session_id: String,
    /// Its title.
    pub title: String,
    /// Why the turn ended.
    pub reason: TurnEnd,
}

/// A file waiting in the composer.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentView {
    /// Id to send or remove it by.
    pub id: String,
    /// File name.
    pub name: String,
    /// Size in bytes.
    #[specta(type = Number)]
    pub size: f64,
    /// Conversion state.
    pub state: AttachmentState,
}

/// Where an attachment's conversion to Markdown stands.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum AttachmentState {
    /// Being converted.
    Converting,
    /// Converted and ready to send.
    Ready {
        /// Format label, e.g. `PDF`.
        format: String,
        /// Characters of Markdown.
        chars: u32,
        /// Pages, where the format has them.
        pages: Option<u32>,
    },
    /// Cannot be read; it will be sent as a note saying why.
    Skipped {
        /// Why, in plain words.
        reason: String,
    },
}

/// Which of Baton's windows: the main one, the quick window (each with
/// its own composer and pending files) or the push-to-talk overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum Pane {
    /// The main window's chat.
    Main,
    /// The quick window (opened by the global shortcut).
    Quick,
    /// The push-to-talk overlay (shown while the talk shortcut is used).
    Talk,
}

impl Pane {
    /// The quick window's label.
    pub const QUICK_LABEL: &'static str = "quick";
    /// The main window's label.
    pub const MAIN_LABEL: &'static str = "main";
    /// The push-to-talk overlay's label.
    pub const TALK_LABEL: &'static str = "talk";

    /// The pane of the window labelled `label`.
    pub fn of(label: &str) -> Self {
        match label {
            Self::QUICK_LABEL => Self::Quick,
            Self::TALK_LABEL => Self::Talk,
            _ => Self::Main,
        }
    }

    /// Its window's label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Main => Self::MAIN_LABEL,
            Self::Quick => Self::QUICK_LABEL,
            Self::Talk => Self::TALK_LABEL,
        }
    }
}

/// Sent when an attachment is added, changes state or is removed.
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentsChanged {
    /// The window whose composer changed.
    pub pane: Pane,
    /// All its pending attachments, in the order they were added.
    pub attachments: Vec<AttachmentView>,
}

/// What the tray, the quick window or a second launch asks of the main
/// window.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum WindowRequest {
    /// Start an empty chat.
    NewChat,
    /// Show this saved conversation (the quick window's exchange moved
    /// here).
    OpenChat {
        /// The conversation.
        session_id: String,
    },
    /// Start a voice conversation.
    Voice,
}

/// Sent to the main window with a [`WindowRequest`].
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct MainWindowRequest {
    /// What to do.
    pub request: WindowRequest,
}

/// Sent when the quick window is shown (its question box takes the
/// focus).
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct QuickWindowShown {}

/// What the push-to-talk overlay shows: the voice conversation's events
/// (`starting` before the first, when the microphone and the speech model
/// are being opened).
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct TalkEvent {
    /// Opening the microphone and the speech model (no event yet).
    pub starting: bool,
    /// The event, if one.
    pub event: Option<baton_engine::api::voice::VoiceEvent>,
    /// Dictation (`desktop.talkMode`): what is heard is typed into the
    /// application in front, not answered; its transcript event says
    /// what was typed, and no event (not starting) that the key was
    /// released and what was said is being written down.
    pub dictating: bool,
}

/// The desktop section of the settings and how it is applied now.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct DesktopStatus {
    /// As saved.
    pub settings: baton_engine::api::settings::DesktopSettings,
    /// Why the quick window's shortcut is not working now (taken by
    /// another application, not a shortcut), if it is not.
    pub shortcut_error: Option<String>,
    /// Why the push-to-talk shortcut is not working now, if it is not.
    pub talk_shortcut_error: Option<String>,
    /// Whether Baton has an icon in the tray (closing the window keeps it
    /// running only then).
    pub tray: bool,
    /// The system's language where Baton speaks it, else English (what
    /// no language chosen means).
    pub system_language: baton_engine::api::settings::Language,
}

/// The settings the panel edits (the keychain holds keys, never these).
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// Chosen provider entry (`null`: the providers file's default).
    pub provider: Option<String>,
    /// Workspace folder.
    pub workspace: String,
    /// `api`, `cli`, or `null` for the entry's own mode.
    pub interaction_mode: Option<String>,
    /// Replace registered terms before anything leaves the machine.
    pub anonymize: bool,
    /// Terms to anonymize.
    pub anonymize_terms: Vec<String>,
    /// Characters of attachment text sent with one message.
    pub attachment_context_chars: u32,
    /// Skip the workspace index refresh at start-up.
    pub skip_indexing_on_startup: bool,
    /// Memory across chats: recall and the `remember` tool.
    pub memory: bool,
    /// Provider entry used for OCR (`null`: automatic).
    pub ocr_provider: Option<String>,
}

/// Whether a provider's key is in the keychain, masked.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct KeyStatus {
    /// Provider entry.
    pub provider: String,
    /// A key is stored in the keychain.
    pub stored: bool,
    /// The key masked, e.g. `sk-…9f2c`.
    pub masked: Option<String>,
    /// Where the key in use comes from: `keychain`, `environment` or `none`.
    pub source: String,
}

/// The workspace index (also sent, throttled, while it is scanned).
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct IndexStatus {
    /// Workspace folder.
    pub workspace: String,
    /// `idle`, `indexing`, `busy` (another process owns it) or `off`.
    pub state: String,
    /// Documents in the index.
    pub documents: u32,
    /// Files done in the running scan.
    pub done: u32,
    /// Files to scan in the running scan (0 when unknown).
    pub total: u32,
    /// Last failure, if any.
    pub error: Option<String>,
}

/// Sent when the settings, agents or providers were changed outside the
/// app (`baton config set`, an editor) and the app now works with them.
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct SettingsChanged {
    /// The workspace folder moved (it is being indexed again).
    pub workspace_moved: bool,
}

/// Sent to every window when the app's language changed (Settings →
/// Desktop, or the settings file edited): the UI shows it from then on.
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct LanguageChanged {
    /// The language now in use.
    pub language: baton_engine::api::settings::Language,
}

/// Sent when a scheduled task ran (while the app is open): the window
/// shows it and the task's chat.
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct TaskRan {
    /// The task's id.
    pub task_id: String,
    /// What it asks.
    pub prompt: String,
    /// How the run ended.
    pub status: baton_engine::api::schedule::RunStatus,
    /// The answer's first words, why it failed, or what waits for a yes.
    pub summary: String,
    /// The chat the run is kept in.
    pub session: String,
    /// Its next run (RFC 3339), if it runs again.
    pub next_run: Option<String>,
}

/// Sent while the embedded model loads into memory (its first answer).
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct ModelLoad {
    /// The provider entry.
    pub provider: String,
    /// 0–100.
    #[specta(type = Number)]
    pub percent: f32,
}

/// What the title bar and the empty chat show.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// Baton's version.
    pub version: String,
    /// Provider entry in use.
    pub provider: String,
    /// Its model.
    pub model: String,
    /// Workspace folder.
    pub workspace: String,
    /// Warnings from loading settings and providers.
    pub warnings: Vec<String>,
    /// Set when no provider was chosen yet and Baton picked this one (the
    /// onboarding card says which and why).
    pub first_run: Option<baton_engine::ProviderChoice>,
}

/// The sound devices present.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AudioDevices {
    /// Microphones.
    pub inputs: Vec<baton_engine::api::voice::audio::DeviceInfo>,
    /// Speakers.
    pub outputs: Vec<baton_engine::api::voice::audio::DeviceInfo>,
    /// Why the list is empty (no sound server…), if it is.
    pub error: Option<String>,
}

/// Voice settings as the panel edits them (the engine's own section), with
/// the choices available.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VoiceSettingsView {
    /// The settings.
    #[serde(flatten)]
    pub settings: VoiceSettings,
    /// The choices for them (read-only).
    #[serde(flatten)]
    pub choices: baton_engine::VoiceChoices,
}

/// What a started voice conversation uses.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VoiceStarted {
    /// Speech-to-text engine and model.
    pub stt: String,
    /// Speech engine.
    pub tts: String,
    /// The microphone's name.
    pub microphone: String,
    /// Hands-free (`false`) or push-to-talk.
    pub push_to_talk: bool,
    /// The conversation the turns are saved in (it shows in the sidebar
    /// and can be continued by typing).
    pub session_id: String,
}

/// A browser found on this computer.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FoundBrowser {
    /// Its name (`Microsoft Edge`).
    pub name: String,
    /// Its program.
    pub program: String,
    /// Whether Baton can attach to it now.
    pub attach_ready: bool,
    /// Why not, or how to allow it, in plain words.
    pub attach_status: String,
    /// The page where the user allows remote debugging.
    pub inspect_page: String,
}

/// The browser settings as the panel edits them (the engine's own section).
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BrowserSettingsView {
    /// The settings.
    #[serde(flatten)]
    pub settings: BrowserSettings,
    /// The browsers found (read-only).
    #[serde(default)]
    pub browsers: Vec<FoundBrowser>,
}

/// What testing the browser connection found.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BrowserTest {
    /// Whether Baton reached a browser.
    pub ok: bool,
    /// The mode it used.
    pub mode: Option<BrowserMode>,
    /// What happened, in plain words.
    pub message: String,
}

/// One mail server as the panel edits it (the engine's own section).
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MailServerView {
    /// The server.
    #[serde(flatten)]
    pub server: MailServer,
    /// Whether its password is in the keychain (read-only).
    #[serde(default)]
    pub password_set: bool,
}

/// The e-mail settings as the panel edits them. Passwords travel only
/// into the keychain (`save_mail_settings`), never back.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MailSettingsView {
    /// The user's address and whether sending asks.
    #[serde(flatten)]
    pub email: EmailSettings,
    /// Incoming mail.
    pub imap: MailServerView,
    /// Outgoing mail.
    pub smtp: MailServerView,
}

/// One server's connection test.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MailCheck {
    /// Whether Baton signed in.
    pub ok: bool,
    /// What happened, in plain words.
    pub message: String,
}

/// What testing the mail servers found.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MailTest {
    /// Incoming mail.
    pub imap: MailCheck,
    /// Outgoing mail.
    pub smtp: MailCheck,
}

/// The HTTP API now.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct HttpApiStatus {
    /// The saved settings.
    pub settings: ServerSettings,
    /// Where it answers (`http://HOST:PORT/v1`) while it runs.
    pub url: Option<String>,
    /// Whether clients need an API key.
    pub keys_required: bool,
    /// API keys made (`baton serve keys add NAME`).
    pub keys: u32,
    /// Why it stopped or could not start, in plain words.
    pub error: Option<String>,
}

/// The Plugins & MCP page.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpOverview {
    /// Every server and plugin, by name.
    pub servers: Vec<baton_engine::api::mcp::ServerStatus>,
    /// Files that could not be used (a broken `plugin.json`), in words.
    pub problems: Vec<String>,
    /// The plugins folder (drop a plugin folder in it).
    pub plugins_dir: String,
    /// The `mcp.json` file.
    pub mcp_file: String,
}

/// A server to add: a command Baton runs, or an address.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum NewMcpServer {
    /// A stdio server: the program and its arguments.
    Command {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A streamable HTTP server.
    Url {
        /// Its address.
        url: String,
        /// `Authorization: Bearer …` (`${keychain:NAME}` reads a secret).
        bearer: Option<String>,
    },
}

/// A prompt an MCP server offers, for the composer.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptView {
    /// The server offering it.
    pub server: String,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments, required ones first.
    pub arguments: Vec<String>,
    /// The `/prompt …` line that sends it, with its arguments to fill in.
    pub command: String,
}

/// A model server found running on this computer.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalServerView {
    /// What it is (`ollama`, `lmstudio`, `llamacpp`, `vllm`).
    pub kind: String,
    /// Its address.
    pub endpoint: String,
    /// The provider entries made for its models.
    pub providers: Vec<String>,
}

/// The Models page: this computer, the catalog, the servers found.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelsOverview {
    /// Installed memory in MB.
    pub ram_mb: u32,
    /// CPU cores.
    pub cores: u32,
    /// The GPU, in words, if any.
    pub gpu: Option<String>,
    /// The catalog.
    pub models: Vec<baton_engine::CatalogModel>,
    /// Model servers running here.
    pub local_servers: Vec<LocalServerView>,
    /// Set when no provider was chosen and Baton picked one.
    pub first_run: Option<baton_engine::ProviderChoice>,
    /// The provider in use.
    pub selected_provider: String,
}
