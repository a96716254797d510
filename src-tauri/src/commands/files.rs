//! Workspace files the agent changed: "Restore previous version" on a
//! tool result that replaced a file. Paths are workspace paths
//! (`/budget.xlsx`), resolved by the engine inside the workspace; the UI
//! never names a host path.

use baton_engine::RestoredFile;
use tauri::State;

use crate::dto::{ErrorCode, IpcError};
use crate::error::IpcResult;
use crate::state::AppState;

/// Puts back the version of workspace file `path` that a save replaced:
/// `backup` (the backup the tool result named), or the most recent one.
/// The current version is kept as a backup first unless one already holds
/// it. Refused while a turn runs (its tools may be writing the file).
#[tauri::command]
#[specta::specta]
pub async fn restore_backup(
    state: State<'_, AppState>,
    path: String,
    backup: Option<String>,
) -> IpcResult<RestoredFile> {
    let path = path.trim().to_string();
    if path.is_empty() {
        return Err(IpcError::invalid("no file was named to restore"));
    }
    // Hold the turn slot: no turn starts (and writes the file) meanwhile.
    let _turn = state.begin_alone().ok_or_else(|| {
        IpcError::new(
            ErrorCode::Busy,
            "an answer is still being written; restore the file once it has finished",
        )
    })?;
    let engine = state.engine();
    let restored = tauri::async_runtime::spawn_blocking(move || {
        engine.tools().restore_file(&path, backup.as_deref())
    })
    .await
    .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))??;
    Ok(restored)
}

/// Opens workspace file `path` (a cited document) in the system's viewer
/// for its kind.
#[tauri::command]
#[specta::specta]
pub async fn open_workspace_file(state: State<'_, AppState>, path: String) -> IpcResult<()> {
    let sandbox = state.engine().tools().sandbox()?;
    let host = sandbox
        .resolve(path.trim())
        .map_err(|e| IpcError::invalid(e.to_string()))?;
    if !host.is_file() {
        return Err(IpcError::new(
            ErrorCode::NotFound,
            format!("`{}` is no longer in the workspace", path.trim()),
        ));
    }
    tauri_plugin_opener::open_path(&host, None::<&str>).map_err(|e| {
        IpcError::new(
            ErrorCode::Io,
            format!("`{}` could not be opened: {e}", path.trim()),
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::dto::{ErrorCode, IpcError};

    #[test]
    fn restore_failures_get_codes_and_keep_workspace_paths() {
        use baton_engine::RestoreFileError as R;
        let e: IpcError = R::NoBackups("/budget.xlsx".into()).into();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert_eq!(e.message, "there are no backups of `/budget.xlsx`");
        let e: IpcError = R::NotABackup {
            backup: "/notes.md".into(),
            path: "/budget.xlsx".into(),
        }
        .into();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.message, "`/notes.md` is not a backup of `/budget.xlsx`");
        let e: IpcError = R::Io {
            action: "restore",
            path: "/budget.xlsx".into(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
        }
        .into();
        assert_eq!(e.code, ErrorCode::Io);
        assert!(e.message.contains("`/budget.xlsx`"), "{}", e.message);
    }
}
