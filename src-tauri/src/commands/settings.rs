//! Settings, providers and API keys (the keys live in the OS keychain
//! only: never in the settings file, never in the webview).

use std::time::Duration;

use baton_engine::ProviderInfo;
use baton_engine::api::settings::{
    ConfigWatcher, InteractionMode, KeySource, SecretName, watch_config,
};
use tauri::{Manager, State};
use tauri_specta::Event;

use crate::dto::{AppInfo, ErrorCode, IpcError, KeyStatus, SettingsChanged, SettingsView};
use crate::error::IpcResult;
use crate::state::AppState;

/// Version, provider and workspace for the title bar and the empty chat.
#[tauri::command]
#[specta::specta]
pub fn app_info(state: State<'_, AppState>) -> IpcResult<AppInfo> {
    let engine = state.engine();
    let cfg = engine.providers().config(None)?;
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        provider: cfg.name.clone(),
        model: cfg.model_name().to_string(),
        workspace: engine.workspace().display().to_string(),
        warnings: engine.warnings().to_vec(),
        first_run: super::models::first_run(&engine),
    })
}

/// The settings as the panel edits them.
#[tauri::command]
#[specta::specta]
pub fn get_settings(state: State<'_, AppState>) -> IpcResult<SettingsView> {
    Ok(settings_view(&state.engine()))
}

fn settings_view(engine: &baton_engine::Engine) -> SettingsView {
    let s = engine.settings();
    SettingsView {
        provider: s.provider.clone(),
        workspace: engine.workspace().display().to_string(),
        interaction_mode: s.interaction_mode.map(|m| mode_name(m).to_string()),
        anonymize: s.anonymize,
        anonymize_terms: s.anonymize_terms.clone(),
        attachment_context_chars: s.attachment_context_chars.min(u32::MAX as usize) as u32,
        skip_indexing_on_startup: s.skip_indexing_on_startup,
        memory: s.memory,
        ocr_provider: s.ocr_provider.clone(),
    }
}

fn mode_name(m: InteractionMode) -> &'static str {
    match m {
        InteractionMode::Api => "api",
        InteractionMode::Cli => "cli",
    }
}

/// Validates and saves the settings (atomically), then reloads the engine.
#[tauri::command]
#[specta::specta]
pub async fn save_settings(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    settings: SettingsView,
) -> IpcResult<SettingsView> {
    let engine = state.engine();
    let known = |name: &str| engine.providers().file().get(name).is_some();
    for name in settings.provider.iter().chain(&settings.ocr_provider) {
        if !known(name) {
            return Err(IpcError::invalid(format!(
                "there is no provider named `{name}`"
            )));
        }
    }
    let workspace = settings.workspace.trim();
    if workspace.is_empty() {
        return Err(IpcError::invalid("choose a workspace folder"));
    }
    if !std::path::Path::new(workspace).is_absolute() {
        return Err(IpcError::invalid(format!(
            "the workspace must be a full path, not `{workspace}`"
        )));
    }
    if settings.attachment_context_chars < 1000 {
        return Err(IpcError::invalid(
            "the attachment budget must be at least 1000 characters",
        ));
    }
    let mode = match settings.interaction_mode.as_deref() {
        None | Some("") | Some("auto") => None,
        Some("api") => Some(InteractionMode::Api),
        Some("cli") => Some(InteractionMode::Cli),
        Some(other) => {
            return Err(IpcError::invalid(format!(
                "unknown interaction mode `{other}` (use api or cli)"
            )));
        }
    };
    let moved = state
        .update_settings(|s| {
            s.provider = settings.provider.clone();
            s.workspace = Some(workspace.into());
            s.interaction_mode = mode;
            s.anonymize = settings.anonymize;
            s.anonymize_terms = settings
                .anonymize_terms
                .iter()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect();
            s.attachment_context_chars = settings.attachment_context_chars as usize;
            s.skip_indexing_on_startup = settings.skip_indexing_on_startup;
            s.memory = settings.memory;
            s.ocr_provider = settings.ocr_provider.clone();
            Ok(())
        })
        .await?;
    if moved {
        crate::commands::index::start_indexing(&app, false);
    }
    Ok(settings_view(&state.engine()))
}

/// Every provider entry with its readiness (servers probed briefly).
#[tauri::command]
#[specta::specta]
pub async fn list_providers(state: State<'_, AppState>) -> IpcResult<Vec<ProviderInfo>> {
    let engine = state.engine();
    Ok(engine.providers().list(Duration::from_millis(1200)).await)
}

/// Changes the endpoint and/or model of an entry of the user's own
/// providers file.
#[tauri::command]
#[specta::specta]
pub async fn update_provider(
    state: State<'_, AppState>,
    name: String,
    endpoint: Option<String>,
    model: Option<String>,
) -> IpcResult<ProviderInfo> {
    if let Some(e) = endpoint.as_deref().map(str::trim)
        && !(e.starts_with("http://") || e.starts_with("https://"))
    {
        return Err(IpcError::invalid(format!(
            "the endpoint must start with http:// or https://, not `{e}`"
        )));
    }
    state
        .engine()
        .providers()
        .update_user(&name, endpoint.as_deref(), model.as_deref())?;
    state.reload().await?;
    list_providers(state)
        .await?
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| IpcError::new(ErrorCode::NotFound, format!("no provider named `{name}`")))
}

fn known_provider(state: &AppState, provider: &str) -> IpcResult<Option<String>> {
    let engine = state.engine();
    let cfg = engine.providers().file().get(provider).ok_or_else(|| {
        IpcError::new(
            ErrorCode::NotFound,
            format!("there is no provider named `{provider}`"),
        )
    })?;
    Ok(cfg.api_key_env.clone())
}

fn status_of(state: &AppState, provider: &str) -> IpcResult<KeyStatus> {
    let env = known_provider(state, provider)?;
    let engine = state.engine();
    let stored = engine
        .secrets()
        .read(&SecretName::Provider(provider.to_string()))?;
    let source = match engine.secrets().api_key(provider, env.as_deref()) {
        Ok(Some(k)) => match k.source {
            KeySource::Env(var) => format!("environment ({var})"),
            KeySource::Keychain => "keychain".into(),
        },
        _ => "none".into(),
    };
    Ok(KeyStatus {
        provider: provider.to_string(),
        stored: stored.is_some(),
        masked: stored.as_deref().map(baton_engine::api::mask),
        source,
    })
}

/// Whether a key is stored for `provider` (masked).
#[tauri::command]
#[specta::specta]
pub fn key_status(state: State<'_, AppState>, provider: String) -> IpcResult<KeyStatus> {
    status_of(&state, &provider)
}

/// Stores an API key in the OS keychain.
#[tauri::command]
#[specta::specta]
pub async fn set_api_key(
    state: State<'_, AppState>,
    provider: String,
    key: String,
) -> IpcResult<KeyStatus> {
    known_provider(&state, &provider)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(IpcError::invalid("the key is empty"));
    }
    if key.chars().any(char::is_whitespace) {
        return Err(IpcError::invalid(
            "the key contains spaces; paste only the key itself",
        ));
    }
    state
        .engine()
        .secrets()
        .write(&SecretName::Provider(provider.clone()), key)?;
    // Providers read keys when they are built: rebuild on the next turn.
    state.reload().await?;
    status_of(&state, &provider)
}

/// Removes a provider's key from the keychain.
#[tauri::command]
#[specta::specta]
pub async fn delete_api_key(state: State<'_, AppState>, provider: String) -> IpcResult<KeyStatus> {
    known_provider(&state, &provider)?;
    state
        .engine()
        .secrets()
        .remove(&SecretName::Provider(provider.clone()))?;
    state.reload().await?;
    status_of(&state, &provider)
}

/// Keeps the watch of the configuration files alive while the app runs.
pub(crate) struct ConfigWatch(#[allow(dead_code)] std::sync::Mutex<ConfigWatcher>);

/// Watches the settings, agents and providers files: a change made outside
/// the app reloads the engine (a moved workspace is indexed again) and
/// tells the window (`SettingsChanged`), which shows the new settings.
pub(crate) fn watch_settings(app: &tauri::AppHandle) {
    let handle = app.clone();
    let paths = app.state::<AppState>().engine().paths().clone();
    let watch = watch_config(&paths, Duration::from_millis(300), move || {
        let handle = handle.clone();
        tauri::async_runtime::spawn(async move { settings_changed(&handle).await });
    });
    match watch {
        Ok(w) => {
            app.manage(ConfigWatch(std::sync::Mutex::new(w)));
        }
        Err(e) => tracing::warn!("{e}; changes made outside the app show after a restart"),
    }
}

async fn settings_changed(app: &tauri::AppHandle) {
    let state = app.state::<AppState>();
    match state.reload_if_changed().await {
        Ok(Some(moved)) => {
            let desktop = state.engine().settings().desktop.clone();
            crate::shell::follow_shortcuts(app, &desktop);
            crate::shell::follow_language(app);
            if moved {
                crate::commands::index::start_indexing(app, false);
            }
            let _ = SettingsChanged {
                workspace_moved: moved,
            }
            .emit(app);
        }
        Ok(None) => {}
        Err(e) => tracing::warn!("the changed settings could not be read: {}", e.message),
    }
}
