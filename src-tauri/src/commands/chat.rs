//! Chat turns over the engine's conversation API: a message (or slash
//! command) in, the turn's events out over its channel; stop cancels the
//! model call and the tool; external actions and subagents' questions wait
//! for the user's answer.

use std::sync::Arc;

use baton_engine::api::{AgentEvent, SessionId, TurnEvent};
use baton_engine::{AgentInfo, ConversationOptions, IndexChoice, Turn, UserMessage};
use tauri::ipc::Channel;
use tauri::{State, Window};
use tauri_specta::Event;

use crate::dto::{
    ChatEvent, ErrorCode, IpcError, ModelLoad, Pane, SendRequest, TurnEnd, TurnResult,
};
use crate::error::IpcResult;
use crate::shell::{self, Attention};
use crate::state::{AppState, TurnGuard};
use crate::stream::to_chat_event;

/// Sends a message (with the calling window's pending attachments) or
/// runs a slash command. Each conversation runs one turn at a time;
/// turns of other conversations go on beside it.
#[tauri::command]
#[specta::specta]
pub async fn send_message(
    app: tauri::AppHandle,
    window: Window,
    state: State<'_, AppState>,
    request: SendRequest,
    on_event: Channel<ChatEvent>,
) -> IpcResult<TurnResult> {
    let text = request.text.trim().to_string();
    if text.is_empty() && request.attachment_ids.is_empty() {
        return Err(IpcError::invalid("the message is empty"));
    }
    let agent = match request.agent.as_deref().map(str::trim) {
        Some("") | None => None,
        // Checked now: an unknown agent is the request's fault, said
        // before anything runs.
        Some(name) => Some(
            state
                .engine()
                .agents()
                .def(Some(name))
                .map_err(|e| IpcError::new(ErrorCode::NotFound, e.to_string()))?
                .name,
        ),
    };
    let id = request
        .session_id
        .as_deref()
        .map(SessionId::parse)
        .transpose()?;
    // Only a new conversation is put in a project here (`move_session`
    // moves a saved one).
    let project = match (&id, request.project.as_deref()) {
        (None, Some(p)) => Some(
            baton_engine::api::projects::ProjectId::parse(p)
                .map_err(|e| IpcError::invalid(e.to_string()))?,
        ),
        _ => None,
    };
    let conversation = open(&app, &state, id.as_ref(), agent, project)?;
    if text.starts_with('/')
        && request.attachment_ids.is_empty()
        && !request.replace_last
        && request.edit.is_none()
        && let Some(reply) = conversation.command(&text).await?
    {
        let session = conversation.session().await;
        let send = |e| {
            let _ = on_event.send(e);
        };
        send_started(&on_event, &session);
        send(ChatEvent::CommandReply { text: reply });
        send(ChatEvent::Done {
            reason: TurnEnd::Command,
        });
        return Ok(TurnResult {
            session_id: session.id.into(),
            title: session.title,
            reason: TurnEnd::Command,
        });
    }
    // Claim the turn before taking the attachments, so a refused send
    // leaves them in the composer.
    let pane = Pane::of(window.label());
    let mut session = conversation.session().await;
    let guard = state.begin_turn(&session.id).ok_or_else(busy)?;
    let files = state.attachments.take(pane, &request.attachment_ids)?;
    if !files.is_empty() {
        crate::commands::attachments::notify(&app, pane);
    }
    session.title_from(if text.is_empty() {
        "Attached files"
    } else {
        &text
    });
    send_started(&on_event, &session);
    let turn = conversation.send(UserMessage {
        text,
        files,
        replace_last: request.replace_last,
        edit: request.edit.map(|n| n as usize),
    });
    let notice = Notice::new(&app, pane, &session);
    forward(turn, guard, &on_event, notice).await
}

/// Answers the last user message again, replacing the last answer.
#[tauri::command]
#[specta::specta]
pub async fn regenerate(
    app: tauri::AppHandle,
    window: Window,
    state: State<'_, AppState>,
    session_id: String,
    on_event: Channel<ChatEvent>,
) -> IpcResult<TurnResult> {
    let id = SessionId::parse(&session_id)?;
    let guard = state.begin_turn(&id).ok_or_else(busy)?;
    let conversation = open(&app, &state, Some(&id), None, None)?;
    let session = conversation.session().await;
    send_started(&on_event, &session);
    let notice = Notice::new(&app, Pane::of(window.label()), &session);
    forward(conversation.regenerate(), guard, &on_event, notice).await
}

/// Stops conversation `session_id`'s turn in flight: the model call, the
/// running tool and a pending confirmation. Whether one was running.
#[tauri::command]
#[specta::specta]
pub fn stop_generation(state: State<'_, AppState>, session_id: String) -> IpcResult<bool> {
    Ok(state.stop_turn(&SessionId::parse(&session_id)?))
}

/// Answers a confirmation request of the turn in flight: `approved`
/// lets the external action run.
#[tauri::command]
#[specta::specta]
pub fn answer_confirmation(
    state: State<'_, AppState>,
    id: String,
    approved: bool,
) -> IpcResult<bool> {
    Ok(state.answer_confirmation(&id, approved))
}

/// Answers a subagent's question of the turn in flight: `answer`, or
/// `null` to let the delegating agent answer it. An error when no turn
/// waits for that question (it was answered, or the turn ended).
#[tauri::command]
#[specta::specta]
pub fn answer_question(
    state: State<'_, AppState>,
    question_id: String,
    answer: Option<String>,
) -> IpcResult<()> {
    let answer = answer.map(|a| a.trim().to_string());
    if answer.as_deref() == Some("") {
        return Err(IpcError::invalid("the answer is empty"));
    }
    if state.answer_question(&question_id, answer) {
        Ok(())
    } else {
        Err(IpcError::new(
            ErrorCode::NotFound,
            "that question is no longer waiting for an answer",
        ))
    }
}

/// The named agents (`agents.json`), for the agent picker.
#[tauri::command]
#[specta::specta]
pub fn list_agents(state: State<'_, AppState>) -> IpcResult<Vec<AgentInfo>> {
    Ok(state.engine().agents().infos())
}

/// The conversation `id` (or a new one) with the app's index and the
/// named `agent` (`None`: the conversation's own); the embedded model's
/// load progress goes to the window.
fn open(
    app: &tauri::AppHandle,
    state: &AppState,
    id: Option<&SessionId>,
    agent: Option<String>,
    project: Option<baton_engine::api::projects::ProjectId>,
) -> IpcResult<baton_engine::Conversation> {
    let engine = state.engine();
    let on_load: baton_engine::LoadListener = {
        let (app, provider) = (app.clone(), engine.providers().selected().to_string());
        Arc::new(move |percent| {
            let event = ModelLoad {
                provider: provider.clone(),
                percent,
            };
            if let Err(e) = event.emit(&app) {
                tracing::debug!(error = %e, "cannot send model-load");
            }
        })
    };
    let options = ConversationOptions {
        agent,
        index: IndexChoice::Given(state.index()),
        on_load: Some(on_load),
        previews: true,
        project,
        ..ConversationOptions::default()
    };
    Ok(engine.conversations().open(id, options)?)
}

/// The first event of every turn: the session it belongs to.
fn send_started(on_event: &Channel<ChatEvent>, session: &baton_engine::api::Session) {
    let _ = on_event.send(ChatEvent::Started {
        session_id: session.id.to_string(),
        title: session.title.clone(),
    });
}

fn busy() -> IpcError {
    IpcError::new(
        ErrorCode::Busy,
        "an answer is still being written in this chat; stop it or wait for it to finish",
    )
}

/// Where a turn tells the user it needs them when its window is not in
/// front: a native notification naming the conversation.
struct Notice {
    app: tauri::AppHandle,
    pane: Pane,
    session: SessionId,
    title: String,
}

impl Notice {
    fn new(app: &tauri::AppHandle, pane: Pane, session: &baton_engine::api::Session) -> Self {
        Self {
            app: app.clone(),
            pane,
            session: session.id.clone(),
            title: session.title.clone(),
        }
    }

    fn tell(&self, what: Attention) {
        shell::notify_if_away(&self.app, self.pane, &self.session, &self.title, what);
    }
}

/// Streams the turn's events to the chat view until it ends.
async fn forward(
    mut turn: Turn,
    guard: TurnGuard<'_>,
    on_event: &Channel<ChatEvent>,
    notice: Notice,
) -> IpcResult<TurnResult> {
    guard.attach(&turn);
    let send = |e| {
        if on_event.send(e).is_err() {
            tracing::debug!("the chat view went away");
        }
    };
    while let Some(TurnEvent { agent, event, .. }) = turn.next().await {
        if agent.depth == 0
            && let AgentEvent::Finished(outcome) = event
        {
            let reason = TurnEnd::from(&outcome.stop);
            if matches!(reason, TurnEnd::Limit) {
                send(ChatEvent::Error {
                    message: outcome.stop.message(),
                });
            }
            let result = &outcome.result;
            if !result.citations.is_empty() || result.dropped_citations > 0 {
                send(ChatEvent::Cited {
                    citations: result.citations.clone(),
                    dropped: u32::try_from(result.dropped_citations).unwrap_or(u32::MAX),
                    answer: (result.dropped_citations > 0).then(|| result.answer.clone()),
                });
            }
            send(ChatEvent::Done { reason });
            match reason {
                TurnEnd::Answered => notice.tell(Attention::Answered),
                TurnEnd::Error | TurnEnd::Limit => notice.tell(Attention::Failed),
                TurnEnd::Stopped | TurnEnd::Command => {}
            }
            return Ok(TurnResult {
                session_id: outcome.session_id.into(),
                title: outcome.title,
                reason,
            });
        }
        if let Some(e) = to_chat_event(event, agent.depth) {
            match &e {
                ChatEvent::ConfirmationRequested { .. } => notice.tell(Attention::Confirmation),
                ChatEvent::SubagentAsked { .. } => notice.tell(Attention::Question),
                _ => {}
            }
            send(e);
        }
    }
    Err(IpcError::new(
        ErrorCode::Internal,
        "the turn ended without a result",
    ))
}

/// How the chat view tells why a turn ended.
impl From<&baton_engine::api::StopReason> for TurnEnd {
    fn from(stop: &baton_engine::api::StopReason) -> Self {
        use baton_engine::api::StopReason as S;
        match stop {
            S::Answered | S::Asked => TurnEnd::Answered,
            S::Cancelled => TurnEnd::Stopped,
            S::Error(_) => TurnEnd::Error,
            S::MaxIterations | S::Budget | S::LoopGuard(_) => TurnEnd::Limit,
        }
    }
}
