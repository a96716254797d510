//! Research mode: a question answered from many web pages (what `baton
//! research` runs). Each stage and source streams over the channel given
//! to `run_research` as it happens; the command returns the report, which
//! `save_research` writes into the workspace.

use baton_engine::api::research::{Limits, Report, ResearchEvent, ResearchRequest};
use tauri::State;
use tauri::ipc::Channel;

use baton_engine::api::settings::ResearchSearch;

use crate::dto::{IpcError, ReportFormat, ResearchSettingsView};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

/// Researches `question` reading at most `sources` pages (default: the
/// `research` settings); each stage and source is sent on `on_event`. One
/// job at a time.
#[tauri::command]
#[specta::specta]
pub async fn run_research(
    state: State<'_, AppState>,
    question: String,
    sources: Option<u32>,
    on_event: Channel<ResearchEvent>,
) -> IpcResult<Report> {
    let engine = state.engine();
    let defaults = engine.research().limits();
    let limits = Limits {
        sources: sources.map_or(defaults.sources, |n| (n as usize).clamp(1, 50)),
        ..defaults
    };
    let report = super::relay::one_at_a_time(
        &state.research,
        "a research job is already running; stop it or wait for its report",
        || {
            engine.research().start(ResearchRequest {
                question,
                limits: Some(limits),
                agent: None,
            })
        },
        &on_event,
        "the research ended without a report",
    )
    .await?;
    *lock(&state.report) = Some(report.clone());
    Ok(report)
}

/// Stops the research job at work.
#[tauri::command]
#[specta::specta]
pub fn stop_research(state: State<'_, AppState>) -> IpcResult<()> {
    if let Some(cancel) = lock(&state.research).as_ref() {
        cancel.cancel();
    }
    Ok(())
}

/// Writes the last report into the workspace's `Research` folder as
/// `format`; the path written.
#[tauri::command]
#[specta::specta]
pub async fn save_research(state: State<'_, AppState>, format: ReportFormat) -> IpcResult<String> {
    let report = lock(&state.report)
        .clone()
        .ok_or_else(|| IpcError::invalid("there is no report to save yet"))?;
    let path = state
        .engine()
        .research()
        .save_in_workspace(&report, format.extension())
        .await?;
    Ok(path.display().to_string())
}

/// The research settings, with whether the search APIs have their keys.
#[tauri::command]
#[specta::specta]
pub fn research_settings(state: State<'_, AppState>) -> IpcResult<ResearchSettingsView> {
    let engine = state.engine();
    Ok(ResearchSettingsView {
        settings: engine.settings().research.clone(),
        brave_key_set: engine.research().search_key_set(ResearchSearch::Brave),
        tavily_key_set: engine.research().search_key_set(ResearchSearch::Tavily),
    })
}

/// Checks and saves the research settings; `key`, when given, is the
/// chosen search API's key (kept in the keychain).
#[tauri::command]
#[specta::specta]
pub async fn save_research_settings(
    state: State<'_, AppState>,
    settings: ResearchSettingsView,
    key: Option<String>,
) -> IpcResult<ResearchSettingsView> {
    let mut settings = settings.settings;
    settings.searxng_url = settings
        .searxng_url
        .map(|u| u.trim().trim_end_matches('/').to_string())
        .filter(|u| !u.is_empty());
    if settings.search == ResearchSearch::Searxng
        && !settings
            .searxng_url
            .as_deref()
            .is_some_and(|u| u.starts_with("http://") || u.starts_with("https://"))
    {
        return Err(IpcError::invalid(
            "SearXNG needs its address, such as http://localhost:8888",
        ));
    }
    if !(1..=50).contains(&settings.sources) || !(1..=8).contains(&settings.parallel) {
        return Err(IpcError::invalid(
            "sources go from 1 to 50, and 1 to 8 of them are read at once",
        ));
    }
    if !(1..=240).contains(&settings.minutes) {
        return Err(IpcError::invalid("a job reads for 1 to 240 minutes"));
    }
    if let Some(key) = key.filter(|k| !k.trim().is_empty()) {
        state
            .engine()
            .research()
            .set_search_key(settings.search, &key)?;
    }
    if !state.engine().research().search_key_set(settings.search) {
        return Err(IpcError::invalid(
            "this search needs its API key: paste it in the key field",
        ));
    }
    state
        .update_settings(|s| {
            s.research = settings;
            Ok(())
        })
        .await?;
    research_settings(state)
}
