//! What the app holds for its whole life, managed once at start-up: the
//! engine (reloaded when settings change; it keeps the agent between
//! turns), the turns in flight (one per conversation, several at once),
//! pending attachments and the index.

use std::sync::{Arc, Mutex, RwLock};

use baton_engine::api::SessionId;
use baton_engine::api::index::WorkspaceIndex;
use baton_engine::{Engine, IndexState};

use crate::dto::IndexStatus;
use crate::error::IpcResult;
use crate::pending::Attachments;
pub use crate::turns::TurnGuard;
use crate::turns::Turns;

/// The HTTP API while the app runs it.
pub struct RunningServer {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    /// Whether clients need an API key.
    pub keys_required: bool,
    /// Stops it (answers in flight finish).
    pub stop: tokio::sync::oneshot::Sender<()>,
    /// The server's task.
    pub task: tokio::task::JoinHandle<()>,
}

/// The app's state (one per process).
pub struct AppState {
    engine: RwLock<Arc<Engine>>,
    turns: Turns,
    /// Files waiting to be sent with the next message.
    pub attachments: Attachments,
    index: Mutex<Option<Arc<WorkspaceIndex>>>,
    index_status: Mutex<IndexStatus>,
    /// The running voice conversation's controls.
    pub voice: Arc<Mutex<Option<baton_engine::VoiceControls>>>,
    /// The HTTP API, when started.
    pub server: Mutex<Option<RunningServer>>,
    /// Why the HTTP API last failed to start.
    pub server_error: Mutex<Option<String>>,
    /// Stops the team at work (Team mode), while one works.
    pub team: Mutex<Option<baton_engine::api::team::CancellationToken>>,
    /// Stops the research job at work (Research mode), while one runs.
    pub research: Mutex<Option<baton_engine::api::team::CancellationToken>>,
    /// The last research report (what Save writes).
    pub report: Mutex<Option<baton_engine::api::research::Report>>,
    /// Stops each model download in flight, by catalog name.
    pub pulls: Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
}

/// Locks a std mutex, taking the value even if a panicking thread held it.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AppState {
    /// State over a loaded engine.
    pub fn new(engine: Engine) -> Self {
        let status = IndexStatus {
            workspace: engine.workspace().display().to_string(),
            state: "off".into(),
            documents: 0,
            done: 0,
            total: 0,
            error: None,
        };
        Self {
            engine: RwLock::new(Arc::new(engine)),
            turns: Turns::default(),
            attachments: Attachments::default(),
            index: Mutex::new(None),
            index_status: Mutex::new(status),
            voice: Arc::new(Mutex::new(None)),
            server: Mutex::new(None),
            server_error: Mutex::new(None),
            team: Mutex::new(None),
            research: Mutex::new(None),
            report: Mutex::new(None),
            pulls: Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// The voice controls' slot, for the task that clears it.
    pub fn voice_slot(&self) -> Arc<Mutex<Option<baton_engine::VoiceControls>>> {
        Arc::clone(&self.voice)
    }

    /// The engine as loaded now.
    pub fn engine(&self) -> Arc<Engine> {
        Arc::clone(&self.engine.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Re-reads settings and providers (after they were saved); the next
    /// turn builds a new agent, and a running HTTP API restarts on them.
    /// Returns whether the workspace changed.
    pub async fn reload(&self) -> IpcResult<bool> {
        let new = self.engine().reload()?;
        Ok(self.swap(new).await)
    }

    /// Changes the settings through the engine ([`Engine::update_settings`]:
    /// checked, saved atomically) and works on the re-read engine like
    /// [`AppState::reload`]. Returns whether the workspace changed.
    pub async fn update_settings(
        &self,
        change: impl FnOnce(
            &mut baton_engine::api::settings::Settings,
        ) -> Result<(), baton_engine::api::settings::SettingsError>,
    ) -> IpcResult<bool> {
        let new = self.engine().update_settings(change)?;
        Ok(self.swap(new).await)
    }

    /// Takes the engine the files on disk make now when it differs from
    /// the one in use (a change made outside the app: `baton config set`,
    /// an edited `agents.json`): `Some(whether the workspace moved)`, or
    /// `None` when nothing changed (the app's own saves are noticed too).
    pub async fn reload_if_changed(&self) -> IpcResult<Option<bool>> {
        match self.engine().reload_if_changed()? {
            Some(new) => Ok(Some(self.swap(new).await)),
            None => Ok(None),
        }
    }

    /// Looks for model servers on this computer again (and makes the
    /// first-run choice again), then works on the result like
    /// [`AppState::reload`].
    pub async fn rediscover(&self) -> IpcResult<bool> {
        let new = self
            .engine()
            .reload()?
            .discover(baton_engine::PROBE_TIMEOUT)
            .await;
        Ok(self.swap(new).await)
    }

    /// Puts `new` in place of the engine; whether the workspace moved.
    async fn swap(&self, new: Engine) -> bool {
        let old = self.engine();
        let moved = new.workspace() != old.workspace();
        let new = Arc::new(new);
        *self.engine.write().unwrap_or_else(|e| e.into_inner()) = Arc::clone(&new);
        old.close().await;
        tauri::async_runtime::spawn(async move { new.tools().start_mcp().await });
        if moved {
            *lock(&self.index) = None;
        }
        // A running HTTP API restarts on the new settings.
        if lock(&self.server).is_some() {
            let result = crate::commands::server::start(self).await;
            *lock(&self.server_error) = result.err();
        }
        moved
    }

    /// Marks a turn of conversation `session` as running until the
    /// returned guard is dropped ([`Turns::begin`]).
    pub fn begin_turn(&self, session: &SessionId) -> Option<TurnGuard<'_>> {
        self.turns.begin(session)
    }

    /// Claims the turn slots when no turn is running
    /// ([`Turns::begin_alone`]).
    pub fn begin_alone(&self) -> Option<TurnGuard<'_>> {
        self.turns.begin_alone()
    }

    /// Cancels conversation `session`'s turn in flight; whether there
    /// was one.
    pub fn stop_turn(&self, session: &SessionId) -> bool {
        self.turns.stop(session)
    }

    /// Answers confirmation `id` of a turn in flight; whether it was
    /// waiting.
    pub fn answer_confirmation(&self, id: &str, approved: bool) -> bool {
        self.turns.answer_confirmation(id, approved)
    }

    /// Answers subagent question `id` of a turn in flight (`None`:
    /// declined); whether it was waiting.
    pub fn answer_question(&self, id: &str, answer: Option<String>) -> bool {
        self.turns.answer_question(id, answer)
    }

    /// The workspace index, if it could be opened.
    pub fn index(&self) -> Option<Arc<WorkspaceIndex>> {
        lock(&self.index).clone()
    }

    /// Sets the index (after opening it).
    pub fn set_index(&self, index: Option<Arc<WorkspaceIndex>>) {
        *lock(&self.index) = index;
    }

    /// The index status as last reported.
    pub fn index_status(&self) -> IndexStatus {
        let mut status = lock(&self.index_status).clone();
        if let Some(index) = self.index()
            && status.state != "indexing"
        {
            status.documents = index.document_count() as u32;
        }
        status
    }

    /// Records what the indexer reported; returns the new status.
    pub fn apply_index_state(&self, state: &IndexState) -> IndexStatus {
        let mut status = lock(&self.index_status);
        status.workspace = self.engine().workspace().display().to_string();
        match state {
            IndexState::Scanning { done, total } => {
                status.state = "indexing".into();
                status.done = *done as u32;
                status.total = *total as u32;
                status.error = None;
            }
            IndexState::Idle { documents } => {
                status.state = "idle".into();
                status.documents = *documents as u32;
                status.done = status.total;
            }
            IndexState::Busy => status.state = "busy".into(),
            IndexState::Failed(e) => {
                status.state = "off".into();
                status.error = Some(e.clone());
            }
        }
        status.clone()
    }
}
