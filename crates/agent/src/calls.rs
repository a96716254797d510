//! Running the calls the model asked for: the repeat and failure guards,
//! confirmation of external actions, dispatch with the turn's
//! cancellation, and delegation to subagents.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use baton_llm::{Message, ToolCall, Usage};
use baton_tools::cli::{self, CliCommand};
use baton_tools::{Effect, ToolCallRecord, ToolContext, ToolOutcome};
use serde_json::{Value, json};
use tracing::Instrument;

use crate::agent::{ActionResult, Agent, OpenSubagent, TurnContext};
use crate::confirm::ConfirmPolicy;
use crate::events::AgentEvent;
use crate::stop::StopReason;
use crate::subagent;

/// What the guards remember across the calls of one run.
#[derive(Default)]
pub(crate) struct CallGuard {
    /// Successful reads since the last write: the same call again would
    /// only repeat its result.
    seen: HashSet<String>,
    /// Failures per call.
    failures: HashMap<String, usize>,
}

/// One call's result and what it adds to the run.
struct Ran {
    record: ToolCallRecord,
    effect: Effect,
    files: Vec<String>,
    usage: Vec<Usage>,
}

impl Ran {
    fn new(record: ToolCallRecord, effect: Effect) -> Self {
        let files = if effect == Effect::Write {
            produced_files(&record)
        } else {
            Vec::new()
        };
        Self {
            record,
            effect,
            files,
            usage: Vec::new(),
        }
    }
}

fn key(call: &ToolCall) -> String {
    format!("{}|{}", baton_tools::normalize(&call.name), call.arguments)
}

fn failed(name: &str, arguments: &Value, message: String) -> ToolCallRecord {
    ToolCallRecord::new(
        name,
        arguments.clone(),
        ToolOutcome::Err(message),
        std::time::Duration::ZERO,
    )
}

impl Agent {
    /// Runs `calls` in order, adding their results to `history`; `true`
    /// when the run must stop (the loop guard tripped).
    pub(crate) async fn run_calls(
        &self,
        calls: Vec<ToolCall>,
        history: &mut Vec<Message>,
        ctx: &TurnContext,
        guard: &mut CallGuard,
        result: &mut ActionResult,
    ) -> bool {
        for call in calls {
            if ctx.cancel.is_cancelled() {
                history.push(Message::tool(
                    call.id.clone(),
                    call.name.clone(),
                    json!({"error": "cancelled"}).to_string(),
                    true,
                ));
                continue;
            }
            ctx.events
                .emit(AgentEvent::ToolStarted {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                })
                .await;
            let ran = self.guarded_call(&call, ctx, guard).await;
            let stop = self
                .record_call(&call, ran, history, ctx, guard, result)
                .await;
            if let Some(stop) = stop {
                result.stop = stop;
                return true;
            }
        }
        false
    }

    /// The call, unless the repeat guard answers for it.
    async fn guarded_call(&self, call: &ToolCall, ctx: &TurnContext, guard: &CallGuard) -> Ran {
        if guard.seen.contains(&key(call)) {
            let message = format!(
                "`{}` was already called with these arguments; its result is above. Use it: answer now, or call something else",
                call.name
            );
            return Ran::new(failed(&call.name, &call.arguments, message), Effect::Read);
        }
        let span = tracing::info_span!("tool", name = %call.name);
        self.run_call(call, ctx).instrument(span).await
    }

    /// Reports a finished call (event, history, result) and updates the
    /// guards; the stop reason when the same call failed three times.
    async fn record_call(
        &self,
        call: &ToolCall,
        ran: Ran,
        history: &mut Vec<Message>,
        ctx: &TurnContext,
        guard: &mut CallGuard,
        result: &mut ActionResult,
    ) -> Option<StopReason> {
        let record = ran.record;
        let is_error = record.outcome.is_err();
        if ran.effect != Effect::Read && !is_error {
            guard.seen.clear();
        } else if ran.effect == Effect::Read && !is_error {
            guard.seen.insert(key(call));
        }
        ctx.events
            .emit(AgentEvent::ToolFinished {
                id: call.id.clone(),
                name: record.name.clone(),
                result: match &record.outcome {
                    ToolOutcome::Ok(v) => v.clone(),
                    ToolOutcome::Err(e) => json!({"error": e}),
                },
                is_error,
                duration_ms: record.duration.as_secs_f64() * 1000.0,
                preview: record.pictures.preview.as_ref().map(crate::pictures::image),
            })
            .await;
        history.push(Message::Tool {
            call_id: call.id.clone(),
            name: record.name.clone(),
            content: record.outcome.to_model_text(),
            is_error,
            images: record
                .pictures
                .for_model
                .iter()
                .map(crate::pictures::image)
                .collect(),
        });
        result.files.extend(ran.files);
        result.usage.extend(ran.usage);
        let stop = match &record.outcome {
            ToolOutcome::Err(e) => {
                let n = guard.failures.entry(key(call)).or_default();
                *n += 1;
                (*n >= 3).then(|| {
                    StopReason::LoopGuard(format!(
                        "the same call to `{}` failed three times: {e}",
                        call.name
                    ))
                })
            }
            ToolOutcome::Ok(_) => None,
        };
        result.tool_calls.push(record);
        stop
    }

    /// Runs one call: a delegation, a CLI-mode command line, or a tool.
    async fn run_call(&self, call: &ToolCall, ctx: &TurnContext) -> Ran {
        let started = std::time::Instant::now();
        if let Some(which) = subagent::which(&call.name) {
            return self.delegate(which, &call.arguments, ctx, started).await;
        }
        let (method, args) = if baton_tools::normalize(&call.name) == "cli" {
            let command = subagent::arg(&call.arguments, "command").unwrap_or_default();
            if !self.subagents.is_empty()
                && let Some(delegation) = subagent::from_command_line(&command, &self.subagents)
            {
                return match delegation {
                    Ok((which, args)) => self.delegate(which, &args, ctx, started).await,
                    Err(e) => Ran::new(failed("cli", &call.arguments, e), Effect::Read),
                };
            }
            match cli::parse(&self.catalog, &command) {
                Ok(CliCommand::Call { method, args }) => (method, args),
                Ok(CliCommand::Help(text)) => {
                    let mut record = failed("cli", &call.arguments, String::new());
                    record.outcome = ToolOutcome::Ok(Value::String(text));
                    return Ran::new(record, Effect::Read);
                }
                Err(e) => return Ran::new(failed("cli", &call.arguments, e), Effect::Read),
            }
        } else {
            (call.name.clone(), call.arguments.clone())
        };
        let effect = self.effect_of(&method);
        if effect.asks()
            && let Err(refusal) = self.confirm(&method, &args, ctx).await
        {
            return Ran::new(failed(&method, &args, refusal), effect);
        }
        let tool_ctx = ToolContext::new(ctx.cancel.clone())
            .with_previews(ctx.previews)
            .with_sources(ctx.sources.clone())
            .in_conversation(ctx.conversation.clone());
        Ran::new(
            self.catalog.dispatch_with(&method, args, &tool_ctx).await,
            effect,
        )
    }

    /// A delegation: `which` of the two tools with `args` (as a native
    /// call gave them, or read from CLI mode's command line), recorded as
    /// that tool's call.
    async fn delegate(
        &self,
        which: &'static str,
        args: &Value,
        ctx: &TurnContext,
        started: std::time::Instant,
    ) -> Ran {
        let mut ran = if which == subagent::LAUNCH {
            self.launch_subagent(args, ctx).await
        } else {
            self.provide_input(args, ctx).await
        };
        ran.record.name = which.to_string();
        ran.record.arguments = args.clone();
        ran.record.duration = started.elapsed();
        ran
    }

    /// The declared effect of the method `name` resolves to (reads when
    /// unknown: dispatch reports the unknown name).
    fn effect_of(&self, name: &str) -> Effect {
        self.catalog
            .resolve(name)
            .map(|(_, m)| m.effect)
            .unwrap_or_default()
    }

    /// Asks the user (or the policy) whether an action that changes
    /// something elsewhere or sends something off the machine may run
    /// (unless its toolbox knows this call only goes where the user's
    /// words point); `Err` is the message the model reads when it may not.
    async fn confirm(&self, method: &str, args: &Value, ctx: &TurnContext) -> Result<(), String> {
        let Some((tool, args)) =
            self.catalog
                .confirmation(method, args, &self.config.confirm_exempt)
        else {
            return Ok(());
        };
        if !self
            .catalog
            .card_needed(method, &args, &ctx.user_words)
            .await
        {
            tracing::debug!(%tool, "runs without a card: it goes where the user's words point");
            return Ok(());
        }
        let args = &args;
        let confirmations = match &ctx.confirm {
            ConfirmPolicy::Allow => return Ok(()),
            ConfirmPolicy::Refuse(why) => {
                // The user hears it from the front door, not only from the
                // model (which may say "Done." anyway).
                let message = format!("held back: {tool} {args} was not run ({why})");
                ctx.events.emit(AgentEvent::Notice { message }).await;
                return Err(format!(
                    "`{tool}` was not run: it sends something off this machine or changes something on the user's accounts, and needs the user's confirmation, but {why}. Tell the user what you would have done instead."
                ));
            }
            ConfirmPolicy::Ask(c) => c,
        };
        // What will really happen, worked out before asking.
        let action = self.catalog.describe(method, args, &ctx.user_words).await;
        let summary = match &action {
            Some(action) => format!("{action}\n({tool} {args})"),
            None => format!("{tool} {args}"),
        };
        let id = format!(
            "confirm_{}",
            self.counter.fetch_add(1, Ordering::SeqCst) + 1
        );
        let answer = confirmations.open(&id);
        ctx.events
            .emit(AgentEvent::ConfirmationRequested {
                id: id.clone(),
                tool: tool.clone(),
                arguments: args.clone(),
                action,
                summary,
            })
            .await;
        // Nobody left to answer (the front door went away) is a no.
        let approved = tokio::select! {
            a = answer => a.unwrap_or(false),
            _ = ctx.cancel.cancelled() => false,
            _ = ctx.events.closed() => false,
        };
        confirmations.forget(&id);
        ctx.events
            .emit(AgentEvent::ConfirmationResolved { id, approved })
            .await;
        if approved {
            Ok(())
        } else if ctx.cancel.is_cancelled() {
            Err("cancelled: the user stopped the turn".into())
        } else {
            Err(format!(
                "the user declined `{tool}`: it was not run. Do not try it again; say what you would have done."
            ))
        }
    }

    fn next_session_id(&self) -> String {
        format!("sub_{}", self.counter.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// `launch_subagent`: a new subagent runs the task.
    async fn launch_subagent(&self, args: &Value, ctx: &TurnContext) -> Ran {
        let fail = |m: String| Ran::new(failed(subagent::LAUNCH, args, m), Effect::Read);
        let Some(task) = subagent::arg(args, "task").filter(|t| !t.trim().is_empty()) else {
            return fail("launch_subagent: missing required parameter `task`".into());
        };
        if self.depth + 1 > self.config.max_depth {
            return fail(format!(
                "sub-agents cannot be nested more than {} deep; do this step yourself",
                self.config.max_depth
            ));
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
            return fail(format!(
                "launch_subagent: name one of the sub-agents with `agent`: {}",
                names.join(", ")
            ));
        };
        let mut agent = (spec.factory)();
        agent.depth = self.depth + 1;
        // The limit is the whole tree's: a sub-agent cannot allow more.
        agent.config.max_depth = agent.config.max_depth.min(self.config.max_depth);
        agent.config.can_ask = true;
        agent.counter = self.counter.clone();
        let id = self.next_session_id();
        ctx.events
            .emit(AgentEvent::SubagentDelegated {
                session_id: id.clone(),
                task: task.clone(),
            })
            .await;
        let open = OpenSubagent {
            agent,
            history: Vec::new(),
            started: std::time::Instant::now(),
        };
        self.drive(id, open, task, ctx).await
    }

    /// `provide_subagent_input`: a waiting subagent resumes with the
    /// answer.
    async fn provide_input(&self, args: &Value, ctx: &TurnContext) -> Ran {
        let fail = |m: String| Ran::new(failed(subagent::PROVIDE, args, m), Effect::Read);
        let Some(input) = subagent::arg(args, "input") else {
            return fail("provide_subagent_input: missing required parameter `input`".into());
        };
        let (id, open) = match self.take_open(args) {
            Ok(t) => t,
            Err(e) => return fail(format!("provide_subagent_input: {e}")),
        };
        self.drive(id, open, input, ctx).await
    }

    /// Runs subagent `id` on `input`; while it asks and the user can
    /// answer, the user's answer resumes it. Its usage over every run is
    /// merged into the call's.
    async fn drive(
        &self,
        id: String,
        mut open: OpenSubagent,
        input: String,
        ctx: &TurnContext,
    ) -> Ran {
        let sub_ctx = subagent_context(ctx, &id);
        let mut usage = Vec::new();
        let mut input = input;
        loop {
            let mut result = open
                .agent
                .execute_turn(
                    &mut open.history,
                    vec![baton_llm::ContentPart::Text { text: input }],
                    &sub_ctx,
                )
                .await;
            usage.append(&mut result.usage);
            if result.stop == StopReason::Asked
                && let Some(answer) = self.ask_user(&id, &result.answer, ctx).await
            {
                input = answer;
                continue;
            }
            result.usage = usage;
            return self.settle(id, open, result, ctx).await;
        }
    }

    /// Shows a subagent's question to the user and waits for the answer;
    /// `None` when nobody can answer (the parent then gets the question),
    /// the user declined, or the turn was stopped.
    async fn ask_user(&self, id: &str, question: &str, ctx: &TurnContext) -> Option<String> {
        let questions = ctx.questions.as_ref()?;
        let answer = questions.open(id);
        ctx.events
            .emit(AgentEvent::SubagentAsked {
                session_id: id.to_string(),
                question: question.to_string(),
            })
            .await;
        let answer = tokio::select! {
            a = answer => a.ok(),
            _ = ctx.cancel.cancelled() => None,
            _ = ctx.events.closed() => None,
        };
        questions.forget(id);
        let answer = answer.filter(|a| !a.trim().is_empty())?;
        ctx.events
            .emit(AgentEvent::SubagentAnswered {
                session_id: id.to_string(),
                answer: answer.clone(),
            })
            .await;
        Some(answer)
    }

    /// The waiting subagent `args` names (or the only one).
    fn take_open(&self, args: &Value) -> Result<(String, OpenSubagent), String> {
        let mut open = self.open.lock().expect("lock");
        let id = subagent::arg(args, "session_id")
            .or_else(|| subagent::arg(args, "sessionId"))
            .or_else(|| {
                (open.len() == 1)
                    .then(|| open.keys().next().cloned())
                    .flatten()
            });
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
    }

    /// Parks a subagent that asked, or closes one that finished; its
    /// usage is merged into the parent's.
    async fn settle(
        &self,
        id: String,
        open: OpenSubagent,
        result: ActionResult,
        ctx: &TurnContext,
    ) -> Ran {
        let outcome = if result.stop == StopReason::Asked {
            if ctx.questions.is_none() {
                ctx.events
                    .emit(AgentEvent::SubagentAsked {
                        session_id: id.clone(),
                        question: result.answer.clone(),
                    })
                    .await;
            }
            let outcome =
                ToolOutcome::Ok(json!({"done": true, "question": result.answer, "sessionId": id}));
            self.open.lock().expect("lock").insert(id, open);
            outcome
        } else {
            open.agent.close().await;
            ctx.events
                .emit(AgentEvent::SubagentFinished {
                    session_id: id.clone(),
                    answered: result.stop == StopReason::Answered,
                    elapsed_ms: open.started.elapsed().as_millis() as u64,
                })
                .await;
            match &result.stop {
                StopReason::Answered => ToolOutcome::Ok(
                    json!({"done": true, "result": result.answer, "sessionId": id, "files": result.files}),
                ),
                other => ToolOutcome::Err(format!(
                    "sub-agent {id} stopped ({}) before finishing: {}",
                    other.message(),
                    result.answer
                )),
            }
        };
        let record = ToolCallRecord::new("", Value::Null, outcome, std::time::Duration::ZERO);
        // A subagent that wrote files counts as a write.
        let effect = if result.files.is_empty() {
            Effect::Read
        } else {
            Effect::Write
        };
        Ran {
            record,
            effect,
            files: result.files,
            usage: result.usage,
        }
    }
}

/// The context a subagent runs with: the parent's cancellation,
/// confirmation, questions and budget, its events one level deeper.
fn subagent_context(ctx: &TurnContext, id: &str) -> TurnContext {
    TurnContext {
        events: ctx.events.for_subagent(id),
        ..ctx.clone()
    }
}

/// Files a writing call produced: the `path` in its result.
fn produced_files(record: &ToolCallRecord) -> Vec<String> {
    match &record.outcome {
        ToolOutcome::Ok(Value::Object(o)) => o
            .get("path")
            .and_then(Value::as_str)
            .map(|p| vec![p.to_string()])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
