//! Settings → Scheduled tasks: prompts Baton runs on its own (the
//! engine's tasks file), and the scheduler that runs them while the app
//! is open, telling the window of each run ([`TaskRan`]).

use std::sync::Arc;

use baton_engine::api::schedule::{
    NewTask, RunStatus, ScheduledTask, Scheduler, TaskId, TaskReport,
};
use tauri::{AppHandle, Manager, State};
use tauri_specta::Event;

use crate::dto::{Pane, TaskRan};
use crate::error::IpcResult;
use crate::shell::{self, Attention};
use crate::state::AppState;

/// Every scheduled task, in the order made.
#[tauri::command]
#[specta::specta]
pub fn list_tasks(state: State<'_, AppState>) -> IpcResult<Vec<ScheduledTask>> {
    Ok(state.engine().schedule().list()?)
}

/// Makes a task (`when` in plain words, a date or a cron pattern; `email`:
/// each answer e-mailed to the user too); the list after.
#[tauri::command]
#[specta::specta]
pub fn add_task(
    state: State<'_, AppState>,
    prompt: String,
    when: String,
    agent: Option<String>,
    email: bool,
) -> IpcResult<Vec<ScheduledTask>> {
    let engine = state.engine();
    engine.schedule().add(NewTask {
        prompt,
        when,
        agent: agent.filter(|a| !a.trim().is_empty()),
        notify: true,
        email,
    })?;
    Ok(engine.schedule().list()?)
}

/// Removes task `id`; the list after.
#[tauri::command]
#[specta::specta]
pub fn remove_task(state: State<'_, AppState>, id: String) -> IpcResult<Vec<ScheduledTask>> {
    let engine = state.engine();
    engine.schedule().remove(&TaskId::parse(&id)?)?;
    Ok(engine.schedule().list()?)
}

/// Runs task `id` now (its answer goes to its chat); what came of it.
#[tauri::command]
#[specta::specta]
pub async fn run_task(state: State<'_, AppState>, id: String) -> IpcResult<TaskRan> {
    let id = TaskId::parse(&id)?;
    let report = state.engine().schedule().run(&id).await?;
    Ok(ran(&report))
}

/// Starts the scheduler on the app's current engine; each run is told to
/// the window, and with a notification when the window is not in front.
pub fn start_scheduler(handle: &AppHandle) {
    let engine_of = handle.clone();
    let told = handle.clone();
    tauri::async_runtime::spawn(async move {
        // Runs for as long as the app does.
        let _scheduler = Scheduler::start(
            Arc::new(move || engine_of.state::<AppState>().engine()),
            Arc::new(move |report: &TaskReport| {
                if let Err(e) = ran(report).emit(&told) {
                    tracing::warn!("a scheduled run could not be told to the window: {e}");
                }
                let title = format!("Scheduled: {}", report.task.prompt);
                let what = attention(report.run.status);
                shell::notify_if_away(&told, Pane::Main, &report.session, &title, what);
            }),
        );
        std::future::pending::<()>().await;
    });
}

/// What a scheduled run needs the user for.
fn attention(status: RunStatus) -> Attention {
    match status {
        RunStatus::Answered => Attention::Answered,
        RunStatus::Waiting => Attention::Confirmation,
        RunStatus::Failed => Attention::Failed,
    }
}

fn ran(r: &TaskReport) -> TaskRan {
    TaskRan {
        task_id: r.task.id.to_string(),
        prompt: r.task.prompt.clone(),
        status: r.run.status,
        summary: r.run.summary.clone(),
        session: r.session.to_string(),
        next_run: r.task.next_run.map(|t| t.to_rfc3339()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_waits_for_a_yes_is_told_as_a_waiting_action() {
        assert_eq!(attention(RunStatus::Answered), Attention::Answered);
        assert_eq!(attention(RunStatus::Waiting), Attention::Confirmation);
        assert_eq!(attention(RunStatus::Failed), Attention::Failed);
    }
}
