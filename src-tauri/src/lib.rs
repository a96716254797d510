//! Baton's desktop shell: a thin Tauri layer over the engine. Commands in
//! [`commands`] validate input and call the engine; the agent's events
//! stream to the UI over a channel per turn; files dropped on the window
//! arrive here as paths and are read and converted in Rust. TypeScript
//! types for every command and event are generated from this crate
//! ([`bindings`]) into `ui/src/lib/bindings.ts`.

pub mod commands;
pub mod dictation;
pub mod dto;
pub mod error;
pub mod i18n;
pub mod pending;
pub mod shell;
pub mod state;
pub mod stream;
pub mod talk;
pub mod turns;

use baton_engine::{Engine, Overrides};
use tauri::{DragDropEvent, Manager, WindowEvent};

use crate::state::AppState;

/// The typed command and event registry (also what generates the
/// TypeScript bindings).
pub fn bindings() -> tauri_specta::Builder<tauri::Wry> {
    tauri_specta::Builder::<tauri::Wry>::new()
        .disable_serde_phases()
        .commands(commands())
        .events(events())
}

/// Every command the UI may call, by area.
fn commands() -> tauri_specta::Commands<tauri::Wry> {
    use commands::*;
    tauri_specta::collect_commands![
        chat::send_message,
        chat::regenerate,
        chat::stop_generation,
        chat::answer_confirmation,
        chat::answer_question,
        chat::list_agents,
        files::restore_backup,
        files::open_workspace_file,
        attachments::attach_paths,
        attachments::attach_bytes,
        attachments::remove_attachment,
        attachments::list_attachments,
        transfer::export_conversations,
        transfer::import_conversations,
        memory::list_memories,
        memory::add_memory,
        memory::update_memory,
        memory::forget_memory,
        sessions::list_sessions,
        sessions::load_session,
        sessions::rename_session,
        sessions::delete_session,
        sessions::restore_session,
        sessions::switch_branch,
        projects::list_projects,
        projects::create_project,
        projects::update_project,
        projects::delete_project,
        projects::move_session,
        schedule::list_tasks,
        schedule::add_task,
        schedule::remove_task,
        schedule::run_task,
        settings::app_info,
        settings::get_settings,
        settings::save_settings,
        settings::list_providers,
        settings::update_provider,
        settings::key_status,
        settings::set_api_key,
        settings::delete_api_key,
        browser::browser_settings,
        browser::save_browser_settings,
        browser::test_browser,
        mail::mail_settings,
        mail::save_mail_settings,
        mail::test_mail,
        mcp::mcp_servers,
        mcp::set_mcp_server_enabled,
        mcp::set_mcp_server_trusted,
        mcp::add_mcp_server,
        mcp::mcp_prompts,
        models::models_overview,
        models::pull_model,
        models::cancel_pull,
        models::remove_model,
        models::rescan_local_servers,
        team::run_team,
        team::stop_team,
        research::run_research,
        research::stop_research,
        research::save_research,
        research::research_settings,
        research::save_research_settings,
        server::server_status,
        server::start_server,
        server::server_key,
        server::stop_server,
        server::save_server_settings,
        desktop::desktop_settings,
        desktop::app_language,
        desktop::save_desktop_settings,
        desktop::hide_quick_window,
        desktop::show_quick_window,
        desktop::open_in_main_window,
        index::index_status,
        index::rebuild_index,
        voice::voice_devices,
        voice::voice_settings,
        voice::save_voice_settings,
        voice::voice_start,
        voice::voice_talk,
        voice::voice_stop_speaking,
        voice::voice_stop,
    ]
}

/// Every event the shell sends the windows.
fn events() -> tauri_specta::Events {
    tauri_specta::collect_events![
        dto::AttachmentsChanged,
        dto::IndexStatus,
        dto::MainWindowRequest,
        dto::TalkEvent,
        dto::ModelLoad,
        dto::QuickWindowShown,
        dto::SettingsChanged,
        dto::LanguageChanged,
        dto::TaskRan
    ]
}

/// Writes the TypeScript bindings to `path`.
pub fn export_bindings(path: &std::path::Path) -> Result<(), String> {
    bindings()
        .export(
            specta_typescript::Typescript::default()
                .header("// Generated from src-tauri by `make bindings`. Do not edit."),
            path,
        )
        .map_err(|e| e.to_string())
}

fn init_tracing() -> Option<baton_telemetry::Telemetry> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};
    let filter = EnvFilter::try_from_env("BATON_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    // Spans also go to an OpenTelemetry collector when one is named.
    let (exported, why) = match baton_telemetry::export_layer("baton-desktop") {
        Ok(layer) => (layer, None),
        Err(e) => (None, Some(e)),
    };
    let (traces, guard) = exported.unzip();
    let _ = tracing_subscriber::registry()
        .with(logs)
        .with(traces)
        .try_init();
    if let Some(why) = why {
        tracing::warn!("{why}");
    }
    guard
}

/// Starts the app. The engine is loaded before the window opens; a broken
/// settings or providers file still opens the app, with the warning shown.
pub fn run() {
    // Kept while the app runs: dropping it sends the last traces.
    let _telemetry = init_tracing();
    let builder = bindings();
    let app = shell::plugins(tauri::Builder::default())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            let shipped_dir = app.path().resource_dir().ok();
            // BATON_WORKSPACE and BATON_PROVIDERS mean what they mean to
            // the CLI (BATON_CONFIG_DIR & co. are read by `Engine::load`).
            let engine = Engine::load(Overrides {
                shipped_dir: shipped_dir.filter(|d| d.join("providers.json").exists()),
                ..Overrides::from_env()
            })?;
            // Model servers already running here become providers, and a
            // first run picks the best ready one (bounded by the probe
            // timeout; a millisecond when nothing listens).
            let engine =
                tauri::async_runtime::block_on(engine.discover(baton_engine::PROBE_TIMEOUT));
            let skip_indexing = engine.settings().skip_indexing_on_startup;
            let serve = engine.settings().server.start_with_app;
            let desktop = engine.settings().desktop.clone();
            app.manage(AppState::new(engine));
            shell::setup(app.handle(), &desktop);
            // Plugins and MCP servers start in the background (and their
            // folder is watched from then on), so the first turn with
            // tools does not wait for them.
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                handle
                    .state::<AppState>()
                    .engine()
                    .tools()
                    .start_mcp()
                    .await;
            });
            commands::settings::watch_settings(app.handle());
            // Scheduled tasks run while the app is open.
            commands::schedule::start_scheduler(app.handle());
            if serve {
                let handle = app.handle().clone();
                tauri::async_runtime::spawn(async move {
                    let state = handle.state::<AppState>();
                    let result = commands::server::start(&state).await;
                    *crate::state::lock(&state.server_error) = result.err();
                });
            }
            if !skip_indexing {
                // Opening the index reads from disk: keep it off the path
                // to the first window.
                let handle = app.handle().clone();
                std::thread::spawn(move || commands::index::start_indexing(&handle, false));
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            shell::on_window_event(window, event);
            if let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event {
                commands::attachments::attach_paths_in_background(
                    window.app_handle(),
                    dto::Pane::of(window.label()),
                    paths.clone(),
                    "dropped files",
                );
            }
        })
        .build(tauri::generate_context!());
    match app {
        Ok(app) => app.run(|_, _| {}),
        Err(e) => {
            tracing::error!("Baton could not start: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The committed bindings are what the Rust side generates: the UI
    /// and the shell cannot drift. `make bindings` rewrites them.
    #[test]
    fn committed_bindings_match_the_rust_side() {
        let committed = std::path::Path::new(
            &std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
        )
        .join("../ui/src/lib/bindings.ts");
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("bindings.ts");
        super::export_bindings(&fresh).unwrap();
        let fresh = std::fs::read_to_string(fresh).unwrap();
        if std::env::var_os("BATON_WRITE_BINDINGS").is_some() {
            std::fs::write(&committed, &fresh).unwrap();
            return;
        }
        let old = std::fs::read_to_string(&committed).unwrap_or_default();
        assert!(
            old == fresh,
            "ui/src/lib/bindings.ts is out of date with src-tauri: run `make bindings`"
        );
    }
}
