//! Attaching files: paths (drop, file dialog) or bytes (paste) become
//! `FileAttachment`s converted by the engine in the background; every
//! change is sent to the UI as `attachments-changed`. Each window (the
//! main one, the quick one) has its own pending files: a command works on
//! the composer of the window that called it.

use std::path::PathBuf;

use base64::Engine as _;
use baton_engine::api::FileAttachment;
use tauri::{AppHandle, Manager, State, Window};
use tauri_specta::Event;

use crate::dto::{AttachmentState, AttachmentView, AttachmentsChanged, IpcError, Pane};
use crate::error::IpcResult;
use crate::state::AppState;

/// Largest paste accepted (the engine refuses files over 200 MB anyway).
const MAX_PASTE_BYTES: usize = 200 << 20;

/// Tells the UI what is attached to `pane`'s composer now.
pub fn notify(app: &AppHandle, pane: Pane) {
    let state = app.state::<AppState>();
    let event = AttachmentsChanged {
        pane,
        attachments: state.attachments.views(pane),
    };
    if let Err(e) = event.emit(app) {
        tracing::warn!(error = %e, "cannot send attachments-changed");
    }
}

/// Adds files to `pane`'s composer and converts them on a blocking
/// thread, reporting each file's state as it is known.
pub fn attach_files(
    app: &AppHandle,
    pane: Pane,
    files: Vec<FileAttachment>,
) -> Vec<AttachmentView> {
    let state = app.state::<AppState>();
    let added = state.attachments.add(pane, files);
    notify(app, pane);
    let engine = state.engine();
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let cache = engine.tools().conversion_cache();
        let options = engine.tools().convert_options();
        for (id, file) in added {
            let next = match cache.attachment(&file, &options) {
                Ok(c) => AttachmentState::Ready {
                    format: c.format.label().to_string(),
                    chars: c.markdown.chars().count() as u32,
                    pages: c.pages.map(|p| p as u32),
                },
                Err(e) => AttachmentState::Skipped {
                    reason: e.to_string(),
                },
            };
            app.state::<AppState>().attachments.set_state(&id, next);
            notify(&app, pane);
        }
    });
    state.attachments.views(pane)
}

/// Reads `paths` on a blocking thread and attaches them to `pane`'s
/// composer, off the caller (a drop on a window, files given on the
/// command line); what could not be read is logged as `what`.
pub fn attach_paths_in_background(app: &AppHandle, pane: Pane, paths: Vec<PathBuf>, what: &str) {
    let (app, what) = (app.clone(), what.to_string());
    tauri::async_runtime::spawn(async move {
        match tauri::async_runtime::spawn_blocking(move || read_paths(&paths)).await {
            Ok(Ok(files)) => {
                attach_files(&app, pane, files);
            }
            Ok(Err(e)) => tracing::warn!("{what} not attached: {}", e.message),
            Err(e) => tracing::warn!("{what} not attached: {e}"),
        }
    });
}

/// Reads dropped or picked files; unreadable paths fail the call with the
/// path named (nothing is added then).
pub fn read_paths(paths: &[PathBuf]) -> IpcResult<Vec<FileAttachment>> {
    for p in paths {
        if p.is_dir() {
            return Err(IpcError::invalid(format!(
                "{} is a folder; attach the files inside it, or make it the workspace in Settings",
                p.display()
            )));
        }
    }
    Ok(baton_engine::read_attachments(paths)?)
}

/// Attaches files by path (the drop handler and the file dialog use this).
#[tauri::command]
#[specta::specta]
pub async fn attach_paths(
    app: AppHandle,
    window: Window,
    paths: Vec<String>,
) -> IpcResult<Vec<AttachmentView>> {
    if paths.is_empty() {
        return Err(IpcError::invalid("no files were given"));
    }
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    let files = tauri::async_runtime::spawn_blocking(move || read_paths(&paths))
        .await
        .map_err(|e| IpcError::new(crate::dto::ErrorCode::Internal, e.to_string()))??;
    Ok(attach_files(&app, Pane::of(window.label()), files))
}

/// Attaches pasted content (an image or file from the clipboard).
#[tauri::command]
#[specta::specta]
pub fn attach_bytes(
    app: AppHandle,
    window: Window,
    name: String,
    data_base64: String,
) -> IpcResult<Vec<AttachmentView>> {
    let name = name.trim();
    if name.is_empty() || name.contains(['/', '\\']) {
        return Err(IpcError::invalid(
            "a pasted file needs a plain name (no folders)",
        ));
    }
    if data_base64.len() / 4 * 3 > MAX_PASTE_BYTES {
        return Err(IpcError::invalid("the pasted file is over 200 MB"));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data_base64.as_bytes())
        .map_err(|e| IpcError::invalid(format!("the pasted data is not base64: {e}")))?;
    Ok(attach_files(
        &app,
        Pane::of(window.label()),
        vec![FileAttachment::new(name, bytes)],
    ))
}

/// Removes a pending attachment.
#[tauri::command]
#[specta::specta]
pub fn remove_attachment(
    app: AppHandle,
    window: Window,
    state: State<'_, AppState>,
    id: String,
) -> IpcResult<Vec<AttachmentView>> {
    let pane = Pane::of(window.label());
    if !state.attachments.remove(pane, &id) {
        return Err(IpcError::new(
            crate::dto::ErrorCode::NotFound,
            format!("attachment {id} is not attached"),
        ));
    }
    notify(&app, pane);
    Ok(state.attachments.views(pane))
}

/// What is attached to the calling window's composer now.
#[tauri::command]
#[specta::specta]
pub fn list_attachments(
    window: Window,
    state: State<'_, AppState>,
) -> IpcResult<Vec<AttachmentView>> {
    Ok(state.attachments.views(Pane::of(window.label())))
}
