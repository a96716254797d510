//! ChatGPT's and Claude's data exports (`conversations.json`, an array of
//! conversations in both; told apart by their fields).
//!
//! ChatGPT keeps a conversation as a tree (`mapping`: each node has a
//! message, its parent and its children; an edited message starts a
//! branch) and `current_node` is the leaf the user saw last: the branch
//! from the root to it is the history, and every other branch comes over
//! as a Baton branch of the message where it parts. Claude keeps a
//! list (`chat_messages`, `sender` human or assistant).

use std::collections::HashMap;
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
    let tree = Tree::chatgpt(mapping, c["current_node"].as_str())?;
    let shown = tree.branch_from(ROOT, 0, 0)?;
    session.history = shown.messages;
    session.forks = shown.forks;
    let when = c["update_time"].as_f64().or(c["create_time"].as_f64());
    Ok(Dated::new(session, secs(when.unwrap_or(0.0))))
}

/// The tree's root: above the first message (ChatGPT's own root node, or
/// every first message of a Claude conversation whose first question was
/// edited).
const ROOT: usize = 0;

/// One message of a conversation's tree.
#[derive(Default)]
struct Node {
    /// The user's or the assistant's words (none for system prompts, tool
    /// traffic, empty messages and the root).
    message: Option<Message>,
    parent: Option<usize>,
    children: Vec<usize>,
}

/// A conversation's tree of messages (ChatGPT's `mapping`, Claude's
/// messages with their parents) and the branch the user saw last.
struct Tree {
    nodes: Vec<Node>,
    /// On the branch shown, by node.
    shown: Vec<bool>,
}

impl Tree {
    /// ChatGPT's `mapping` (each node names its parent and children) with
    /// `current_node`, the leaf shown last.
    fn chatgpt(
        mapping: &serde_json::Map<String, Value>,
        current: Option<&str>,
    ) -> Result<Tree, String> {
        let index: HashMap<&str, usize> = mapping
            .keys()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i + 1))
            .collect();
        let mut nodes = vec![Node::default()];
        for entry in mapping.values() {
            let parent = match entry["parent"].as_str() {
                None => Some(ROOT),
                Some(p) => index.get(p).copied(),
            };
            let children = entry["children"].as_array().into_iter().flatten();
            nodes.push(Node {
                message: chatgpt_message(&entry["message"]),
                parent,
                children: children
                    .filter_map(|c| index.get(c.as_str()?).copied())
                    .collect(),
            });
        }
        nodes[ROOT].children = (1..nodes.len())
            .filter(|&i| nodes[i].parent == Some(ROOT))
            .collect();
        if nodes.len() > 1 && nodes[ROOT].children.is_empty() {
            return Err("its messages have no first one".into());
        }
        let leaf = match current {
            None => None,
            Some(n) => Some(
                *index
                    .get(n)
                    .ok_or_else(|| format!("message {n} is missing"))?,
            ),
        };
        Tree::with_shown(nodes, leaf, |i| {
            let missing = mapping
                .values()
                .nth(i - 1)
                .and_then(|e| e["parent"].as_str());
            format!("message {} is missing", missing.unwrap_or("?"))
        })
    }

    /// Claude's messages: each names its parent (`parent_message_uuid`;
    /// an edited or regenerated message is a sibling, so the list holds
    /// every branch) and the conversation its leaf shown
    /// (`current_leaf_message_uuid`, else the newest message). An older
    /// export without parents is one branch in the order given.
    fn claude(c: &Value, messages: &[Value]) -> Result<Tree, String> {
        let index: HashMap<&str, usize> = messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((m["uuid"].as_str()?, i + 1)))
            .collect();
        let with_parents = messages
            .iter()
            .any(|m| m.get("parent_message_uuid").is_some());
        let mut nodes = vec![Node::default()];
        for (i, m) in messages.iter().enumerate() {
            let parent = if with_parents {
                let p = m["parent_message_uuid"].as_str();
                p.and_then(|p| index.get(p).copied()).unwrap_or(ROOT)
            } else {
                i
            };
            nodes.push(Node {
                message: claude_message(m),
                parent: Some(parent),
                children: Vec::new(),
            });
        }
        for i in 1..nodes.len() {
            if let Some(p) = nodes[i].parent {
                nodes[p].children.push(i);
            }
        }
        let newest = (1..nodes.len()).max_by_key(|&i| messages[i - 1]["created_at"].as_str());
        let leaf = c["current_leaf_message_uuid"]
            .as_str()
            .and_then(|l| index.get(l).copied())
            .or(newest);
        // Parents come from the same list, so none is missing.
        Tree::with_shown(nodes, leaf, |_| "a message is missing".into())
    }

    /// The tree with the branch from the root to `leaf` marked as shown;
    /// a loop, or a parent that is not there, is damage.
    fn with_shown(
        nodes: Vec<Node>,
        leaf: Option<usize>,
        missing: impl Fn(usize) -> String,
    ) -> Result<Tree, String> {
        let mut shown = vec![false; nodes.len()];
        let mut node = leaf;
        while let Some(n) = node.filter(|&n| n != ROOT) {
            if std::mem::replace(&mut shown[n], true) {
                return Err("its messages form a loop".into());
            }
            node = Some(nodes[n].parent.ok_or_else(|| missing(n))?);
        }
        Ok(Tree { nodes, shown })
    }

    fn is_user(&self, node: usize) -> bool {
        matches!(self.nodes[node].message, Some(Message::User { .. }))
    }

    /// Whether the first message at or below `node` (down the branch it
    /// would show) is the user's.
    fn starts_with_user(&self, node: usize) -> bool {
        let mut node = node;
        for _ in 0..=self.nodes.len() {
            if self.nodes[node].message.is_some() {
                return self.is_user(node);
            }
            let Some(next) = self.pick(&self.nodes[node].children) else {
                return false;
            };
            node = next;
        }
        false
    }

    /// The child on the branch shown, else the newest.
    fn pick(&self, children: &[usize]) -> Option<usize> {
        children
            .iter()
            .find(|c| self.shown[**c])
            .or(children.last())
            .copied()
    }

    /// A child that is not on the branch in view, as a branch of the
    /// user message where it parts: the next one (an edited question) or
    /// the last one (an answer asked for again: the question comes first).
    fn alternative(
        &self,
        child: usize,
        users: usize,
        last_user: &Option<(usize, Message)>,
        depth: usize,
    ) -> Result<Option<(usize, Branch)>, String> {
        let mut branch = self.branch_from(child, users, depth + 1)?;
        if self.starts_with_user(child) {
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
    fn branch_from(&self, node: usize, users: usize, depth: usize) -> Result<Branch, String> {
        if depth > self.nodes.len() {
            return Err("its messages form a loop".into());
        }
        let mut out = Branch::default();
        let (mut users, mut last_user) = (users, None::<(usize, Message)>);
        let mut node = Some(node);
        let mut steps = 0;
        while let Some(id) = node {
            steps += 1;
            if steps > self.nodes.len() {
                return Err("its messages form a loop".into());
            }
            if let Some(m) = &self.nodes[id].message {
                if self.is_user(id) {
                    last_user = Some((users, m.clone()));
                    users += 1;
                }
                out.messages.push(m.clone());
            }
            let children = &self.nodes[id].children;
            let chosen = self.pick(children);
            for &child in children.iter().filter(|c| Some(**c) != chosen) {
                let Some((at, branch)) = self.alternative(child, users, &last_user, depth)? else {
                    continue;
                };
                add_branch(&mut out.forks, at, branch);
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

/// One Claude conversation: the branch shown last, every other branch
/// (an edited question, an answer asked for again) kept as a Baton branch
/// as for ChatGPT.
fn claude(c: &Value, left_out: &mut Vec<String>) -> Result<Dated, String> {
    let title = c["name"].as_str().filter(|t| !t.is_empty());
    let title = title.unwrap_or("Claude conversation");
    let id = c["uuid"].as_str().ok_or("it has no uuid")?;
    let mut session = session_for("claude", id, title)?;
    let messages = c["chat_messages"]
        .as_array()
        .ok_or("its messages are missing")?;
    let files: usize = messages
        .iter()
        .map(|m| {
            m["attachments"].as_array().map_or(0, Vec::len)
                + m["files"].as_array().map_or(0, Vec::len)
        })
        .sum();
    if files > 0 {
        left_out.push(format!(
            "\u{201c}{title}\u{201d}: {files} attached file{} left out (the export holds their names only)",
            if files == 1 { "" } else { "s" }
        ));
    }
    let shown = Tree::claude(c, messages)?.branch_from(ROOT, 0, 0)?;
    session.history = shown.messages;
    session.forks = shown.forks;
    let when = c["updated_at"].as_str().or(c["created_at"].as_str());
    let when = when
        .and_then(|w| chrono::DateTime::parse_from_rfc3339(w).ok())
        .map_or(UNIX_EPOCH, |d| secs(d.timestamp() as f64));
    Ok(Dated::new(session, when))
}

/// A Claude message as Baton's, when it has words (the human's or the
/// assistant's).
fn claude_message(m: &Value) -> Option<Message> {
    let text = claude_text(m);
    if text.trim().is_empty() {
        return None;
    }
    match m["sender"].as_str()? {
        "human" => Some(Message::user(text)),
        "assistant" => Some(Message::assistant(text)),
        _ => None,
    }
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

    /// A Claude conversation as its export holds it: every message names
    /// its parent (first messages the zero id), so an edited first question
    /// is a second first message and an answer asked for again a second
    /// child; the list holds every branch.
    fn claude_with_branches() -> Value {
        let root = "00000000-0000-4000-8000-000000000000";
        let m = |id: &str, parent: &str, sender: &str, text: &str, at: &str| {
            json!({"uuid": id, "parent_message_uuid": parent, "sender": sender, "text": text,
                   "content": [{"type": "text", "text": text}], "created_at": format!("2025-04-01T09:{at}:00Z"),
                   "attachments": [], "files": []})
        };
        json!([{
            "uuid": "c-porto", "name": "Porto", "created_at": "2025-04-01T09:00:00Z", "updated_at": "2025-04-01T09:11:00Z",
            "chat_messages": [
                m("m1", root, "human", "Plan a day in Porto.", "00"),
                m("m2", "m1", "assistant", "Ribeira, then Livraria Lello.", "01"),
                m("m3", "m2", "human", "Where to eat?", "02"),
                m("m4", "m3", "assistant", "Try Cantinho do Avillez.", "03"),
                m("m5", "m3", "assistant", "Try Cafe Santiago.", "05"),
                m("m1b", root, "human", "Plan a rainy day in Porto.", "10"),
                m("m2b", "m1b", "assistant", "Serralves museum.", "11"),
            ]
        }])
    }

    fn texts(messages: &[Message]) -> Vec<String> {
        messages.iter().map(Message::text).collect()
    }

    #[test]
    fn claude_gives_the_branch_shown_last_and_keeps_the_others_as_branches() {
        let got = read(&claude_with_branches()).unwrap();
        let session = &got.sessions[0].session;
        // No leaf named: the newest message's branch is the one shown.
        assert_eq!(
            texts(&session.history),
            ["Plan a rainy day in Porto.", "Serralves museum."]
        );
        assert_eq!(session.forks.len(), 1, "{:#?}", session.forks);
        let fork = &session.forks[0];
        assert_eq!((fork.at, fork.current, fork.branches.len()), (0, 0, 2));
        let first = &fork.branches[1];
        assert_eq!(
            texts(&first.messages),
            [
                "Plan a day in Porto.",
                "Ribeira, then Livraria Lello.",
                "Where to eat?",
                "Try Cafe Santiago."
            ],
            "the newest answer on a branch not shown"
        );
        // The answer asked for again parts at its question.
        assert_eq!(first.forks.len(), 1);
        assert_eq!(first.forks[0].at, 1);
        assert_eq!(
            texts(&first.forks[0].branches[1].messages),
            ["Where to eat?", "Try Cantinho do Avillez."]
        );

        // The leaf the conversation names wins over the newest message.
        let mut export = claude_with_branches();
        export[0]["current_leaf_message_uuid"] = json!("m4");
        let got = read(&export).unwrap();
        let session = &got.sessions[0].session;
        assert_eq!(
            texts(&session.history),
            [
                "Plan a day in Porto.",
                "Ribeira, then Livraria Lello.",
                "Where to eat?",
                "Try Cantinho do Avillez."
            ]
        );
        let mut history = session.history.clone();
        let mut forks = session.forks.clone();
        baton_agent::switch(&mut history, &mut forks, 0, 1).unwrap();
        assert_eq!(
            texts(&history),
            ["Plan a rainy day in Porto.", "Serralves museum."]
        );
    }

    #[test]
    fn claude_messages_naming_each_other_as_parents_are_damage() {
        let mut export = claude_with_branches();
        export[0]["chat_messages"][0]["parent_message_uuid"] = json!("m2");
        export[0]["current_leaf_message_uuid"] = json!("m2");
        let e = read(&export).unwrap_err();
        assert!(e.to_string().contains("form a loop"), "{e}");
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
