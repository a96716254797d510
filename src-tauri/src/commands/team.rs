//! Team mode: a request answered by a team of the named agents (what
//! `baton orchestrate` runs). Each stage streams over the channel given to
//! `run_team` as it happens; the command returns the whole run.

use baton_engine::api::team::{OrchestrationEvent, OrchestrationResult};
use baton_engine::{ConfirmMode, TeamRequest};
use tauri::State;
use tauri::ipc::Channel;

use crate::dto::{
    ErrorCode, IpcError, TeamAssignment, TeamEventDto, TeamPhase, TeamResponse, TeamResultView,
    TeamReview, TeamStage,
};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

fn stage(s: baton_engine::api::team::Stage) -> TeamStage {
    use baton_engine::api::team::Stage as S;
    match s {
        S::Orchestration => TeamStage::Orchestration,
        S::Planning => TeamStage::Planning,
        S::AgentTraining => TeamStage::Training,
        S::AgentExecution => TeamStage::Execution,
        S::AgentReview => TeamStage::Review,
        S::AgentRevise => TeamStage::Revise,
        S::Synthesis => TeamStage::Synthesis,
    }
}

fn assignments(plan: &[baton_engine::api::team::Assignment]) -> Vec<TeamAssignment> {
    plan.iter()
        .map(|a| TeamAssignment {
            task: a.task.clone(),
            specialisation: a.specialisation.clone(),
        })
        .collect()
}

fn event(e: &OrchestrationEvent) -> TeamEventDto {
    TeamEventDto {
        stage: stage(e.stage),
        phase: match e.phase {
            baton_engine::api::team::Phase::Starting => TeamPhase::Starting,
            baton_engine::api::team::Phase::Stopped => TeamPhase::Stopped,
        },
        agent: e.agent.clone(),
        assignment: e.assignment.map(|i| i as u32),
        round: e.round,
        plan: e.plan.as_deref().map(assignments),
        text: e.text.clone(),
        approved: e.approved,
        error: e.error.clone(),
    }
}

fn view(r: OrchestrationResult) -> TeamResultView {
    TeamResultView {
        final_response: r.final_response,
        plan: assignments(&r.plan),
        responses: r
            .agent_responses
            .into_iter()
            .map(|a| TeamResponse {
                agent: a.agent,
                task: a.assignment.task,
                response: a.response,
                revisions: a.revisions,
            })
            .collect(),
        reviews: r
            .reviews
            .into_iter()
            .map(|v| TeamReview {
                reviewer: v.reviewer,
                author: v.author,
                approved: v.approved,
                feedback: v.feedback,
                round: v.round,
            })
            .collect(),
        short_circuited: r.short_circuited,
        cancelled: r.cancelled,
        total_tokens: u32::try_from(r.total_tokens).unwrap_or(u32::MAX),
        success: r.success,
        error: r.error,
        notes: r.notes,
    }
}

/// Runs `prompt` through the team of every enabled agent; each stage is
/// sent on `on_event`. One team at a time.
#[tauri::command]
#[specta::specta]
pub async fn run_team(
    state: State<'_, AppState>,
    prompt: String,
    on_event: Channel<TeamEventDto>,
) -> IpcResult<TeamResultView> {
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
        let _ = on_event.send(event(&e));
    }
    let result = run.finish().await;
    *lock(&state.team) = None;
    match result {
        Some(Ok(r)) => Ok(view(r)),
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
