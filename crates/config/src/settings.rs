//! `setup.json`: the user's settings. Secrets never go here.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use baton_stdx::atomic_write_private;

/// File name of the settings file inside the config folder.
pub const SETTINGS_FILE: &str = "setup.json";

/// Default size of the attachment block put into prompts, in characters.
pub const DEFAULT_ATTACHMENT_CONTEXT_CHARS: usize = 30_000;

/// How tools are offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub enum InteractionMode {
    /// The full tool catalog (native tools or JSON in the prompt).
    #[serde(rename = "API", alias = "api")]
    Api,
    /// One command-line tool and a list of commands (small context windows).
    #[serde(rename = "CLI", alias = "cli")]
    Cli,
}

/// A mail server (SMTP or IMAP). The password lives in the keychain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct MailServer {
    /// Host name.
    pub host: Option<String>,
    /// Port number.
    pub port: Option<u16>,
    /// Login name.
    pub username: Option<String>,
    /// How the connection is secured (`tls`, `starttls` or `none`; the
    /// older `true`/`false` still read as `tls`/`none`).
    #[serde(deserialize_with = "mail_security")]
    #[specta(type = MailSecurity)]
    pub tls: MailSecurity,
    /// What the keychain entry (`smtp` or `imap`) holds: the password, or
    /// an OAuth2 access token sent with XOAUTH2.
    pub auth: MailAuth,
    /// A certificate authority to trust besides the system's (a PEM file:
    /// a company's own mail server).
    pub ca_file: Option<PathBuf>,
}

impl Default for MailServer {
    fn default() -> Self {
        Self {
            host: None,
            port: None,
            username: None,
            tls: MailSecurity::Tls,
            auth: MailAuth::Password,
            ca_file: None,
        }
    }
}

/// How Baton signs in to a mail server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum MailAuth {
    /// User name and password.
    #[default]
    Password,
    /// User name and an OAuth2 access token (XOAUTH2), for providers
    /// that no longer take passwords.
    Xoauth2,
    /// No sign-in (SMTP only): a relay that takes mail without one, on
    /// this computer or the local network.
    None,
}

/// The user's own e-mail identity and how sending is guarded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct EmailSettings {
    /// The user's own address: the sender of mail Baton sends, and where
    /// "e-mail me" goes.
    pub address: Option<String>,
    /// The name shown beside it.
    pub name: Option<String>,
    /// Ask before each mail is sent (false: send without asking).
    pub confirm_send: bool,
}

impl Default for EmailSettings {
    fn default() -> Self {
        Self {
            address: None,
            name: None,
            confirm_send: true,
        }
    }
}

/// The OpenAI-compatible HTTP API (`baton serve`, or started by the
/// desktop app).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct ServerSettings {
    /// The desktop app starts the server in the background when it opens.
    pub start_with_app: bool,
    /// The address it listens on (beyond this computer only once an API
    /// key exists).
    pub host: String,
    /// The port.
    pub port: u16,
    /// Where `x-baton-session` conversations are kept: `memory`, `file` or
    /// `redis://HOST:PORT`.
    pub sessions: String,
    /// Days a Redis-kept session lives after its last use.
    pub session_ttl_days: u32,
    /// Names besides this computer's that requests may be addressed to
    /// once the server asks for keys (a name others reach it by, such as
    /// `baton.lan`); IP addresses are answered then anyway. Any other
    /// name is refused: a web page could have re-pointed it at this
    /// computer.
    pub host_names: Vec<String>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            start_with_app: false,
            host: "127.0.0.1".into(),
            port: 8080,
            sessions: "memory".into(),
            session_ttl_days: 30,
            host_names: Vec::new(),
        }
    }
}

/// The desktop app's place on the desktop: the tray, the quick window's
/// global shortcut, starting at login and notifications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct DesktopSettings {
    /// Closing the main window keeps Baton running in the tray (the quick
    /// window's shortcut and scheduled tasks keep working); off: closing
    /// it quits.
    pub close_to_tray: bool,
    /// Start Baton (in the tray, window hidden) when the user logs in.
    pub start_at_login: bool,
    /// The global shortcut that opens the quick window from any
    /// application, in the accelerator form `Modifier+Key` (for example
    /// `CommandOrControl+Shift+Space`); empty: no shortcut.
    pub quick_shortcut: String,
    /// The global push-to-talk shortcut: held, Baton listens from any
    /// application; released, it answers aloud (a small overlay shows
    /// listening, thinking, speaking); empty: none.
    pub talk_shortcut: String,
    /// A native notification when an answer, a confirmation or a question
    /// waits in a chat whose window is not in front; clicking it opens
    /// that chat.
    pub notifications: bool,
    /// The language of the app's text (and, unless `voice.language` is
    /// set, of voice); none: the system's, where Baton speaks it, else
    /// English.
    pub language: Option<Language>,
    /// What holding the push-to-talk shortcut does: Baton answers aloud,
    /// or what was said is typed into the application in front.
    pub talk_mode: TalkMode,
}

/// What holding the push-to-talk shortcut does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum TalkMode {
    /// Baton hears the question and answers aloud.
    #[default]
    Answer,
    /// Dictation: what was said is typed where the user is typing, and
    /// nothing else happens.
    Dictate,
}

/// A language Baton's app is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// English.
    #[default]
    En,
    /// German.
    De,
    /// French.
    Fr,
    /// Spanish.
    Es,
}

impl Language {
    /// Every language, English first.
    pub const ALL: [Self; 4] = [Self::En, Self::De, Self::Fr, Self::Es];

    /// Its ISO 639-1 code (also Whisper's and eSpeak NG's).
    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::De => "de",
            Self::Fr => "fr",
            Self::Es => "es",
        }
    }

    /// The language of a locale name (`de-AT`, `fr_CH.UTF-8`, `es`), if
    /// Baton speaks it.
    pub fn of_locale(locale: &str) -> Option<Self> {
        let primary = locale
            .split(['-', '_', '.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        Self::ALL.into_iter().find(|l| l.code() == primary)
    }

    /// The system's language where Baton speaks it (the first of the
    /// user's preferred locales that it does), else English.
    pub fn system() -> Self {
        sys_locale::get_locales()
            .find_map(|l| Self::of_locale(&l))
            .unwrap_or_default()
    }
}

/// Default of [`DesktopSettings::quick_shortcut`].
pub const DEFAULT_QUICK_SHORTCUT: &str = "CommandOrControl+Shift+Space";

/// Default of [`DesktopSettings::talk_shortcut`].
pub const DEFAULT_TALK_SHORTCUT: &str = "CommandOrControl+Alt+Space";

impl Default for DesktopSettings {
    fn default() -> Self {
        Self {
            close_to_tray: true,
            start_at_login: false,
            quick_shortcut: DEFAULT_QUICK_SHORTCUT.into(),
            talk_shortcut: DEFAULT_TALK_SHORTCUT.into(),
            notifications: true,
            language: None,
            talk_mode: TalkMode::Answer,
        }
    }
}

/// How a mail connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum MailSecurity {
    /// TLS from the first byte (SMTP 465, IMAP 993).
    #[default]
    Tls,
    /// A plain connection upgraded with STARTTLS (SMTP 587, IMAP 143).
    Starttls,
    /// No encryption (a server on this machine only).
    None,
}

/// Reads `tls` as a [`MailSecurity`] word or, from older settings files, a
/// boolean.
fn mail_security<'de, D: serde::Deserializer<'de>>(d: D) -> Result<MailSecurity, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Old(bool),
        New(MailSecurity),
    }
    Ok(
        match Either::deserialize(d).map_err(|_| {
            serde::de::Error::custom("expected `tls`, `starttls` or `none` (or true/false)")
        })? {
            Either::Old(true) => MailSecurity::Tls,
            Either::Old(false) => MailSecurity::None,
            Either::New(s) => s,
        },
    )
}

/// How the browser toolbox reaches a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum BrowserMode {
    /// The user's running Edge or Chrome, once they allowed remote
    /// debugging (`edge://inspect`): their sign-ins and cookies.
    Attach,
    /// A browser window with Baton's own lasting profile (sign in once).
    Profile,
    /// An invisible browser with a throwaway profile (servers, tests).
    Headless,
}

/// Browser toolbox settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct BrowserSettings {
    /// Attach, profile or headless; unset tries them in that order.
    pub mode: Option<BrowserMode>,
    /// The browser program (else Edge, Chrome, then Chromium, found in
    /// their standard places or on PATH).
    pub path: Option<PathBuf>,
    /// The user-data-dir to attach to (attach) or use (profile); else
    /// the browser's default one (attach) or Baton's own (profile).
    pub user_data_dir: Option<PathBuf>,
    /// Only these sites (and their subdomains) may be opened, when set.
    pub allowed_sites: Vec<String>,
    /// These sites (and their subdomains) are never opened.
    pub blocked_sites: Vec<String>,
    /// Open `file://`, `chrome://` and other non-web addresses too.
    pub allow_other_schemes: bool,
    /// The web search address, `{query}` standing for the words (else
    /// DuckDuckGo's HTML page).
    pub search_url: Option<String>,
}

/// Where deep research searches the web.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum ResearchSearch {
    /// The browser's search page (`browser.searchUrl`, else DuckDuckGo).
    #[default]
    Browser,
    /// A SearXNG instance (`research.searxngUrl`), no key.
    Searxng,
    /// Brave Search's API (its key: `BRAVE_API_KEY` or the keychain's
    /// `search:brave`).
    Brave,
    /// Tavily's API (its key: `TAVILY_API_KEY` or the keychain's
    /// `search:tavily`).
    Tavily,
}

/// Deep research: where it searches and how far it goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct ResearchSettings {
    /// Where it searches.
    pub search: ResearchSearch,
    /// The SearXNG instance's address (for `searxng`), e.g.
    /// `http://localhost:8888`; its JSON output must be on.
    pub searxng_url: Option<String>,
    /// The most sources a job reads.
    #[specta(type = u32)]
    pub sources: usize,
    /// Sources read at once, each in its own tab.
    #[specta(type = u32)]
    pub parallel: usize,
    /// Minutes a job may spend reading; the report is written from what
    /// was read by then.
    #[specta(type = u32)]
    pub minutes: u64,
    /// Tokens a job may use before it stops reading (none: no limit).
    #[specta(type = Option<u32>)]
    pub tokens: Option<u64>,
}

impl Default for ResearchSettings {
    fn default() -> Self {
        Self {
            search: ResearchSearch::Browser,
            searxng_url: None,
            sources: 8,
            parallel: 4,
            minutes: 10,
            tokens: None,
        }
    }
}

/// Voice conversation settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
pub struct VoiceSettings {
    /// The ggml Whisper model file in the models folder (else the best
    /// one there: tiny.en 8-bit, then tiny.en).
    pub stt_model: Option<String>,
    /// Spoken language ("en", "de"…, or "auto" with a multilingual
    /// model); empty: the app's language (see [`Settings::voice_language`]).
    pub language: String,
    /// CPU threads for speech-to-text (else up to 4).
    #[specta(type = Option<u32>)]
    pub threads: Option<usize>,
    /// Beam width of the final transcript (1 = greedy, fastest).
    #[specta(type = u32)]
    pub beam_size: usize,
    /// Text-to-speech engine: "auto" (the natural Piper voice when
    /// installed, else eSpeak NG), "piper", "espeak" (both offline), or the
    /// name of a provider entry with an OpenAI-compatible
    /// `/v1/audio/speech`.
    pub tts_engine: String,
    /// Voice name (eSpeak NG voice such as "en-us", or the endpoint's
    /// voice such as "alloy").
    pub tts_voice: Option<String>,
    /// Speaking rate in words per minute (eSpeak NG; 80–450).
    pub tts_rate: u32,
    /// Microphone device id (else the default).
    pub input_device: Option<String>,
    /// Speaker device id (else the default).
    pub output_device: Option<String>,
    /// Hold-to-talk instead of voice detection.
    pub push_to_talk: bool,
    /// Silence that ends an utterance, in milliseconds.
    #[specta(type = u32)]
    pub end_silence_ms: u64,
    /// How often a draft transcript is made while talking, in
    /// milliseconds (0: never).
    #[specta(type = u32)]
    pub partial_every_ms: u64,
    /// Take the speaker's sound out of the microphone (acoustic echo
    /// cancellation), so the answer played on loudspeakers does not
    /// interrupt itself.
    pub echo_cancellation: bool,
    /// With echo cancellation, also suppress steady noise (WebRTC's noise
    /// suppressor, gentle): for noisy rooms; on clean speech it costs the
    /// speech recognizer accuracy.
    pub noise_suppression: bool,
    /// After this much silence (ms) the utterance is transcribed and the
    /// answer started, held unheard until the end-of-speech pause confirms
    /// it (0: wait for the whole pause).
    #[specta(type = u32)]
    pub speculate_after_ms: u64,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        Self {
            stt_model: None,
            language: String::new(),
            threads: None,
            beam_size: 1,
            tts_engine: "auto".into(),
            tts_voice: None,
            tts_rate: 175,
            input_device: None,
            output_device: None,
            push_to_talk: false,
            end_silence_ms: 700,
            partial_every_ms: 1000,
            echo_cancellation: true,
            noise_suppression: false,
            speculate_after_ms: 300,
        }
    }
}

/// A kind of model server that may already run on this computer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LocalServerKind {
    /// Ollama (`/api/tags`, its own chat API).
    Ollama,
    /// LM Studio's server (OpenAI-compatible).
    LmStudio,
    /// llama.cpp's `llama-server` (OpenAI-compatible).
    LlamaCpp,
    /// vLLM (OpenAI-compatible).
    Vllm,
    /// Any other OpenAI-compatible server.
    OpenAiCompatible,
}

/// An address where a local model server is looked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalServer {
    /// What answers there.
    pub kind: LocalServerKind,
    /// Its base address, e.g. `http://127.0.0.1:11434`.
    pub endpoint: String,
}

/// The usual loopback addresses of Ollama, LM Studio, llama.cpp's server
/// and vLLM.
pub fn default_local_servers() -> Vec<LocalServer> {
    [
        (LocalServerKind::Ollama, 11434),
        (LocalServerKind::LmStudio, 1234),
        (LocalServerKind::LlamaCpp, 8080),
        (LocalServerKind::Vllm, 8000),
    ]
    .into_iter()
    .map(|(kind, port)| LocalServer {
        kind,
        endpoint: format!("http://127.0.0.1:{port}"),
    })
    .collect()
}

/// The user's settings, stored as `setup.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Name of the provider entry to use (else the providers file's default).
    pub provider: Option<String>,
    /// The named agent conversations use (`agents.json`; else `assistant`).
    pub agent: Option<String>,
    /// The documents folder the agent sees as `/`.
    pub workspace: Option<PathBuf>,
    /// Forces API or CLI tool mode for every provider.
    pub interaction_mode: Option<InteractionMode>,
    /// Replace registered names and keys with placeholders before they
    /// leave the machine.
    pub anonymize: bool,
    /// Names and other terms to anonymize (API keys are added automatically).
    pub anonymize_terms: Vec<String>,
    /// Character budget of the attachment block in a prompt.
    pub attachment_context_chars: usize,
    /// Do not scan the workspace or watch it for changes (search then
    /// answers from the index as it was).
    pub skip_indexing_on_startup: bool,
    /// Give each indexed chunk a vector with the local embedding model
    /// (`make setup`) and search by meaning as well as by words.
    pub search_by_meaning: bool,
    /// Memory across chats: recall what the user asked Baton to remember
    /// into each turn, and offer the `remember` tool (`baton memory`).
    pub memory: bool,
    /// Offer the diagnostics toolbox (a slow call and an HTTP post, for
    /// testing Stop and confirmations); `BATON_DIAGNOSTIC_TOOLS=1` turns
    /// it on too.
    pub diagnostic_tools: bool,
    /// The provider entry used to read images and scanned pages (OCR); else
    /// the first ready entry marked `"ocr": true`, else local Tesseract.
    pub ocr_provider: Option<String>,
    /// Outgoing mail.
    pub smtp: MailServer,
    /// Incoming mail.
    pub imap: MailServer,
    /// The user's own address and whether sending asks first.
    pub email: EmailSettings,
    /// Voice conversations.
    pub voice: VoiceSettings,
    /// The browser toolbox.
    pub browser: BrowserSettings,
    /// Deep research.
    pub research: ResearchSettings,
    /// The HTTP API.
    pub server: ServerSettings,
    /// The desktop app's tray, quick window and start at login.
    pub desktop: DesktopSettings,
    /// The plugins folder: each plugin is a folder in it with a
    /// `plugin.json` (default: `Tools` in the data folder).
    pub plugins_dir: Option<PathBuf>,
    /// Seconds of quiet after a change to the plugins folder or
    /// `mcp.json` before Baton reads them again.
    pub plugins_reload_secs: u64,
    /// Look for model servers already running on this computer at start
    /// (and list their models as providers).
    pub probe_local_servers: bool,
    /// Where to look for them (default: the usual ports of Ollama, LM
    /// Studio, llama.cpp's server and vLLM on loopback).
    pub local_servers: Vec<LocalServer>,
}

/// Default of [`Settings::plugins_reload_secs`].
pub const DEFAULT_PLUGINS_RELOAD_SECS: u64 = 30;

impl Default for Settings {
    fn default() -> Self {
        Self {
            provider: None,
            agent: None,
            workspace: None,
            interaction_mode: None,
            anonymize: false,
            anonymize_terms: Vec::new(),
            attachment_context_chars: DEFAULT_ATTACHMENT_CONTEXT_CHARS,
            skip_indexing_on_startup: false,
            search_by_meaning: true,
            memory: true,
            diagnostic_tools: false,
            ocr_provider: None,
            smtp: MailServer::default(),
            imap: MailServer::default(),
            email: EmailSettings::default(),
            voice: VoiceSettings::default(),
            browser: BrowserSettings::default(),
            research: ResearchSettings::default(),
            server: ServerSettings::default(),
            desktop: DesktopSettings::default(),
            plugins_dir: None,
            plugins_reload_secs: DEFAULT_PLUGINS_RELOAD_SECS,
            probe_local_servers: true,
            local_servers: default_local_servers(),
        }
    }
}

/// Settings as loaded, with what went wrong on the way.
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    /// The settings (defaults where the file was missing or unusable).
    pub settings: Settings,
    /// Plain-words warnings for the user (corrupt file moved aside, …).
    pub warnings: Vec<String>,
}

/// Errors of settings operations.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The settings file could not be written.
    #[error("cannot save settings to {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `config set` named a key that does not exist.
    #[error("unknown setting `{key}`; known settings: {known}")]
    UnknownKey {
        /// The key given.
        key: String,
        /// The keys that exist.
        known: String,
    },
    /// `config set` gave a value of the wrong type.
    #[error("invalid value for `{key}`: {reason}")]
    InvalidValue {
        /// The key given.
        key: String,
        /// Why the value does not fit.
        reason: String,
    },
}

impl Settings {
    /// The language of the app's text: the one chosen, else the system's.
    pub fn app_language(&self) -> Language {
        self.desktop.language.unwrap_or_else(Language::system)
    }

    /// The spoken language: `voice.language` when set, else the app's.
    pub fn voice_language(&self) -> String {
        match self.voice.language.trim() {
            "" => self.app_language().code().to_string(),
            set => set.to_string(),
        }
    }

    /// Loads `path`. A missing file gives defaults; an unreadable or corrupt
    /// one gives defaults and a warning, and a corrupt file is renamed aside
    /// (`setup.json.corrupt-<unix time>`) so that the next save cannot
    /// overwrite what the user had.
    pub fn load(path: &Path) -> LoadedSettings {
        let mut warnings = Vec::new();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return LoadedSettings {
                    settings: Settings::default(),
                    warnings,
                };
            }
            Err(e) => {
                warnings.push(format!(
                    "cannot read settings file {}: {e}; using defaults",
                    path.display()
                ));
                return LoadedSettings {
                    settings: Settings::default(),
                    warnings,
                };
            }
        };
        // The original system's key names are read as Baton's first.
        let parsed = serde_json::from_slice::<serde_json::Value>(&bytes).and_then(|mut doc| {
            crate::seed_setup::normalize(&mut doc, &mut warnings);
            serde_json::from_value::<Settings>(doc)
        });
        match parsed {
            Ok(settings) => LoadedSettings { settings, warnings },
            Err(e) => {
                let stamp = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                let aside = path.with_file_name(format!("{SETTINGS_FILE}.corrupt-{stamp}"));
                let kept = match std::fs::rename(path, &aside) {
                    Ok(()) => format!("the file was kept as {}", aside.display()),
                    Err(re) => format!("it could not be moved aside ({re}) and was left in place"),
                };
                warnings.push(format!(
                    "settings file {} is not valid ({e}); using defaults — {kept}",
                    path.display()
                ));
                tracing::warn!(path = %path.display(), error = %e, "corrupt settings file");
                LoadedSettings {
                    settings: Settings::default(),
                    warnings,
                }
            }
        }
    }

    /// Saves atomically (temp file + rename).
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let mut text = serde_json::to_string_pretty(self).expect("settings serialize");
        text.push('\n');
        atomic_write_private(path, text.as_bytes()).map_err(|source| SettingsError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The dotted keys `set` accepts (`provider`, `smtp.host`, …).
    pub fn keys() -> Vec<String> {
        let mut out = Vec::new();
        collect_keys(
            &serde_json::to_value(Settings::default()).expect("settings serialize"),
            "",
            &mut out,
        );
        out
    }

    /// Sets one dotted key from its text form. The value is read as JSON
    /// when it parses (`true`, `42`, `["a"]`), else as a string; `null`
    /// clears an optional setting. Types are checked.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SettingsError> {
        let known = Self::keys();
        if !known.iter().any(|k| k == key) {
            return Err(SettingsError::UnknownKey {
                key: key.to_string(),
                known: known.join(", "),
            });
        }
        let mut doc = serde_json::to_value(&*self).expect("settings serialize");
        let parsed = serde_json::from_str::<Value>(value)
            .unwrap_or_else(|_| Value::String(value.to_string()));
        let mut slot = &mut doc;
        for part in key.split('.') {
            slot = slot
                .get_mut(part)
                .expect("key exists: checked against Settings::keys");
        }
        *slot = parsed.clone();
        let updated = serde_json::from_value::<Settings>(doc.clone()).or_else(|first| {
            // A number or bool given where text is expected ("1234" as a
            // user name) is meant as text: retry with the raw string.
            if parsed.is_string() {
                return Err(first);
            }
            let mut doc = doc;
            let mut slot = &mut doc;
            for part in key.split('.') {
                slot = slot.get_mut(part).expect("key exists");
            }
            *slot = Value::String(value.to_string());
            serde_json::from_value::<Settings>(doc).map_err(|_| first)
        });
        *self = updated.map_err(|e| SettingsError::InvalidValue {
            key: key.to_string(),
            reason: e.to_string(),
        })?;
        Ok(())
    }

    /// The workspace root: an explicit override (the `--workspace` flag or
    /// `BATON_WORKSPACE`) wins over the setting; else the user's Documents
    /// folder (`~/Documents` when the platform names none).
    pub fn workspace_root(&self, override_dir: Option<&Path>) -> PathBuf {
        if let Some(dir) = override_dir {
            return dir.to_path_buf();
        }
        if let Some(dir) = &self.workspace {
            return dir.clone();
        }
        directories::UserDirs::new()
            .map(|u| {
                u.document_dir()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| u.home_dir().join("Documents"))
            })
            .unwrap_or_else(|| PathBuf::from("."))
    }
}

fn collect_keys(v: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Value::Object(map) = v {
        for (k, v) in map {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            if v.is_object() {
                collect_keys(v, &key, out);
            } else {
                out.push(key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locale_names_a_language_baton_speaks_or_none() {
        let of = Language::of_locale;
        assert_eq!(of("de-AT"), Some(Language::De));
        assert_eq!(of("fr_CH.UTF-8"), Some(Language::Fr));
        assert_eq!(of("ES"), Some(Language::Es));
        assert_eq!(of("en@euro"), Some(Language::En));
        assert_eq!(of("pt-BR"), None);
        assert_eq!(of("C"), None);
    }

    #[test]
    fn voice_follows_the_app_language_unless_it_names_one() {
        let mut s = Settings::default();
        assert_eq!(s.voice.language, "", "following is the default");
        s.desktop.language = Some(Language::De);
        assert_eq!(s.app_language(), Language::De);
        assert_eq!(s.voice_language(), "de");
        s.voice.language = "auto".into();
        assert_eq!(s.voice_language(), "auto");
        s.desktop.language = None;
        s.voice.language = " fr ".into();
        assert_eq!(s.voice_language(), "fr");
        // Unset, the app is in the system's language (English where Baton
        // does not speak it), and voice with it.
        s.voice.language.clear();
        assert_eq!(s.voice_language(), s.app_language().code());
    }

    #[test]
    fn defaults_round_trip_and_budget_is_30k() {
        let s = Settings::default();
        assert_eq!(s.attachment_context_chars, 30_000);
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Settings>(&text).unwrap(), s);
    }

    #[test]
    fn set_checks_keys_and_types() {
        let mut s = Settings::default();
        s.set("provider", "deepseek").unwrap();
        assert_eq!(s.provider.as_deref(), Some("deepseek"));
        s.set("anonymize", "true").unwrap();
        assert!(s.anonymize);
        s.set("smtp.port", "587").unwrap();
        assert_eq!(s.smtp.port, Some(587));
        s.set("smtp.tls", "starttls").unwrap();
        assert_eq!(s.smtp.tls, MailSecurity::Starttls);
        s.set("imap.tls", "false").unwrap();
        assert_eq!(s.imap.tls, MailSecurity::None);
        let e = s.set("imap.tls", "maybe").unwrap_err().to_string();
        assert!(e.contains("`tls`, `starttls` or `none`"), "{e}");
        let old: Settings =
            serde_json::from_str(r#"{"smtp": {"tls": true}, "imap": {"tls": false}}"#).unwrap();
        assert_eq!(
            (old.smtp.tls, old.imap.tls),
            (MailSecurity::Tls, MailSecurity::None)
        );
        s.set("smtp.username", "1234").unwrap();
        assert_eq!(s.smtp.username.as_deref(), Some("1234"));
        s.set("interactionMode", "CLI").unwrap();
        assert_eq!(s.interaction_mode, Some(InteractionMode::Cli));
        s.set("provider", "null").unwrap();
        assert_eq!(s.provider, None);

        let e = s.set("smtp.port", "many").unwrap_err().to_string();
        assert!(e.contains("smtp.port"), "{e}");
        let e = s
            .set("attachmentContextChars", "-3")
            .unwrap_err()
            .to_string();
        assert!(e.contains("attachmentContextChars"), "{e}");
        let e = s.set("colour", "blue").unwrap_err().to_string();
        assert!(
            e.contains("unknown setting `colour`") && e.contains("smtp.host"),
            "{e}"
        );
        // A failed set leaves the settings as they were.
        assert_eq!(s.smtp.port, Some(587));
    }

    #[test]
    fn corrupt_file_is_moved_aside_and_defaults_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::write(&path, b"{\"provider\": \"x\",").unwrap();
        let loaded = Settings::load(&path);
        assert_eq!(loaded.settings, Settings::default());
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].contains("not valid"),
            "{:?}",
            loaded.warnings
        );
        assert!(!path.exists());
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(aside.len(), 1);
        assert!(aside[0].starts_with("setup.json.corrupt-"));
        assert_eq!(
            std::fs::read(dir.path().join(&aside[0])).unwrap(),
            b"{\"provider\": \"x\","
        );
        // Saving now writes a fresh file and keeps the corrupt copy.
        loaded.settings.save(&path).unwrap();
        assert!(path.exists());
        assert!(dir.path().join(&aside[0]).exists());
    }

    #[test]
    fn wrong_type_in_file_is_a_warning_naming_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::write(&path, br#"{"anonymize": "yes"}"#).unwrap();
        let loaded = Settings::load(&path);
        assert!(
            loaded.warnings[0].contains("invalid type"),
            "{:?}",
            loaded.warnings
        );
    }

    #[test]
    fn save_then_load_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cfg").join(SETTINGS_FILE);
        let s = Settings {
            workspace: Some("/tmp/docs".into()),
            ..Default::default()
        };
        s.save(&path).unwrap();
        let loaded = Settings::load(&path);
        assert!(loaded.warnings.is_empty());
        assert_eq!(loaded.settings, s);
    }

    #[test]
    fn workspace_override_wins() {
        let s = Settings {
            workspace: Some("/a".into()),
            ..Default::default()
        };
        assert_eq!(s.workspace_root(Some(Path::new("/b"))), PathBuf::from("/b"));
        assert_eq!(s.workspace_root(None), PathBuf::from("/a"));
    }
}
