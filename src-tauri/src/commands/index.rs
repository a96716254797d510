//! The workspace index: status, progress events and rebuild.

use std::sync::Arc;

use tauri::{AppHandle, Manager, State};
use tauri_specta::Event;

use crate::dto::IndexStatus;
use crate::error::IpcResult;
use crate::state::AppState;

/// Opens the workspace index (if needed) and brings it up to date (or
/// rebuilds it) in the background, sending `index-progress` events.
pub fn start_indexing(app: &AppHandle, rebuild: bool) {
    let state = app.state::<AppState>();
    let engine = state.engine();
    let index = match state.index() {
        Some(i) => i,
        None => match engine.tools().open_index() {
            Ok(i) => {
                state.set_index(Some(Arc::clone(&i)));
                i
            }
            Err(e) => {
                let status =
                    state.apply_index_state(&baton_engine::IndexState::Failed(e.to_string()));
                let _ = status.emit(app);
                return;
            }
        },
    };
    let app = app.clone();
    baton_engine::refresh_in_background(
        &index,
        rebuild,
        Arc::new(move |s| {
            let status = app.state::<AppState>().apply_index_state(&s);
            if let Err(e) = status.emit(&app) {
                tracing::debug!(error = %e, "cannot send index-progress");
            }
        }),
    );
}

/// The index now.
#[tauri::command]
#[specta::specta]
pub fn index_status(state: State<'_, AppState>) -> IpcResult<IndexStatus> {
    Ok(state.index_status())
}

/// Rebuilds the index from scratch in the background.
#[tauri::command]
#[specta::specta]
pub fn rebuild_index(app: AppHandle, state: State<'_, AppState>) -> IpcResult<IndexStatus> {
    if state.index_status().state == "indexing" {
        return Err(crate::dto::IpcError::new(
            crate::dto::ErrorCode::Busy,
            "the index is being built already",
        ));
    }
    start_indexing(&app, true);
    Ok(state.index_status())
}
