//! The agent loop, in named steps: call the model, interpret its reply,
//! run the calls it asked for (`calls.rs`), check the limits, finish.

use baton_llm::{ContentPart, InteractionMode, LlmError, Message, ToolCall};
use serde_json::json;
use tracing::Instrument;

use crate::agent::{ActionResult, Agent, TokenBudget, TurnContext};
use crate::calls::CallGuard;
use crate::events::AgentEvent;
use crate::reply::{ModelReply, parse_reply};
use crate::stop::StopReason;

/// What the model's reply means for the loop.
enum Step {
    /// Run these calls (asked for with this text), then call the model
    /// again.
    Calls(String, Vec<ToolCall>),
    /// The run ends (an answer or a question), already in history.
    Stop,
}

impl Agent {
    pub(crate) async fn run(
        &self,
        history: &mut Vec<Message>,
        content: Vec<ContentPart>,
        ctx: &TurnContext,
    ) -> ActionResult {
        let span = tracing::info_span!(
            "turn",
            turn = ctx.events.turn().as_str(),
            depth = self.depth
        );
        // The top agent's budget is the turn's, shared with its subagents.
        let scoped;
        let ctx = if ctx.budget.limit().is_none() && self.config.token_budget.is_some() {
            scoped = TurnContext {
                budget: TokenBudget::new(self.config.token_budget),
                ..ctx.clone()
            };
            &scoped
        } else {
            ctx
        };
        self.run_steps(history, content, ctx).instrument(span).await
    }

    async fn run_steps(
        &self,
        history: &mut Vec<Message>,
        content: Vec<ContentPart>,
        ctx: &TurnContext,
    ) -> ActionResult {
        self.maybe_compact(history, &ctx.events).await;
        self.ensure_system(history);
        history.push(Message::User { content });
        let mut result = ActionResult::stopped(StopReason::MaxIterations);
        let mut guard = CallGuard::default();
        while result.iterations < self.config.max_iterations {
            if ctx.cancel.is_cancelled() {
                result.stop = StopReason::Cancelled;
                break;
            }
            result.iterations += 1;
            let Some(completion) = self.model_step(history, ctx, &mut result).await else {
                break;
            };
            ctx.budget.spend(&completion.usage);
            let (text, calls) = match self.interpret(history, completion, &mut result) {
                Step::Stop => break,
                Step::Calls(text, calls) => (text, calls),
            };
            history.push(Message::Assistant {
                content: text,
                tool_calls: calls.clone(),
            });
            if self
                .run_calls(calls, history, ctx, &mut guard, &mut result)
                .await
            {
                break;
            }
            // Subagents spend from the same budget.
            if ctx.budget.exhausted() {
                result.stop = StopReason::Budget;
                break;
            }
        }
        self.finish(history, &mut result, ctx).await;
        result
    }

    /// Calls the model; `None` when the run must stop (cancelled, failed).
    async fn model_step(
        &self,
        history: &[Message],
        ctx: &TurnContext,
        result: &mut ActionResult,
    ) -> Option<baton_llm::Completion> {
        let native = self.native();
        let tools = if native {
            self.native_tool_defs()
        } else {
            Vec::new()
        };
        // A JSON answer is asked of every provider: remote dialects pass it
        // on only when their entry has `jsonMode`, the embedded model
        // follows it with a grammar.
        let json_mode =
            self.config.answer_json || (self.config.json_mode && !native && self.has_tools());
        // Stream text live only where text is the answer (native tools).
        let forward = native || !self.has_tools();
        match self
            .call_model(history, tools, json_mode, forward, ctx)
            .await
        {
            Ok(c) => {
                result.usage.push(c.usage);
                Some(c)
            }
            Err(LlmError::Cancelled { .. }) => {
                result.stop = StopReason::Cancelled;
                None
            }
            Err(e) => {
                ctx.events
                    .emit(AgentEvent::Error {
                        message: e.to_string(),
                    })
                    .await;
                result.stop = StopReason::Error(e.to_string());
                result.error = Some(e);
                None
            }
        }
    }

    fn native(&self) -> bool {
        self.config.native_tools && self.has_tools()
    }

    /// Works out what the model asked for: tool calls, or the end of the
    /// run (its answer or question is added to history).
    fn interpret(
        &self,
        history: &mut Vec<Message>,
        completion: baton_llm::Completion,
        result: &mut ActionResult,
    ) -> Step {
        let text = completion.text;
        if self.native() && !completion.tool_calls.is_empty() {
            return Step::Calls(text, completion.tool_calls);
        }
        let toolbox_names: Vec<&str> = self.catalog.specs().map(|s| s.name.as_str()).collect();
        // Native mode without calls, or no tools: the text is the answer —
        // unless it is a call written as text (models do that even with
        // native tools), or a subagent's question.
        let reply = if self.has_tools() || self.config.can_ask {
            parse_reply(&text, &toolbox_names)
        } else {
            ModelReply::Answer(text.clone())
        };
        let id = format!("call_{}_{}", self.depth, result.iterations);
        let cli_ok = !self.native() || self.config.mode == InteractionMode::Cli;
        match reply {
            ModelReply::Call { name, args } if self.has_tools() => Step::Calls(
                text,
                vec![ToolCall {
                    id,
                    name,
                    arguments: args,
                }],
            ),
            ModelReply::Cli(command) if self.has_tools() && cli_ok => Step::Calls(
                text,
                vec![ToolCall {
                    id,
                    name: "cli".into(),
                    arguments: json!({"command": command}),
                }],
            ),
            ModelReply::Question(q) if self.config.can_ask => {
                history.push(Message::assistant(text));
                result.answer = q;
                result.stop = StopReason::Asked;
                Step::Stop
            }
            ModelReply::Answer(a) | ModelReply::Question(a) if !self.native() || a != text => {
                history.push(Message::assistant(a.clone()));
                result.answer = a;
                result.stop = StopReason::Answered;
                Step::Stop
            }
            _ => {
                history.push(Message::assistant(text.clone()));
                result.answer = text;
                result.stop = StopReason::Answered;
                Step::Stop
            }
        }
    }

    /// The last words of a run: the answer from history if none was given,
    /// and in prompt-based modes the answer as one text event (it could
    /// not stream live).
    async fn finish(&self, history: &mut [Message], result: &mut ActionResult, ctx: &TurnContext) {
        if result.answer.is_empty()
            && let Some(Message::Assistant { content, .. }) = history
                .iter()
                .rev()
                .find(|m| matches!(m, Message::Assistant { .. }))
        {
            result.answer = content.clone();
        }
        if matches!(result.stop, StopReason::Answered) {
            self.check_citations(history, result, ctx);
        }
        if matches!(result.stop, StopReason::Answered) && !self.native() && self.has_tools() {
            ctx.events
                .emit(AgentEvent::TextDelta {
                    text: result.answer.clone(),
                })
                .await;
        }
        tracing::info!(
            stop = result.stop.code(),
            iterations = result.iterations,
            citations = result.citations.len(),
            "turn ended"
        );
    }

    /// The answer's `[n]` citations checked against the passages the tools
    /// gave: those that point nowhere are taken out of the answer (and of
    /// history) and counted. A JSON answer (its arrays of numbers are not
    /// citations) and an answer citing sources of its own prompt are left
    /// as they are.
    fn check_citations(
        &self,
        history: &mut [Message],
        result: &mut ActionResult,
        ctx: &TurnContext,
    ) {
        if self.config.answer_json || self.config.own_citations {
            return;
        }
        let cited = ctx.sources.resolve(&result.answer);
        if cited.dropped > 0 {
            tracing::warn!(
                dropped = cited.dropped,
                "citations to passages never given were dropped"
            );
            if let Some(Message::Assistant { content, .. }) = history
                .iter_mut()
                .rev()
                .find(|m| matches!(m, Message::Assistant { .. }))
                && *content == result.answer
            {
                content.clone_from(&cited.answer);
            }
            result.answer = cited.answer;
        }
        result.citations = cited.citations;
        result.dropped_citations = cited.dropped;
    }
}
