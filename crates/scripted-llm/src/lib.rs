//! A scripted LLM server for tests and benchmarks.
//!
//! It listens on loopback and speaks each dialect's real wire protocol,
//! chosen by the request path like the real services:
//! `…/chat/completions` (OpenAI SSE), `…/messages` (Anthropic SSE),
//! `…/api/chat` (Ollama NDJSON) and `…:streamGenerateContent` (Gemini
//! SSE). Azure requests (a path holding `/openai/deployments/`, or an
//! `api-version` query, as on Azure AI Foundry's `…/models/chat/completions`)
//! get the OpenAI format too, after Azure's checks: no `api-key` header →
//! 401, a deployment path without `api-version` → 404, both with Azure's
//! error JSON. Replies come from a FIFO script of [`Step`]s — text, tool calls,
//! HTTP errors, raw bytes — streamed in chosen chunk sizes with chosen
//! delays. Every request is recorded so tests can assert the exact wire
//! format. With an empty script it echoes the last user message.

mod render;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

pub use render::{WireDialect, render_reply};

/// A scripted model reply.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Reply {
    /// Reply text, streamed in `text_pieces` deltas.
    pub text: String,
    /// Tool calls: name and arguments.
    pub tool_calls: Vec<(String, Value)>,
    /// Prompt tokens reported.
    pub prompt_tokens: u32,
    /// Completion tokens reported.
    pub completion_tokens: u32,
    /// Cached prompt tokens reported (when set).
    pub cached_tokens: Option<u32>,
    /// How many deltas the text is cut into (at least 1).
    pub text_pieces: usize,
    /// Bytes per body chunk on the wire (whole body at once when absent).
    pub chunk_size: Option<usize>,
    /// Pause between body chunks, in milliseconds.
    pub chunk_delay_ms: u64,
    /// Pause before the response headers, in milliseconds.
    pub delay_ms: u64,
    /// Pause between stream events (SSE events, NDJSON lines), in
    /// milliseconds: with one word per piece, a fixed token rate.
    pub event_delay_ms: u64,
}

impl Reply {
    /// A text reply streamed one word per event, `every_ms` apart (a
    /// model writing at a fixed token rate).
    pub fn paced(text: impl Into<String>, every_ms: u64) -> Self {
        let text = text.into();
        Self {
            text_pieces: text.split_whitespace().count().max(1),
            event_delay_ms: every_ms,
            ..Self::text(text)
        }
    }

    /// A plain text reply.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            text_pieces: 3,
            prompt_tokens: 11,
            completion_tokens: 7,
            ..Default::default()
        }
    }

    /// A reply calling one tool.
    pub fn tool_call(name: impl Into<String>, args: Value) -> Self {
        Self {
            tool_calls: vec![(name.into(), args)],
            prompt_tokens: 11,
            completion_tokens: 7,
            text_pieces: 1,
            ..Default::default()
        }
    }

    /// Sets the wire chunk size.
    pub fn chunked(mut self, size: usize) -> Self {
        self.chunk_size = Some(size.max(1));
        self
    }
}

/// One scripted response.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Step {
    /// A model reply in the dialect of the request.
    Reply(Reply),
    /// An HTTP error (or any status) with a body and headers.
    Http {
        /// Status code.
        status: u16,
        /// Extra headers (`Retry-After`, …).
        #[serde(default)]
        headers: Vec<(String, String)>,
        /// Content type.
        #[serde(default = "json_type")]
        content_type: String,
        /// Body text.
        #[serde(default)]
        body: String,
    },
    /// Exact bytes with status 200 (truncated streams, bad JSON, …).
    Raw {
        /// Content type.
        content_type: String,
        /// Body.
        body: String,
        /// Bytes per chunk.
        #[serde(default)]
        chunk_size: Option<usize>,
        /// Pause between chunks, in milliseconds.
        #[serde(default)]
        chunk_delay_ms: u64,
    },
}

fn json_type() -> String {
    "application/json".into()
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// HTTP method.
    pub method: String,
    /// Path (no query).
    pub path: String,
    /// Query string, if any.
    pub query: Option<String>,
    /// Headers, names lower-case.
    pub headers: Vec<(String, String)>,
    /// Raw body.
    pub body: Bytes,
    /// When it arrived.
    pub at: Instant,
}

impl Recorded {
    /// The body as JSON (panics in tests when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Answers every request whose body holds a marker, from the request's
/// last user message.
type Responder = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

#[derive(Default)]
struct State {
    script: VecDeque<Step>,
    /// Rules for requests whose body contains a marker, checked after
    /// `routes` and before `script`; never used up.
    responders: Vec<(String, Responder)>,
    /// Steps kept for requests whose body contains a marker, checked in
    /// the order the markers were first used, before `script`.
    routes: Vec<(String, VecDeque<Step>)>,
    requests: Vec<Recorded>,
    /// Model names a `GET` lists (as Ollama's `/api/tags` and OpenAI's
    /// `/v1/models` both do).
    models: Vec<String>,
}

impl State {
    /// The answer to a `GET`: the model list in both Ollama's and
    /// OpenAI's shape.
    fn model_list(&self) -> String {
        let ollama: Vec<Value> = self
            .models
            .iter()
            .map(|m| serde_json::json!({"name": m, "model": m}))
            .collect();
        let openai: Vec<Value> = self
            .models
            .iter()
            .map(|m| serde_json::json!({"id": m, "object": "model"}))
            .collect();
        serde_json::json!({"models": ollama, "data": openai, "object": "list"}).to_string()
    }

    /// What answers a request with `body`: the first route whose marker
    /// it contains (with a step left), else the first rule whose marker it
    /// contains (called by the caller, outside the lock), else the next
    /// scripted step.
    fn next_step(&mut self, body: &str) -> Next {
        let routed = self
            .routes
            .iter_mut()
            .find(|(marker, steps)| !steps.is_empty() && body.contains(marker.as_str()));
        if let Some((_, steps)) = routed {
            return Next::Step(steps.pop_front());
        }
        let responder = self
            .responders
            .iter()
            .find(|(marker, _)| body.contains(marker.as_str()));
        match responder {
            Some((_, answer)) => Next::Rule(Arc::clone(answer)),
            None => Next::Step(self.script.pop_front()),
        }
    }
}

/// What answers a request.
enum Next {
    /// A step (none: echo).
    Step(Option<Step>),
    /// A rule, given the request's last user message.
    Rule(Responder),
}

/// A running server; stops when dropped.
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedServer {
    /// Starts on `127.0.0.1` with a free port.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_on(0).await
    }

    /// Starts on `127.0.0.1:port` (0 = any free port).
    pub async fn start_on(port: u16) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let state = shared.clone();
                async move { handle(state, method, uri, headers, body).await }
            },
        );
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!("scripted server stopped: {e}");
            }
        });
        Ok(Self { addr, state, task })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues a step.
    pub fn push(&self, step: Step) -> &Self {
        self.state.lock().expect("state").script.push_back(step);
        self
    }

    /// Queues a model reply.
    pub fn reply(&self, reply: Reply) -> &Self {
        self.push(Step::Reply(reply))
    }

    /// Queues a reply for the next request whose body contains `marker`
    /// (an agent's instructions, a phrase of the prompt), whatever order
    /// requests arrive in: for agents working in parallel.
    pub fn reply_when(&self, marker: &str, reply: Reply) -> &Self {
        let mut state = self.state.lock().expect("state");
        match state.routes.iter_mut().find(|(m, _)| m == marker) {
            Some((_, steps)) => steps.push_back(Step::Reply(reply)),
            None => state
                .routes
                .push((marker.to_string(), VecDeque::from([Step::Reply(reply)]))),
        }
        drop(state);
        self
    }

    /// Answers every request whose body contains `marker` with
    /// `answer(the request's last user message)`, for as long as the
    /// server runs: a model that reads what it is sent (a reviewer
    /// numbering claims, a writer citing sources) without a reply queued
    /// per request.
    pub fn reply_by(
        &self,
        marker: &str,
        answer: impl Fn(&str) -> Reply + Send + Sync + 'static,
    ) -> &Self {
        self.state
            .lock()
            .expect("state")
            .responders
            .push((marker.to_string(), Arc::new(answer)));
        self
    }

    /// Queues an HTTP error.
    pub fn error(&self, status: u16, body: &str) -> &Self {
        self.push(Step::Http {
            status,
            headers: Vec::new(),
            content_type: json_type(),
            body: body.into(),
        })
    }

    /// Lists `models` on every `GET` (`/api/tags`, `/v1/models`), as a
    /// model server running on this computer would.
    pub fn serve_models(&self, models: &[&str]) -> &Self {
        self.state.lock().expect("state").models = models.iter().map(|m| m.to_string()).collect();
        self
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().expect("state").requests.clone()
    }

    /// Steps not yet used (routed ones included).
    pub fn remaining(&self) -> usize {
        let state = self.state.lock().expect("state");
        state.script.len() + state.routes.iter().map(|(_, s)| s.len()).sum::<usize>()
    }
}

/// Out-of-process tests drive the server over HTTP: `POST
/// /_control/script` queues a JSON array of steps, `POST
/// /_control/models` sets the model names a `GET` lists, `GET
/// /_control/requests` lists what was received (bodies as text).
fn control_route(state: &Mutex<State>, route: &str, body: &[u8]) -> Response {
    match route {
        "script" => match serde_json::from_slice::<Vec<Step>>(body) {
            Ok(steps) => {
                let mut s = state.lock().expect("state");
                let n = steps.len();
                s.script.extend(steps);
                plain(200, "application/json", format!(r#"{{"queued":{n}}}"#))
            }
            Err(e) => plain(
                400,
                "application/json",
                serde_json::json!({"error": format!("not a list of steps: {e}")}).to_string(),
            ),
        },
        "models" => match serde_json::from_slice::<Vec<String>>(body) {
            Ok(models) => {
                state.lock().expect("state").models = models;
                plain(200, "application/json", r#"{"ok":true}"#.into())
            }
            Err(e) => plain(
                400,
                "application/json",
                serde_json::json!({"error": format!("not a list of names: {e}")}).to_string(),
            ),
        },
        "requests" => {
            let s = state.lock().expect("state");
            let list: Vec<Value> = s
                .requests
                .iter()
                .map(|r| {
                    serde_json::json!({"method": r.method, "path": r.path, "query": r.query,
                                       "headers": r.headers.iter().map(|(k, v)| (k.clone(), Value::String(v.clone())))
                                           .collect::<serde_json::Map<_, _>>(),
                                       "body": String::from_utf8_lossy(&r.body)})
                })
                .collect();
            plain(200, "application/json", Value::Array(list).to_string())
        }
        other => plain(
            404,
            "application/json",
            format!(r#"{{"error":"no control route {other}"}}"#),
        ),
    }
}

/// Rate of the stand-in speech.
pub const SPEECH_RATE: u32 = 24_000;

/// OpenAI's `POST /v1/audio/speech` stand-in: a 16-bit mono WAV at 24 kHz
/// with one 200 ms tone (pitch from the voice's length) per word of
/// `input`, 50 ms apart, so tests can count words in what they hear.
fn speech_route(body: &[u8]) -> Response {
    let Ok(req) = serde_json::from_slice::<Value>(body) else {
        return plain(
            400,
            "application/json",
            r#"{"error":{"message":"body is not JSON"}}"#.into(),
        );
    };
    let input = req.get("input").and_then(Value::as_str).unwrap_or("");
    let voice = req.get("voice").and_then(Value::as_str).unwrap_or("");
    if input.trim().is_empty() || voice.is_empty() {
        return plain(
            400,
            "application/json",
            r#"{"error":{"message":"`input` and `voice` are required"}}"#.into(),
        );
    }
    let hz = 300.0 + 40.0 * voice.len() as f32;
    let mut pcm: Vec<i16> = Vec::new();
    for _ in input.split_whitespace() {
        let n = SPEECH_RATE as usize / 5;
        pcm.extend((0..n).map(|i| {
            ((i as f32 / SPEECH_RATE as f32 * hz * std::f32::consts::TAU).sin() * 9000.0) as i16
        }));
        pcm.extend(std::iter::repeat_n(0, SPEECH_RATE as usize / 20));
    }
    let data_len = (pcm.len() * 2) as u32;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&SPEECH_RATE.to_le_bytes());
    wav.extend_from_slice(&(SPEECH_RATE * 2).to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    for v in pcm {
        wav.extend_from_slice(&v.to_le_bytes());
    }
    streamed(200, "audio/wav", wav, None, 0, &[])
}

async fn handle(
    state: Arc<Mutex<State>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let at = Instant::now();
    let path = uri.path().to_string();
    if let Some(control) = path.strip_prefix("/_control/") {
        return control_route(&state, control, &body);
    }
    let recorded = record(&method, &uri, &headers, &body, at);
    if method == Method::POST && path.ends_with("/audio/speech") {
        state.lock().expect("state").requests.push(recorded);
        return speech_route(&body);
    }
    // Somewhere for tools to send things to (an external action under
    // test): recorded, answered, and no scripted step used.
    if path.starts_with("/_sink/") {
        state.lock().expect("state").requests.push(recorded);
        return plain(200, "application/json", r#"{"received":true}"#.into());
    }
    let azure = method == Method::POST && is_azure(&path, uri.query());
    if azure && let Some(rejected) = azure_rejection(&path, uri.query(), &headers) {
        state.lock().expect("state").requests.push(recorded);
        return rejected;
    }
    if method == Method::GET {
        let mut s = state.lock().expect("state");
        s.requests.push(recorded);
        return plain(200, "application/json", s.model_list());
    }
    let next = {
        let mut s = state.lock().expect("state");
        let body = String::from_utf8_lossy(&recorded.body).into_owned();
        s.requests.push(recorded);
        s.next_step(&body)
    };
    let Some(dialect) = WireDialect::from_path(&path) else {
        return plain(
            404,
            "application/json",
            format!(r#"{{"error":{{"message":"no route {path}"}}}}"#),
        );
    };
    let step = match next {
        Next::Step(step) => step,
        Next::Rule(answer) => Some(Step::Reply(answer(&last_user_text(dialect, &body)))),
    };
    let step = step.unwrap_or_else(|| {
        Step::Reply(Reply::text(format!(
            "echo: {}",
            last_user_text(dialect, &body)
        )))
    });
    play(step, dialect, azure).await
}

/// What the server got, as `requests()` lists it.
fn record(method: &Method, uri: &Uri, headers: &HeaderMap, body: &Bytes, at: Instant) -> Recorded {
    Recorded {
        method: method.to_string(),
        path: uri.path().to_string(),
        query: uri.query().map(str::to_string),
        headers: headers
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: body.clone(),
        at,
    }
}

/// Answers with one scripted step in `dialect` (Azure's stream starts
/// with its prompt-filter chunk).
async fn play(step: Step, dialect: WireDialect, azure: bool) -> Response {
    match step {
        Step::Reply(r) => {
            tokio::time::sleep(Duration::from_millis(r.delay_ms)).await;
            let mut bytes = render_reply(dialect, &r);
            if azure {
                bytes.splice(0..0, AZURE_PROMPT_FILTER_CHUNK.bytes());
            }
            if r.event_delay_ms > 0 {
                return streamed_events(dialect.content_type(), bytes, r.event_delay_ms);
            }
            streamed(
                200,
                dialect.content_type(),
                bytes,
                r.chunk_size,
                r.chunk_delay_ms,
                &[],
            )
        }
        Step::Http {
            status,
            headers,
            content_type,
            body,
        } => streamed(status, &content_type, body.into_bytes(), None, 0, &headers),
        Step::Raw {
            content_type,
            body,
            chunk_size,
            chunk_delay_ms,
        } => streamed(
            200,
            &content_type,
            body.into_bytes(),
            chunk_size,
            chunk_delay_ms,
            &[],
        ),
    }
}

/// Azure's first stream event: prompt filter results and no choices.
const AZURE_PROMPT_FILTER_CHUNK: &str = "data: {\"choices\":[],\"created\":0,\"id\":\"\",\"model\":\"\",\"object\":\"\",\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{\"hate\":{\"filtered\":false,\"severity\":\"safe\"}}}]}\n\n";

/// Whether a request is meant for Azure OpenAI / AI Foundry.
fn is_azure(path: &str, query: Option<&str>) -> bool {
    path.contains("/openai/deployments/") || api_version(query).is_some()
}

/// The `api-version` query parameter.
fn api_version(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|p| p.strip_prefix("api-version="))
        .filter(|v| !v.is_empty())
}

/// Azure's answer to a request it refuses, as the real service words it.
fn azure_rejection(path: &str, query: Option<&str>, headers: &HeaderMap) -> Option<Response> {
    let key = headers
        .get("api-key")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.trim().is_empty());
    if key.is_none() {
        return Some(plain(
            401,
            "application/json",
            r#"{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}"#.into(),
        ));
    }
    if api_version(query).is_none() {
        return Some(plain(
            404,
            "application/json",
            format!(
                r#"{{"error":{{"code":"404","message":"Resource not found: {path} needs an api-version query"}}}}"#
            ),
        ));
    }
    None
}

fn plain(status: u16, content_type: &str, body: String) -> Response {
    streamed(status, content_type, body.into_bytes(), None, 0, &[])
}

/// The body cut at event boundaries (a blank line for SSE, a newline for
/// NDJSON), `delay_ms` between events.
fn streamed_events(content_type: &str, bytes: Vec<u8>, delay_ms: u64) -> Response {
    let sep: &[u8] = if content_type.contains("event-stream") {
        b"\n\n"
    } else {
        b"\n"
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + sep.len() <= bytes.len() {
        if &bytes[i..i + sep.len()] == sep {
            pieces.push(Bytes::copy_from_slice(&bytes[start..i + sep.len()]));
            start = i + sep.len();
            i = start;
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        pieces.push(Bytes::copy_from_slice(&bytes[start..]));
    }
    let stream = futures::StreamExt::then(
        futures::stream::iter(pieces.into_iter().enumerate()),
        move |(i, b)| async move {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            Ok::<_, std::convert::Infallible>(b)
        },
    );
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", content_type)
        .body(Body::from_stream(stream))
        .expect("valid response")
}

fn streamed(
    status: u16,
    content_type: &str,
    bytes: Vec<u8>,
    chunk: Option<usize>,
    delay_ms: u64,
    headers: &[(String, String)],
) -> Response {
    let size = chunk.unwrap_or(bytes.len().max(1)).max(1);
    let pieces: Vec<Bytes> = bytes.chunks(size).map(Bytes::copy_from_slice).collect();
    let stream = futures::StreamExt::then(
        futures::stream::iter(pieces.into_iter().enumerate()),
        move |(i, b)| async move {
            if i > 0 && delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            Ok::<_, std::convert::Infallible>(b)
        },
    );
    let mut resp = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", content_type);
    for (k, v) in headers {
        resp = resp.header(k.as_str(), v.as_str());
    }
    resp.body(Body::from_stream(stream))
        .expect("valid response")
}

/// The last user text of a request body, for echo mode.
fn last_user_text(dialect: WireDialect, body: &[u8]) -> String {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let text = match dialect {
        WireDialect::Openai | WireDialect::Ollama => v["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .map(str::to_string),
        WireDialect::Anthropic => v["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_array())
            .and_then(|c| c.iter().rev().find_map(|b| b["text"].as_str()))
            .map(str::to_string),
        WireDialect::Gemini => v["contents"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["parts"].as_array())
            .and_then(|c| c.iter().rev().find_map(|b| b["text"].as_str()))
            .map(str::to_string),
    };
    text.unwrap_or_default()
}
