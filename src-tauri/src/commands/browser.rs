//! The browser section of the settings: the mode, program and sites, the
//! browsers found with whether Baton can attach to them (and the one-time
//! step), and a connection test.

use std::time::Duration;

use baton_engine::api::settings::BrowserMode;
use baton_engine::api::web::discover;
use tauri::State;

use crate::dto::{BrowserSettingsView, BrowserTest, FoundBrowser, IpcError};
use crate::error::IpcResult;
use crate::state::AppState;

async fn found() -> Vec<FoundBrowser> {
    let mut out = Vec::new();
    for b in discover::installed() {
        let status = match &b.user_data_dir {
            Some(dir) => discover::attach_address(dir, b.family).await.map(|_| ()),
            None => Ok(()),
        };
        out.push(FoundBrowser {
            name: b.family.label().into(),
            program: b.program.display().to_string(),
            attach_ready: status.is_ok(),
            attach_status: match status {
                Ok(()) => "Baton can attach to it while it runs.".into(),
                Err(e) => e.to_string(),
            },
            inspect_page: b.family.inspect_page().into(),
        });
    }
    out
}

/// The browser settings and the browsers found.
#[tauri::command]
#[specta::specta]
pub async fn browser_settings(state: State<'_, AppState>) -> IpcResult<BrowserSettingsView> {
    Ok(BrowserSettingsView {
        settings: state.engine().settings().browser.clone(),
        browsers: found().await,
    })
}

/// Validates and saves the browser settings (atomically), then reloads
/// (a browser Baton started is closed; the next tool starts it again).
#[tauri::command]
#[specta::specta]
pub async fn save_browser_settings(
    state: State<'_, AppState>,
    settings: BrowserSettingsView,
) -> IpcResult<BrowserSettingsView> {
    let settings = settings.settings;
    let path = settings
        .path
        .as_deref()
        .and_then(std::path::Path::to_str)
        .map(str::trim)
        .filter(|p| !p.is_empty());
    if let Some(p) = path
        && !std::path::Path::new(p).is_file()
    {
        return Err(IpcError::invalid(format!(
            "there is no browser program at {p}"
        )));
    }
    let sites = |v: &[String]| -> IpcResult<Vec<String>> {
        v.iter()
            .map(|s| {
                s.trim()
                    .trim_start_matches("https://")
                    .trim_start_matches("http://")
                    .trim_end_matches('/')
                    .to_string()
            })
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s.contains(['/', ' ']) {
                    Err(IpcError::invalid(format!(
                        "`{s}` is not a site name such as example.com"
                    )))
                } else {
                    Ok(s)
                }
            })
            .collect()
    };
    let allowed = sites(&settings.allowed_sites)?;
    let blocked = sites(&settings.blocked_sites)?;
    state
        .update_settings(|s| {
            s.browser.mode = settings.mode;
            s.browser.path = path.map(Into::into);
            s.browser.allowed_sites = allowed;
            s.browser.blocked_sites = blocked;
            s.browser.allow_other_schemes = settings.allow_other_schemes;
            Ok(())
        })
        .await?;
    browser_settings(state).await
}

/// Connects to a browser as the tools would, then closes a browser Baton
/// started for it (an attached connection is kept).
#[tauri::command]
#[specta::specta]
pub async fn test_browser(state: State<'_, AppState>) -> IpcResult<BrowserTest> {
    let hub = state.engine().tools().browser();
    let tried = tokio::time::timeout(Duration::from_secs(90), hub.browser()).await;
    let out = match tried {
        Ok(Ok((browser, mode))) => {
            let version = browser
                .version()
                .await
                .map(|v| v.product)
                .unwrap_or_default();
            BrowserTest {
                ok: true,
                mode: Some(mode),
                message: format!("Connected to {version}."),
            }
        }
        Ok(Err(e)) => BrowserTest {
            ok: false,
            mode: None,
            message: e.to_string(),
        },
        Err(_) => BrowserTest {
            ok: false,
            mode: None,
            message: "No browser answered within 90 seconds.".into(),
        },
    };
    // An attached connection stays open (the user allowed it once); a
    // browser Baton started for the test closes.
    if out.mode != Some(BrowserMode::Attach) {
        hub.shutdown().await;
    }
    Ok(out)
}
