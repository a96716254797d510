//! Bringing back the version of a workspace file that a save replaced:
//! FileTool's `restore`, and the engine's for front doors (the desktop's
//! "Restore previous version"), in workspace paths only.

use std::path::Path;

use baton_stdx::RestoreError;
use baton_tools::Sandbox;

use super::{FileToolError, RestoreResult, io};

/// Restores workspace file `path` inside `sandbox` from a backup
/// (`name.ext.NNN.bak` beside it): `backup` (a workspace path, or just the
/// backup's file name), or the most recent one. The current version is
/// backed up first unless a backup already holds it, so nothing is lost.
/// Paths in results and errors are workspace paths, never host paths.
pub fn restore_in(
    sandbox: &Sandbox,
    path: &str,
    backup: Option<&str>,
) -> Result<RestoreResult, FileToolError> {
    let place = sandbox.place(path, false)?;
    let host = place.io();
    if host.is_dir() {
        return Err(FileToolError::IsDir(path.to_string()));
    }
    let which = match backup.map(str::trim).filter(|b| !b.is_empty()) {
        Some(b) if !b.contains('/') && !b.contains('\\') => Some(host.with_file_name(b)),
        Some(b) => Some(sandbox.resolve(b)?),
        None => None,
    };
    let agent = |p: &Path| {
        sandbox.agent_path(&place.shown(p)).unwrap_or_else(|| {
            p.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        })
    };
    let restored = baton_stdx::restore_backup(host, which.as_deref()).map_err(|e| match e {
        RestoreError::NoBackups(p) => FileToolError::NoBackups(agent(&p)),
        RestoreError::NotABackup { backup, path } => FileToolError::NotABackup {
            backup: agent(&backup),
            path: agent(&path),
        },
        RestoreError::Io {
            action,
            path,
            source,
        } => io(action, &agent(&path))(source),
    })?;
    Ok(RestoreResult {
        path: agent(host),
        restored_from: agent(&restored.restored_from),
        saved_current: restored.saved_current.as_deref().map(agent),
    })
}
