//! The Models page: the catalog with this computer's fit, downloads with
//! progress and Stop, deleting, and the model servers found here; and the
//! first run's choice for the onboarding card.

use baton_engine::api::models::Hardware;
use baton_engine::{Engine, ProviderChoice, PulledModel};
use tauri::State;
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;

use baton_engine::api::models::Progress;

use crate::dto::{ErrorCode, IpcError, LocalServerView, ModelsOverview};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

const MB: u64 = 1 << 20;

fn mb(bytes: u64) -> u32 {
    u32::try_from(bytes / MB).unwrap_or(u32::MAX)
}

/// The first run's choice, for the onboarding card.
pub(crate) fn first_run(engine: &Engine) -> Option<ProviderChoice> {
    engine.providers().first_run_choice().cloned()
}

/// This computer (seen once per process, off the async runtime: it may
/// run `nvidia-smi`).
async fn hardware() -> Hardware {
    tauri::async_runtime::spawn_blocking(|| Hardware::detected().clone())
        .await
        .unwrap_or_else(|_| Hardware::detected().clone())
}

fn overview(engine: &Engine, hardware: &Hardware) -> ModelsOverview {
    ModelsOverview {
        ram_mb: mb(hardware.ram_bytes),
        cores: hardware.cores,
        gpu: hardware
            .gpu
            .as_ref()
            .map(|g| format!("{} ({:.1} GB)", g.name, g.vram_bytes as f64 / 1e9)),
        models: engine.models().catalog_models(hardware),
        local_servers: engine
            .providers()
            .local_servers()
            .iter()
            .map(|s| LocalServerView {
                kind: s.label().to_string(),
                endpoint: s.endpoint.clone(),
                providers: s
                    .models
                    .iter()
                    .map(|m| baton_engine::local_server_entry_name(s, m))
                    .collect(),
            })
            .collect(),
        first_run: first_run(engine),
        selected_provider: engine.providers().selected().to_string(),
    }
}

/// This computer, the catalog and the model servers found here.
#[tauri::command]
#[specta::specta]
pub async fn models_overview(state: State<'_, AppState>) -> IpcResult<ModelsOverview> {
    Ok(overview(&state.engine(), &hardware().await))
}

/// Looks for model servers on this computer again.
#[tauri::command]
#[specta::specta]
pub async fn rescan_local_servers(state: State<'_, AppState>) -> IpcResult<ModelsOverview> {
    state.rediscover().await?;
    Ok(overview(&state.engine(), &hardware().await))
}

/// Downloads a catalog model (resuming an interrupted one), streaming
/// progress; it then is a provider.
#[tauri::command]
#[specta::specta]
pub async fn pull_model(
    state: State<'_, AppState>,
    name: String,
    on_progress: Channel<Progress>,
) -> IpcResult<PulledModel> {
    let engine = state.engine();
    let name = engine
        .models()
        .catalog()
        .get(&name)
        .map_err(baton_engine::EngineError::from)?
        .name
        .clone();
    let stop = CancellationToken::new();
    {
        let mut pulls = lock(&state.pulls);
        if pulls.contains_key(&name) {
            return Err(IpcError::new(
                ErrorCode::Busy,
                format!("{name} is already downloading"),
            ));
        }
        pulls.insert(name.clone(), stop.clone());
    }
    let result = engine
        .models()
        .pull(&name, stop, move |p| {
            let _ = on_progress.send(p);
        })
        .await;
    lock(&state.pulls).remove(&name);
    let pulled = result?;
    state.reload().await?;
    Ok(pulled)
}

/// Stops a download (what arrived is kept for a resume); whether one ran.
#[tauri::command]
#[specta::specta]
pub async fn cancel_pull(state: State<'_, AppState>, name: String) -> IpcResult<bool> {
    let stop = lock(&state.pulls).remove(&name);
    Ok(stop.map(|s| s.cancel()).is_some())
}

/// Deletes a downloaded model and its provider entry (stopping its
/// download first, if one runs); whether a file was there.
#[tauri::command]
#[specta::specta]
pub async fn remove_model(state: State<'_, AppState>, name: String) -> IpcResult<bool> {
    stop_pull(&state, &name).await;
    let found = state.engine().models().remove(&name)?;
    state.reload().await?;
    Ok(found)
}

/// Cancels `name`'s download, if one runs, and waits (up to 10 s) for it to
/// let go of its part file: cancelling takes effect at its next piece, and
/// its entry stays until it has, so no new download starts meanwhile.
async fn stop_pull(state: &AppState, name: &str) {
    let Some(stop) = lock(&state.pulls).get(name).cloned() else {
        return;
    };
    stop.cancel();
    for _ in 0..200 {
        if !lock(&state.pulls).contains_key(name) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tracing::warn!(
        model = name,
        "the cancelled download has not stopped after 10 s"
    );
}
