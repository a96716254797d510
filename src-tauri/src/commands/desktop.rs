//! The desktop section of the settings (the tray, the quick window's and
//! push-to-talk's shortcuts, starting at login, notifications) and the
//! quick window's own commands.

use baton_engine::api::SessionId;
use baton_engine::api::settings::{DesktopSettings, Language};
use tauri::{AppHandle, State};

use crate::dto::{DesktopStatus, ErrorCode, IpcError, WindowRequest};
use crate::error::IpcResult;
use crate::shell::{self, Hotkey};
use crate::state::AppState;

/// The desktop settings and how they are applied now.
#[tauri::command]
#[specta::specta]
pub fn desktop_settings(app: AppHandle) -> IpcResult<DesktopStatus> {
    Ok(shell::status(&app))
}

/// The language the app shows: the one chosen in the settings, else the
/// system's where Baton speaks it, else English.
#[tauri::command]
#[specta::specta]
pub fn app_language(state: State<'_, AppState>) -> Language {
    state.engine().settings().app_language()
}

/// Saves the desktop settings: the shortcuts are registered first (one
/// another application holds is refused, and nothing is saved), then
/// starting at login is changed, then the settings are saved.
#[tauri::command]
#[specta::specta]
pub async fn save_desktop_settings(
    app: AppHandle,
    state: State<'_, AppState>,
    settings: DesktopSettings,
) -> IpcResult<DesktopStatus> {
    let before = state.engine().settings().desktop.clone();
    let settings = DesktopSettings {
        quick_shortcut: settings.quick_shortcut.trim().to_string(),
        talk_shortcut: settings.talk_shortcut.trim().to_string(),
        ..settings
    };
    use_shortcuts(&app, &settings).inspect_err(|_| restore_shortcuts(&app, &before))?;
    let applied = match shell::start_at_login(&app, settings.start_at_login) {
        Ok(()) => {
            let wanted = settings.clone();
            state
                .update_settings(move |s| {
                    s.desktop = wanted;
                    Ok(())
                })
                .await
                .map(|_| ())
        }
        Err(e) => Err(IpcError::new(ErrorCode::Io, e)),
    };
    if let Err(e) = applied {
        // What was saved before stays in force.
        restore_shortcuts(&app, &before);
        let _ = shell::start_at_login(&app, before.start_at_login);
        return Err(e);
    }
    // Relabels the tray and tells the windows only if the language changed.
    shell::follow_language(&app);
    Ok(shell::status(&app))
}

/// Registers both shortcuts as `settings` has them; why one is refused.
fn use_shortcuts(app: &AppHandle, settings: &DesktopSettings) -> IpcResult<()> {
    shell::use_shortcut(app, Hotkey::Quick, &settings.quick_shortcut)
        .and_then(|()| shell::use_shortcut(app, Hotkey::Talk, &settings.talk_shortcut))
        .map_err(IpcError::invalid)
}

/// Puts back the shortcuts `before` had (a save that did not go through).
fn restore_shortcuts(app: &AppHandle, before: &DesktopSettings) {
    let _ = shell::use_shortcut(app, Hotkey::Quick, &before.quick_shortcut);
    let _ = shell::use_shortcut(app, Hotkey::Talk, &before.talk_shortcut);
}

/// Hides the quick window (an answer being written goes on).
#[tauri::command]
#[specta::specta]
pub fn hide_quick_window(app: AppHandle) -> IpcResult<()> {
    shell::hide_quick(&app);
    Ok(())
}

/// Moves the quick window's exchange, conversation `session_id`, into
/// the main window as a chat: the main window shows it in front and the
/// quick window hides.
#[tauri::command]
#[specta::specta]
pub fn open_in_main_window(app: AppHandle, session_id: String) -> IpcResult<()> {
    let id = SessionId::parse(&session_id)?;
    shell::hide_quick(&app);
    shell::request_main(
        &app,
        WindowRequest::OpenChat {
            session_id: id.to_string(),
        },
    );
    Ok(())
}

/// Shows the quick window (the tray's entry, and the main window's
/// button) near the pointer.
#[tauri::command]
#[specta::specta]
pub fn show_quick_window(app: AppHandle) -> IpcResult<()> {
    shell::show_quick(&app);
    Ok(())
}
