//! Settings → Scheduled tasks: prompts Baton runs on its own (the
//! engine's tasks file), and the scheduler that runs them while the app
//! is open, telling the window of each run ([`TaskRan`]).

use std::sync::Arc;

use baton_engine::api::schedule::{NewTask, ScheduledTask, Scheduler, TaskId, TaskReport};
use tauri::{AppHandle, Manager, State};
use tauri_specta::Event;

use crate::dto::TaskRan;
use crate::error::IpcResult;
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
/// the window.
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
            }),
        );
        std::future::pending::<()>().await;
    });
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
