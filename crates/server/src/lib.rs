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
mod wire;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use baton_engine::Engine;
use serde_json::{Value, json};

pub use error::ApiError;

/// The largest request body taken (attachments come later, as files).
pub const BODY_LIMIT: usize = 16 * 1024 * 1024;

/// What the handlers share.
pub struct App {
    engine: Arc<Engine>,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A host other than this computer without API keys.
    #[error(
        "refusing to listen on {0}: without API keys the server answers this computer only (use 127.0.0.1 or ::1)"
    )]
    NotLoopback(IpAddr),
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
    /// The handlers' state over `engine`.
    pub fn new(engine: Arc<Engine>) -> Arc<Self> {
        Arc::new(Self { engine })
    }

    /// The model ids: each enabled agent by name, each provider entry as
    /// `provider/NAME`.
    fn model_ids(&self) -> Vec<String> {
        let agents = self.engine.agents().enabled().map(|a| a.name.clone());
        let providers = self
            .engine
            .providers
            .providers
            .iter()
            .map(|p| format!("provider/{}", p.name));
        agents.chain(providers).collect()
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
                .providers
                .providers
                .iter()
                .any(|p| p.name == name)
        {
            return Ok((None, Some(name.to_string())));
        }
        if self.engine.agents().enabled().any(|a| a.name == model) {
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

/// `GET /health`: the process answers.
async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// `GET /ready`: the default agent's provider entry can be opened.
async fn ready(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let def = app
        .engine
        .agent_def(None)
        .map_err(|e| ApiError::server(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    let cfg = app
        .engine
        .agent_provider(&def, None)
        .map_err(|e| ApiError::server(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    Ok(Json(
        json!({"status": "ready", "agent": def.name, "provider": cfg.name}),
    ))
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
    res
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
    Router::new()
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/models", get(models))
        .route("/health", get(health))
        .route("/ready", get(ready))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(request_id))
        .with_state(app)
}

/// Binds `addr` (this computer only: API keys come later) and serves
/// until `shutdown` resolves, finishing the requests in flight.
pub async fn serve(
    engine: Arc<Engine>,
    addr: SocketAddr,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    if !addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(addr.ip()));
    }
    let bind_error = |e: std::io::Error| ServeError::Bind {
        addr,
        reason: e.to_string(),
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(bind_error)?;
    on_bound(listener.local_addr().map_err(bind_error)?);
    axum::serve(listener, router(App::new(engine)))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(bind_error)
}
