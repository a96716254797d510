//! The agent loop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use baton_llm::{
    CallOptions, ChatRequest, CompletionBuilder, ContentPart, InteractionMode, LlmError, LlmEvent,
    Message, Provider, ProviderConfig, ToolCall, ToolDefinition, Usage,
};
use baton_tools::cli::{self, CliCommand};
use baton_tools::{Catalog, ToolCallRecord, ToolOutcome};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::compact::{CompactionPolicy, compact};
use crate::events::{AgentEvent, EventSink};
use crate::prompt::system_prompt;
use crate::reply::{ModelReply, parse_reply};
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
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            mode: InteractionMode::Api,
            native_tools: true,
            json_mode: false,
            max_iterations: 50,
            instructions: None,
            max_depth: 2,
            compaction: CompactionPolicy::default(),
            context_window: 32_768,
            token_budget: None,
            can_ask: false,
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
            ..Self::default()
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "detail")]
pub enum StopReason {
    /// The model gave its answer.
    Answered,
    /// The model asked a question (subagents).
    Asked,
    /// `max_iterations` model calls were made.
    MaxIterations,
    /// The caller cancelled.
    Cancelled,
    /// The token budget ran out.
    Budget,
    /// The same failing call came three times.
    LoopGuard(String),
    /// A model call failed.
    Error(String),
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
    /// The model-call error behind [`StopReason::Error`].
    #[serde(skip)]
    pub error: Option<LlmError>,
}

struct OpenSubagent {
    agent: Agent,
    history: Vec<Message>,
}

/// An agent: a provider client, toolboxes, subagents and limits.
pub struct Agent {
    provider: Arc<dyn Provider>,
    catalog: Catalog,
    subagents: Vec<SubagentSpec>,
    config: AgentConfig,
    events: EventSink,
    depth: usize,
    open: Mutex<HashMap<String, OpenSubagent>>,
    counter: Arc<AtomicUsize>,
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

    /// Sends events to `sink`.
    pub fn with_events(mut self, sink: EventSink) -> Self {
        self.events = sink;
        self
    }

    /// The event sink.
    pub fn events(&self) -> &EventSink {
        &self.events
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

    fn native_tool_defs(&self) -> Vec<ToolDefinition> {
        if self.config.mode == InteractionMode::Cli {
            // The pattern names the known toolboxes and commands, so a
            // grammar-constrained model (the local one) can only write those.
            let alternatives: Vec<String> = self
                .catalog
                .specs()
                .map(|s| {
                    let cmds: Vec<&str> = s.methods.iter().map(|m| m.name.as_str()).collect();
                    format!("{} ({})", s.name, cmds.join("|"))
                })
                .collect();
            let pattern = format!("^({})( [^\"\\\\]*)?$", alternatives.join("|"));
            return vec![ToolDefinition {
                name: "cli".into(),
                description: "Runs one Baton command line: `<Toolbox> <command> [arguments]`."
                    .into(),
                parameters: json!({"type": "object", "properties": {"command": {"type": "string", "pattern": pattern}},
                                   "required": ["command"], "additionalProperties": false}),
            }];
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

    fn has_tools(&self) -> bool {
        !self.catalog.is_empty() || !self.subagents.is_empty()
    }

    /// The messages as sent: in prompt-based modes tool calls are the
    /// model's own text and tool results are user messages.
    fn wire_messages(&self, history: &[Message]) -> Vec<Message> {
        if self.config.native_tools {
            return history.to_vec();
        }
        history
            .iter()
            .map(|m| match m {
                Message::Assistant { content, .. } => Message::assistant(content.clone()),
                Message::Tool { name, content, .. } => {
                    Message::user(baton_llm::tool_result_as_text(name, content))
                }
                other => other.clone(),
            })
            .collect()
    }

    fn ensure_system(&self, history: &mut Vec<Message>) {
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

    fn maybe_compact(&self, history: &mut Vec<Message>) {
        if self
            .config
            .compaction
            .due(history, self.config.context_window)
        {
            let report = compact(history, self.config.compaction.keep_exchanges);
            tracing::info!(?report, "history compacted");
            self.events.emit(AgentEvent::Compacted(report));
        }
    }

    /// One model call, streamed. Text deltas are forwarded when `forward`.
    async fn call_model(
        &self,
        history: &[Message],
        tools: Vec<ToolDefinition>,
        json_mode: bool,
        forward: bool,
        cancel: &CancellationToken,
    ) -> Result<baton_llm::Completion, LlmError> {
        let request = ChatRequest {
            messages: self.wire_messages(history),
            tools,
            dynamic_context: None,
            options: CallOptions {
                json_mode,
                ..Default::default()
            },
        };
        let mut stream = self.provider.stream(request, cancel.clone()).await?;
        let mut builder = CompletionBuilder::default();
        while let Some(ev) = stream.next().await {
            let ev = ev?;
            if forward && let LlmEvent::TextDelta(t) = &ev {
                self.events.emit(AgentEvent::TextDelta { text: t.clone() });
            }
            builder.push(ev);
        }
        let c = builder.finish();
        self.events.emit(AgentEvent::Usage(c.usage));
        Ok(c)
    }

    /// Runs the tool loop on `history` for `prompt` (with attachments)
    /// until the model answers or a limit stops it.
    pub fn execute_action<'a>(
        &'a self,
        history: &'a mut Vec<Message>,
        prompt: &'a str,
        attachments: Vec<ContentPart>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ActionResult> {
        Box::pin(self.run(history, prompt, attachments, cancel))
    }

    async fn run(
        &self,
        history: &mut Vec<Message>,
        prompt: &str,
        attachments: Vec<ContentPart>,
        cancel: CancellationToken,
    ) -> ActionResult {
        self.maybe_compact(history);
        self.ensure_system(history);
        let mut content = vec![ContentPart::Text {
            text: prompt.to_string(),
        }];
        content.extend(attachments);
        history.push(Message::User { content });

        let mut result = ActionResult {
            answer: String::new(),
            tool_calls: Vec::new(),
            usage: Vec::new(),
            iterations: 0,
            stop: StopReason::MaxIterations,
            files: Vec::new(),
            error: None,
        };
        let mut failures: HashMap<String, usize> = HashMap::new();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        let native = self.config.native_tools && self.has_tools();
        let json_mode = !native && self.has_tools() && self.config.json_mode;
        let toolbox_names: Vec<&str> = self.catalog.specs().map(|s| s.name.as_str()).collect();
        let mut spent: u64 = 0;

        'outer: while result.iterations < self.config.max_iterations {
            if cancel.is_cancelled() {
                result.stop = StopReason::Cancelled;
                break;
            }
            result.iterations += 1;
            let tools = if native {
                self.native_tool_defs()
            } else {
                Vec::new()
            };
            // Stream text live only where text is the answer (native tools).
            let forward = native || !self.has_tools();
            let completion = match self
                .call_model(history, tools, json_mode, forward, &cancel)
                .await
            {
                Ok(c) => c,
                Err(LlmError::Cancelled { .. }) => {
                    result.stop = StopReason::Cancelled;
                    break;
                }
                Err(e) => {
                    self.events.emit(AgentEvent::Error {
                        message: e.to_string(),
                    });
                    result.stop = StopReason::Error(e.to_string());
                    result.error = Some(e);
                    break;
                }
            };
            result.usage.push(completion.usage);
            spent += u64::from(completion.usage.prompt_tokens + completion.usage.completion_tokens);

            // Work out what the model asked for.
            let mut calls: Vec<ToolCall> = Vec::new();
            let text = completion.text.clone();
            if native && !completion.tool_calls.is_empty() {
                calls = completion.tool_calls.clone();
            } else if !native && self.has_tools() {
                let call_id = format!("call_{}_{}", self.depth, result.iterations);
                match parse_reply(&text, &toolbox_names) {
                    ModelReply::Answer(a) => {
                        history.push(Message::assistant(a.clone()));
                        result.answer = a;
                        result.stop = StopReason::Answered;
                        break;
                    }
                    ModelReply::Question(q) if self.config.can_ask => {
                        history.push(Message::assistant(text.clone()));
                        result.answer = q;
                        result.stop = StopReason::Asked;
                        break;
                    }
                    ModelReply::Question(q) => {
                        history.push(Message::assistant(q.clone()));
                        result.answer = q;
                        result.stop = StopReason::Answered;
                        break;
                    }
                    ModelReply::Call { name, args } => calls.push(ToolCall {
                        id: call_id,
                        name,
                        arguments: args,
                    }),
                    ModelReply::Cli(command) => calls.push(ToolCall {
                        id: call_id,
                        name: "cli".into(),
                        arguments: json!({"command": command}),
                    }),
                }
            } else {
                // Native mode without calls, or no tools: the text is the
                // answer — unless it is a call written as text (models do
                // that even with native tools), or a subagent's question.
                let reply = if self.has_tools() || self.config.can_ask {
                    parse_reply(&text, &toolbox_names)
                } else {
                    ModelReply::Answer(text.clone())
                };
                let call_id = format!("call_{}_{}", self.depth, result.iterations);
                match reply {
                    ModelReply::Call { name, args } if self.has_tools() => {
                        calls.push(ToolCall {
                            id: call_id,
                            name,
                            arguments: args,
                        });
                    }
                    ModelReply::Cli(command)
                        if self.has_tools() && self.config.mode == InteractionMode::Cli =>
                    {
                        calls.push(ToolCall {
                            id: call_id,
                            name: "cli".into(),
                            arguments: json!({"command": command}),
                        });
                    }
                    ModelReply::Question(q) if self.config.can_ask => {
                        history.push(Message::assistant(text.clone()));
                        result.answer = q;
                        result.stop = StopReason::Asked;
                        break;
                    }
                    ModelReply::Answer(a) if a != text => {
                        history.push(Message::assistant(a.clone()));
                        result.answer = a;
                        result.stop = StopReason::Answered;
                        break;
                    }
                    _ => {
                        history.push(Message::assistant(text.clone()));
                        result.answer = text;
                        result.stop = StopReason::Answered;
                        break;
                    }
                }
            }
            history.push(Message::Assistant {
                content: text.clone(),
                tool_calls: calls.clone(),
            });
            for call in calls {
                if cancel.is_cancelled() {
                    history.push(Message::Tool {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        content: json!({"error": "cancelled"}).to_string(),
                        is_error: true,
                    });
                    continue;
                }
                self.events.emit(AgentEvent::ToolStarted {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                });
                // The same call again, with nothing written since, would
                // only repeat its result: tell the model instead.
                let key = format!("{}|{}", baton_tools::normalize(&call.name), call.arguments);
                let (record, files) = if seen.contains(&key) {
                    let record = ToolCallRecord {
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                        outcome: ToolOutcome::Err(format!(
                            "`{}` was already called with these arguments; its result is above. Use it: answer now, or call something else",
                            call.name
                        )),
                        duration: std::time::Duration::ZERO,
                    };
                    (record, Vec::new())
                } else {
                    self.run_call(&call, &cancel).await
                };
                if !files.is_empty() {
                    seen.clear();
                }
                if !record.outcome.is_err() {
                    seen.insert(key);
                }
                let model_text = record.outcome.to_model_text();
                let is_error = record.outcome.is_err();
                self.events.emit(AgentEvent::ToolFinished {
                    id: call.id.clone(),
                    name: record.name.clone(),
                    result: match &record.outcome {
                        ToolOutcome::Ok(v) => v.clone(),
                        ToolOutcome::Err(e) => json!({"error": e}),
                    },
                    is_error,
                    duration_ms: record.duration.as_secs_f64() * 1000.0,
                });
                history.push(Message::Tool {
                    call_id: call.id.clone(),
                    name: record.name.clone(),
                    content: model_text,
                    is_error,
                });
                result.files.extend(files);
                if is_error {
                    let key = format!("{}|{}", baton_tools::normalize(&call.name), call.arguments);
                    let n = failures.entry(key).or_default();
                    *n += 1;
                    if *n >= 3 {
                        let ToolOutcome::Err(e) = &record.outcome else {
                            unreachable!()
                        };
                        result.stop = StopReason::LoopGuard(format!(
                            "the same call to `{}` failed three times: {e}",
                            call.name
                        ));
                        result.tool_calls.push(record);
                        break 'outer;
                    }
                }
                result.tool_calls.push(record);
            }
            if let Some(budget) = self.config.token_budget
                && spent >= budget
            {
                result.stop = StopReason::Budget;
                break;
            }
        }
        if result.answer.is_empty()
            && let Some(Message::Assistant { content, .. }) = history
                .iter()
                .rev()
                .find(|m| matches!(m, Message::Assistant { .. }))
        {
            result.answer = content.clone();
        }
        if matches!(result.stop, StopReason::Answered) && !native && self.has_tools() {
            // Prompt-based modes could not stream the answer live.
            self.events.emit(AgentEvent::TextDelta {
                text: result.answer.clone(),
            });
        }
        self.events.emit(AgentEvent::Done {
            reason: format!("{:?}", result.stop),
        });
        result
    }

    async fn run_call(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
    ) -> (ToolCallRecord, Vec<String>) {
        let started = std::time::Instant::now();
        if let Some(which) = subagent::which(&call.name) {
            let (outcome, files) = if which == subagent::LAUNCH {
                self.launch_subagent(&call.arguments, cancel).await
            } else {
                self.provide_input(&call.arguments, cancel).await
            };
            let record = ToolCallRecord {
                name: which.to_string(),
                arguments: call.arguments.clone(),
                outcome,
                duration: started.elapsed(),
            };
            return (record, files);
        }
        let record = if baton_tools::normalize(&call.name) == "cli" {
            let command = subagent::arg(&call.arguments, "command").unwrap_or_default();
            match cli::parse(&self.catalog, &command) {
                Ok(CliCommand::Call { method, args }) => self.catalog.dispatch(&method, args).await,
                Ok(CliCommand::Help(text)) => ToolCallRecord {
                    name: "cli".into(),
                    arguments: call.arguments.clone(),
                    outcome: ToolOutcome::Ok(Value::String(text)),
                    duration: started.elapsed(),
                },
                Err(e) => ToolCallRecord {
                    name: "cli".into(),
                    arguments: call.arguments.clone(),
                    outcome: ToolOutcome::Err(e),
                    duration: started.elapsed(),
                },
            }
        } else {
            self.catalog
                .dispatch(&call.name, call.arguments.clone())
                .await
        };
        let files = produced_files(&record);
        (record, files)
    }

    fn next_session_id(&self) -> String {
        format!("sub_{}", self.counter.fetch_add(1, Ordering::SeqCst) + 1)
    }

    async fn launch_subagent(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> (ToolOutcome, Vec<String>) {
        let Some(task) = subagent::arg(args, "task").filter(|t| !t.trim().is_empty()) else {
            return (
                ToolOutcome::Err("launch_subagent: missing required parameter `task`".into()),
                Vec::new(),
            );
        };
        if self.depth + 1 > self.config.max_depth {
            return (
                ToolOutcome::Err(format!(
                    "sub-agents cannot be nested more than {} deep; do this step yourself",
                    self.config.max_depth
                )),
                Vec::new(),
            );
        }
        let spec = match subagent::arg(args, "agent") {
            Some(name) => self
                .subagents
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(&name)),
            None if self.subagents.len() == 1 => self.subagents.first(),
            None => None,
        };
        let Some(spec) = spec else {
            let names: Vec<&str> = self.subagents.iter().map(|s| s.name.as_str()).collect();
            return (
                ToolOutcome::Err(format!(
                    "launch_subagent: name one of the sub-agents with `agent`: {}",
                    names.join(", ")
                )),
                Vec::new(),
            );
        };
        let mut agent = (spec.factory)();
        agent.depth = self.depth + 1;
        // The limit is the whole tree's: a sub-agent cannot allow more.
        agent.config.max_depth = agent.config.max_depth.min(self.config.max_depth);
        agent.events = self.events.clone();
        agent.config.can_ask = true;
        agent.counter = self.counter.clone();
        let id = self.next_session_id();
        self.events.emit(AgentEvent::SubagentDelegated {
            session_id: id.clone(),
            task: task.clone(),
        });
        let mut history = Vec::new();
        let result = agent
            .execute_action(&mut history, &task, Vec::new(), cancel.clone())
            .await;
        self.settle(id, agent, history, result).await
    }

    async fn provide_input(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> (ToolOutcome, Vec<String>) {
        let Some(input) = subagent::arg(args, "input") else {
            return (
                ToolOutcome::Err(
                    "provide_subagent_input: missing required parameter `input`".into(),
                ),
                Vec::new(),
            );
        };
        let taken = {
            let mut open = self.open.lock().expect("lock");
            let id = match subagent::arg(args, "session_id")
                .or_else(|| subagent::arg(args, "sessionId"))
            {
                Some(id) => Some(id),
                None if open.len() == 1 => open.keys().next().cloned(),
                None => None,
            };
            match id {
                Some(id) => match open.remove(&id) {
                    Some(s) => Ok((id, s)),
                    None => {
                        let ids: Vec<String> = open.keys().cloned().collect();
                        Err(format!(
                            "no sub-agent session `{id}` is waiting; open sessions: {}",
                            if ids.is_empty() {
                                "none".into()
                            } else {
                                ids.join(", ")
                            }
                        ))
                    }
                },
                None if open.is_empty() => Err("no sub-agent is waiting for input".to_string()),
                None => Err(format!(
                    "several sub-agents are waiting; pass `session_id`: {}",
                    open.keys().cloned().collect::<Vec<_>>().join(", ")
                )),
            }
        };
        let (id, mut open) = match taken {
            Ok(t) => t,
            Err(e) => {
                return (
                    ToolOutcome::Err(format!("provide_subagent_input: {e}")),
                    Vec::new(),
                );
            }
        };
        let result = open
            .agent
            .execute_action(&mut open.history, &input, Vec::new(), cancel.clone())
            .await;
        self.settle(id, open.agent, open.history, result).await
    }

    /// Parks a subagent that asked, or closes one that finished.
    async fn settle(
        &self,
        id: String,
        agent: Agent,
        history: Vec<Message>,
        result: ActionResult,
    ) -> (ToolOutcome, Vec<String>) {
        if result.stop == StopReason::Asked {
            self.events.emit(AgentEvent::SubagentAsked {
                session_id: id.clone(),
                question: result.answer.clone(),
            });
            let outcome =
                ToolOutcome::Ok(json!({"done": true, "question": result.answer, "sessionId": id}));
            self.open
                .lock()
                .expect("lock")
                .insert(id, OpenSubagent { agent, history });
            return (outcome, result.files);
        }
        agent.close().await;
        self.events.emit(AgentEvent::SubagentFinished {
            session_id: id.clone(),
        });
        let outcome = match &result.stop {
            StopReason::Answered => ToolOutcome::Ok(
                json!({"done": true, "result": result.answer, "sessionId": id, "files": result.files}),
            ),
            other => ToolOutcome::Err(format!(
                "sub-agent {id} stopped ({other:?}) before finishing: {}",
                result.answer
            )),
        };
        (outcome, result.files)
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
        let request = ChatRequest::new(self.wire_messages(history));
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
                    self.events.emit(AgentEvent::TextDelta { text: t.clone() });
                    text.push_str(&t);
                }
                Ok(LlmEvent::Usage(u)) => self.events.emit(AgentEvent::Usage(u)),
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

/// Files a call produced: a `path` in the result of a method that writes.
fn produced_files(record: &ToolCallRecord) -> Vec<String> {
    let writes = ["write", "save", "move", "export", "create", "render"]
        .iter()
        .any(|w| record.name.contains(w));
    match &record.outcome {
        ToolOutcome::Ok(Value::Object(o)) if writes => o
            .get("path")
            .and_then(Value::as_str)
            .map(|p| vec![p.to_string()])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
