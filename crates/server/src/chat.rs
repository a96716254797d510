//! `POST /v1/chat/completions`: the posted messages become a conversation
//! of the engine (stateless, as OpenAI's API is: nothing is saved), the
//! last user message is sent, and the turn's events are answered as one
//! `chat.completion` or streamed as `chat.completion.chunk` events ending
//! in `[DONE]`. Tool activity shows as SSE comment lines (`: tool …`),
//! which OpenAI's clients skip.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use baton_engine::api::projects::ProjectId;
use baton_engine::api::{AgentEvent, Session, SessionId, TurnEvent};
use baton_engine::api::{ContentPart, Message};
use baton_engine::{
    ConfirmMode, Conversation, ConversationOptions, EngineError, IndexChoice, Turn, UserMessage,
};
use futures::Stream;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::wire::{ChatMessage, ChatRequest, Role, WireUsage};
use crate::{App, Caller, parts, sessions};

/// Why tools that send something off the machine do not run here.
const NO_CONFIRM: &str =
    "the HTTP API has nobody to ask (allow the mail toolbox with `email.confirmSend: false`)";

/// The history, the instructions and the user's new message. Files in
/// earlier messages are kept and referred to, as the engine does for the
/// messages it sends.
async fn conversation_from(
    app: &App,
    caller: &Caller,
    messages: &[ChatMessage],
) -> Result<(Session, Option<String>, UserMessage), ApiError> {
    let Some((last, earlier)) = messages.split_last() else {
        return Err(ApiError::invalid("`messages` is empty", Some("messages")));
    };
    if last.role != Role::User {
        return Err(ApiError::invalid(
            "the last message must be the user's",
            Some("messages"),
        ));
    }
    let mut session = Session::new();
    let mut instructions = Vec::new();
    for m in earlier {
        let read = parts::read(app, caller, m).await?;
        match m.role {
            Role::System | Role::Developer => instructions.push(read.text),
            Role::User => session.history.push(user_message(app, read).await),
            Role::Assistant => session.history.push(Message::assistant(read.text)),
            Role::Tool => {
                return Err(ApiError::invalid(
                    "messages with role `tool` are not taken: Baton runs its own tools",
                    Some("messages"),
                ));
            }
        }
    }
    let instructions = (!instructions.is_empty()).then(|| instructions.join("\n\n"));
    let read = parts::read(app, caller, last).await?;
    let message = UserMessage {
        text: read.text,
        files: read.files,
        ..UserMessage::default()
    };
    Ok((session, instructions, message))
}

/// An earlier user message of the history, its files kept and referred to.
async fn user_message(app: &App, read: parts::Read) -> Message {
    if read.files.is_empty() {
        return Message::user(read.text);
    }
    let engine = Arc::clone(&app.engine);
    let files = read.files;
    let question = read.text.clone();
    let (refs, _) =
        tokio::task::spawn_blocking(move || engine.conversations().keep_files(&files, &question))
            .await
            .unwrap_or_default();
    let mut content: Vec<ContentPart> = refs.into_iter().map(ContentPart::File).collect();
    content.push(ContentPart::Text { text: read.text });
    Message::User { content }
}

/// The request body, or OpenAI's 400 (413 when too big).
fn read_body(body: Result<Json<ChatRequest>, JsonRejection>) -> Result<ChatRequest, ApiError> {
    body.map(|Json(r)| r).map_err(|e| ApiError {
        status: match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        },
        ..ApiError::invalid(e.body_text(), None)
    })
}

/// The `x-baton-session` the client asked for, checked.
fn kept_session(headers: &HeaderMap) -> Result<Option<SessionId>, ApiError> {
    headers
        .get("x-baton-session")
        .map(|v| sessions::parse_id(v.to_str().unwrap_or("")))
        .transpose()
}

/// The project the client asked for (`x-baton-project`: a name or id).
fn asked_project(app: &Arc<App>, headers: &HeaderMap) -> Result<Option<ProjectId>, ApiError> {
    let Some(v) = headers.get("x-baton-project") else {
        return Ok(None);
    };
    let name = v.to_str().unwrap_or("");
    match app.engine.projects().find(name) {
        Ok(p) => Ok(Some(p.id)),
        Err(e) => Err(ApiError::invalid(e.to_string(), None)),
    }
}

/// The conversation to answer in and the user's new message: the posted
/// history, or the kept session's (then only the posted system messages
/// and the last user message count).
async fn open(
    app: &Arc<App>,
    caller: &Caller,
    req: &ChatRequest,
    kept: Option<&SessionId>,
    project: Option<ProjectId>,
) -> Result<(Conversation, UserMessage), ApiError> {
    let (agent, provider) = app.resolve_model(&req.model)?;
    let (posted, instructions, message) = conversation_from(app, caller, &req.messages).await?;
    let options = ConversationOptions {
        agent,
        provider,
        instructions,
        persist: kept.is_some(),
        confirm: ConfirmMode::Refuse(NO_CONFIRM.into()),
        // A project's chats search its folder instead (the engine's).
        index: IndexChoice::Given(app.index.index.clone()),
        // The owner's memory is not an API key's to read or write.
        memory: false,
        project,
        ..ConversationOptions::default()
    };
    let conversations = app.engine.conversations();
    // A kept session is saved by the conversation after each turn and
    // command, in the caller's part of the server's repository.
    let conversation = match kept {
        Some(id) => conversations
            .open_in(app.sessions.repo_for(caller), id, options)
            .await
            .map_err(|e| match e {
                EngineError::Session(e) => sessions::store_error(e),
                e => ApiError::server(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            })?,
        None => conversations.open_with(posted, options),
    };
    conversation
        .ready()
        .await
        .map_err(|e| ApiError::server(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    Ok((conversation, message))
}

/// The handler.
pub(crate) async fn completions(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = read_body(body)?;
    let place = match app.gate.enter() {
        Ok(p) => p,
        Err(too_many) => return Ok(too_many.into_response()),
    };
    if req.model.trim() == crate::team::TEAM_MODEL {
        let prompt = team_prompt(&app, &caller, &req).await?;
        return crate::team::completions(Arc::clone(&app), req, prompt, place).await;
    }
    let kept = kept_session(&headers)?;
    let project = asked_project(&app, &headers)?;
    let (conversation, message) = open(&app, &caller, &req, kept.as_ref(), project).await?;
    let chunks = Chunks::new(&req.model);
    // A slash command on a kept session answers at once (and is saved).
    if kept.is_some() {
        refuse_session_command(&message.text)?;
    }
    if kept.is_some()
        && message.files.is_empty()
        && message.text.trim_start().starts_with('/')
        && let Some(out) = conversation
            .command(&message.text)
            .await
            .map_err(|e| match e {
                EngineError::Session(e) => sessions::store_error(e),
                e => ApiError::invalid(e.to_string(), Some("messages")),
            })?
    {
        return Ok(fixed(&chunks, out, req.stream));
    }
    let turn = conversation.send(message);
    if req.stream {
        let usage = req.stream_options.is_some_and(|o| o.include_usage);
        Ok(Sse::new(stream(turn, chunks, usage, place))
            .keep_alive(KeepAlive::default())
            .into_response())
    } else {
        let answer = complete(turn, &chunks).await;
        drop(place);
        Ok(Json(answer?).into_response())
    }
}

/// Refuses the `/session` commands that reach beyond the one session a
/// request names (`list`, `load`, `save`, `delete`): over the API a
/// caller works in the session it sends, nothing else.
fn refuse_session_command(line: &str) -> Result<(), ApiError> {
    let mut words = line.split_whitespace();
    let (command, sub) = (words.next(), words.next());
    match (command, sub) {
        (Some("/session"), Some(sub @ ("list" | "load" | "save" | "delete"))) => {
            Err(ApiError::invalid(
                format!(
                    "`/session {sub}` is not available over the HTTP API: a request works in the session its `x-baton-session` names, and each API key's sessions are its own"
                ),
                Some("messages"),
            ))
        }
        _ => Ok(()),
    }
}

/// The request for the team: the last message, the user's, as text.
async fn team_prompt(app: &App, caller: &Caller, req: &ChatRequest) -> Result<String, ApiError> {
    match req.messages.last() {
        Some(last) if last.role == Role::User => Ok(parts::read(app, caller, last).await?.text),
        _ => Err(ApiError::invalid(
            "the last message must be the user's",
            Some("messages"),
        )),
    }
}

/// An answer known at once (a slash command's output).
fn fixed(chunks: &Chunks, text: String, stream: bool) -> Response {
    if !stream {
        return Json(chunks.completion(&text, WireUsage::default(), Value::Null)).into_response();
    }
    let events = vec![
        chunks.chunk(json!({"role": "assistant", "content": text}), None),
        chunks.chunk(json!({}), Some("stop")),
        Event::default().data("[DONE]"),
    ];
    Sse::new(futures::stream::iter(
        events.into_iter().map(Ok::<_, Infallible>),
    ))
    .into_response()
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// The top agent's event, if `e` is one.
fn top(e: &TurnEvent) -> Option<&AgentEvent> {
    (e.agent.depth == 0).then_some(&e.event)
}

/// Runs the turn to its end: one `chat.completion`.
async fn complete(mut turn: Turn, chunks: &Chunks) -> Result<Value, ApiError> {
    let stop = Stopper(turn.stopper());
    let mut text = String::new();
    let mut usage = baton_engine::api::Usage::default();
    let mut tools = Vec::new();
    let mut notices = Vec::new();
    let mut failed = None;
    let mut cited = Cited::default();
    while let Some(e) = turn.next().await {
        // A note (an action held back, a file cut) is the caller's to see,
        // whichever agent it comes from.
        if let AgentEvent::Notice { message } = &e.event {
            notices.push(message.clone());
        }
        match top(&e) {
            Some(AgentEvent::TextDelta { text: t }) => text.push_str(t),
            Some(AgentEvent::Usage(u)) => add(&mut usage, u),
            Some(AgentEvent::ToolFinished { name, is_error, .. }) => {
                tools.push(json!({"name": name, "ok": !is_error}));
            }
            Some(AgentEvent::Error { message }) => failed = Some(message.clone()),
            Some(AgentEvent::Finished(outcome)) => cited = Cited::of(&outcome.result),
            _ => {}
        }
    }
    drop(stop);
    // Markers that pointed at no passage were taken out of the answer.
    if let Some(answer) = cited.corrected {
        text = answer;
    }
    if let (Some(message), true) = (failed, text.is_empty()) {
        return Err(ApiError::server(StatusCode::BAD_GATEWAY, message));
    }
    let baton = json!({
        "tool_calls": tools,
        "notices": notices,
        "citations": cited.citations,
        "dropped_citations": cited.dropped,
    });
    Ok(chunks.completion(&text, usage.into(), baton))
}

/// The citations of a finished turn, for the `baton` extension field.
#[derive(Default)]
struct Cited {
    citations: Vec<baton_engine::api::Citation>,
    dropped: usize,
    /// The answer, when markers were taken out of what was streamed.
    corrected: Option<String>,
}

impl Cited {
    fn of(result: &baton_engine::api::ActionResult) -> Self {
        Self {
            citations: result.citations.clone(),
            dropped: result.dropped_citations,
            corrected: (result.dropped_citations > 0).then(|| result.answer.clone()),
        }
    }

    fn json(&self) -> Value {
        json!({"citations": self.citations, "dropped_citations": self.dropped})
    }
}

fn add(total: &mut baton_engine::api::Usage, u: &baton_engine::api::Usage) {
    total.prompt_tokens += u.prompt_tokens;
    total.completion_tokens += u.completion_tokens;
}

/// Cancels the turn when dropped: a client that goes away stops the
/// agent (the model call and the running tool).
struct Stopper(baton_engine::api::tools::CancellationToken);

impl Drop for Stopper {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// What every chunk of one answer shares.
pub(crate) struct Chunks {
    id: String,
    created: u64,
    model: String,
    /// The shared fields of every chunk as JSON, without the closing brace.
    head: String,
}

impl Chunks {
    /// A new answer's id and time, for `model`.
    pub(crate) fn new(model: &str) -> Self {
        let id = format!("chatcmpl-{}", uuid::Uuid::new_v4().simple());
        let created = now();
        let mut head = json!({
            "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
        })
        .to_string();
        head.pop();
        Self {
            id,
            created,
            model: model.to_string(),
            head,
        }
    }

    /// A whole `chat.completion` (`baton`: the extension field).
    pub(crate) fn completion(&self, text: &str, usage: WireUsage, baton: Value) -> Value {
        json!({
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage,
            "baton": baton,
        })
    }

    /// One `chat.completion.chunk` event with `fields` (its choices, or
    /// its usage), written straight after the shared fields (this runs
    /// for every token streamed).
    fn event(&self, fields: Value) -> Event {
        let mut data = self.head.clone();
        for (k, v) in fields.as_object().into_iter().flatten() {
            data.push(',');
            data.push_str(&Value::String(k.clone()).to_string());
            data.push(':');
            data.push_str(&v.to_string());
        }
        data.push('}');
        Event::default().data(data)
    }

    pub(crate) fn chunk(&self, delta: Value, finish: Option<&str>) -> Event {
        self.event(json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    }

    fn usage(&self, usage: WireUsage) -> Event {
        self.event(json!({"choices": [], "usage": usage}))
    }
}

/// The turn as SSE events: the role, the text as it comes, comment lines
/// for tools, the finish, the usage when asked, `[DONE]`.
fn stream(
    turn: Turn,
    chunks: Chunks,
    with_usage: bool,
    place: tokio::sync::OwnedSemaphorePermit,
) -> impl Stream<Item = Result<Event, Infallible>> {
    struct St {
        turn: Turn,
        _stop: Stopper,
        /// Held while the answer streams (the concurrency limit).
        _place: tokio::sync::OwnedSemaphorePermit,
        chunks: Chunks,
        usage: baton_engine::api::Usage,
        with_usage: bool,
        queue: std::collections::VecDeque<Event>,
        cited: Cited,
        done: bool,
    }
    let stop = Stopper(turn.stopper());
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(chunks.chunk(json!({"role": "assistant", "content": ""}), None));
    let st = St {
        turn,
        _stop: stop,
        _place: place,
        chunks,
        usage: Default::default(),
        with_usage,
        queue,
        cited: Cited::default(),
        done: false,
    };
    futures::stream::unfold(st, |mut st| async move {
        loop {
            if let Some(e) = st.queue.pop_front() {
                return Some((Ok(e), st));
            }
            if st.done {
                return None;
            }
            match st.turn.next().await {
                Some(e) => {
                    if let Some(AgentEvent::Finished(outcome)) = top(&e) {
                        st.cited = Cited::of(&outcome.result);
                    }
                    on_event(&mut st.queue, &st.chunks, &mut st.usage, &e);
                }
                None => {
                    // The last chunk carries the answer's citations.
                    st.queue.push_back(st.chunks.event(json!({
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                        "baton": st.cited.json(),
                    })));
                    if st.with_usage {
                        st.queue.push_back(st.chunks.usage(st.usage.into()));
                    }
                    st.queue.push_back(Event::default().data("[DONE]"));
                    st.done = true;
                }
            }
        }
    })
}

/// The SSE events one turn event becomes.
fn on_event(
    queue: &mut std::collections::VecDeque<Event>,
    chunks: &Chunks,
    usage: &mut baton_engine::api::Usage,
    e: &TurnEvent,
) {
    if let AgentEvent::Notice { message } = &e.event {
        queue.push_back(Event::default().comment(format!("notice {message}")));
    }
    match top(e) {
        Some(AgentEvent::TextDelta { text }) => {
            queue.push_back(chunks.chunk(json!({"content": text}), None));
        }
        Some(AgentEvent::Usage(u)) => add(usage, u),
        Some(AgentEvent::ToolStarted { name, .. }) => {
            queue.push_back(Event::default().comment(format!("tool {name} started")));
        }
        Some(AgentEvent::ToolFinished {
            name,
            is_error,
            duration_ms,
            ..
        }) => {
            let how = if *is_error { "failed" } else { "finished" };
            queue.push_back(
                Event::default().comment(format!("tool {name} {how} in {duration_ms:.0} ms")),
            );
        }
        Some(AgentEvent::Error { message }) => {
            queue.push_back(Event::default().comment(format!("error {message}")));
        }
        _ => {}
    }
}
