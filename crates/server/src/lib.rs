//! Baton as an OpenAI-compatible HTTP API: `baton serve`.
//!
//! A thin front door onto the engine's conversation API, like the CLI and
//! the desktop: `POST /v1/chat/completions` runs one of Baton's named
//! agents (the request's `model`) over the posted messages, answered as a
//! `chat.completion` or streamed as OpenAI's SSE chunks; `GET /v1/models`
//! lists the agents and provider entries; `GET /health` and `GET /ready`
//! are for load balancers. Every response carries an `x-request-id`.

mod chat;
mod error;
mod files;
mod limits;
mod parts;
mod ready;
mod sessions;
mod team;
mod team_state;
mod wire;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use baton_engine::Engine;
use baton_engine::api::keys::{Door, KeyError, KeyHolder, LiveKeys};
use baton_stdx::{HostNames, is_this_computer};
use serde_json::{Value, json};

pub use error::ApiError;
pub use files::{FileRecord, FileStore, Purpose};
pub use limits::{DEFAULT_PER_MINUTE, Limits};
pub use sessions::{SessionKind, Sessions};

/// How `baton serve` runs.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Request limits.
    pub limits: Limits,
    /// Where `x-baton-session` conversations are kept.
    pub sessions: SessionKind,
    /// Do not bring the workspace index up to date at start (as the
    /// `skipIndexingOnStartup` setting; either one skips it).
    pub skip_indexing: bool,
    /// Serve this computer without an API key when none is made
    /// (`--no-auth`): every program running on it may then use the agents
    /// (web pages still may not). Without it, a key must exist.
    pub no_auth: bool,
    /// Names besides this computer's that a `Host` may give once the
    /// server asks for keys (`--host-name`, the `server.hostNames`
    /// setting); IP addresses are answered then anyway.
    pub host_names: Vec<String>,
}

/// The largest request body taken (attachments come later, as files).
pub const BODY_LIMIT: usize = 16 * 1024 * 1024;

/// Who a request comes from: the holder of the API key it carried, or
/// this computer when the server needs no key. What a caller keeps
/// (sessions, files) is filed under its `owner`, apart from every other
/// caller's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    /// For logs: the key's name, or `local`.
    pub name: String,
    /// Where its things are filed and its requests counted: `key-TAG`
    /// (the key's [`KeyHolder::tag`]), or `local`.
    pub owner: String,
    /// Its conversations are kept with the desktop's (the key's owner
    /// chose it: `baton serve keys share NAME`).
    pub shares_sessions: bool,
}

impl Caller {
    /// This computer, on a server that needs no key.
    fn local() -> Self {
        Self {
            name: "local".into(),
            owner: "local".into(),
            shares_sessions: false,
        }
    }

    /// The holder of an accepted key.
    fn holder(h: KeyHolder) -> Self {
        Self {
            owner: format!("key-{}", h.tag),
            name: h.name,
            shares_sessions: h.shares_sessions,
        }
    }
}

/// What the handlers share.
pub struct App {
    engine: Arc<Engine>,
    keys: LiveKeys,
    gate: limits::Gate,
    limits: Limits,
    sessions: Sessions,
    files: FileStore,
    index: ready::ServerIndex,
    probes: ready::ProbeCache,
    /// The names a request may be addressed to.
    hosts: HostNames,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A host other than this computer without API keys.
    #[error(
        "refusing to listen on {0}: without API keys the server answers this computer only (use 127.0.0.1, or make a key with `baton serve keys add NAME`)"
    )]
    NotLoopback(IpAddr),
    /// No key is made and serving without one was not asked for.
    #[error(
        "no API key yet: make one with `baton serve keys add NAME` (it is printed once; clients send it as `Authorization: Bearer KEY`), or start with `--no-auth` to let every program on this computer use Baton's agents and tools without a key (web pages still cannot)"
    )]
    NoKey,
    /// The keys file could not be read.
    #[error("the API keys could not be read: {0}")]
    Keys(#[from] KeyError),
    /// The session store could not be opened.
    #[error("the session store could not be opened: {0}")]
    Sessions(String),
    /// The address could not be bound.
    #[error("could not listen on {addr}: {reason}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
}

impl App {
    /// The handlers' state over `engine`, accepting `keys` (none: open).
    async fn new(
        engine: Arc<Engine>,
        keys: LiveKeys,
        options: ServeOptions,
    ) -> Result<Arc<Self>, ServeError> {
        let sessions = Sessions::open(&options.sessions, &engine)
            .await
            .map_err(ServeError::Sessions)?;
        let skip = options.skip_indexing || engine.settings().skip_indexing_on_startup;
        let index = ready::ServerIndex::open(&engine, skip).await;
        let files = FileStore::beside(&sessions, &engine.paths().data_dir);
        Ok(Arc::new(Self {
            engine,
            keys,
            gate: limits::Gate::new(options.limits),
            limits: options.limits,
            sessions,
            files,
            index,
            probes: ready::ProbeCache::default(),
            hosts: HostNames::new(&options.host_names),
        }))
    }

    /// The model ids: each enabled agent by name, each provider entry as
    /// `provider/NAME`.
    fn model_ids(&self) -> Vec<String> {
        let agents = self
            .engine
            .agents()
            .loaded()
            .enabled()
            .map(|a| a.name.clone());
        let providers = self
            .engine
            .providers()
            .file()
            .providers
            .iter()
            .map(|p| format!("provider/{}", p.name));
        let team = (self.engine.agents().loaded().enabled().count() > 0)
            .then(|| team::TEAM_MODEL.to_string());
        agents.chain(team).chain(providers).collect()
    }

    /// `model` as (agent, provider entry): an agent's name, `provider/NAME`
    /// (the default agent on that entry), or `baton`/empty for the default.
    fn resolve_model(&self, model: &str) -> Result<(Option<String>, Option<String>), ApiError> {
        let model = model.trim();
        if model.is_empty() || model == "baton" {
            return Ok((None, None));
        }
        if let Some(name) = model.strip_prefix("provider/")
            && self
                .engine
                .providers()
                .file()
                .providers
                .iter()
                .any(|p| p.name == name)
        {
            return Ok((None, Some(name.to_string())));
        }
        if model == team::TEAM_MODEL {
            return Err(ApiError::invalid(
                "the `team` model is answered by the chat completions endpoint only",
                Some("model"),
            ));
        }
        if self
            .engine
            .agents()
            .loaded()
            .enabled()
            .any(|a| a.name == model)
        {
            return Ok((Some(model.to_string()), None));
        }
        Err(ApiError::model_not_found(model, &self.model_ids()))
    }
}

/// `GET /v1/models`.
async fn models(State(app): State<Arc<App>>) -> Json<Value> {
    let data: Vec<Value> = app
        .model_ids()
        .into_iter()
        .map(|id| {
            let owner = if id.starts_with("provider/") {
                "baton-provider"
            } else {
                "baton-agent"
            };
            json!({"id": id, "object": "model", "created": 0, "owned_by": owner})
        })
        .collect();
    Json(json!({"object": "list", "data": data}))
}

/// Gives every request an id (the client's `x-request-id`, else a new
/// one), in the logs and on the response.
async fn request_id(mut req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128)
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
    let span =
        tracing::info_span!("request", id = %id, method = %req.method(), path = %req.uri().path());
    req.extensions_mut().insert(id.clone());
    let mut res = {
        let _enter = span.enter();
        tracing::info!("request");
        next.run(req).await
    };
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert("x-request-id", v);
    }
    // Marks Baton's own server, so that a Baton looking for model servers
    // on this computer does not list itself.
    res.headers_mut().insert(
        baton_engine::api::models::BATON_SERVER_HEADER,
        HeaderValue::from_static(env!("CARGO_PKG_VERSION")),
    );
    res
}

/// Refuses what a web page in the user's browser could send: any request
/// with an `Origin` that is not this computer's, and one addressed (`Host`)
/// to a name the server does not answer to (a page's own name re-pointed
/// at 127.0.0.1: DNS rebinding; see [`HostNames`]). Programs (the SDKs,
/// curl) send no `Origin`.
async fn same_computer(
    State(app): State<Arc<App>>,
    req: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let keyed = app.keys.now().is_some();
    if let Some(message) = web_page_refusal(&req, keyed, &app.hosts) {
        return Err(ApiError {
            status: StatusCode::FORBIDDEN,
            code: Some("forbidden"),
            ..ApiError::invalid(message, None)
        });
    }
    Ok(next.run(req).await)
}

/// Why `req` looks sent by a web page (see [`same_computer`]); `keyed`:
/// callers need a key.
fn web_page_refusal(req: &Request, keyed: bool, hosts: &HostNames) -> Option<String> {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    if let Some(origin) = header("origin") {
        let host = url::Url::parse(origin)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string));
        if !host.as_deref().is_some_and(is_this_computer) {
            return Some(format!(
                "requests from web pages (Origin: {origin}) are refused: Baton's API is for programs, not for sites open in a browser"
            ));
        }
    }
    // HTTP/2 names the host in the request line instead.
    let host = header("host").or_else(|| req.uri().authority().map(|a| a.as_str()));
    hosts.refusal(host, keyed)
}

/// The bearer key of a request, if it carries one.
fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

impl App {
    /// Who sent `headers`: this computer when no key is needed, the
    /// holder of the key they carry, or why not.
    fn caller(&self, headers: &axum::http::HeaderMap) -> Result<Caller, ApiError> {
        let Some(keys) = self.keys.now() else {
            return Ok(Caller::local());
        };
        let refused = |message: &str| ApiError {
            status: StatusCode::UNAUTHORIZED,
            code: Some("invalid_api_key"),
            ..ApiError::invalid(message, None)
        };
        match bearer(headers) {
            None => Err(refused(
                "no API key was given: send it as `Authorization: Bearer KEY` (`baton serve keys add NAME` makes one)",
            )),
            Some(key) => keys
                .check(key)
                .map(Caller::holder)
                .ok_or_else(|| refused("the API key is not one of this server's keys")),
        }
    }
}

/// With keys configured, `/v1/*` needs `Authorization: Bearer KEY`; the
/// caller goes with the request to the handlers.
async fn auth(
    State(app): State<Arc<App>>,
    mut req: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let caller = app.caller(req.headers())?;
    tracing::info!(key = %caller.name, "authorised");
    if let Err(too_many) = app.gate.count(&caller.owner) {
        return Ok(too_many.into_response());
    }
    req.extensions_mut().insert(caller);
    Ok(next.run(req).await)
}

/// 404 in OpenAI's shape.
async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        code: Some("not_found"),
        ..ApiError::invalid("there is no such endpoint", None)
    }
}

/// The routes.
pub fn router(app: Arc<App>) -> Router {
    let v1 = Router::new()
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/models", get(models))
        .route(
            "/v1/files",
            get(files::list)
                .post(files::upload)
                .layer(DefaultBodyLimit::max(
                    app.limits.max_file_bytes + (64 << 10),
                )),
        )
        .route("/v1/files/{id}", get(files::retrieve).delete(files::delete))
        .route("/v1/files/{id}/content", get(files::content))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&app), auth));
    Router::new()
        .merge(v1)
        .route("/health", get(ready::health))
        .route("/ready", get(ready::ready))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&app),
            same_computer,
        ))
        .layer(middleware::from_fn(request_id))
        .with_state(app)
}

/// Binds `addr` and serves until `shutdown` resolves, finishing the
/// requests in flight. Every `/v1` request needs an API key; with none
/// made, the server starts only when `options.no_auth` asks, and then
/// serves this computer only (`addr` must be loopback). `on_bound` gets the address and whether keys are required, once
/// the session store is open and requests are taken.
pub async fn serve(
    engine: Arc<Engine>,
    addr: SocketAddr,
    options: ServeOptions,
    on_bound: impl FnOnce(SocketAddr, bool),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let keys = LiveKeys::open(&engine.paths().data_dir, Door::Serve)?;
    if !keys.required() && !options.no_auth {
        return Err(ServeError::NoKey);
    }
    if !keys.required() && !addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(addr.ip()));
    }
    let bind_error = |e: std::io::Error| ServeError::Bind {
        addr,
        reason: e.to_string(),
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(bind_error)?;
    let bound = listener.local_addr().map_err(bind_error)?;
    let keys_required = keys.required();
    let app = App::new(engine, keys, options).await?;
    on_bound(bound, keys_required);
    axum::serve(listener, router(app))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(bind_error)
}
