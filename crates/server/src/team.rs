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
use baton_engine::api::team::{
    OrchestrationEvent, OrchestrationResult, OrchestratorError, Phase, Stage,
};
use baton_engine::{ConfirmMode, TeamRequest};
use futures::StreamExt;
use serde_json::json;

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
    let refuse = ConfirmMode::Refuse("a team answering over the HTTP API has no one to ask".into());
    let mut request = TeamRequest::new(prompt, refuse);
    // On Redis with the sessions, the team's notes are shared too.
    request.state = app
        .sessions
        .redis
        .as_ref()
        .map(|link| crate::team_state::on_redis(link.conn.clone()));
    let run = app
        .engine
        .team()
        .start(request)
        .map_err(|e| ApiError::invalid(e.to_string(), Some("model")))?;
    // The client leaving stops the run.
    let guard = run.stopper().drop_guard();
    if !req.stream {
        let result = finished(run.finish().await);
        drop((place, guard));
        return Ok(Json(answer(&chunks, &result?)).into_response());
    }
    let stream = futures::stream::unfold(Some((run, guard, place)), move |st| {
        let chunks = Arc::clone(&chunks);
        async move {
            let (mut run, guard, place) = st?;
            match run.next().await {
                Some(e) => Some((progress(&chunks, &e), Some((run, guard, place)))),
                // A run that could not start has no events: its error
                // ends the stream.
                None => {
                    let tail = match finished(run.finish().await) {
                        Err(e) if e.status != axum::http::StatusCode::BAD_GATEWAY => vec![
                            Event::default().event("error").data(e.message),
                            Event::default().data("[DONE]"),
                        ],
                        _ => Vec::new(),
                    };
                    drop((place, guard));
                    Some((tail, None))
                }
            }
        }
    })
    .flat_map(|events| futures::stream::iter(events.into_iter().map(Ok::<_, Infallible>)));
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// Each event as an SSE comment; the last one (the orchestration stopped)
/// is followed by the answer and `[DONE]`, so nothing comes after.
fn progress(chunks: &Chunks, e: &OrchestrationEvent) -> Vec<Event> {
    let mut out = Vec::new();
    if let Ok(line) = serde_json::to_string(e) {
        out.push(Event::default().comment(line));
    }
    if (e.stage, e.phase) != (Stage::Orchestration, Phase::Stopped) {
        return out;
    }
    let text = e.text.clone().unwrap_or_default();
    if text.is_empty() {
        let why = e.error.clone().unwrap_or_default();
        out.push(Event::default().event("error").data(why));
    } else {
        let delta = json!({"role": "assistant", "content": text});
        out.push(chunks.chunk(delta, None));
        out.push(chunks.chunk(json!({}), Some("stop")));
    }
    out.push(Event::default().data("[DONE]"));
    out
}

/// The run's result, or the error the client is told.
fn finished(
    result: Option<Result<OrchestrationResult, OrchestratorError>>,
) -> Result<OrchestrationResult, ApiError> {
    let internal = axum::http::StatusCode::INTERNAL_SERVER_ERROR;
    let result = result
        .ok_or_else(|| ApiError::server(internal, "the team's run ended without a result"))?
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
