//! Settings → Conversations: every saved chat written out as Baton JSON or
//! Markdown, and exports (Baton, ChatGPT, Claude) brought in.

use std::path::PathBuf;

use baton_engine::api::transfer::{ExportFormat, ImportReport};
use tauri::State;

use crate::dto::{ErrorCode, IpcError};
use crate::error::IpcResult;
use crate::state::AppState;

/// Writes every saved conversation into the folder `dir`; how many.
#[tauri::command]
#[specta::specta]
pub async fn export_conversations(
    state: State<'_, AppState>,
    dir: String,
    format: ExportFormat,
) -> IpcResult<u32> {
    let engine = state.engine();
    let dir = PathBuf::from(dir.trim());
    let n = engine.conversations().export_to(None, format, &dir).await?;
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
