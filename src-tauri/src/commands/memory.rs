//! Settings → Memory: what Baton remembers about the user across chats,
//! to read, correct, add to and forget (the engine's memory file).

use baton_engine::api::memory::{Memory, MemoryId, MemorySource};
use tauri::State;

use crate::error::IpcResult;
use crate::state::AppState;

/// Everything remembered, oldest first.
#[tauri::command]
#[specta::specta]
pub fn list_memories(state: State<'_, AppState>) -> IpcResult<Vec<Memory>> {
    Ok(state.engine().memory().list()?)
}

/// Remembers `text`; the list after.
#[tauri::command]
#[specta::specta]
pub fn add_memory(state: State<'_, AppState>, text: String) -> IpcResult<Vec<Memory>> {
    let store = state.engine().memory();
    store.add(&text, MemorySource::User, None)?;
    Ok(store.list()?)
}

/// Replaces the text of entry `id`; the list after.
#[tauri::command]
#[specta::specta]
pub fn update_memory(
    state: State<'_, AppState>,
    id: String,
    text: String,
) -> IpcResult<Vec<Memory>> {
    let store = state.engine().memory();
    store.update(&MemoryId::parse(&id)?, &text)?;
    Ok(store.list()?)
}

/// Forgets entry `id`; the list after.
#[tauri::command]
#[specta::specta]
pub fn forget_memory(state: State<'_, AppState>, id: String) -> IpcResult<Vec<Memory>> {
    // A project's chat keeps what it is told in the project's memory.
    let engine = state.engine();
    engine.forget_memory(&MemoryId::parse(&id)?)?;
    Ok(engine.memory().list()?)
}
