//! Research mode: a question answered from many web pages (what `baton
//! research` runs). Each stage and source streams over the channel given
//! to `run_research` as it happens; the command returns the report, which
//! `save_research` writes into the workspace.

use baton_engine::api::research::{Limits, Report, ResearchEvent, ResearchRequest};
use tauri::State;
use tauri::ipc::Channel;

use crate::dto::{ErrorCode, IpcError, ReportFormat};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

/// Researches `question` reading at most `sources` pages (default: the
/// `research` settings); each stage and source is sent on `on_event`. One
/// job at a time.
#[tauri::command]
#[specta::specta]
pub async fn run_research(
    state: State<'_, AppState>,
    question: String,
    sources: Option<u32>,
    on_event: Channel<ResearchEvent>,
) -> IpcResult<Report> {
    let mut run = {
        let mut slot = lock(&state.research);
        if slot.is_some() {
            return Err(IpcError::new(
                ErrorCode::Busy,
                "a research job is already running; stop it or wait for its report",
            ));
        }
        let engine = state.engine();
        let limits = Limits {
            sources: sources.map_or(engine.research().limits().sources, |n| n as usize),
            ..engine.research().limits()
        };
        let run = engine.research().start(ResearchRequest {
            question,
            limits: Some(limits),
            agent: None,
        })?;
        *slot = Some(run.stopper());
        run
    };
    while let Some(e) = run.next().await {
        let _ = on_event.send(e);
    }
    let result = run.finish().await;
    *lock(&state.research) = None;
    match result {
        Some(Ok(report)) => {
            *lock(&state.report) = Some(report.clone());
            Ok(report)
        }
        Some(Err(e)) => Err(IpcError::invalid(e.to_string())),
        None => Err(IpcError::new(
            ErrorCode::Internal,
            "the research ended without a report",
        )),
    }
}

/// Stops the research job at work.
#[tauri::command]
#[specta::specta]
pub fn stop_research(state: State<'_, AppState>) -> IpcResult<()> {
    if let Some(cancel) = lock(&state.research).as_ref() {
        cancel.cancel();
    }
    Ok(())
}

/// Writes the last report into the workspace's `Research` folder as
/// `format`; the path written.
#[tauri::command]
#[specta::specta]
pub async fn save_research(state: State<'_, AppState>, format: ReportFormat) -> IpcResult<String> {
    let report = lock(&state.report)
        .clone()
        .ok_or_else(|| IpcError::invalid("there is no report to save yet"))?;
    let path = state
        .engine()
        .research()
        .save_in_workspace(&report, format.extension())
        .await?;
    Ok(path.display().to_string())
}
