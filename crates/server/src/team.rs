//! The `team` model: the request answered by a team of the named agents
//! (`baton orchestrate`): planned, worked on in parallel, peer-reviewed,
//! and synthesized into one answer. Streamed, each stage is an SSE comment
//! as it happens and the answer one content chunk at the end; the answer
//! carries the whole run under `baton.team`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use baton_engine::ConfirmMode;
use baton_engine::api::team::{
    CancellationToken, EventHandler, Options, OrchestrationEvent, OrchestrationResult, Phase, Stage,
};
use serde_json::json;
use tokio::sync::mpsc;

use crate::App;
use crate::chat::Chunks;
use crate::error::ApiError;
use crate::wire::{ChatRequest, WireUsage};
use tokio::sync::OwnedSemaphorePermit as Place;

/// The model id.
pub(crate) const TEAM_MODEL: &str = "team";

/// Answers `req` with the team; `prompt` is its last user message.
pub(crate) async fn completions(
    app: Arc<App>,
    req: ChatRequest,
    prompt: String,
    place: Place,
) -> Result<Response, ApiError> {
    let chunks = Arc::new(Chunks::new(&req.model));
    let (tx, rx) = mpsc::unbounded_channel::<Event>();
    let orchestrator = app
        .engine
        .team()
        .orchestrator(
            None,
            ConfirmMode::Refuse("a team answering over the HTTP API has no one to ask".into()),
            Options::default(),
        )
        .map_err(|e| ApiError::invalid(e.to_string(), Some("model")))?;
    // On Redis with the sessions, the team's notes are shared too.
    let orchestrator = match &app.sessions {
        crate::Sessions::Redis { conn, .. } => {
            orchestrator.with_state(crate::team_state::on_redis(conn.clone()))
        }
        _ => orchestrator,
    };
    let orchestrator = match req.stream {
        true => orchestrator.on_event(progress(tx.clone(), Arc::clone(&chunks))),
        false => orchestrator,
    };
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let run = tokio::spawn(async move {
        let result = orchestrator.orchestrate(&prompt, &[], cancel).await;
        drop(place);
        result
    });
    if !req.stream {
        let _stop = stop.drop_guard();
        let result = finished(run).await?;
        return Ok(Json(answer(&chunks, &result)).into_response());
    }
    // A run that could not start has no events: its error ends the stream.
    tokio::spawn(async move {
        if let Err(e) = finished(run).await
            && e.status != axum::http::StatusCode::BAD_GATEWAY
        {
            let _ = tx.send(Event::default().event("error").data(e.message));
            let _ = tx.send(Event::default().data("[DONE]"));
        }
    });
    // The client leaving stops the run.
    let guard = stop.drop_guard();
    let stream = futures::stream::unfold((rx, guard), |(mut rx, guard)| async move {
        rx.recv()
            .await
            .map(|e| (Ok::<_, Infallible>(e), (rx, guard)))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// Sends each event as an SSE comment; the last one (the orchestration
/// stopped) is followed by the answer and `[DONE]`, so nothing comes after.
fn progress(tx: mpsc::UnboundedSender<Event>, chunks: Arc<Chunks>) -> EventHandler {
    Arc::new(move |e: &OrchestrationEvent| {
        if let Ok(line) = serde_json::to_string(e) {
            let _ = tx.send(Event::default().comment(line));
        }
        if (e.stage, e.phase) != (Stage::Orchestration, Phase::Stopped) {
            return;
        }
        let text = e.text.clone().unwrap_or_default();
        if text.is_empty() {
            let why = e.error.clone().unwrap_or_default();
            let _ = tx.send(Event::default().event("error").data(why));
        } else {
            let delta = json!({"role": "assistant", "content": text});
            let _ = tx.send(chunks.chunk(delta, None));
            let _ = tx.send(chunks.chunk(json!({}), Some("stop")));
        }
        let _ = tx.send(Event::default().data("[DONE]"));
    })
}

async fn finished(
    run: tokio::task::JoinHandle<
        Result<OrchestrationResult, baton_engine::api::team::OrchestratorError>,
    >,
) -> Result<OrchestrationResult, ApiError> {
    let result = run
        .await
        .map_err(|e| {
            ApiError::server(axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
        })?
        .map_err(|e| ApiError::invalid(e.to_string(), Some("messages")))?;
    if !result.success && result.final_response.is_empty() {
        let why = result.error.clone().unwrap_or_default();
        return Err(ApiError::server(axum::http::StatusCode::BAD_GATEWAY, why));
    }
    Ok(result)
}

/// The `chat.completion` of a finished run.
fn answer(chunks: &Chunks, result: &OrchestrationResult) -> serde_json::Value {
    let usage = WireUsage {
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: u32::try_from(result.total_tokens).unwrap_or(u32::MAX),
    };
    chunks.completion(&result.final_response, usage, json!({"team": result}))
}
