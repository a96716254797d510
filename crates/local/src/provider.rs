//! [`LocalProvider`]: the `local` dialect behind the `Provider` trait.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use baton_llm::{
    ChatRequest, EventStream, FinishReason, LlmError, LlmEvent, Message, Provider, ProviderConfig,
    ToolCallDelta, Usage,
};
use futures::StreamExt;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use crate::worker::RunStats;
use crate::worker::{Job, LoadSettings, WorkerMsg};

/// Token limit of a reply when tools are offered (a call or a short
/// answer): small models can loop inside a JSON string.
const TOOL_REPLY_TOKENS: u32 = 384;

/// Model loading progress.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadProgress {
    /// 0–100.
    pub percent: f32,
    /// Bytes loaded (estimated from the percentage).
    pub bytes: u64,
    /// File size.
    pub total_bytes: u64,
}

#[derive(Clone)]
struct WorkerHandle {
    jobs: std::sync::mpsc::Sender<Job>,
    progress: tokio::sync::broadcast::Sender<LoadProgress>,
}

/// One worker per model file, shared by every provider in the process.
fn worker_for(settings: LoadSettings) -> WorkerHandle {
    static WORKERS: OnceLock<Mutex<HashMap<PathBuf, WorkerHandle>>> = OnceLock::new();
    let mut map = WORKERS
        .get_or_init(Default::default)
        .lock()
        .expect("workers lock");
    map.entry(settings.path.clone())
        .or_insert_with(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            let handle = WorkerHandle {
                jobs: tx,
                progress: settings.progress.clone(),
            };
            std::thread::Builder::new()
                .name("baton-local-model".into())
                .spawn(move || crate::worker::run(settings, rx))
                .expect("spawn the local model thread");
            handle
        })
        .clone()
}

/// The embedded llama.cpp model as a provider.
pub struct LocalProvider {
    cfg: ProviderConfig,
    path: PathBuf,
    worker: WorkerHandle,
    stats: Arc<Mutex<Option<RunStats>>>,
    constrain: bool,
}

impl LocalProvider {
    /// A provider for a `local` entry; `modelPath` is read relative to
    /// `models_dir`. Nothing loads until the first request.
    pub fn new(cfg: ProviderConfig, models_dir: &Path) -> Self {
        let path =
            crate::models::resolve_model_path(cfg.model_path.as_deref().unwrap_or(""), models_dir);
        let threads = cfg.threads.map(|t| t as i32).unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get() as i32)
                .unwrap_or(2)
        });
        let settings = LoadSettings {
            path: path.clone(),
            context: cfg.context_window,
            threads,
            gpu_layers: cfg.gpu_layers,
            progress: tokio::sync::broadcast::channel(64).0,
        };
        let worker = worker_for(settings);
        Self {
            cfg,
            path,
            worker,
            stats: Arc::default(),
            constrain: true,
        }
    }

    /// Turns grammar constraints off (tools are still described in the
    /// prompt). For measuring what the grammar buys; not for users.
    pub fn without_grammar(mut self) -> Self {
        self.constrain = false;
        self
    }

    /// The GGUF file.
    pub fn model_path(&self) -> &Path {
        &self.path
    }

    /// Load progress events (the first request loads the model).
    pub fn subscribe_progress(&self) -> tokio::sync::broadcast::Receiver<LoadProgress> {
        self.worker.progress.subscribe()
    }

    /// Figures of the last finished request.
    pub fn last_stats(&self) -> Option<RunStats> {
        *self.stats.lock().expect("stats lock")
    }
}

/// The conversation as (role, text) pairs for the chat template; tool
/// calls are the JSON the model writes and tool results user turns.
fn chat_messages(messages: &[Message], manual: Option<&str>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for m in messages {
        let pair = match m {
            Message::System { content } => ("system", content.clone()),
            Message::User { .. } => ("user", m.text()),
            Message::Assistant {
                content,
                tool_calls,
            } if tool_calls.is_empty() => ("assistant", content.clone()),
            Message::Assistant { tool_calls, .. } => {
                let calls: Vec<String> = tool_calls
                    .iter()
                    .map(|c| {
                        let mut o = serde_json::Map::new();
                        o.insert("method".into(), Value::String(c.name.clone()));
                        if let Value::Object(args) = &c.arguments {
                            o.extend(args.clone());
                        }
                        Value::Object(o).to_string()
                    })
                    .collect();
                ("assistant", calls.join("\n"))
            }
            Message::Tool { name, content, .. } => {
                ("user", baton_llm::tool_result_as_text(name, content))
            }
        };
        out.push((pair.0.to_string(), pair.1));
    }
    if let Some(manual) = manual {
        match out.first_mut() {
            Some((role, content)) if role == "system" => {
                content.push_str("\n\n");
                content.push_str(manual);
            }
            _ => out.insert(0, ("system".into(), manual.to_string())),
        }
    }
    out
}

/// Streams the text of `{"answer": "…"}` while it is generated.
#[derive(Default)]
struct AnswerStreamer {
    buf: String,
    /// Byte offset in `buf` where undecoded answer text starts, once known.
    answer_at: Option<usize>,
    is_call: bool,
    done: bool,
}

impl AnswerStreamer {
    fn push(&mut self, text: &str) -> String {
        self.buf.push_str(text);
        if self.answer_at.is_none() && !self.is_call {
            let t = self.buf.trim_start();
            if let Some(rest) = t.strip_prefix('{') {
                let r = rest.trim_start();
                if let Some(after) = r.strip_prefix("\"answer\"") {
                    if let Some(v) = after.trim_start().strip_prefix(':')
                        && v.trim_start().starts_with('"')
                    {
                        let v2 = v.trim_start();
                        self.answer_at = Some(self.buf.len() - v2.len() + 1);
                    }
                } else if let Some(prefix) = r.get(..r.len().min(8))
                    && !prefix.is_empty()
                    && !"\"answer\"".starts_with(prefix)
                {
                    self.is_call = true;
                }
            } else if !t.is_empty() {
                self.is_call = true;
            }
        }
        let Some(at) = self.answer_at else {
            return String::new();
        };
        if self.done {
            return String::new();
        }
        let mut out = String::new();
        let s = &self.buf[at..];
        let mut chars = s.char_indices().peekable();
        let mut consumed = 0;
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.done = true;
                    consumed = i + 1;
                    break;
                }
                '\\' => {
                    let rest = &s[i + 1..];
                    let Some(e) = rest.chars().next() else { break };
                    let (ch, len) = match e {
                        'n' => ('\n', 1),
                        't' => ('\t', 1),
                        'r' => ('\r', 1),
                        'b' => ('\u{8}', 1),
                        'f' => ('\u{c}', 1),
                        'u' => {
                            if rest.len() < 5 {
                                break;
                            }
                            match u32::from_str_radix(&rest[1..5], 16)
                                .ok()
                                .and_then(char::from_u32)
                            {
                                Some(ch) => (ch, 5),
                                None => ('\u{fffd}', 5),
                            }
                        }
                        other => (other, other.len_utf8()),
                    };
                    out.push(ch);
                    consumed = i + 1 + len;
                    // Skip the escape's characters.
                    while let Some(&(j, _)) = chars.peek() {
                        if j < consumed {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                }
                c => {
                    out.push(c);
                    consumed = i + c.len_utf8();
                }
            }
        }
        self.answer_at = Some(at + consumed);
        out
    }
}

#[async_trait]
impl Provider for LocalProvider {
    fn config(&self) -> &ProviderConfig {
        &self.cfg
    }

    async fn stream(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, LlmError> {
        let prepared = baton_llm::cache::prepare(self.cfg.cache_type, &request);
        let tools = !request.tools.is_empty();
        let manual = tools.then(|| crate::grammar::tools_manual(&request.tools));
        let grammar = if !self.constrain {
            None
        } else if tools {
            Some(crate::grammar::tools_grammar(&request.tools).map_err(LlmError::Local)?)
        } else if request.options.json_mode {
            Some(crate::grammar::object_grammar().map_err(LlmError::Local)?)
        } else {
            None
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let job = Job {
            messages: chat_messages(&prepared.messages, manual.as_deref()),
            grammar,
            max_tokens: {
                let limit = request
                    .options
                    .max_tokens
                    .or(self.cfg.max_output_tokens)
                    .unwrap_or(1024);
                // A call is short; a model looping inside a string is stopped early.
                if tools {
                    limit.min(TOOL_REPLY_TOKENS)
                } else {
                    limit
                }
            },
            temperature: request
                .options
                .temperature
                .or(self.cfg.temperature)
                .unwrap_or(0.0),
            seed: self.cfg.seed.unwrap_or(42),
            cancel: cancel.clone(),
            tx,
        };
        let max_tokens = job.max_tokens;
        self.worker
            .jobs
            .send(job)
            .map_err(|_| LlmError::Local("the local model thread has stopped".into()))?;
        let translate = Translate {
            tools,
            max_tokens,
            cancel,
            provider: self.cfg.name.clone(),
            stats: self.stats.clone(),
            answer: AnswerStreamer::default(),
            finished: false,
        };
        // The worker's messages become events right where the caller polls:
        // no relay task, so one thread wake-up per token.
        let stream = futures::stream::unfold((rx, translate), |(mut rx, mut t)| async move {
            if t.finished {
                return None;
            }
            let events = match rx.recv().await {
                Some(msg) => t.translate(msg),
                None => {
                    t.finished = true;
                    vec![Err(LlmError::Local(
                        "the local model stopped without finishing".into(),
                    ))]
                }
            };
            Some((futures::stream::iter(events), (rx, t)))
        })
        .flatten();
        Ok(Box::pin(stream))
    }
}

/// Turns worker messages into provider events.
struct Translate {
    tools: bool,
    max_tokens: u32,
    cancel: CancellationToken,
    provider: String,
    stats: Arc<Mutex<Option<RunStats>>>,
    answer: AnswerStreamer,
    finished: bool,
}

impl Translate {
    fn translate(&mut self, msg: WorkerMsg) -> Vec<Result<LlmEvent, LlmError>> {
        match msg {
            WorkerMsg::Text(t) if self.tools => {
                let shown = self.answer.push(&t);
                if shown.is_empty() {
                    Vec::new()
                } else {
                    vec![Ok(LlmEvent::TextDelta(shown))]
                }
            }
            WorkerMsg::Text(t) => vec![Ok(LlmEvent::TextDelta(t))],
            WorkerMsg::Done(s) => {
                self.finished = true;
                *self.stats.lock().expect("stats lock") = Some(s);
                if self.cancel.is_cancelled() {
                    return vec![Err(LlmError::Cancelled {
                        provider: self.provider.clone(),
                    })];
                }
                let mut out = Vec::new();
                let mut finish = if s.completion_tokens >= self.max_tokens {
                    FinishReason::Length
                } else {
                    FinishReason::Stop
                };
                if self.tools && self.answer.answer_at.is_none() {
                    match serde_json::from_str::<Value>(self.answer.buf.trim()) {
                        Ok(Value::Object(mut o))
                            if o.get("method").is_some_and(Value::is_string) =>
                        {
                            let name = o
                                .remove("method")
                                .and_then(|m| m.as_str().map(str::to_string));
                            out.push(Ok(LlmEvent::ToolCallDelta(ToolCallDelta {
                                index: 0,
                                id: Some("call_local".into()),
                                name,
                                arguments: Value::Object(o).to_string(),
                            })));
                            finish = FinishReason::ToolCalls;
                        }
                        // Cut off inside a call: say so rather than show half a JSON object.
                        _ if finish == FinishReason::Length => out.push(Ok(LlmEvent::TextDelta(
                            "(the local model's reply was cut off at its token limit)".into(),
                        ))),
                        _ => out.push(Ok(LlmEvent::TextDelta(self.answer.buf.clone()))),
                    }
                }
                out.push(Ok(LlmEvent::Usage(Usage {
                    prompt_tokens: s.prompt_tokens,
                    completion_tokens: s.completion_tokens,
                    cached_tokens: Some(s.reused_tokens),
                })));
                out.push(Ok(LlmEvent::Finish(finish)));
                out
            }
            WorkerMsg::Failed(e) => {
                self.finished = true;
                if self.cancel.is_cancelled() {
                    vec![Err(LlmError::Cancelled {
                        provider: self.provider.clone(),
                    })]
                } else {
                    vec![Err(LlmError::Local(e))]
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_text_streams_out_of_the_json() {
        let mut a = AnswerStreamer::default();
        let mut out = String::new();
        for piece in [
            "{",
            "\"ans",
            "wer\": \"",
            "Hel",
            "lo \\",
            "\"you\\",
            "\" \\u00e9",
            "\\n",
            "ok\"}",
        ] {
            out += &a.push(piece);
        }
        assert_eq!(out, "Hello \"you\" é\nok");
        assert!(a.done);
        let mut c = AnswerStreamer::default();
        assert_eq!(c.push("{\"method\": \"list_directory\"}"), "");
        assert!(c.is_call);
    }

    #[test]
    fn tool_traffic_becomes_chat_turns() {
        let msgs = vec![
            Message::system("sys"),
            Message::user("list"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![baton_llm::ToolCall {
                    id: "c".into(),
                    name: "list_directory".into(),
                    arguments: serde_json::json!({"path": "/"}),
                }],
            },
            Message::tool("c", "list_directory", "[]", false),
        ];
        let chat = chat_messages(&msgs, Some("MANUAL"));
        assert_eq!(chat[0], ("system".into(), "sys\n\nMANUAL".into()));
        assert_eq!(
            chat[2],
            (
                "assistant".into(),
                "{\"method\":\"list_directory\",\"path\":\"/\"}".into()
            )
        );
        assert_eq!(
            chat[3],
            ("user".into(), "Result of `list_directory`:\n[]".into())
        );
    }
}
