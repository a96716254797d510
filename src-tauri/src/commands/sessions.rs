//! The conversations sidebar over the engine's session store.

use baton_engine::api::{ContentPart, Message};
use baton_engine::api::{Session, SessionId, VoiceTurn};
use tauri::State;

use crate::dto::{
    BranchView, IpcError, MessageView, SessionSummary, SessionView, SpokenView, ToolCallView,
};
use crate::error::IpcResult;
use crate::state::AppState;

fn summary(info: baton_engine::api::SessionInfo) -> SessionSummary {
    SessionSummary {
        updated_ms: info
            .modified
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as f64)
            .unwrap_or(0.0),
        id: info.id.into(),
        title: info.title,
        message_count: info.messages as u32,
        agent: info.agent,
        voice_turns: info.voice_turns.min(u32::MAX as usize) as u32,
        project: info.project.map(String::from),
    }
}

fn summary_of(state: &AppState, id: &SessionId) -> IpcResult<SessionSummary> {
    state
        .engine()
        .conversations()
        .store()
        .summaries()
        .into_iter()
        .find(|s| s.id == *id)
        .map(summary)
        .ok_or_else(|| baton_engine::api::SessionError::NotFound(id.clone()).into())
}

/// Saved conversations, newest first.
#[tauri::command]
#[specta::specta]
pub fn list_sessions(state: State<'_, AppState>) -> IpcResult<Vec<SessionSummary>> {
    Ok(state
        .engine()
        .conversations()
        .store()
        .summaries()
        .into_iter()
        .map(summary)
        .collect())
}

/// One conversation as the chat view shows it.
#[tauri::command]
#[specta::specta]
pub fn load_session(state: State<'_, AppState>, id: String) -> IpcResult<SessionView> {
    let session = state
        .engine()
        .conversations()
        .store()
        .load(&SessionId::parse(&id)?)?;
    let messages = view_messages(&session);
    Ok(SessionView {
        id: session.id.into(),
        title: session.title,
        agent: session.agent,
        project: session.project.map(String::from),
        messages,
    })
}

/// Shows branch `to` of the branches at user message `at` (0: the
/// first) of conversation `id`; the conversation as it is then.
#[tauri::command]
#[specta::specta]
pub async fn switch_branch(
    state: State<'_, AppState>,
    id: String,
    at: u32,
    to: u32,
) -> IpcResult<SessionView> {
    let id = SessionId::parse(&id)?;
    let engine = state.engine();
    let conversation = engine
        .conversations()
        .open(Some(&id), baton_engine::ConversationOptions::default())?;
    conversation.switch_branch(at as usize, to as usize).await?;
    load_session(state, id.to_string())
}

/// Renames a conversation.
#[tauri::command]
#[specta::specta]
pub fn rename_session(
    state: State<'_, AppState>,
    id: String,
    title: String,
) -> IpcResult<SessionSummary> {
    let title = title.trim();
    if title.is_empty() {
        return Err(IpcError::invalid("a conversation needs a title"));
    }
    let id = SessionId::parse(&id)?;
    let store = state.engine().conversations().store();
    let mut session = store.load(&id)?;
    session.title = title.chars().take(120).collect();
    store.save(&session)?;
    summary_of(&state, &id)
}

/// Moves a conversation to the trash (undo with `restore_session`).
#[tauri::command]
#[specta::specta]
pub fn delete_session(state: State<'_, AppState>, id: String) -> IpcResult<()> {
    let id = SessionId::parse(&id)?;
    Ok(state.engine().conversations().store().trash(&id)?)
}

/// Brings a deleted conversation back.
#[tauri::command]
#[specta::specta]
pub fn restore_session(state: State<'_, AppState>, id: String) -> IpcResult<SessionSummary> {
    let id = SessionId::parse(&id)?;
    state.engine().conversations().store().restore(&id)?;
    summary_of(&state, &id)
}

/// The prompt text of a user message (its text parts; in conversations
/// saved before files were typed parts, their blocks are in that text).
pub fn user_prompt(content: &[ContentPart]) -> String {
    content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How message `index` was spoken, if it was.
fn spoken_view(voice: &[VoiceTurn], index: usize) -> Option<SpokenView> {
    voice
        .iter()
        .find(|v| v.message == index)
        .map(|v| SpokenView {
            first_audio_ms: v.first_audio_ms.map(|ms| ms.clamp(0.0, 1e9) as u32),
            interrupted: v.interrupted,
        })
}

/// The stored history as chat messages: the user's own words (attachment
/// blocks become names), and each answer with the tool calls made on the
/// way, their results paired by call id, and the passages it cited;
/// spoken messages say so.
pub fn view_messages(session: &Session) -> Vec<MessageView> {
    let voice = session.voice.as_slice();
    let mut out: Vec<MessageView> = Vec::new();
    let mut asked = 0;
    for (index, m) in session.history.iter().enumerate() {
        match m {
            Message::System { .. } => {}
            Message::User { content } => {
                let text = user_prompt(content);
                // Files are typed parts; conversations saved before that
                // carry them as blocks in the text.
                let (mut names, message) = baton_engine::api::split_prompt(&text);
                names.extend(content.iter().filter_map(|p| match p {
                    ContentPart::Attachment { name, .. } => Some(name.clone()),
                    ContentPart::File(f) => Some(f.name.clone()),
                    _ => None,
                }));
                out.push(MessageView {
                    role: "user".into(),
                    text: message.to_string(),
                    tool_calls: Vec::new(),
                    attachments: names,
                    spoken: spoken_view(voice, index),
                    citations: Vec::new(),
                    branch: baton_engine::api::branch_of(&session.forks, asked).map(
                        |(index, count)| BranchView {
                            index: u32::try_from(index).unwrap_or(u32::MAX),
                            count: u32::try_from(count).unwrap_or(u32::MAX),
                        },
                    ),
                });
                asked += 1;
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                // One answer may span several model turns (tool rounds).
                let continues = out.last().is_some_and(|v| v.role == "assistant");
                if !continues {
                    out.push(MessageView {
                        role: "assistant".into(),
                        text: String::new(),
                        tool_calls: Vec::new(),
                        attachments: Vec::new(),
                        spoken: None,
                        citations: Vec::new(),
                        branch: None,
                    });
                }
                let view = out.last_mut().expect("pushed above");
                if !content.trim().is_empty() {
                    if !view.text.is_empty() {
                        view.text.push_str("\n\n");
                    }
                    view.text.push_str(content);
                    view.citations
                        .extend_from_slice(session.citations_of(content));
                }
                view.tool_calls
                    .extend(tool_calls.iter().map(|c| ToolCallView {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        arguments: crate::stream::pretty(&c.arguments),
                        result: None,
                        is_error: false,
                    }));
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => {
                // The latest unanswered call with this id (small models
                // reuse ids across rounds).
                if let Some(call) = out
                    .iter_mut()
                    .rev()
                    .flat_map(|v| v.tool_calls.iter_mut().rev())
                    .find(|c| &c.id == call_id && c.result.is_none())
                {
                    call.result = Some(content.clone());
                    call.is_error = *is_error;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_engine::api::ToolCall;

    #[test]
    fn a_reopened_answer_shows_the_passages_it_cited() {
        let mut session = Session::new();
        session.history = vec![
            Message::user("What did we pay the pilots?"),
            Message::assistant("4,200 EUR [1]."),
        ];
        let source = baton_engine::api::Source {
            path: "/harbour.pdf".into(),
            location: "page 3".into(),
            passage: "Pilotage fees: 4,200 EUR.".into(),
            offset: 0,
        };
        let cited = baton_engine::api::Citation { number: 1, source };
        session.note_citations("4,200 EUR [1].", vec![cited.clone()]);
        let view = view_messages(&session);
        assert!(view[0].citations.is_empty());
        assert_eq!(view[1].citations, vec![cited]);
    }

    #[test]
    fn tool_rounds_fold_into_one_answer_with_results_paired() {
        let history = vec![
            Message::system("be brief"),
            Message::user(
                "<attachment name=\"r.pdf\" format=\"PDF\" size=\"1 KB\">\nx\n</attachment>\n\nSum it up",
            ),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "list_directory".into(),
                    arguments: serde_json::json!({"path": "/"}),
                }],
            },
            Message::tool("c1", "list_directory", "r.pdf", false),
            Message::assistant("It is a report."),
        ];
        let mut history = history;
        // A second round reusing the id gets its own result.
        history.insert(
            4,
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: serde_json::json!({"path": "/nope"}),
                }],
            },
        );
        history.insert(5, Message::tool("c1", "read_file", "no such file", true));
        let mut session = Session::new();
        session.history = history;
        let view = view_messages(&session);
        assert_eq!(view.len(), 2);
        assert_eq!(view[1].tool_calls.len(), 2);
        assert!(!view[1].tool_calls[0].is_error);
        assert!(view[1].tool_calls[1].is_error);
        assert_eq!(
            view[1].tool_calls[1].result.as_deref(),
            Some("no such file")
        );
        assert_eq!(view[0].text, "Sum it up");
        assert_eq!(view[0].attachments, vec!["r.pdf"]);
        assert_eq!(view[1].text, "It is a report.");
        assert_eq!(view[1].tool_calls[0].result.as_deref(), Some("r.pdf"));
    }
}
