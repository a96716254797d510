//! Chat turns: a message (or slash command) in, the agent's events out
//! over the turn's channel; stop cancels the model call and the tool.

use std::sync::Arc;
use std::time::Duration;

use baton_agent::{CommandOutcome, CompactionPolicy, Session, StopReason, handle_command};
use baton_llm::Message;
use tauri::State;
use tauri::ipc::Channel;
use tauri_specta::Event;

use crate::dto::{ChatEvent, ErrorCode, IpcError, ModelLoad, SendRequest, TurnResult};
use crate::error::IpcResult;
use crate::state::{AppState, TurnGuard};
use crate::stream::to_chat_event;

/// Sends a message (with pending attachments) or runs a slash command.
#[tauri::command]
#[specta::specta]
pub async fn send_message(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    request: SendRequest,
    on_event: Channel<ChatEvent>,
) -> IpcResult<TurnResult> {
    let text = request.text.trim().to_string();
    if text.is_empty() && request.attachment_ids.is_empty() {
        return Err(IpcError::invalid("the message is empty"));
    }
    let engine = state.engine();
    let store = engine.session_store();
    let mut session = match &request.session_id {
        Some(id) => store.load(id)?,
        None => Session::new(),
    };
    if text.starts_with('/') && request.attachment_ids.is_empty() && !request.replace_last {
        return run_command(&store, session, &text, &on_event);
    }
    // Claim the turn before taking the attachments, so a refused send
    // leaves them in the composer.
    let turn = state.begin_turn().ok_or_else(busy)?;
    // Edit-and-resend keeps the files the edited message carried.
    let mut carried = String::new();
    if request.replace_last {
        let old = drop_last_exchange(&mut session.history).ok_or_else(|| {
            IpcError::invalid("there is no earlier message to edit in this conversation")
        })?;
        let (_, message) = baton_docs::split_prompt(&old);
        carried = old[..old.len() - message.len()].to_string();
    }
    let files = state.attachments.take(&request.attachment_ids)?;
    if !files.is_empty() {
        crate::commands::attachments::notify(&app);
    }
    let prompt = if files.is_empty() {
        text.clone()
    } else {
        let engine = engine.clone();
        let context =
            tauri::async_runtime::spawn_blocking(move || engine.attachment_context(&files))
                .await
                .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))?;
        context.prompt(&text)
    };
    let prompt = carried + &prompt;
    session.title_from(if text.is_empty() {
        "Attached files"
    } else {
        &text
    });
    run_turn(&app, &state, turn, session, prompt, &on_event).await
}

/// Answers the last user message again, replacing the last answer.
#[tauri::command]
#[specta::specta]
pub async fn regenerate(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    session_id: String,
    on_event: Channel<ChatEvent>,
) -> IpcResult<TurnResult> {
    let turn = state.begin_turn().ok_or_else(busy)?;
    let store = state.engine().session_store();
    let mut session = store.load(&session_id)?;
    let prompt = drop_last_exchange(&mut session.history)
        .ok_or_else(|| IpcError::invalid("there is no message to answer again"))?;
    run_turn(&app, &state, turn, session, prompt, &on_event).await
}

/// Stops the turn in flight: the model call and the running tool.
#[tauri::command]
#[specta::specta]
pub fn stop_generation(state: State<'_, AppState>) -> IpcResult<bool> {
    Ok(state.stop_turn())
}

/// Removes the last user message and everything after it; returns that
/// message's text (attachment blocks included), or `None` if there is none.
fn drop_last_exchange(history: &mut Vec<Message>) -> Option<String> {
    let at = history
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))?;
    let Message::User { content } = history.remove(at) else {
        unreachable!("position found a user message")
    };
    history.truncate(at);
    Some(super::sessions::user_prompt(&content))
}

fn busy() -> IpcError {
    IpcError::new(
        ErrorCode::Busy,
        "an answer is still being written; stop it or wait for it to finish",
    )
}

fn run_command(
    store: &baton_agent::SessionStore,
    mut session: Session,
    line: &str,
    on_event: &Channel<ChatEvent>,
) -> IpcResult<TurnResult> {
    let reply = match handle_command(line, &mut session, store, &CompactionPolicy::default()) {
        CommandOutcome::Reply(text) => text,
        CommandOutcome::ModelChanged(model) => format!("model set to {model}"),
        CommandOutcome::NotACommand => unreachable!("the line starts with /"),
    };
    // Only conversations that hold something are worth a file.
    if !session.history.is_empty() || session.model.is_some() || session.instructions.is_some() {
        store.save(&session)?;
    }
    let send = |e| {
        let _ = on_event.send(e);
    };
    send(ChatEvent::Started {
        session_id: session.id.clone(),
        title: session.title.clone(),
    });
    send(ChatEvent::CommandReply { text: reply });
    send(ChatEvent::Done {
        reason: "command".into(),
    });
    Ok(TurnResult {
        session_id: session.id,
        title: session.title,
        reason: "command".into(),
    })
}

async fn run_turn(
    app: &tauri::AppHandle,
    state: &AppState,
    turn: TurnGuard<'_>,
    mut session: Session,
    prompt: String,
    on_event: &Channel<ChatEvent>,
) -> IpcResult<TurnResult> {
    let reason = answer(
        app,
        state,
        &mut session,
        &prompt,
        on_event,
        turn.token.clone(),
    )
    .await?;
    drop(turn);
    Ok(TurnResult {
        session_id: session.id,
        title: session.title,
        reason,
    })
}

async fn answer(
    app: &tauri::AppHandle,
    state: &AppState,
    session: &mut Session,
    prompt: &str,
    on_event: &Channel<ChatEvent>,
    cancel: tokio_util::sync::CancellationToken,
) -> IpcResult<String> {
    let engine = state.engine();
    let mut cfg = engine.provider_config(None)?;
    if let Some(m) = &session.model {
        cfg.model = Some(m.clone());
    }
    let key = format!(
        "{}\n{}\n{}",
        cfg.name,
        cfg.model_name(),
        session.instructions.as_deref().unwrap_or("")
    );
    let index = state.index();
    let on_load: baton_engine::LoadListener = {
        let (app, provider) = (app.clone(), cfg.name.clone());
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
    let agent = state
        .agent(key, || {
            let provider = engine.open_provider_observed(&cfg, Some(on_load))?;
            let catalog = engine.catalog_for(&cfg, || index)?;
            Ok(engine.build_agent(&cfg, provider, None, catalog, session.instructions.clone()))
        })
        .await?;
    let _ = on_event.send(ChatEvent::Started {
        session_id: session.id.clone(),
        title: session.title.clone(),
    });

    // Forward the agent's events until its own Done.
    let mut rx = agent.events().subscribe();
    let channel = on_event.clone();
    let forward = tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match rx.recv().await {
                Ok(baton_agent::AgentEvent::Done { .. }) | Err(RecvError::Closed) => break,
                Ok(event) => {
                    if let Some(e) = to_chat_event(event)
                        && channel.send(e).is_err()
                    {
                        tracing::debug!("the chat view went away");
                    }
                }
                Err(RecvError::Lagged(n)) => tracing::warn!(skipped = n, "chat events lagged"),
            }
        }
    });
    let result = agent
        .execute_action(&mut session.history, prompt, Vec::new(), cancel)
        .await;
    if tokio::time::timeout(Duration::from_secs(2), forward)
        .await
        .is_err()
    {
        tracing::warn!("the agent did not report the end of the turn");
    }
    let reason = match &result.stop {
        StopReason::Answered | StopReason::Asked => "answered",
        StopReason::Cancelled => "stopped",
        StopReason::Error(_) => "error",
        StopReason::MaxIterations | StopReason::Budget | StopReason::LoopGuard(_) => "limit",
    };
    match &result.stop {
        StopReason::MaxIterations => {
            send_error(on_event, "stopped after the maximum number of steps")
        }
        StopReason::Budget => send_error(on_event, "stopped: the token budget ran out"),
        StopReason::LoopGuard(why) => send_error(on_event, &format!("stopped: {why}")),
        _ => {}
    }
    let saved = engine.session_store().save(session);
    let _ = on_event.send(ChatEvent::Done {
        reason: reason.into(),
    });
    saved?;
    Ok(reason.into())
}

fn send_error(on_event: &Channel<ChatEvent>, message: &str) {
    let _ = on_event.send(ChatEvent::Error {
        message: message.to_string(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_last_exchange_returns_the_user_text_and_keeps_earlier_turns() {
        let mut h = vec![
            Message::user("first"),
            Message::assistant("one"),
            Message::user("second"),
            Message::assistant("two"),
        ];
        assert_eq!(drop_last_exchange(&mut h).as_deref(), Some("second"));
        assert_eq!(h.len(), 2);
        assert_eq!(drop_last_exchange(&mut h).as_deref(), Some("first"));
        assert!(h.is_empty());
        assert_eq!(drop_last_exchange(&mut h), None);
    }
}
