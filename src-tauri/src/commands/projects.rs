//! Projects in the sidebar: chats grouped with their own folder,
//! instructions, agent, provider and memory (the engine's projects).

use baton_engine::api::SessionId;
use baton_engine::api::projects::{NewProject, Project, ProjectId};
use tauri::State;

use crate::dto::IpcError;
use crate::error::IpcResult;
use crate::state::AppState;

fn project_id(id: &str) -> IpcResult<ProjectId> {
    ProjectId::parse(id).map_err(|e| IpcError::invalid(e.to_string()))
}

/// Every project, by name.
#[tauri::command]
#[specta::specta]
pub fn list_projects(state: State<'_, AppState>) -> IpcResult<Vec<Project>> {
    Ok(state.engine().projects().list()?)
}

/// Makes a project (its folder too, when missing); the project made.
#[tauri::command]
#[specta::specta]
pub fn create_project(state: State<'_, AppState>, project: NewProject) -> IpcResult<Project> {
    let engine = state.engine();
    if let Some(agent) = project.agent.as_deref().filter(|a| !a.trim().is_empty()) {
        engine.agents().def(Some(agent))?;
    }
    Ok(engine.projects().create(project)?)
}

/// Changes a project's name, folder, instructions, agent and provider.
#[tauri::command]
#[specta::specta]
pub fn update_project(
    state: State<'_, AppState>,
    id: String,
    project: NewProject,
) -> IpcResult<Project> {
    let id = project_id(&id)?;
    Ok(state.engine().projects().update(&id, |p| {
        p.name = project.name;
        p.folder = project.folder;
        p.instructions = project.instructions.trim().to_string();
        p.agent = project.agent.filter(|a| !a.trim().is_empty());
        p.provider = project.provider.filter(|a| !a.trim().is_empty());
    })?)
}

/// Removes a project (the UI asked first): its chats go to the trash,
/// its folder stays; the ids of the chats trashed (`restore_session`
/// brings one back).
#[tauri::command]
#[specta::specta]
pub fn delete_project(state: State<'_, AppState>, id: String) -> IpcResult<Vec<String>> {
    let removed = state.engine().projects().remove(&project_id(&id)?)?;
    Ok(removed.trashed.into_iter().map(String::from).collect())
}

/// Moves a saved conversation into a project (`null`: out of any).
#[tauri::command]
#[specta::specta]
pub fn move_session(
    state: State<'_, AppState>,
    id: String,
    project: Option<String>,
) -> IpcResult<()> {
    let to = project.as_deref().map(project_id).transpose()?;
    let id = SessionId::parse(&id)?;
    Ok(state.engine().projects().move_chat(&id, to.as_ref())?)
}
