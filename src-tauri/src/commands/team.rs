//! Team mode: a request answered by a team of the named agents (what
//! `baton orchestrate` runs). Each stage streams over the channel given to
//! `run_team` as it happens; the command returns the whole run.

use baton_engine::api::team::{OrchestrationEvent, OrchestrationResult};
use baton_engine::{ConfirmMode, TeamRequest};
use tauri::State;
use tauri::ipc::Channel;

use crate::dto::{ErrorCode, IpcError};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

/// Runs `prompt` through the team of every enabled agent; each stage is
/// sent on `on_event`. One team at a time.
#[tauri::command]
#[specta::specta]
pub async fn run_team(
    state: State<'_, AppState>,
    prompt: String,
    on_event: Channel<OrchestrationEvent>,
) -> IpcResult<OrchestrationResult> {
    let refuse = ConfirmMode::Refuse(
        "a team works without asking: actions that send something off this computer are not run"
            .into(),
    );
    let mut run = {
        let mut slot = lock(&state.team);
        if slot.is_some() {
            return Err(IpcError::new(
                ErrorCode::Busy,
                "a team is already working; stop it or wait for its answer",
            ));
        }
        let run = state
            .engine()
            .team()
            .start(TeamRequest::new(prompt, refuse))?;
        *slot = Some(run.stopper());
        run
    };
    while let Some(e) = run.next().await {
        let _ = on_event.send(e);
    }
    let result = run.finish().await;
    *lock(&state.team) = None;
    match result {
        Some(Ok(r)) => Ok(r),
        Some(Err(e)) => Err(IpcError::invalid(e.to_string())),
        None => Err(IpcError::new(
            ErrorCode::Internal,
            "the team's run ended without a result",
        )),
    }
}

/// Stops the team at work (its answer comes back marked cancelled).
#[tauri::command]
#[specta::specta]
pub fn stop_team(state: State<'_, AppState>) -> IpcResult<()> {
    if let Some(cancel) = lock(&state.team).as_ref() {
        cancel.cancel();
    }
    Ok(())
}
