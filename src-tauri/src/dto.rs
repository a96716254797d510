//! Values that cross the IPC boundary. TypeScript types for every one of
//! them are generated into `ui/src/lib/bindings.ts` by tauri-specta, so the
//! UI and the shell cannot drift. Numbers are `u32`, or `f64` exported as
//! a plain `number` (always finite here). Field names are camelCase on the
//! wire. Types only sent to the UI are `Serialize` only; only requests are
//! `Deserialize`.

use serde::{Deserialize, Serialize};
use specta::Type;
use specta_typescript::Number;

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
    /// The turn ended.
    Done {
        /// Why.
        reason: TurnEnd,
    },
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

impl From<&baton_engine::api::StopReason> for TurnEnd {
    fn from(stop: &baton_engine::api::StopReason) -> Self {
        use baton_engine::api::StopReason as S;
        match stop {
            S::Answered | S::Asked => TurnEnd::Answered,
            S::Cancelled => TurnEnd::Stopped,
            S::Error(_) => TurnEnd::Error,
            S::MaxIterations | S::Budget | S::LoopGuard(_) => TurnEnd::Limit,
        }
    }
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
    /// Edit-and-resend: replace the last user message (and what followed it).
    pub replace_last: bool,
    /// The named agent to talk to (`listAgents`); `null`: the
    /// conversation's own, else the default. The conversation remembers it.
    #[serde(default)]
    pub agent: Option<String>,
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

/// A conversation in the sidebar.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// Id.
    pub id: String,
    /// Title (from the first message, or renamed).
    pub title: String,
    /// Last change, milliseconds since the Unix epoch.
    #[specta(type = Number)]
    pub updated_ms: f64,
    /// Number of stored messages.
    pub message_count: u32,
    /// The named agent it talks to (`None`: the default).
    pub agent: Option<String>,
    /// How many of its exchanges were spoken (a voice conversation).
    pub voice_turns: u32,
}

/// A whole conversation, as the chat view shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// The named agent it talks to (`null`: the default one).
    pub agent: Option<String>,
    /// Messages in order (system messages and tool results folded into
    /// the assistant message that made the calls).
    pub messages: Vec<MessageView>,
}

/// One message shown in the chat.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// `user` or `assistant`.
    pub role: String,
    /// Markdown text.
    pub text: String,
    /// Tool calls made while producing it, with their results.
    pub tool_calls: Vec<ToolCallView>,
    /// Names of files attached to it (user messages).
    pub attachments: Vec<String>,
    /// Said aloud in a voice conversation (user messages), and how fast
    /// the answer was heard.
    pub spoken: Option<SpokenView>,
}

/// How a spoken message was answered.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SpokenView {
    /// From the end of speech to the answer's first sound (ms), when it
    /// was played.
    pub first_audio_ms: Option<u32>,
    /// Whether the user talked over the answer.
    pub interrupted: bool,
}

/// One finished tool call.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallView {
    /// Call id.
    pub id: String,
    /// Method.
    pub name: String,
    /// Arguments as pretty JSON text.
    pub arguments: String,
    /// Result as pretty JSON text (`null` while running or if never answered).
    pub result: Option<String>,
    /// Whether it failed.
    pub is_error: bool,
}

/// A named agent (`agents.json`), as the agent picker shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentView {
    /// Its name (what `SendRequest.agent` takes).
    pub name: String,
    /// What it is for.
    pub description: String,
    /// What it is good at.
    pub specialisations: Vec<String>,
    /// The provider entry it runs on (`null` when that cannot be found).
    pub provider: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// Its toolboxes and the tools each offers it.
    pub toolboxes: Vec<ToolboxView>,
    /// Other agents may delegate to it.
    pub delegable: bool,
    /// It is offered subagents.
    pub delegates: bool,
    /// Compaction window (`null`: the default; 0: never).
    pub max_messages: Option<u32>,
    /// Model calls per turn at most.
    pub max_iterations: Option<u32>,
    /// Tokens per turn at most.
    #[specta(type = Option<Number>)]
    pub token_budget: Option<f64>,
    /// The one used when none is named.
    pub is_default: bool,
    /// What keeps it from working as configured, in words.
    pub problem: Option<String>,
}

/// One toolbox of an agent and the tools it offers that agent.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolboxView {
    /// The toolbox.
    pub name: String,
    /// Its tools.
    pub tools: Vec<String>,
}

impl From<baton_engine::AgentInfo> for AgentView {
    fn from(a: baton_engine::AgentInfo) -> Self {
        Self {
            name: a.name,
            description: a.description,
            specialisations: a.specialisations,
            provider: a.provider,
            model: a.model,
            toolboxes: a
                .toolboxes
                .into_iter()
                .map(|t| ToolboxView {
                    name: t.name,
                    tools: t.tools,
                })
                .collect(),
            delegable: a.delegable,
            delegates: a.delegates,
            max_messages: a.max_messages,
            max_iterations: a.max_iterations,
            token_budget: a.token_budget.map(|n| n as f64),
            is_default: a.default,
            problem: a.problem,
        }
    }
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

/// Sent when an attachment is added, changes state or is removed.
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentsChanged {
    /// All pending attachments, in the order they were added.
    pub attachments: Vec<AttachmentView>,
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
    /// Provider entry used for OCR (`null`: automatic).
    pub ocr_provider: Option<String>,
}

/// A provider entry with its readiness.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    /// Entry name.
    pub name: String,
    /// Wire dialect (`openai`, `anthropic`, `ollama`, `gemini`, `local`).
    pub dialect: String,
    /// Model id.
    pub model: String,
    /// Endpoint URL (empty for the embedded model).
    pub endpoint: String,
    /// Environment variable that can hold the key, if the entry needs one.
    pub api_key_env: Option<String>,
    /// Whether a call can be made now.
    pub ready: bool,
    /// Readiness in words: "ready", "needs an API key (…)", "model file missing…".
    pub status: String,
    /// An entry from the user's providers file (endpoint and model editable).
    pub custom: bool,
    /// The default entry.
    pub is_default: bool,
    /// The entry in use.
    pub selected: bool,
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

/// The workspace index.
#[derive(Debug, Clone, Serialize, Type)]
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

/// Sent while the index is scanned (throttled).
#[derive(Debug, Clone, Serialize, Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// The status now.
    pub status: IndexStatus,
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
    pub first_run: Option<FirstRunView>,
}

/// A workspace file put back from a backup (`restoreBackup`), in
/// workspace paths (`/budget.xlsx`).
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RestoredBackup {
    /// The file restored.
    pub path: String,
    /// The backup now back in place (it is kept).
    pub restored_from: String,
    /// Where the replaced version was kept, when no backup held it yet.
    pub saved_current: Option<String>,
}

impl From<baton_engine::RestoredFile> for RestoredBackup {
    fn from(r: baton_engine::RestoredFile) -> Self {
        Self {
            path: r.path,
            restored_from: r.restored_from,
            saved_current: r.saved_current,
        }
    }
}

/// A microphone or speaker.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AudioDevice {
    /// Id to select it by.
    pub id: String,
    /// Name to show.
    pub name: String,
    /// The system default.
    pub is_default: bool,
}

/// The sound devices present.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AudioDevices {
    /// Microphones.
    pub inputs: Vec<AudioDevice>,
    /// Speakers.
    pub outputs: Vec<AudioDevice>,
    /// Why the list is empty (no sound server…), if it is.
    pub error: Option<String>,
}

/// Voice settings as the panel edits them, with the choices available.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VoiceSettingsView {
    /// Hold-to-talk instead of hands-free.
    pub push_to_talk: bool,
    /// Microphone id (`null`: default).
    pub input_device: Option<String>,
    /// Speaker id (`null`: default).
    pub output_device: Option<String>,
    /// "espeak", or a provider entry with a voice.
    pub tts_engine: String,
    /// Voice name (`null`: the engine's default).
    pub tts_voice: Option<String>,
    /// Words per minute (eSpeak NG).
    pub tts_rate: u32,
    /// Whisper model file (`null`: the best one present).
    pub stt_model: Option<String>,
    /// Silence that ends an utterance, ms.
    pub end_silence_ms: u32,
    /// The spoken language: a Whisper code (`en`, `de`, …) or `auto`.
    #[serde(default = "english")]
    pub language: String,
    /// Take the speaker's sound out of the microphone (for loudspeakers).
    #[serde(default = "yes")]
    pub echo_cancellation: bool,
    /// With echo cancellation, also suppress steady noise (noisy rooms;
    /// on clean speech it costs the recognizer accuracy).
    #[serde(default)]
    pub noise_suppression: bool,
    /// Speech engines to choose from (read-only).
    #[serde(default)]
    pub tts_engines: Vec<String>,
    /// Whisper models in the models folder (read-only).
    #[serde(default)]
    pub stt_models: Vec<String>,
    /// The languages to choose from (read-only): Whisper's, those a model
    /// present can transcribe marked.
    #[serde(default)]
    pub languages: Vec<VoiceLanguage>,
}

fn english() -> String {
    "en".into()
}

fn yes() -> bool {
    true
}

/// A language voice mode can listen to.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VoiceLanguage {
    /// Whisper's code (`de`), or `auto`.
    pub code: String,
    /// Its name in English.
    pub name: String,
    /// Whether a Whisper model in the models folder can transcribe it.
    pub available: bool,
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

/// Latency parts of one answer, in milliseconds.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VoiceTiming {
    /// Silence waited for.
    #[specta(type = Number)]
    pub vad_tail_ms: f64,
    /// Final transcription.
    #[specta(type = Number)]
    pub stt_ms: f64,
    /// Transcript to first complete sentence.
    #[specta(type = Number)]
    pub first_sentence_ms: f64,
    /// Synthesis of the first sentence.
    #[specta(type = Number)]
    pub tts_ms: f64,
    /// End of speech to first sound.
    #[specta(type = Number)]
    pub first_audio_ms: f64,
}

/// What the voice conversation reports, over the channel given to
/// `voice_start`.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum VoiceEventDto {
    /// Microphone level, 0–1.
    Level {
        /// RMS level.
        #[specta(type = Number)]
        rms: f32,
    },
    /// The user started talking.
    SpeechStarted,
    /// Draft transcript.
    Partial {
        /// Text so far.
        text: String,
    },
    /// Final transcript.
    Transcript {
        /// What was said.
        text: String,
    },
    /// Answer text.
    AnswerText {
        /// A piece.
        text: String,
    },
    /// A sentence is being spoken.
    Speaking {
        /// The sentence.
        sentence: String,
    },
    /// The answer ended.
    AnswerDone {
        /// Cut short by barge-in or stop.
        interrupted: bool,
        /// Latency parts.
        timing: Option<VoiceTiming>,
    },
    /// Playback was interrupted.
    BargeIn,
    /// A failure; listening goes on.
    Error {
        /// What, in plain words.
        message: String,
    },
    /// The conversation ended.
    Stopped,
}

/// How the browser toolbox reaches a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "lowercase")]
pub enum BrowserModeView {
    /// The user's running Edge or Chrome.
    Attach,
    /// Baton's own browser with a lasting profile.
    Profile,
    /// An invisible browser with a throwaway profile.
    Headless,
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

/// The browser settings as the panel edits them.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BrowserSettingsView {
    /// The mode (`null`: attach when allowed, else Baton's profile, else headless).
    pub mode: Option<BrowserModeView>,
    /// The browser program (`null`: found automatically).
    pub path: Option<String>,
    /// Only these sites may be opened (empty: any).
    pub allowed_sites: Vec<String>,
    /// These sites are never opened.
    pub blocked_sites: Vec<String>,
    /// Open file:// and browser-internal pages too.
    pub allow_other_schemes: bool,
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
    pub mode: Option<BrowserModeView>,
    /// What happened, in plain words.
    pub message: String,
}

/// How a mail connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "lowercase")]
pub enum MailSecurityView {
    /// TLS from the first byte (IMAP 993, SMTP 465).
    Tls,
    /// STARTTLS (IMAP 143, SMTP 587).
    Starttls,
    /// No encryption (a server on this computer only).
    None,
}

/// One mail server as the panel edits it.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MailServerView {
    /// Host name (`null`: not set up).
    pub host: Option<String>,
    /// Port (`null`: the standard one for the security).
    pub port: Option<u16>,
    /// User name (`null`: the e-mail address).
    pub username: Option<String>,
    /// How the connection is secured.
    pub security: MailSecurityView,
    /// Whether its password is in the keychain (read-only).
    #[serde(default)]
    pub password_set: bool,
}

/// The e-mail settings as the panel edits them. Passwords travel only
/// into the keychain (`save_mail_settings`), never back.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MailSettingsView {
    /// The user's own address.
    pub address: Option<String>,
    /// The name shown beside it.
    pub name: Option<String>,
    /// Ask before each mail is sent.
    pub confirm_send: bool,
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

/// The HTTP API's settings as the settings panel edits them.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerSettingsView {
    /// Start the server when the app opens.
    pub start_with_app: bool,
    /// The address it listens on.
    pub host: String,
    /// The port.
    pub port: u16,
    /// `memory`, `file` or `redis://HOST:PORT`.
    pub sessions: String,
}

/// The HTTP API now.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// The saved settings.
    pub settings: ServerSettingsView,
    /// Where it answers (`http://HOST:PORT/v1`) while it runs.
    pub url: Option<String>,
    /// Whether clients need an API key.
    pub keys_required: bool,
    /// API keys made (`baton serve keys add NAME`).
    pub keys: u32,
    /// Why it stopped or could not start, in plain words.
    pub error: Option<String>,
}

/// Where an MCP server was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum McpSourceKind {
    /// `mcp.json` in the config folder.
    McpJson,
    /// A plugin folder in the plugins folder.
    Plugin,
}

/// What an MCP server or plugin is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum McpState {
    /// Connected; its tools are offered.
    Running,
    /// Starting now.
    Starting,
    /// Not started yet.
    Idle,
    /// It crashed or could not start (see `problem`).
    Failed,
    /// Turned off.
    Disabled,
}

/// One MCP server or plugin in the Plugins & MCP list.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    /// Its name (its tools are listed under it).
    pub name: String,
    /// Where it was found.
    pub source: McpSourceKind,
    /// The plugin's folder.
    pub folder: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// The command line or the URL.
    pub target: String,
    /// What it is doing.
    pub state: McpState,
    /// The tools it offers.
    pub tools: Vec<String>,
    /// Why it is not running, in plain words.
    pub problem: Option<String>,
}

/// The Plugins & MCP page.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpOverview {
    /// Every server and plugin, by name.
    pub servers: Vec<McpServerView>,
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

/// A stage of a team's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum TeamStage {
    /// The whole run.
    Orchestration,
    /// The planner making the plan.
    Planning,
    /// An agent being briefed.
    Training,
    /// An agent working on its part.
    Execution,
    /// A reviewer reviewing a part.
    Review,
    /// An agent revising its part.
    Revise,
    /// The synthesizer writing the answer.
    Synthesis,
}

/// Whether a stage starts or stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum TeamPhase {
    /// It starts.
    Starting,
    /// It ended.
    Stopped,
}

/// One part of a team's plan.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamAssignment {
    /// What to do.
    pub task: String,
    /// Who should do it.
    pub specialisation: String,
}

/// One stage of a team's run, as it happens.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamEventDto {
    /// The stage.
    pub stage: TeamStage,
    /// Starting or stopped.
    pub phase: TeamPhase,
    /// The agent at work.
    pub agent: Option<String>,
    /// Which part of the plan (from 0).
    pub assignment: Option<u32>,
    /// The review round or revision (from 1).
    pub round: Option<u32>,
    /// The plan (planning stopped).
    pub plan: Option<Vec<TeamAssignment>>,
    /// The answer, the feedback or the final answer (stopped).
    pub text: Option<String>,
    /// The verdict (review stopped).
    pub approved: Option<bool>,
    /// What went wrong.
    pub error: Option<String>,
}

/// An agent's final answer to its part.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamResponse {
    /// The agent.
    pub agent: String,
    /// Its part.
    pub task: String,
    /// Its answer.
    pub response: String,
    /// Revisions after reviews.
    pub revisions: u32,
}

/// A review of one part.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamReview {
    /// Who reviewed.
    pub reviewer: String,
    /// Whose part.
    pub author: String,
    /// Approved or sent back.
    pub approved: bool,
    /// What to change.
    pub feedback: String,
    /// Which review of that part.
    pub round: u32,
}

/// A team's whole run.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamResultView {
    /// The answer.
    pub final_response: String,
    /// The plan.
    pub plan: Vec<TeamAssignment>,
    /// Each agent's final answer.
    pub responses: Vec<TeamResponse>,
    /// Every review.
    pub reviews: Vec<TeamReview>,
    /// One part only: no review, no synthesis.
    pub short_circuited: bool,
    /// Stopped by the user.
    pub cancelled: bool,
    /// Tokens the team used.
    pub total_tokens: u32,
    /// Whether it finished.
    pub success: bool,
    /// Why not, in plain words.
    pub error: Option<String>,
    /// What Baton did differently from the configuration.
    pub notes: Vec<String>,
}

/// How a catalog model fits this computer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum ModelFit {
    /// It fits in the GPU's memory.
    Gpu,
    /// It fits in memory with room to spare.
    Comfortable,
    /// It fits, leaving little memory for other programs.
    Tight,
    /// It needs more memory than this computer has.
    TooBig,
}

/// What a catalog model is good for.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum ModelTask {
    /// Conversation, summaries, writing.
    Chat,
    /// Calling Baton's tools.
    Tools,
    /// Reading images.
    Vision,
}

/// One model of the catalog, as the Models page shows it.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CatalogModelView {
    /// Its name (also its provider entry's).
    pub name: String,
    /// Display name.
    pub title: String,
    /// Download size in MB.
    pub size_mb: u32,
    /// Licence.
    pub licence: String,
    /// Context length in tokens.
    pub context_length: u32,
    /// Parameter count in words.
    pub parameters: String,
    /// Memory it needs, in MB.
    pub ram_mb: u32,
    /// What it suits.
    pub tasks: Vec<ModelTask>,
    /// A line on what it is like.
    pub notes: String,
    /// The publisher lists its SHA-256 (else the first download records one).
    pub hash_published: bool,
    /// It is downloaded.
    pub pulled: bool,
    /// How much of an interrupted download is kept, in percent.
    pub partial_percent: Option<u32>,
    /// How it fits this computer.
    pub fit: ModelFit,
    /// The fit in words.
    pub hint: String,
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

/// Why the provider in use was picked on a first run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum FirstRunReason {
    /// A cloud provider has an API key.
    KeyedCloud,
    /// A model server runs on this computer.
    LocalServer,
    /// A downloaded model.
    PulledModel,
    /// Nothing better: the small embedded model.
    Embedded,
}

/// The provider a first run picked.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct FirstRunView {
    /// The provider entry.
    pub provider: String,
    /// Which rule picked it.
    pub reason: FirstRunReason,
    /// Why, in words.
    pub why: String,
}

/// The Models page: this computer, the catalog, the servers found.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelsOverview {
    /// Installed memory in MB.
    pub ram_mb: u32,
    /// CPU cores.
    pub cores: u32,
    /// The GPU, in words, if any.
    pub gpu: Option<String>,
    /// The catalog.
    pub models: Vec<CatalogModelView>,
    /// Model servers running here.
    pub local_servers: Vec<LocalServerView>,
    /// Set when no provider was chosen and Baton picked one.
    pub first_run: Option<FirstRunView>,
    /// The provider in use.
    pub selected_provider: String,
}

/// How far a model download is (streamed while it runs).
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PullProgress {
    /// KB received.
    pub received_kb: u32,
    /// KB in all.
    pub total_kb: u32,
}

/// A finished download.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PulledView {
    /// The provider entry it became.
    pub provider: String,
    /// False when it was already there.
    pub downloaded: bool,
    /// No hash was published: the one it had was recorded.
    pub hash_recorded: bool,
}
