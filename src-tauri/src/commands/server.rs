//! The HTTP API section of the settings: Baton's agents as an
//! OpenAI-compatible server (what `baton serve` runs), started and stopped
//! in the background by the app, optionally when it opens.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use baton_engine::Engine;
use baton_engine::api::settings::ServerSettings;
use tauri::State;

use crate::dto::{HttpApiStatus, IpcError};
use crate::error::IpcResult;
use crate::state::{AppState, RunningServer, lock};

/// The panel's settings checked and applied to the saved ones (the
/// session lifetime is not on the panel: it stays).
fn updated(current: &ServerSettings, view: &ServerSettings) -> IpcResult<ServerSettings> {
    let host = view.host.trim();
    if host.parse::<IpAddr>().is_err() {
        return Err(IpcError::invalid(format!(
            "`{host}` is not an IP address such as 127.0.0.1 (0.0.0.0: every network)"
        )));
    }
    let sessions = view.sessions.trim();
    baton_server::SessionKind::parse(sessions, current.session_ttl_days)
        .map_err(IpcError::invalid)?;
    let host_names = view
        .host_names
        .iter()
        .map(|n| baton_engine::api::settings::host_name(n).map_err(IpcError::invalid))
        .collect::<IpcResult<Vec<String>>>()?;
    Ok(ServerSettings {
        start_with_app: view.start_with_app,
        host: host.to_string(),
        port: view.port,
        sessions: sessions.to_string(),
        host_names,
        ..current.clone()
    })
}

/// The server now: settings, address, keys, the last error.
#[tauri::command]
#[specta::specta]
pub fn server_status(state: State<'_, AppState>) -> IpcResult<HttpApiStatus> {
    Ok(status_of(&state))
}

fn status_of(state: &AppState) -> HttpApiStatus {
    let engine = state.engine();
    let keys = baton_engine::api::keys::KeyStore::new(&engine.paths().data_dir)
        .list_for(baton_engine::api::keys::Door::Serve)
        .map(|k| k.len() as u32)
        .unwrap_or(0);
    let slot = lock(&state.server);
    let running = slot.as_ref().filter(|r| !r.task.is_finished());
    HttpApiStatus {
        settings: engine.settings().server.clone(),
        url: running.map(|r| format!("http://{}/v1", r.addr)),
        keys_required: running.is_some_and(|r| r.keys_required),
        keys,
        error: lock(&state.server_error).clone(),
    }
}

/// The name of the key the app keeps for the clients of its HTTP API.
const DESKTOP_KEY: &str = "desktop";

/// The app's own key for its HTTP API, from the keychain (made on first
/// use, made anew when revoked or lost).
fn desktop_key(engine: &Engine) -> Result<String, String> {
    baton_engine::api::keys::kept_key(
        &engine.paths().data_dir,
        engine.secrets(),
        DESKTOP_KEY,
        baton_engine::api::keys::Door::Serve,
    )
    .map_err(|e| e.to_string())
}

/// Starts the server on the engine and settings as they are now, a key
/// required (the app's own, made and kept in the keychain on first
/// start); `Err` says why it could not (address taken, no keychain for the
/// key, Redis away).
pub async fn start(state: &AppState) -> Result<(), String> {
    stop(state).await;
    let engine: Arc<Engine> = state.engine();
    let engine_for_key = Arc::clone(&engine);
    tokio::task::spawn_blocking(move || desktop_key(&engine_for_key))
        .await
        .map_err(|e| e.to_string())??;
    let s = engine.settings().server.clone();
    let host: IpAddr = s
        .host
        .parse()
        .map_err(|_| format!("`{}` is not an IP address", s.host))?;
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::parse(&s.sessions, s.session_ttl_days)?,
        host_names: s.host_names.clone(),
        ..Default::default()
    };
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    // The first word from the server: listening, or why not.
    let (started_tx, mut started_rx) =
        tokio::sync::mpsc::channel::<Result<(SocketAddr, bool), String>>(1);
    let failed_tx = started_tx.clone();
    let task = tokio::spawn(async move {
        let served = baton_server::serve(
            engine,
            SocketAddr::new(host, s.port),
            options,
            move |addr, keys| {
                let _ = started_tx.try_send(Ok((addr, keys)));
            },
            async {
                let _ = stop_rx.await;
            },
        )
        .await;
        if let Err(e) = served {
            tracing::warn!("the HTTP API stopped: {e}");
            let _ = failed_tx.try_send(Err(e.to_string()));
        }
    });
    let (addr, keys_required) = started_rx
        .recv()
        .await
        .unwrap_or_else(|| Err("the server stopped as it started".into()))?;
    tracing::info!("the HTTP API answers at http://{addr}/v1");
    *lock(&state.server) = Some(RunningServer {
        addr,
        keys_required,
        stop: stop_tx,
        task,
    });
    Ok(())
}

/// Stops the server, letting answers in flight finish (up to 10 s).
pub async fn stop(state: &AppState) {
    let running = lock(&state.server).take();
    if let Some(r) = running {
        let _ = r.stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(10), r.task).await;
    }
}

/// Starts the server (or restarts it on the current settings).
#[tauri::command]
#[specta::specta]
pub async fn start_server(state: State<'_, AppState>) -> IpcResult<HttpApiStatus> {
    let result = start(&state).await;
    *lock(&state.server_error) = result.err();
    Ok(status_of(&state))
}

/// The app's key for its HTTP API, to copy into a client (made now if
/// there is none yet).
#[tauri::command]
#[specta::specta]
pub async fn server_key(state: State<'_, AppState>) -> IpcResult<String> {
    let engine = state.engine();
    tokio::task::spawn_blocking(move || desktop_key(&engine))
        .await
        .map_err(|e| IpcError::invalid(e.to_string()))?
        .map_err(IpcError::invalid)
}

/// Stops the server.
#[tauri::command]
#[specta::specta]
pub async fn stop_server(state: State<'_, AppState>) -> IpcResult<HttpApiStatus> {
    stop(&state).await;
    *lock(&state.server_error) = None;
    Ok(status_of(&state))
}

/// Validates and saves the settings; a running server restarts on them
/// (as on every settings change: [`AppState::reload`]).
#[tauri::command]
#[specta::specta]
pub async fn save_server_settings(
    state: State<'_, AppState>,
    settings: ServerSettings,
) -> IpcResult<HttpApiStatus> {
    let engine = state.engine();
    let server = updated(&engine.settings().server, &settings)?;
    state
        .update_settings(|s| {
            s.server = server;
            Ok(())
        })
        .await?;
    Ok(status_of(&state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        let view = ServerSettings {
            start_with_app: true,
            host: " 127.0.0.1 ".into(),
            port: 9090,
            sessions: "redis://127.0.0.1:6379".into(),
            session_ttl_days: 1,
            host_names: vec![" Baton.LAN. ".into()],
        };
        let s = updated(&ServerSettings::default(), &view).unwrap();
        assert_eq!(s.host_names, ["baton.lan"]);
        let bad = ServerSettings {
            host_names: vec!["evil example".into()],
            ..view.clone()
        };
        let e = updated(&ServerSettings::default(), &bad).unwrap_err();
        assert!(e.message.contains("not a host name"), "{}", e.message);
        assert_eq!(
            (
                s.host.as_str(),
                s.port,
                s.start_with_app,
                s.session_ttl_days
            ),
            ("127.0.0.1", 9090, true, 30)
        );
        let bad = ServerSettings {
            host: "localhost:80".into(),
            ..view.clone()
        };
        let e = updated(&ServerSettings::default(), &bad).unwrap_err();
        assert!(e.message.contains("not an IP address"), "{}", e.message);
        let bad = ServerSettings {
            sessions: "postgres://db".into(),
            ..view
        };
        let e = updated(&ServerSettings::default(), &bad).unwrap_err();
        assert!(e.message.contains("not a session store"), "{}", e.message);
    }
}
