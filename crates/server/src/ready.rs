//! Liveness and readiness for load balancers, and the workspace index the
//! server's agents search (opened once, kept fresh in the background
//! unless `--skip-indexing-on-startup`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use baton_engine::api::Readiness;
use baton_engine::api::index::WorkspaceIndex;
use baton_engine::{Engine, IndexState};
use serde_json::{Value, json};

use crate::App;

/// How long one probe of the provider answers `/ready` (a load balancer
/// polling every second does not make a request to the provider each
/// time).
const PROBE_KEPT: Duration = Duration::from_secs(5);

/// The last probe of the provider, kept for [`PROBE_KEPT`].
#[derive(Default)]
pub(crate) struct ProbeCache {
    last: tokio::sync::Mutex<Option<(std::time::Instant, String, Readiness)>>,
}

impl ProbeCache {
    /// The readiness of provider entry `name`, probed at most every
    /// [`PROBE_KEPT`] (callers at once wait for the one probe).
    async fn readiness(
        &self,
        name: &str,
        probe: impl std::future::Future<Output = Readiness>,
    ) -> Readiness {
        let mut last = self.last.lock().await;
        if let Some((at, n, r)) = last.as_ref()
            && n == name
            && at.elapsed() < PROBE_KEPT
        {
            return r.clone();
        }
        let r = probe.await;
        *last = Some((std::time::Instant::now(), name.to_string(), r.clone()));
        r
    }
}

/// The index the agents search and what its background refresh is doing.
pub(crate) struct ServerIndex {
    /// `None`: search is off (the index could not be opened).
    pub index: Option<Arc<WorkspaceIndex>>,
    state: Arc<Mutex<Option<IndexState>>>,
}

impl ServerIndex {
    /// Opens the workspace's index (off the runtime: it reads from disk)
    /// and, unless `skip`, refreshes it in the background.
    pub async fn open(engine: &Arc<Engine>, skip: bool) -> Self {
        let e = Arc::clone(engine);
        let opened = tokio::task::spawn_blocking(move || e.tools().open_index()).await;
        let state = Arc::new(Mutex::new(None));
        let index = match opened {
            Ok(Ok(index)) => Some(index),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "document search is off");
                *state.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(IndexState::Failed(e.to_string()));
                None
            }
            Err(_) => None,
        };
        if let Some(index) = &index
            && !skip
        {
            // Not ready from the first request on, until the scan is done.
            *state.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(IndexState::Scanning { done: 0, total: 0 });
            let seen = Arc::clone(&state);
            baton_engine::refresh_in_background(
                index,
                false,
                Arc::new(move |s| *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(s)),
            );
        }
        Self { index, state }
    }

    /// The refresh's state now (`None`: not refreshed at start).
    fn state(&self) -> Option<IndexState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// `GET /health`: the process answers.
pub(crate) async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// The index as `/ready` tells it, and whether it lets the server be ready
/// (only a first scan holds it back; a failed index turns search off).
fn index_report(state: Option<IndexState>) -> (Value, bool) {
    match state {
        None => (json!({"state": "not refreshed at start"}), true),
        Some(IndexState::Scanning { done, total }) => (
            json!({"state": "indexing", "done": done, "total": total}),
            false,
        ),
        Some(IndexState::Idle { documents }) => {
            (json!({"state": "ready", "documents": documents}), true)
        }
        Some(IndexState::Busy) => (json!({"state": "kept by another Baton process"}), true),
        Some(IndexState::Failed(e)) => (json!({"state": "off", "reason": e}), true),
    }
}

/// `GET /ready`: 200 when the default agent's provider answers (or its
/// model file is there) and the workspace index is not on its first scan;
/// else 503. The details (agent, provider, index) are told only to a
/// caller who may use the API (its key, or anyone on a server without
/// keys); others get the status alone.
pub(crate) async fn ready(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let detailed = app.caller(&headers).is_ok();
    let (ok, details) = readiness(&app).await;
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let word = if ok { "ready" } else { "not ready" };
    let body = match details {
        Value::Object(mut d) if detailed => {
            d.insert("status".into(), json!(word));
            Value::Object(d)
        }
        _ => json!({"status": word}),
    };
    (status, Json(body)).into_response()
}

/// Whether the server is ready, and what it found.
async fn readiness(app: &App) -> (bool, Value) {
    let def = match app.engine.agents().def(None) {
        Ok(d) => d,
        Err(e) => return (false, json!({"message": e.to_string()})),
    };
    let cfg = match app.engine.agents().provider_for(&def, None) {
        Ok(c) => c,
        Err(e) => return (false, json!({"agent": def.name, "message": e.to_string()})),
    };
    let providers = app.engine.providers();
    let probe = providers.readiness_of(&cfg, Duration::from_secs(3));
    let provider = app.probes.readiness(&cfg.name, probe).await;
    let (index, index_ok) = index_report(app.index.state());
    let (Readiness::Ready(how) | Readiness::NotReady(how)) = &provider;
    let details = json!({
        "agent": def.name,
        "provider": {"name": cfg.name, "ready": provider.is_ready(), "detail": how},
        "index": index,
    });
    (provider.is_ready() && index_ok, details)
}
