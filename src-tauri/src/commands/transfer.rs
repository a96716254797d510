//! Settings → Conversations: every saved chat written out as Baton JSON or
//! Markdown, and exports (Baton, ChatGPT, Claude) brought in.

use std::path::PathBuf;

use baton_engine::api::SessionId;
use baton_engine::api::projects::ProjectId;
use baton_engine::api::transfer::{ExportFormat, ExportScope, ImportReport};
use tauri::State;

use crate::dto::{ErrorCode, IpcError};
use crate::error::IpcResult;
use crate::state::AppState;

/// Writes saved conversations into the folder `dir`: those of `project`
/// (its id), else the one `session`, else every one; how many.
#[tauri::command]
#[specta::specta]
pub async fn export_conversations(
    state: State<'_, AppState>,
    dir: String,
    format: ExportFormat,
    session: Option<String>,
    project: Option<String>,
) -> IpcResult<u32> {
    let scope = match (project, session) {
        (Some(p), _) => ExportScope::Project(
            ProjectId::parse(&p).map_err(|e| IpcError::invalid(e.to_string()))?,
        ),
        (None, Some(s)) => ExportScope::Chats(vec![SessionId::parse(&s)?]),
        (None, None) => ExportScope::All,
    };
    let engine = state.engine();
    let dir = PathBuf::from(dir.trim());
    let n = engine
        .conversations()
        .export_to(&scope, format, &dir)
        .await?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// Brings in the conversations of the export at `path` (read whole first:
/// a damaged file imports nothing).
#[tauri::command]
#[specta::specta]
pub async fn import_conversations(
    state: State<'_, AppState>,
    path: String,
) -> IpcResult<ImportReport> {
    let engine = state.engine();
    let path = PathBuf::from(path.trim());
    let report =
        tauri::async_runtime::spawn_blocking(move || engine.conversations().import_file(&path))
            .await
            .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))??;
    Ok(report)
}
