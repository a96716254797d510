//! The agent: a provider client, toolboxes, subagents and limits; the
//! request it sends each model call. The loop itself is in `turn.rs`, the
//! tool calls in `calls.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use baton_llm::{
    CallOptions, ChatRequest, CompletionBuilder, ContentPart, FileRef, InteractionMode, LlmError,
    LlmEvent, Message, Provider, ProviderConfig, ToolDefinition, Usage,
};
use baton_tools::{Catalog, ToolCallRecord};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::compact::{CompactionPolicy, compact};
use crate::confirm::{ConfirmPolicy, Questions};
use crate::events::{AgentEvent, EventSink};
use crate::prompt::system_prompt;
use crate::stop::StopReason;
use crate::subagent::{self, SubagentSpec};

/// How an agent works.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// API (full catalog) or CLI (one command-line tool).
    pub mode: InteractionMode,
    /// Use the provider's native tool calling.
    pub native_tools: bool,
    /// Ask for JSON output in prompt-based modes (when the provider can).
    pub json_mode: bool,
    /// The answer itself is one JSON object (a plan, a review): providers
    /// with a JSON mode are asked for one, and the embedded model is held
    /// to it by a grammar.
    pub answer_json: bool,
    /// The answer's `[n]` markers cite sources given in the prompt itself
    /// (a research report's), not passages Baton's tools gave: they are
    /// left as written instead of checked.
    pub own_citations: bool,
    /// Model calls per `execute_action` at most.
    pub max_iterations: usize,
    /// Extra instructions in the system prompt.
    pub instructions: Option<String>,
    /// How deep subagents may nest.
    pub max_depth: usize,
    /// When to compact history.
    pub compaction: CompactionPolicy,
    /// The model's context window (tokens), for compaction.
    pub context_window: u32,
    /// Stop when the run's tokens pass this.
    pub token_budget: Option<u64>,
    /// May answer with a question (subagents).
    pub can_ask: bool,
    /// The model reads images: pictures in tool results (browser
    /// screenshots) are sent to it.
    pub reads_images: bool,
    /// Toolboxes whose external calls run without asking, because the
    /// user said so in the settings (`email.confirmSend: false` → the
    /// mail toolbox, by identity: a plugin named `MailTool` is not it).
    pub confirm_exempt: Vec<baton_tools::ToolboxId>,
    /// A small local model: without tools it gets a short system prompt
    /// that asks for the fact in one sentence ([`crate::BRIEF_PROMPT`]).
    pub brief_answers: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            mode: InteractionMode::Api,
            native_tools: true,
            json_mode: false,
            answer_json: false,
            own_citations: false,
            max_iterations: 50,
            instructions: None,
            max_depth: 2,
            compaction: CompactionPolicy::default(),
            context_window: 32_768,
            token_budget: None,
            can_ask: false,
            reads_images: false,
            confirm_exempt: Vec::new(),
            brief_answers: false,
        }
    }
}

impl AgentConfig {
    /// Settings that fit a provider entry (mode, native tools, JSON mode,
    /// context window).
    pub fn for_provider(cfg: &ProviderConfig) -> Self {
        Self {
            mode: cfg.effective_interaction_mode(),
            native_tools: cfg.native_tools,
            json_mode: cfg.json_mode,
            context_window: cfg.context_window,
            reads_images: cfg.ocr,
            brief_answers: cfg.dialect == baton_llm::Dialect::Local,
            ..Self::default()
        }
    }
}

/// The outcome of [`Agent::execute_action`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionResult {
    /// The final message (the answer, the question, or what was said last).
    pub answer: String,
    /// Every tool call, in order.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Tokens of each model call.
    pub usage: Vec<Usage>,
    /// Model calls made.
    pub iterations: usize,
    /// Why it ended.
    pub stop: StopReason,
    /// Files tools produced (agent paths), including those of subagents.
    pub files: Vec<String>,
    /// The workspace passages the answer cites (`[n]`), checked against
    /// those the tools gave the model.
    pub citations: Vec<baton_tools::Citation>,
    /// Citations to passages the model was never given, taken out of the
    /// answer.
    pub dropped_citations: usize,
    /// The model-call error behind [`StopReason::Error`].
    #[serde(skip)]
    pub error: Option<LlmError>,
}

impl ActionResult {
    /// An empty result that stops with `stop` (before any model call).
    pub fn stopped(stop: StopReason) -> Self {
        Self {
            answer: String::new(),
            tool_calls: Vec::new(),
            usage: Vec::new(),
            iterations: 0,
            stop,
            files: Vec::new(),
            citations: Vec::new(),
            dropped_citations: 0,
            error: None,
        }
    }

    /// The tokens of every model call added up.
    pub fn total_usage(&self) -> Usage {
        self.usage.iter().fold(Usage::default(), |mut acc, u| {
            acc.prompt_tokens += u.prompt_tokens;
            acc.completion_tokens += u.completion_tokens;
            if let Some(c) = u.cached_tokens {
                acc.cached_tokens = Some(acc.cached_tokens.unwrap_or(0) + c);
            }
            acc
        })
    }
}

/// Renders the files of one user message (stored as [`FileRef`]s) into
/// the text the model reads. The same files give the same text every
/// time, so a cached prefix stays valid across turns.
pub trait FileRenderer: Send + Sync {
    /// The attachment block for `files` (one message's files, in order);
    /// `question` is the message's own text (a file too long for the
    /// budget gives the passages that bear on it).
    fn render(&self, files: &[FileRef], question: &str) -> String;
}

/// Per-call context that changes between calls (the date and time, a
/// workspace summary): sent with every model call where the provider's
/// cache layout puts it, never stored in history.
pub trait DynamicContext: Send + Sync {
    /// The text for the call about to be made (`None`: nothing to add);
    /// `question` is the user's latest message (what is recalled for it
    /// may depend on it). May block (reading a file, embedding the
    /// question): the agent calls it on a blocking thread.
    fn render(&self, question: &str) -> Option<String>;
}

/// The tokens one turn may spend, shared by the agent and its subagents.
#[derive(Debug, Clone, Default)]
pub struct TokenBudget {
    limit: Option<u64>,
    spent: Arc<AtomicU64>,
}

impl TokenBudget {
    /// A budget of `limit` tokens (`None`: unlimited).
    pub fn new(limit: Option<u64>) -> Self {
        Self {
            limit,
            spent: Arc::default(),
        }
    }

    /// The limit.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Tokens spent so far, subagents included.
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::SeqCst)
    }

    /// Counts one model call's tokens.
    pub(crate) fn spend(&self, usage: &baton_llm::Usage) {
        let n = u64::from(usage.prompt_tokens) + u64::from(usage.completion_tokens);
        self.spent.fetch_add(n, Ordering::SeqCst);
    }

    /// Whether the limit is reached.
    pub fn exhausted(&self) -> bool {
        self.limit.is_some_and(|l| self.spent() >= l)
    }
}

/// Everything one turn runs with besides the history: cancellation, the
/// event sink, what to do about external actions and subagents'
/// questions, and the token budget.
#[derive(Debug, Clone, Default)]
pub struct TurnContext {
    /// Cancelled by Stop: the model call and the running tool end.
    pub cancel: CancellationToken,
    /// Where the turn's events go.
    pub events: EventSink,
    /// Whether tools that send something off the machine may run.
    pub confirm: ConfirmPolicy,
    /// Where the user answers subagents' questions (`None`: nobody can,
    /// and the parent agent gets the question).
    pub questions: Option<Questions>,
    /// The turn's tokens (the top agent's `token_budget` when unset).
    pub budget: TokenBudget,
    /// The front door shows step thumbnails (tools make them only then).
    pub previews: bool,
    /// What the user typed in this conversation, this turn's message
    /// included (their own words: no attachment, page, mail or tool
    /// text). A toolbox may let a call that only goes where these words
    /// point run without a card (`Toolbox::card_needed`).
    pub user_words: std::sync::Arc<str>,
    /// The passages tools gave the model this turn, numbered for the
    /// answer's citations (shared with subagents).
    pub sources: baton_tools::Sources,
    /// The conversation the turn belongs to (its session id), for tools
    /// that note where something came from (`remember`).
    pub conversation: Option<String>,
}

pub(crate) struct OpenSubagent {
    pub(crate) agent: Agent,
    pub(crate) history: Vec<Message>,
    /// When it was delegated to.
    pub(crate) started: std::time::Instant,
}

/// An agent: a provider client, toolboxes, subagents and limits.
pub struct Agent {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) catalog: Catalog,
    pub(crate) subagents: Vec<SubagentSpec>,
    pub(crate) config: AgentConfig,
    pub(crate) events: EventSink,
    pub(crate) files: Option<Arc<dyn FileRenderer>>,
    pub(crate) dynamic: Option<Arc<dyn DynamicContext>>,
    pub(crate) depth: usize,
    pub(crate) open: Mutex<HashMap<String, OpenSubagent>>,
    pub(crate) counter: Arc<AtomicUsize>,
}

impl Agent {
    /// An agent on `provider` with `catalog`'s tools.
    pub fn new(provider: Arc<dyn Provider>, catalog: Catalog, config: AgentConfig) -> Self {
        Self {
            provider,
            catalog,
            subagents: Vec::new(),
            config,
            events: EventSink::default(),
            files: None,
            dynamic: None,
            depth: 0,
            open: Mutex::new(HashMap::new()),
            counter: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Adds a kind of subagent.
    pub fn with_subagent(mut self, spec: SubagentSpec) -> Self {
        self.subagents.push(spec);
        self
    }

    /// Sends the events of [`execute_action`](Self::execute_action) runs
    /// to `sink` ([`execute_turn`](Self::execute_turn) takes its own).
    pub fn with_events(mut self, sink: EventSink) -> Self {
        self.events = sink;
        self
    }

    /// Renders attached files ([`ContentPart::File`]) with `renderer`.
    pub fn with_file_renderer(mut self, renderer: Arc<dyn FileRenderer>) -> Self {
        self.files = Some(renderer);
        self
    }

    /// Sends `context` with every model call (never stored).
    pub fn with_dynamic_context(mut self, context: Arc<dyn DynamicContext>) -> Self {
        self.dynamic = Some(context);
        self
    }

    /// The subagents it may launch.
    pub fn subagents(&self) -> &[SubagentSpec] {
        &self.subagents
    }

    /// The settings.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The tools.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The system prompt this agent sends.
    pub fn system_prompt(&self) -> String {
        if self.config.brief_answers && self.catalog.is_empty() && self.subagents.is_empty() {
            return crate::prompt::brief_prompt(self.config.instructions.as_deref());
        }
        let tools = self.config.mode == InteractionMode::Api || !self.catalog.is_empty();
        let catalog = if tools {
            self.catalog.clone()
        } else {
            Catalog::new()
        };
        system_prompt(
            &catalog,
            &self.subagents,
            self.config.mode,
            self.config.native_tools,
            self.config.instructions.as_deref(),
            self.config.can_ask,
        )
    }

    /// Releases the toolboxes (and those of open subagents).
    pub fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for t in self.catalog.toolboxes() {
                t.close().await;
            }
            let open: Vec<OpenSubagent> = self
                .open
                .lock()
                .expect("lock")
                .drain()
                .map(|(_, s)| s)
                .collect();
            for s in open {
                s.agent.close().await;
            }
        })
    }

    /// Runs the tool loop on `history` for `prompt` (with attachments)
    /// until the model answers or a limit stops it. Events go to the sink
    /// given with [`with_events`](Self::with_events); tools that send
    /// something off the machine are refused.
    pub fn execute_action<'a>(
        &'a self,
        history: &'a mut Vec<Message>,
        prompt: &'a str,
        attachments: Vec<ContentPart>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ActionResult> {
        let mut content = vec![ContentPart::Text {
            text: prompt.to_string(),
        }];
        content.extend(attachments);
        let ctx = TurnContext {
            cancel,
            events: self.events.clone(),
            ..TurnContext::default()
        };
        Box::pin(async move { self.run(history, content, &ctx).await })
    }

    /// Runs one turn: the user message `content` is added to `history`
    /// and the tool loop runs until the model answers or a limit stops it.
    pub fn execute_turn<'a>(
        &'a self,
        history: &'a mut Vec<Message>,
        content: Vec<ContentPart>,
        ctx: &'a TurnContext,
    ) -> BoxFuture<'a, ActionResult> {
        Box::pin(self.run(history, content, ctx))
    }

    pub(crate) fn native_tool_defs(&self) -> Vec<ToolDefinition> {
        if self.config.mode == InteractionMode::Cli {
            return vec![self.cli_tool_def()];
        }
        let mut defs: Vec<ToolDefinition> = self
            .catalog
            .native_tools()
            .into_iter()
            .map(|t| ToolDefinition {
                name: t.name,
                description: t.description,
                parameters: t.parameters,
            })
            .collect();
        if !self.subagents.is_empty() {
            defs.extend(subagent::tool_definitions(&self.subagents));
        }
        defs
    }

    /// The one `cli` tool of CLI mode. Its pattern names the known
    /// toolboxes and commands, so a grammar-constrained model (the local
    /// one) can only write those.
    fn cli_tool_def(&self) -> ToolDefinition {
        let mut alternatives: Vec<String> = self
            .catalog
            .specs()
            .map(|s| {
                let cmds: Vec<&str> = s.methods.iter().map(|m| m.name.as_str()).collect();
                format!("{} ({})", s.name, cmds.join("|"))
            })
            .collect();
        if !self.subagents.is_empty() {
            alternatives.push(subagent::CLI_PATTERN.to_string());
        }
        let pattern = format!("^({})( [^\"\\\\]*)?$", alternatives.join("|"));
        ToolDefinition {
            name: "cli".into(),
            description: "Runs one Baton command line: `<Toolbox> <command> [arguments]`.".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string", "pattern": pattern}},
                               "required": ["command"], "additionalProperties": false}),
        }
    }

    pub(crate) fn has_tools(&self) -> bool {
        !self.catalog.is_empty() || !self.subagents.is_empty()
    }

    /// The messages as sent: attached files rendered, and in prompt-based
    /// modes tool calls as the model's own text and tool results as user
    /// messages.
    async fn wire_messages(&self, history: &[Message]) -> Vec<Message> {
        let native = self.config.native_tools;
        let mut out: Vec<Message> = history
            .iter()
            .map(|m| match m {
                Message::Assistant { content, .. } if !native => {
                    Message::assistant(content.clone())
                }
                other => other.clone(),
            })
            .collect();
        crate::pictures::for_wire(&mut out, self.config.reads_images);
        if !native {
            for m in out.iter_mut() {
                if let Message::Tool {
                    name,
                    content,
                    images,
                    ..
                } = m
                {
                    *m = crate::pictures::as_user_message(name, content, images);
                }
            }
        }
        if let Some(renderer) = &self.files {
            render_files(renderer, &mut out).await;
        }
        out
    }

    pub(crate) fn ensure_system(&self, history: &mut Vec<Message>) {
        // Without tools or instructions there is nothing to say: a bare
        // conversation serves small models best.
        if !self.has_tools()
            && self
                .config
                .instructions
                .as_deref()
                .is_none_or(|i| i.trim().is_empty())
        {
            return;
        }
        let prompt = self.system_prompt();
        match history.first_mut() {
            Some(Message::System { content }) => {
                if *content != prompt {
                    *content = prompt;
                }
            }
            _ => history.insert(0, Message::system(prompt)),
        }
    }

    pub(crate) async fn maybe_compact(&self, history: &mut Vec<Message>, events: &EventSink) {
        if self
            .config
            .compaction
            .due(history, self.config.context_window)
        {
            let report = compact(history, self.config.compaction.keep_exchanges);
            tracing::info!(?report, "history compacted");
            events.emit(AgentEvent::Compacted(report)).await;
        }
    }

    /// The per-call context for the call about to be made, worked out on
    /// a blocking thread (it may read files and run the embedding model).
    async fn dynamic_context(&self, history: &[Message]) -> Option<String> {
        let dynamic = Arc::clone(self.dynamic.as_ref()?);
        let question = latest_question(history);
        tokio::task::spawn_blocking(move || dynamic.render(&question))
            .await
            .inspect_err(|e| tracing::warn!(error = %e, "per-call context not added"))
            .ok()
            .flatten()
    }

    /// One model call, streamed. Text deltas are forwarded when `forward`.
    pub(crate) async fn call_model(
        &self,
        history: &[Message],
        tools: Vec<ToolDefinition>,
        json_mode: bool,
        forward: bool,
        ctx: &TurnContext,
    ) -> Result<baton_llm::Completion, LlmError> {
        let request = ChatRequest {
            messages: self.wire_messages(history).await,
            tools,
            dynamic_context: self.dynamic_context(history).await,
            options: CallOptions {
                json_mode,
                ..Default::default()
            },
        };
        let mut stream = self.provider.stream(request, ctx.cancel.clone()).await?;
        let mut builder = CompletionBuilder::default();
        while let Some(ev) = stream.next().await {
            let ev = ev?;
            if forward && let LlmEvent::TextDelta(t) = &ev {
                ctx.events
                    .emit(AgentEvent::TextDelta { text: t.clone() })
                    .await;
            }
            builder.push(ev);
        }
        let c = builder.finish();
        ctx.events.emit(AgentEvent::Usage(c.usage)).await;
        Ok(c)
    }

    /// Plain streaming chat (no tools): `on_text` gets each chunk as the
    /// model produces it; the exchange is appended to `history`.
    pub async fn execute_chat_stream(
        &self,
        history: &mut Vec<Message>,
        prompt: &str,
        attachments: Vec<ContentPart>,
        cancel: CancellationToken,
        mut on_text: impl FnMut(&str) + Send,
    ) -> Result<String, LlmError> {
        let instructions = self.config.instructions.clone().unwrap_or_default();
        if !instructions.is_empty() && !matches!(history.first(), Some(Message::System { .. })) {
            history.insert(0, Message::system(instructions));
        }
        let mut content = vec![ContentPart::Text {
            text: prompt.to_string(),
        }];
        content.extend(attachments);
        history.push(Message::User { content });
        let request = ChatRequest::new(self.wire_messages(history).await);
        let mut stream = match self.provider.stream(request, cancel).await {
            Ok(s) => s,
            Err(e) => {
                history.pop();
                return Err(e);
            }
        };
        let mut text = String::new();
        while let Some(ev) = stream.next().await {
            match ev {
                Ok(LlmEvent::TextDelta(t)) => {
                    on_text(&t);
                    self.events
                        .emit(AgentEvent::TextDelta { text: t.clone() })
                        .await;
                    text.push_str(&t);
                }
                Ok(LlmEvent::Usage(u)) => self.events.emit(AgentEvent::Usage(u)).await,
                Ok(_) => {}
                Err(e) => {
                    if !text.is_empty() {
                        history.push(Message::assistant(text));
                    } else {
                        history.pop();
                    }
                    return Err(e);
                }
            }
        }
        history.push(Message::assistant(text.clone()));
        Ok(text)
    }
}

/// Replaces each user message's [`ContentPart::File`]s by the text the
/// renderer makes of them (on a blocking thread: a file whose conversion
/// is no longer cached is converted again).
async fn render_files(renderer: &Arc<dyn FileRenderer>, messages: &mut [Message]) {
    let jobs: Vec<(usize, Vec<FileRef>, String)> = messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::User { content } => {
                let files: Vec<FileRef> = content
                    .iter()
                    .filter_map(|p| match p {
                        ContentPart::File(f) => Some(f.clone()),
                        _ => None,
                    })
                    .collect();
                let question: String = content
                    .iter()
                    .filter_map(|p| match p {
                        ContentPart::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                (!files.is_empty()).then_some((i, files, question))
            }
            _ => None,
        })
        .collect();
    if jobs.is_empty() {
        return;
    }
    let renderer = Arc::clone(renderer);
    let rendered = tokio::task::spawn_blocking(move || {
        jobs.into_iter()
            .map(|(i, files, question)| (i, renderer.render(&files, &question)))
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    for (i, text) in rendered {
        if let Message::User { content } = &mut messages[i] {
            let at = content
                .iter()
                .position(|p| matches!(p, ContentPart::File(_)))
                .unwrap_or(0);
            content.retain(|p| !matches!(p, ContentPart::File(_)));
            content.insert(at, ContentPart::Text { text });
        }
    }
}

/// The text of the user's latest message in `history` (empty when none).
fn latest_question(history: &[Message]) -> String {
    history
        .iter()
        .rfind(|m| matches!(m, Message::User { .. }))
        .map(Message::text)
        .unwrap_or_default()
}
