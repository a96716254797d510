//! ChatGPT's and Claude's data exports (`conversations.json`, an array of
//! conversations in both; told apart by their fields).
//!
//! ChatGPT keeps a conversation as a tree (`mapping`: each node has a
//! message, its parent and its children; an edited message starts a
//! branch) and `current_node` is the leaf the user saw last: the branch
//! from the root to it is the history, and every other branch comes over
//! as a Baton branch of the message where it parts. Claude keeps a
//! list (`chat_messages`, `sender` human or assistant).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use baton_agent::{Branch, Fork, Session, SessionId};
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
            Format::ChatGpt => chatgpt(c),
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

/// One ChatGPT conversation: the branch that ends at `current_node` in
/// view, every other branch kept as a Baton branch of the message where
/// it parts (an edited question, or an answer asked for again).
fn chatgpt(c: &Value) -> Result<Dated, String> {
    let title = c["title"].as_str().unwrap_or("ChatGPT conversation");
    let id = c["conversation_id"]
        .as_str()
        .or_else(|| c["id"].as_str())
        .ok_or("it has no id")?;
    let mapping = c["mapping"].as_object().ok_or("its messages are missing")?;
    let mut session = session_for("chatgpt", id, title)?;
    let tree = Tree::new(mapping, c["current_node"].as_str())?;
    let Some(root) = tree.root() else {
        return Err("its messages have no first one".into());
    };
    let shown = tree.branch_from(root, 0, 0)?;
    session.history = shown.messages;
    session.forks = shown.forks;
    let when = c["update_time"].as_f64().or(c["create_time"].as_f64());
    Ok(Dated::new(session, secs(when.unwrap_or(0.0))))
}

/// A ChatGPT conversation's tree of messages.
struct Tree<'a> {
    mapping: &'a serde_json::Map<String, Value>,
    /// The nodes from the root to `current_node` (the branch shown).
    shown: std::collections::HashSet<&'a str>,
}

impl<'a> Tree<'a> {
    fn new(
        mapping: &'a serde_json::Map<String, Value>,
        current: Option<&'a str>,
    ) -> Result<Tree<'a>, String> {
        let mut shown = std::collections::HashSet::new();
        let mut node = current;
        while let Some(n) = node {
            let entry = mapping
                .get(n)
                .ok_or_else(|| format!("message {n} is missing"))?;
            if !shown.insert(n) {
                return Err("its messages form a loop".into());
            }
            node = entry["parent"].as_str();
        }
        Ok(Tree { mapping, shown })
    }

    /// The node without a parent.
    fn root(&self) -> Option<&'a str> {
        self.mapping
            .iter()
            .find(|(_, e)| e["parent"].as_str().is_none())
            .map(|(k, _)| k.as_str())
    }

    fn children(&self, node: &str) -> Vec<&'a str> {
        self.mapping.get(node).map_or_else(Vec::new, |e| {
            e["children"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|c| self.mapping.contains_key(*c))
                .collect()
        })
    }

    /// The role of the first message at or below `node` (down the branch
    /// it would show).
    fn first_role(&self, node: &'a str) -> Option<&'a str> {
        let mut node = node;
        for _ in 0..=self.mapping.len() {
            let entry = &self.mapping[node];
            if chatgpt_message(&entry["message"]).is_some() {
                return entry["message"]["author"]["role"].as_str();
            }
            node = self.pick(&self.children(node))?;
        }
        None
    }

    /// The child on the branch shown, else the newest.
    fn pick(&self, children: &[&'a str]) -> Option<&'a str> {
        children
            .iter()
            .find(|c| self.shown.contains(*c))
            .or(children.last())
            .copied()
    }

    /// A child that is not on the branch in view, as a branch of the
    /// user message where it parts: the next one (an edited question) or
    /// the last one (an answer asked for again: the question comes first).
    fn alternative(
        &self,
        child: &'a str,
        users: usize,
        last_user: &Option<(usize, Message)>,
        depth: usize,
    ) -> Result<Option<(usize, Branch)>, String> {
        let mut branch = self.branch_from(child, users, depth + 1)?;
        if self.first_role(child) == Some("user") {
            return Ok(Some((users, branch)));
        }
        let Some((at, question)) = last_user else {
            return Ok(None);
        };
        branch.messages.insert(0, question.clone());
        Ok(Some((*at, branch)))
    }

    /// The messages from `node` down, the shown (else newest) child where
    /// it forks, with the other children kept as branches; `users` user
    /// messages come before `node`.
    fn branch_from(&self, node: &'a str, users: usize, depth: usize) -> Result<Branch, String> {
        if depth > self.mapping.len() {
            return Err("its messages form a loop".into());
        }
        let mut out = Branch::default();
        let (mut users, mut last_user) = (users, None::<(usize, Message)>);
        let mut node = Some(node);
        let mut steps = 0;
        while let Some(id) = node {
            steps += 1;
            if steps > self.mapping.len() {
                return Err("its messages form a loop".into());
            }
            if let Some(m) = chatgpt_message(&self.mapping[id]["message"]) {
                if matches!(m, Message::User { .. }) {
                    last_user = Some((users, m.clone()));
                    users += 1;
                }
                out.messages.push(m);
            }
            let children = self.children(id);
            let chosen = self.pick(&children);
            if children.len() > 1 {
                for child in children.iter().filter(|c| Some(**c) != chosen) {
                    let Some((at, branch)) = self.alternative(child, users, &last_user, depth)?
                    else {
                        continue;
                    };
                    add_branch(&mut out.forks, at, branch);
                }
            }
            node = chosen;
        }
        Ok(out)
    }
}

/// Puts `branch` in the fork at user message `at`, made when missing with
/// the branch in view (its messages are in the history) as its first.
fn add_branch(forks: &mut Vec<Fork>, at: usize, branch: Branch) {
    let i = match forks.iter().position(|f| f.at == at) {
        Some(i) => i,
        None => {
            forks.push(Fork {
                at,
                current: 0,
                branches: vec![Branch::default()],
            });
            forks.len() - 1
        }
    };
    forks[i].branches.push(branch);
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
        // The first version of the edited question is a branch of it.
        assert!(got.left_out.is_empty(), "{:?}", got.left_out);
        assert_eq!(d.session.forks.len(), 1);
        let fork = &d.session.forks[0];
        assert_eq!((fork.at, fork.current, fork.branches.len()), (1, 0, 2));
        let other: Vec<String> = fork.branches[1]
            .messages
            .iter()
            .map(Message::text)
            .collect();
        assert_eq!(other, ["And in the rain?", "Museums."]);
        let mut history = d.session.history.clone();
        let mut forks = d.session.forks.clone();
        baton_agent::switch(&mut history, &mut forks, 1, 1).unwrap();
        let texts: Vec<String> = history.iter().map(Message::text).collect();
        assert_eq!(texts[2..], ["And in the rain?", "Museums."]);
    }

    #[test]
    fn an_answer_chatgpt_was_asked_for_again_is_a_branch_of_its_question() {
        let mut export = chatgpt_export();
        let m = export[0]["mapping"].as_object_mut().unwrap();
        m["u2b"]["children"] = json!(["a2c", "a2b"]);
        m.insert(
            "a2c".into(),
            json!({"parent": "u2b", "children": [], "message": {"author": {"role": "assistant"}, "content": {"parts": ["Try Cervejaria Ramiro."]}}}),
        );
        let got = read(&export).unwrap();
        let forks = &got.sessions[0].session.forks;
        let at2: Vec<_> = forks.iter().map(|f| (f.at, f.branches.len())).collect();
        assert_eq!(
            at2,
            [(1, 3)],
            "both kinds of branch part at the second question"
        );
        let again: Vec<String> = forks[0].branches[2]
            .messages
            .iter()
            .map(Message::text)
            .collect();
        assert_eq!(again, ["Where should I eat?", "Try Cervejaria Ramiro."]);
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
