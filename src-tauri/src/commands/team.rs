//! Team mode: a request answered by a team of the named agents (what
//! `baton orchestrate` runs). Each stage streams over the channel given to
//! `run_team` as it happens; the command returns the whole run.

use baton_engine::api::team::{OrchestrationEvent, OrchestrationResult};
use baton_engine::{ConfirmMode, TeamRequest};
use tauri::State;
use tauri::ipc::Channel;

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
    let engine = state.engine();
    super::relay::one_at_a_time(
        &state.team,
        "a team is already working; stop it or wait for its answer",
        || engine.team().start(TeamRequest::new(prompt, refuse)),
        &on_event,
        "the team's run ended without a result",
    )
    .await
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
