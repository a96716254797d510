//! Command-line arguments.

use std::path::PathBuf;

use baton_engine::api::SessionId;
use clap::{Args, Parser, Subcommand};

/// Baton — a desktop AI assistant, from the command line.
#[derive(Parser, Debug)]
#[command(name = "baton", version, about, long_about = None)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Args, Debug, Clone)]
pub struct Global {
    /// The documents folder the agent sees as `/` (overrides the setting).
    #[arg(long, global = true, env = "BATON_WORKSPACE", value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// A providers file to use instead of the shipped one.
    #[arg(long, global = true, env = "BATON_PROVIDERS", value_name = "FILE")]
    pub providers: Option<PathBuf>,
    /// More log output on stderr (-v info, -vv debug; BATON_LOG overrides).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// Baton's commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Ask one question and stream the answer.
    Ask(AskArgs),
    /// An interactive conversation (Ctrl-C stops the current answer).
    Chat(ChatArgs),
    /// List the named agents (agents.json): provider, toolboxes, limits, and whether each is ready.
    Agents {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List providers and whether each is ready.
    Providers {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show or change settings (setup.json).
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Manage API keys and passwords in the OS keychain.
    #[command(subcommand)]
    Secret(SecretCommand),
    /// Write conversations out as Baton JSON (lossless) or Markdown.
    Export(ExportArgs),
    /// Bring conversations in: a Baton export, or ChatGPT's or Claude's conversations.json.
    Import {
        /// The export file (its format is told from its content).
        file: std::path::PathBuf,
    },
    /// What Baton remembers about you across chats: list, add, remove, clear.
    Memory(MemoryArgs),
    /// Projects: chats grouped with their own folder, instructions, agent and memory.
    #[command(subcommand)]
    Projects(ProjectsCommand),
    /// Scheduled tasks: prompts Baton runs on its own (`add --when "every weekday at 8:00" PROMPT`, `list`, `run ID`, `rm ID`).
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// Run scheduled tasks when they are due, until Ctrl-C (each run is printed as a line).
    Daemon,
    /// Deep research: a question answered from many web sources, each claim with the passage it was read in, as a report with numbered citations (Ctrl-C stops).
    Research(ResearchArgs),
    /// Print the tool catalog, or run a raw tool call the way the model would.
    Tools(ToolsArgs),
    /// The models folder (GGUF files and which entries use them), or the model catalog: `catalog`, `pull NAME`, `rm NAME`.
    Models(ModelsArgs),
    /// Convert files (PDF, Word, Excel, PowerPoint, HTML, e-mail, images…) to Markdown.
    Convert(ConvertArgs),
    /// Look into a workbook (xlsx, xlsm, xls, ods, csv) the way the spreadsheet toolbox does.
    #[command(subcommand)]
    Sheet(SheetCommand),
    /// The browser toolbox: which browser Baton would use, and reading a page.
    #[command(subcommand)]
    Browser(BrowserCommand),
    /// Bring the workspace search index up to date (only changed files are read).
    Index(IndexArgs),
    /// Search the documents in the workspace.
    Search(SearchArgs),
    /// Speak text with the speech engine (on the speaker, or into a WAV file).
    Say(SayArgs),
    /// Transcribe an audio file (WAV, MP3, FLAC, Ogg Vorbis; any rate) with Whisper.
    Transcribe(TranscribeArgs),
    /// A voice conversation on the default microphone and speaker (Ctrl-C ends it).
    Voice(VoiceArgs),
    /// Serve Baton's agents as an OpenAI-compatible HTTP API (Ctrl-C stops it after the answers in flight).
    Serve(ServeArgs),
    /// A request answered by a team of agents: planned, worked on in parallel, peer-reviewed and revised, then combined into one answer (Ctrl-C stops).
    Orchestrate(OrchestrateArgs),
    /// Serve Baton's toolboxes to other agents over MCP (stdio; `--http PORT` for streamable HTTP), or manage the MCP servers and plugins Baton uses.
    Mcp(McpArgs),
}

/// `baton models`.
#[derive(Args, Debug)]
pub struct ModelsArgs {
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// `catalog`, `pull`, `rm`: recommended models to download.
    #[command(subcommand)]
    pub action: Option<ModelsCommand>,
}

/// `baton models catalog|pull|rm`.
#[derive(Subcommand, Debug)]
pub enum ModelsCommand {
    /// Recommended models with their size, licence and whether each fits this computer.
    Catalog,
    /// Download a catalog model (resumes an interrupted download, checks its SHA-256) and make it a provider.
    Pull {
        /// The model's name in `baton models catalog`.
        name: String,
    },
    /// Delete a downloaded catalog model and its provider entry.
    Rm {
        /// The model's name in `baton models catalog`.
        name: String,
    },
}

/// `baton orchestrate`.
#[derive(Args, Debug)]
pub struct OrchestrateArgs {
    /// An agents file whose agents make the team (over the shipped ones) [default: every enabled agent].
    #[arg(long, value_name = "FILE")]
    pub agents: Option<PathBuf>,
    /// One assignment after the other (each sees the earlier answers) instead of all at once.
    #[arg(long)]
    pub sequential: bool,
    /// No peer review and revision.
    #[arg(long)]
    pub no_review: bool,
    /// Revisions per assignment at most.
    #[arg(long, default_value_t = 5)]
    pub max_revisions: u32,
    /// Tokens across all agents at most; past it the run stops with what it has.
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// Let the agents search the internet (`web_search`).
    #[arg(long)]
    pub internet: bool,
    /// A file for the request (any format, converted to Markdown); repeatable.
    #[arg(long = "attach", short = 'a', value_name = "FILE")]
    pub attach: Vec<PathBuf>,
    /// Allow actions that send something off this machine (a team has no one to ask).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print the result as JSON (plan, each agent's answer, reviews, tokens).
    #[arg(long)]
    pub json: bool,
    /// The request (`-` reads stdin).
    #[arg(required = true)]
    pub prompt: Vec<String>,
}

/// `baton research`.
#[derive(Args, Debug)]
pub struct ResearchArgs {
    /// The most sources to read [default: the `research.sources` setting, 8].
    #[arg(long)]
    pub sources: Option<usize>,
    /// Sources read at once, each in its own tab [default: `research.parallel`, 4].
    #[arg(long)]
    pub parallel: Option<usize>,
    /// Minutes reading may take; the report is written from what was read by then [default: `research.minutes`, 10].
    #[arg(long)]
    pub minutes: Option<u64>,
    /// Tokens the job may use before it stops reading [default: `research.tokens`, no limit].
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// The agent that reads the sources [default: the default agent].
    #[arg(long)]
    pub agent: Option<String>,
    /// Write the report to FILE (`.md`, `.docx`, `.pdf` or `.html`) instead of printing it.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the whole report as JSON (sources, claims with their quotes, what was left out and why).
    #[arg(long)]
    pub json: bool,
    /// The question (`-` reads stdin).
    #[arg(required = true)]
    pub question: Vec<String>,
}

/// `baton mcp`.
#[derive(Args, Debug)]
pub struct McpArgs {
    /// Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (0 picks a free port; the address is printed).
    #[arg(long, value_name = "PORT")]
    pub http: Option<u16>,
    /// The address `--http` listens on (another computer's only once an MCP key exists: `baton mcp keys add NAME`).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Over `--http`, run tools that send data off this computer or change the user's accounts (the browser, sending mail) without asking; without it they run only when the client shows the user the action (MCP elicitation) and the user accepts.
    #[arg(long, requires = "http")]
    pub allow_acting: bool,
    /// Over `--http`, serve this computer without a key while no MCP key is made: every program running on it (not web pages) may then use Baton's tools. Without it, `--http` needs a key (`baton mcp keys add NAME`).
    #[arg(long, requires = "http")]
    pub no_auth: bool,
    /// Over `--http`, a name besides this computer's that requests may be addressed to once keys are needed (`Host:`); repeatable, added to the `server.hostNames` setting. IP addresses are answered anyway; other names are refused (DNS rebinding).
    #[arg(long = "host-name", value_name = "NAME", requires = "http")]
    pub host_names: Vec<String>,
    /// `servers`, `add`, `enable`, `disable`, `keys`: the MCP servers and plugins Baton uses, and the keys of `--http`.
    #[command(subcommand)]
    pub action: Option<McpCommand>,
}

/// `baton mcp servers|add|enable|disable|keys`.
#[derive(Subcommand, Debug)]
pub enum McpCommand {
    /// The API keys of `baton mcp --http` (apart from `baton serve`'s; stored hashed, a key is shown once, when made).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// The MCP servers (mcp.json) and plugins (the Tools folder) with what each is doing and its tools (each is started to list them).
    Servers {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a server to mcp.json: `add NAME --url URL`, or `add NAME -- COMMAND ARGS…`.
    Add {
        /// Its name (its tools are listed under it).
        name: String,
        /// A streamable HTTP server's address.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// An HTTP header, `NAME: VALUE` (`${keychain:SECRET}` in VALUE is read from the keychain); repeatable.
        #[arg(long = "header", requires = "url")]
        headers: Vec<String>,
        /// A stdio server's command line.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Trust a server or plugin as it is now: its own annotations (read-only, closed world) count, so its read-only tools run without asking. Pinned to its tools as they are: if it changes one, each asks again until trusted again. `--off`: every tool asks.
    Trust {
        /// Its name.
        name: String,
        /// Stop trusting it.
        #[arg(long)]
        off: bool,
    },
    /// Use a server or plugin again.
    Enable {
        /// Its name.
        name: String,
    },
    /// Stop using a server or plugin (it stays in its file, `enabled: false`).
    Disable {
        /// Its name.
        name: String,
    },
}

/// `baton serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on (another computer's only once an API key exists) [default: the `server.host` setting, 127.0.0.1].
    #[arg(long)]
    pub host: Option<std::net::IpAddr>,
    /// The port (0 picks a free one; the address is printed) [default: the `server.port` setting, 8080].
    #[arg(long)]
    pub port: Option<u16>,
    /// Answers running at once; more get 429 with Retry-After (0: no limit).
    #[arg(long, default_value_t = 64)]
    pub max_concurrent: usize,
    /// Requests a minute per API key (or in all, without keys); more get 429 with Retry-After (0: no limit).
    #[arg(long, default_value_t = baton_server::DEFAULT_PER_MINUTE)]
    pub per_minute: u32,
    /// The largest file `POST /v1/files` takes, in MB (larger: 413).
    #[arg(long, default_value_t = 100)]
    pub max_file_mb: usize,
    /// How many MB of uploaded files one API key keeps at once (more: 413 until some are deleted or expire).
    #[arg(long, default_value_t = 1024)]
    pub file_quota_mb: u64,
    /// Days an uploaded file is kept (an upload may ask for less with `expires_after`).
    #[arg(long, default_value_t = 30)]
    pub file_days: u32,
    /// Where conversations of clients that send `x-baton-session: ID` are kept, each API key's apart: `memory`, `file` (the API's own session files, apart from the desktop's) or `redis://HOST:PORT` (shared by several servers) [default: the `server.sessions` setting, memory].
    #[arg(long)]
    pub sessions: Option<String>,
    /// Do not bring the workspace search index up to date at start (search answers from the index as it is).
    #[arg(long)]
    pub skip_indexing_on_startup: bool,
    /// Days a Redis-kept session lives after its last use [default: the `server.sessionTtlDays` setting, 30].
    #[arg(long)]
    pub session_ttl_days: Option<u32>,
    /// Serve this computer without an API key while none is made: every program running on it (not web pages) may then use Baton's agents and tools. Without it, `baton serve` needs a key (`baton serve keys add NAME`).
    #[arg(long)]
    pub no_auth: bool,
    /// A name besides this computer's that requests may be addressed to once keys are needed (`Host:`), as others reach the server (`baton.lan`); repeatable, added to the `server.hostNames` setting. IP addresses are answered anyway; other names are refused (DNS rebinding).
    #[arg(long = "host-name", value_name = "NAME")]
    pub host_names: Vec<String>,
    /// `keys add|list|revoke`: the server's API keys.
    #[command(subcommand)]
    pub keys: Option<ServeCommand>,
}

/// `baton serve keys …`.
#[derive(Subcommand, Debug)]
pub enum ServeCommand {
    /// The server's API keys (stored hashed; a key is shown once, when made).
    #[command(subcommand)]
    Keys(KeysCommand),
}

/// `baton serve keys add|list|revoke`, `baton mcp keys add|list|revoke`.
#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Makes a key and prints it (once: only its hash is kept).
    Add {
        /// Who uses it (letters, digits, `-`, `_`, `.`).
        name: String,
    },
    /// Lists the keys: name, first characters, when made (and whether its conversations are shared with the desktop).
    List,
    /// Keeps a `baton serve` key's conversations with the desktop's own, so they appear in its history (`--off`: apart again). The key's holder still cannot list, load or delete the desktop's other conversations.
    Share {
        /// The key's name.
        name: String,
        /// Keep them apart again.
        #[arg(long)]
        off: bool,
    },
    /// Removes a key; a running server refuses it from its next request (what its holder kept on the server stays out of reach of any other key).
    Revoke {
        /// The key's name.
        name: String,
    },
}

/// `baton transcribe`.
#[derive(Args, Debug)]
pub struct TranscribeArgs {
    /// The audio file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print JSON: text, timed segments, audio and decoding time, model.
    #[arg(long)]
    pub json: bool,
    /// A ggml Whisper model file (default: voice.sttModel, else the best in the models folder).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Beam width (1 = greedy; default from settings).
    #[arg(long)]
    pub beam_size: Option<usize>,
    /// CPU threads (default from settings).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run the encoder over whisper's full 30 s window (slower on short clips).
    #[arg(long)]
    pub full_window: bool,
    /// The spoken language: a Whisper code (`en`, `de`, `fr`…) or `auto` (default: voice.language). Other than English needs a multilingual model (`make setup` fetches ggml-base-q8_0.bin).
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
}

/// `baton voice`.
#[derive(Args, Debug)]
pub struct VoiceArgs {
    /// Provider entry that answers (default: the agent's).
    #[arg(long)]
    pub provider: Option<String>,
    /// The named agent that answers, tools included (default: the
    /// session's, else the `agent` setting).
    #[arg(long)]
    pub agent: Option<String>,
    /// Continue this saved conversation (a chat) by voice.
    #[arg(long, value_name = "ID")]
    pub session: Option<SessionId>,
    /// List the microphones and speakers, then exit.
    #[arg(long)]
    pub list_devices: bool,
    /// Use this recording as the microphone (played in real time), then stop.
    #[arg(long, value_name = "FILE")]
    pub mic_file: Option<PathBuf>,
    /// Record what would be played into this WAV file instead of the speaker.
    #[arg(long, value_name = "FILE.wav")]
    pub speaker_file: Option<PathBuf>,
    /// Print every event as a JSON line on stdout, and the turns at the end.
    #[arg(long)]
    pub json: bool,
}

/// `baton say`.
#[derive(Args, Debug)]
pub struct SayArgs {
    /// Write a WAV file (16-bit mono) instead of playing on the speaker.
    #[arg(long, short = 'o', value_name = "FILE.wav")]
    pub out: Option<PathBuf>,
    /// Speech engine: `espeak`, `piper` (the natural offline voice) or a provider entry with a voice (default: voice.ttsEngine).
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    /// eSpeak NG voice (`en-us`, `en-gb`, `de`, `fr`, …).
    #[arg(long, default_value = "en-us")]
    pub voice: String,
    /// Speaking rate in words per minute (80–450).
    #[arg(long, default_value_t = 175)]
    pub rate: u32,
    /// The text (Markdown is read as a reader would: symbols dropped, code announced).
    #[arg(required = true, num_args = 1.., value_name = "TEXT")]
    pub text: Vec<String>,
}

/// `baton sheet`.
#[derive(Subcommand, Debug)]
pub enum SheetCommand {
    /// Describe a workbook's sheets compactly: used range, header, column
    /// types, sample rows, formulas, merged ranges, tables, charts,
    /// number formats, and what Baton could not keep when saving.
    Describe {
        /// The workbook.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Only this sheet (default: every sheet).
        #[arg(long)]
        sheet: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `baton browser`.
#[derive(Subcommand, Debug)]
pub enum BrowserCommand {
    /// The browsers found, whether Baton can attach to a running one (and
    /// the one-time step to allow it), and the mode it would use.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Open a page in the browser Baton uses and print it as Markdown, with
    /// its interactive elements, the way the model reads it.
    Read {
        /// The address.
        url: String,
        /// The most characters to print.
        #[arg(long, default_value_t = 20_000)]
        max_chars: usize,
    },
}

/// `baton convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Print one JSON array: per file its markdown, format, title, pages and warnings, or its error.
    #[arg(long)]
    pub json: bool,
    /// Do not OCR images and scanned pages.
    #[arg(long)]
    pub no_ocr: bool,
    /// Keep at most N rows per sheet or CSV table (default: all; attachments
    /// in a prompt keep 1,000).
    #[arg(long, value_name = "N")]
    pub max_rows: Option<usize>,
    /// The files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// `baton index`.
#[derive(Args, Debug)]
pub struct IndexArgs {
    /// Forget the index and read every file again.
    #[arg(long)]
    pub rebuild: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// After indexing, keep watching the workspace and index changes as they happen (Ctrl-C stops).
    #[arg(long)]
    pub watch: bool,
    /// The folder of this project (name or id) instead of the workspace.
    #[arg(long)]
    pub project: Option<String>,
}

/// `baton search`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// How many documents to return.
    #[arg(long, short = 'n', default_value_t = 10)]
    pub limit: usize,
    /// Show each hit's scores: words (BM25), meaning (likeness) and fused.
    #[arg(long)]
    pub explain: bool,
    /// Search the folder of this project (name or id) instead of the workspace.
    #[arg(long)]
    pub project: Option<String>,
    /// Words, "exact phrases", title:word, heading:word, format:pdf.
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    pub query: Vec<String>,
}

/// `baton tools`.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// The Markdown manual the model reads (the default).
    #[arg(long, group = "format")]
    pub markdown: bool,
    /// A JSON listing of toolboxes, methods and schemas.
    #[arg(long, group = "format")]
    pub json: bool,
    /// The CLI-mode help (toolboxes and their commands).
    #[arg(long, group = "format")]
    pub cli: bool,
    /// The native tool definitions sent to the provider (JSON).
    #[arg(long, group = "format")]
    pub native: bool,
    /// The catalog of this named agent (its toolboxes and tool filters); without it, every built-in toolbox.
    #[arg(long, global = true)]
    pub agent: Option<String>,
    /// `call 'RAW MODEL OUTPUT'`: repair, validate and run it.
    #[command(subcommand)]
    pub action: Option<ToolsAction>,
}

/// `baton tools call`.
#[derive(Subcommand, Debug)]
pub enum ToolsAction {
    /// Repairs, validates and runs raw model output such as
    /// `{"method": "list_directory", "path": "/"}` on the workspace, printing
    /// the JSON result (or `{"error": …}` and a non-zero exit). Several
    /// calls run in order in one process (an open workbook stays open
    /// between them), stopping at the first that fails; their results are
    /// printed as one JSON array.
    Call {
        /// Run calls that send something off this machine (an e-mail, a click on a web page) without asking; without it they are put to you first (refused when nobody is at a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        /// The raw outputs, exactly as a model would send them.
        #[arg(required = true, num_args = 1..)]
        raw: Vec<String>,
    },
}

/// Tool mode for `--mode`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeArg {
    /// The full catalog (native tools or JSON in the prompt).
    Api,
    /// One command-line tool.
    Cli,
}

impl From<ModeArg> for baton_engine::api::InteractionMode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Api => Self::Api,
            ModeArg::Cli => Self::Cli,
        }
    }
}

/// `baton ask`.
#[derive(Args, Debug)]
pub struct AskArgs {
    /// The named agent to ask (`baton agents` lists them; default: the `agent` setting, else `assistant`).
    #[arg(long)]
    pub agent: Option<String>,
    /// Provider entry to use instead of the agent's (else the setting, else the file's default).
    #[arg(long, short)]
    pub provider: Option<String>,
    /// Model to use instead of the entry's.
    #[arg(long, short)]
    pub model: Option<String>,
    /// Print one JSON object (text, tool calls, usage, provider, timings).
    #[arg(long)]
    pub json: bool,
    /// Plain chat: no tools.
    #[arg(long)]
    pub no_tools: bool,
    /// Force API or CLI tool mode.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Attach a file (any format; converted to Markdown and put before the question). Repeatable.
    #[arg(long = "attach", short = 'a', value_name = "FILE")]
    pub attach: Vec<PathBuf>,
    /// Ask in this project (name or id): its folder, instructions, agent and memory.
    #[arg(long)]
    pub project: Option<String>,
    /// Allow tools that send something off this machine (an e-mail, a form, an HTTP post) without asking; without it they are refused.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// The question; `-` reads it from stdin.
    #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
    pub prompt: Vec<String>,
}

/// `baton chat`.
#[derive(Args, Debug)]
pub struct ChatArgs {
    /// The named agent to talk to (`baton agents` lists them; default: the session's, else the `agent` setting, else `assistant`).
    #[arg(long)]
    pub agent: Option<String>,
    /// Provider entry to use instead of the agent's.
    #[arg(long, short)]
    pub provider: Option<String>,
    /// Model to use instead of the entry's.
    #[arg(long, short)]
    pub model: Option<String>,
    /// Plain chat: no tools.
    #[arg(long)]
    pub no_tools: bool,
    /// Force API or CLI tool mode.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Continue a saved session (name or id).
    #[arg(long)]
    pub session: Option<SessionId>,
    /// A new chat in this project (name or id): its folder, instructions, agent and memory.
    #[arg(long, conflicts_with = "session")]
    pub project: Option<String>,
    /// Allow tools that send something off this machine without asking (by default each one is put to you first).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `baton config …`.
#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Print the settings, folders and which secrets are set (masked).
    Show {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change one setting, e.g. `baton config set provider deepseek`.
    Set {
        /// Dotted key (`provider`, `workspace`, `smtp.host`, …).
        key: String,
        /// New value (JSON, or plain text; `null` clears).
        value: String,
    },
}

/// `baton export …`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// `json` (Baton's own, lossless: `baton import` reads it back), `markdown` or `pdf` (one file a conversation).
    #[arg(long, value_enum, default_value = "json")]
    pub format: ExportFormat,
    /// Only this conversation (repeatable); none named: every one.
    #[arg(long = "session", conflicts_with = "project")]
    pub sessions: Vec<SessionId>,
    /// Only the conversations of this project (name or id).
    #[arg(long)]
    pub project: Option<String>,
    /// The folder to write into (made if missing).
    #[arg(long)]
    pub out: std::path::PathBuf,
}

/// What `baton export` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `baton-conversations.json`.
    Json,
    /// `ID.md` for each conversation.
    Markdown,
    /// `ID.pdf` for each conversation (printed by headless Chromium).
    Pdf,
}

/// `baton memory [--project NAME] …`.
#[derive(Args, Debug)]
pub struct MemoryArgs {
    /// The memory of this project (name or id) instead of yours.
    #[arg(long, global = true)]
    pub project: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: MemoryCommand,
}

/// `baton projects …`.
#[derive(Subcommand, Debug)]
pub enum ProjectsCommand {
    /// Every project with its folder and how many chats it has.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Make a project (`baton projects new "Port of Gdynia" --folder ~/Port`).
    New {
        /// Its name.
        name: String,
        /// Its folder: the workspace of its chats (made if missing).
        #[arg(long)]
        folder: PathBuf,
        /// Instructions every chat in it gets.
        #[arg(long)]
        instructions: Option<String>,
        /// The named agent its chats talk to.
        #[arg(long)]
        agent: Option<String>,
        /// The provider entry its chats use.
        #[arg(long)]
        provider: Option<String>,
    },
    /// Remove a project: its chats go to the trash, its folder stays.
    Rm {
        /// Its name or id.
        name: String,
        /// Do not ask.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Move a saved chat into a project (or out of one with `--none`).
    Move {
        /// The chat's session id.
        session: SessionId,
        /// The project's name or id.
        #[arg(required_unless_present = "none")]
        project: Option<String>,
        /// Out of any project.
        #[arg(long, conflicts_with = "project")]
        none: bool,
    },
}

/// `baton schedule …`.
#[derive(Subcommand, Debug)]
pub enum ScheduleCommand {
    /// Make a task: PROMPT run at WHEN, in its own chat.
    Add {
        /// When: plain words (`every weekday at 8:00`, `every monday at 9`, `on the first of the month`, `in 2 hours`, `tomorrow at 9:30`), a date (`2026-12-24 18:00`) or a cron pattern (`0 8 * * 1-5`), in your time zone.
        #[arg(long)]
        when: String,
        /// The named agent to run it with (default: the default agent).
        #[arg(long)]
        agent: Option<String>,
        /// No notification when a run ends (the desktop's; `baton daemon` prints a line anyway).
        #[arg(long)]
        quiet: bool,
        /// Also e-mail each run's answer to you (your own address; see `email` in the settings).
        #[arg(long)]
        email: bool,
        /// What Baton should do, as you would ask it.
        #[arg(required = true, num_args = 1..)]
        prompt: Vec<String>,
    },
    /// Every task with its id, when, next run and last run.
    List {
        /// Print JSON (each task with `id`, `prompt`, `when`, `schedule`, `nextRun` as an RFC 3339 time, `runs`).
        #[arg(long)]
        json: bool,
    },
    /// Run a task now, in the foreground, printing its answer.
    Run {
        /// Its id, as `baton schedule list` shows it.
        id: baton_engine::api::schedule::TaskId,
    },
    /// Remove a task.
    Rm {
        /// Its id, as `baton schedule list` shows it.
        id: baton_engine::api::schedule::TaskId,
    },
}

/// `baton memory …`.
#[derive(Subcommand, Debug)]
pub enum MemoryCommand {
    /// List everything remembered, oldest first, each with its id.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remember a fact or preference (`baton memory add "Prefers metric units"`).
    Add {
        /// The fact, in one or two sentences.
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
    },
    /// Forget one entry.
    Rm {
        /// Its id, as `baton memory list` shows it.
        id: baton_engine::api::memory::MemoryId,
    },
    /// Forget everything.
    Clear,
}

/// `baton secret …`.
#[derive(Subcommand, Debug)]
pub enum SecretCommand {
    /// Store a key read from stdin (typed without echo on a terminal).
    Set {
        /// Provider name (or `smtp` / `imap`).
        name: String,
    },
    /// Remove a stored key.
    Delete {
        /// Provider name.
        name: String,
    },
    /// List the names that have a stored key (never the keys).
    List,
}
