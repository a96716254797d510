//! ChatGPT's and Claude's data exports (`conversations.json`, an array of
//! conversations in both; told apart by their fields).
//!
//! ChatGPT keeps a conversation as a tree (`mapping`: each node has a
//! message, its parent and its children; an edited message starts a
//! branch) and `current_node` is the leaf the user saw last: the branch
//! from the root to it comes over, the others are counted. Claude keeps a
//! list (`chat_messages`, `sender` human or assistant).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use baton_agent::{Session, SessionId};
use baton_llm::Message;
use serde_json::Value;

use crate::{Dated, Format, Imported, TransferError};

/// Reads a ChatGPT or Claude export.
pub(crate) fn read(value: &Value) -> Result<Imported, TransferError> {
    let list = value.as_array().ok_or_else(unrecognised)?;
    let format = match list.first() {
        None => return Err(unrecognised()),
        Some(c) if c.get("mapping").is_some() => Format::ChatGpt,
        Some(c) if c.get("chat_messages").is_some() => Format::Claude,
        Some(_) => return Err(unrecognised()),
    };
    let mut imported = Imported {
        format,
        sessions: Vec::with_capacity(list.len()),
        left_out: Vec::new(),
    };
    for (i, c) in list.iter().enumerate() {
        let read = match format {
            Format::ChatGpt => chatgpt(c, &mut imported.left_out),
            _ => claude(c, &mut imported.left_out),
        };
        let dated = read.map_err(|reason| TransferError::Damaged {
            format,
            reason: format!("conversation {} of {}: {reason}", i + 1, list.len()),
        })?;
        imported.sessions.push(dated);
    }
    Ok(imported)
}

fn unrecognised() -> TransferError {
    TransferError::Unrecognised(
        "this is not a conversation export (Baton JSON, ChatGPT's or Claude's conversations.json)"
            .into(),
    )
}

/// A session for an imported conversation: its id from the source's (so a
/// second import of the same file finds it there already).
fn session_for(prefix: &str, source_id: &str, title: &str) -> Result<Session, String> {
    let safe: String = source_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(80)
        .collect();
    if safe.is_empty() {
        return Err("it has no id".into());
    }
    let id = SessionId::parse(&format!("{prefix}-{safe}")).map_err(|e| e.to_string())?;
    let mut session = Session::with_id(id);
    session.title = title.chars().take(120).collect();
    Ok(session)
}

fn secs(s: f64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs_f64(s.max(0.0))
}

/// One ChatGPT conversation: the branch that ends at `current_node`.
fn chatgpt(c: &Value, left_out: &mut Vec<String>) -> Result<Dated, String> {
    let title = c["title"].as_str().unwrap_or("ChatGPT conversation");
    let id = c["conversation_id"]
        .as_str()
        .or_else(|| c["id"].as_str())
        .ok_or("it has no id")?;
    let mapping = c["mapping"].as_object().ok_or("its messages are missing")?;
    let mut session = session_for("chatgpt", id, title)?;
    let mut node = c["current_node"].as_str().map(str::to_string);
    let mut branch = Vec::new();
    while let Some(n) = node.take() {
        let entry = mapping
            .get(&n)
            .ok_or_else(|| format!("message {n} is missing"))?;
        if branch.len() > mapping.len() {
            return Err("its messages form a loop".into());
        }
        branch.push(entry);
        node = entry["parent"].as_str().map(str::to_string);
    }
    branch.reverse();
    let forks: usize = mapping
        .values()
        .map(|e| {
            e["children"]
                .as_array()
                .map_or(0, |c| c.len().saturating_sub(1))
        })
        .sum();
    if forks > 0 {
        left_out.push(format!(
            "\u{201c}{title}\u{201d}: {forks} other branch{} of edited messages left out (the branch last shown came in)",
            if forks == 1 { "" } else { "es" }
        ));
    }
    for entry in branch {
        if let Some(m) = chatgpt_message(&entry["message"]) {
            session.history.push(m);
        }
    }
    let when = c["update_time"].as_f64().or(c["create_time"].as_f64());
    Ok(Dated::new(session, secs(when.unwrap_or(0.0))))
}

/// A ChatGPT message as Baton's, when it is the user's or the assistant's
/// text (system prompts, tool traffic and empty messages are not).
fn chatgpt_message(m: &Value) -> Option<Message> {
    let text: Vec<&str> = m["content"]["parts"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter(|p| !p.trim().is_empty())
        .collect();
    if text.is_empty() {
        return None;
    }
    let text = text.join("\n\n");
    match m["author"]["role"].as_str()? {
        "user" => Some(Message::user(text)),
        "assistant" => Some(Message::assistant(text)),
        _ => None,
    }
}

/// One Claude conversation.
fn claude(c: &Value, left_out: &mut Vec<String>) -> Result<Dated, String> {
    let title = c["name"].as_str().filter(|t| !t.is_empty());
    let title = title.unwrap_or("Claude conversation");
    let id = c["uuid"].as_str().ok_or("it has no uuid")?;
    let mut session = session_for("claude", id, title)?;
    let messages = c["chat_messages"]
        .as_array()
        .ok_or("its messages are missing")?;
    let mut files = 0;
    for m in messages {
        files += m["attachments"].as_array().map_or(0, Vec::len)
            + m["files"].as_array().map_or(0, Vec::len);
        let text = claude_text(m);
        if text.trim().is_empty() {
            continue;
        }
        match m["sender"].as_str() {
            Some("human") => session.history.push(Message::user(text)),
            Some("assistant") => session.history.push(Message::assistant(text)),
            _ => {}
        }
    }
    if files > 0 {
        left_out.push(format!(
            "\u{201c}{title}\u{201d}: {files} attached file{} left out (the export holds their names only)",
            if files == 1 { "" } else { "s" }
        ));
    }
    let when = c["updated_at"].as_str().or(c["created_at"].as_str());
    let when = when
        .and_then(|w| chrono::DateTime::parse_from_rfc3339(w).ok())
        .map_or(UNIX_EPOCH, |d| secs(d.timestamp() as f64));
    Ok(Dated::new(session, when))
}

/// A Claude message's text: its text blocks, else its `text` field.
fn claude_text(m: &Value) -> String {
    let blocks: Vec<&str> = m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    if blocks.is_empty() {
        m["text"].as_str().unwrap_or_default().to_string()
    } else {
        blocks.join("\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A conversation as ChatGPT exports it (tests/fixtures/export): the
    /// user edited their second question, so the tree forks; the edit is
    /// the branch shown.
    fn chatgpt_export() -> Value {
        serde_json::from_str(include_str!(
            "../../../tests/fixtures/export/chatgpt-conversations.json"
        ))
        .unwrap()
    }

    #[test]
    fn chatgpt_gives_the_branch_last_shown_in_order_with_its_date() {
        let got = read(&chatgpt_export()).unwrap();
        assert_eq!(got.format, Format::ChatGpt);
        let d = &got.sessions[0];
        assert_eq!(
            d.session.id.as_str(),
            "chatgpt-6f1c2a7e-0000-4000-8000-1234567890ab"
        );
        assert_eq!(d.session.title, "Trip to Lisbon");
        assert_eq!(d.updated, 1_700_086_400);
        let texts: Vec<String> = d.session.history.iter().map(Message::text).collect();
        assert_eq!(
            texts,
            [
                "Plan three days in Lisbon.",
                "Day 1: Alfama. Day 2: Sintra. Day 3: Belém.",
                "Where should I eat?",
                "Try Time Out Market."
            ]
        );
        assert!(matches!(d.session.history[0], Message::User { .. }));
        assert_eq!(got.left_out.len(), 1);
        assert!(
            got.left_out[0].contains("1 other branch"),
            "{:?}",
            got.left_out
        );
    }

    #[test]
    fn claude_gives_its_messages_in_order_and_counts_attachments() {
        let export = json!([{
            "uuid": "1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d", "name": "Budget review",
            "created_at": "2025-03-01T09:00:00.000000Z", "updated_at": "2025-03-02T10:30:00.000000Z",
            "chat_messages": [
                {"uuid": "m1", "sender": "human", "text": "Summarise the budget.", "content": [{"type": "text", "text": "Summarise the budget."}],
                 "attachments": [{"file_name": "budget.xlsx"}], "files": []},
                {"uuid": "m2", "sender": "assistant", "text": "", "content": [{"type": "text", "text": "Spending is up 4%."}]}
            ]
        }]);
        let got = read(&export).unwrap();
        assert_eq!(got.format, Format::Claude);
        let d = &got.sessions[0];
        assert_eq!(
            d.session.id.as_str(),
            "claude-1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d"
        );
        assert_eq!(d.session.title, "Budget review");
        let when = chrono::DateTime::parse_from_rfc3339("2025-03-02T10:30:00Z").unwrap();
        assert_eq!(d.updated, when.timestamp() as u64);
        let texts: Vec<String> = d.session.history.iter().map(Message::text).collect();
        assert_eq!(texts, ["Summarise the budget.", "Spending is up 4%."]);
        assert!(
            got.left_out[0].contains("1 attached file"),
            "{:?}",
            got.left_out
        );
    }

    #[test]
    fn a_damaged_conversation_refuses_the_whole_file() {
        let mut export = chatgpt_export();
        export[0]["current_node"] = json!("nowhere");
        let e = read(&export).unwrap_err();
        assert!(
            e.to_string().contains(
                "ChatGPT export is damaged: conversation 1 of 1: message nowhere is missing"
            ),
            "{e}"
        );
        let e = read(&json!([{"chat_messages": []}])).unwrap_err();
        assert!(e.to_string().contains("has no uuid"), "{e}");
    }
}
