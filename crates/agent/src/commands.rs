//! Slash commands, one handler for every front door (`baton chat`, the
//! desktop app, the HTTP server).

use crate::compact::{CompactionPolicy, compact};
use crate::ids::SessionId;
use crate::repo::SessionRepo;
use crate::session::Session;

/// What a typed line did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutcome {
    /// Not a slash command: send it to the model.
    NotACommand,
    /// Handled; show this.
    Reply(String),
    /// Handled, and the model override changed (rebuild the provider).
    ModelChanged(String),
    /// `/session bypass PROMPT`: answer PROMPT on its own, without the
    /// conversation's history, and add nothing to it.
    Bypass(String),
    /// `/document WHAT`: the document-preparer writes WHAT as a document
    /// from the conversation and its files (a turn of its own).
    Document(String),
    /// `/edit N TEXT`: user message N sent again as TEXT, a new branch
    /// (a turn: `send` reads the line with [`edit_request`]).
    Edit,
}

/// The user message (0: the first) and new words of an `/edit N TEXT`
/// line (N counts from 1, as `/branch` shows it).
pub fn edit_request(line: &str) -> Option<(usize, &str)> {
    let rest = line.trim().strip_prefix('/')?;
    let (cmd, rest) = rest.split_once(char::is_whitespace)?;
    let (n, text) = rest.trim_start().split_once(char::is_whitespace)?;
    let n: usize = n.parse().ok().filter(|n| *n >= 1)?;
    (cmd.eq_ignore_ascii_case("edit") && !text.trim().is_empty()).then(|| (n - 1, text.trim()))
}

/// The agent `/document` hands the request to.
pub const DOCUMENT_AGENT: &str = "document-preparer";

/// The request of a `/document WHAT` line.
pub fn document_request(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix('/')?;
    let (cmd, what) = rest.split_once(char::is_whitespace)?;
    cmd.eq_ignore_ascii_case("document")
        .then(|| what.trim())
        .filter(|w| !w.is_empty())
}

/// The prompt of a `/session bypass PROMPT` line.
pub fn bypass_prompt(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix('/')?;
    let (cmd, rest) = rest.split_once(char::is_whitespace)?;
    let (sub, prompt) = rest.trim_start().split_once(char::is_whitespace)?;
    (cmd.eq_ignore_ascii_case("session") && sub.eq_ignore_ascii_case("bypass"))
        .then(|| prompt.trim())
        .filter(|p| !p.is_empty())
}

/// The commands and what they do.
pub const HELP: &str = "\
/help                    this list
/session info            id, title, size, model and instructions
/session reset           forget the conversation
/session compact         shrink the history (drop tool traffic, keep recent exchanges)
/session bypass PROMPT   answer PROMPT without the history, adding nothing to it
/session disable         answer each message on its own, keeping no history
/session enable          keep history again
/session save NAME       save the conversation as NAME
/session load NAME       continue a saved conversation
/session delete NAME     delete a saved conversation
/session list            saved conversations
/document WHAT           have the document-preparer write WHAT (a report, a letter…) as a
                         Word, PDF or web document from this conversation and its files
/edit N TEXT             send user message N again as TEXT: a new branch (the old one is kept)
/branch                  the branches of edited messages, and which is shown
/branch N M              show branch M of user message N
/model NAME              use another model for this session
/instructions TEXT       extra instructions for this session (empty clears)";

/// Handles `line` if it is a slash command (`/session save|load|delete|list`
/// use `repo`).
pub async fn handle_command(
    line: &str,
    session: &mut Session,
    repo: &dyn SessionRepo,
    policy: &CompactionPolicy,
) -> CommandOutcome {
    let line = line.trim();
    let Some(rest) = line.strip_prefix('/') else {
        return CommandOutcome::NotACommand;
    };
    let (cmd, arg) = match rest.split_once(char::is_whitespace) {
        Some((c, a)) => (c, a.trim()),
        None => (rest, ""),
    };
    let reply = |s: String| CommandOutcome::Reply(s);
    match cmd.to_ascii_lowercase().as_str() {
        "help" | "?" => reply(HELP.to_string()),
        "model" if arg.is_empty() => reply(format!(
            "model: {}",
            session
                .model
                .as_deref()
                .unwrap_or("(the provider's default)")
        )),
        "model" => {
            session.model = Some(arg.to_string());
            CommandOutcome::ModelChanged(arg.to_string())
        }
        "instructions" => {
            session.instructions = (!arg.is_empty()).then(|| arg.to_string());
            reply(match &session.instructions {
                Some(i) => format!("instructions set: {i}"),
                None => "instructions cleared".into(),
            })
        }
        "session" => session_command(line, arg, session, repo, policy).await,
        "edit" => match edit_request(line) {
            Some(_) => CommandOutcome::Edit,
            None => reply("usage: /edit N TEXT (N: the user message, 1 the first)".into()),
        },
        "branch" | "branches" => reply(branch_command(arg, session)),
        "document" => match document_request(line) {
            Some(what) => CommandOutcome::Document(what.to_string()),
            None => reply(
                "usage: /document WHAT (e.g. /document a two-page PDF report of these figures)"
                    .into(),
            ),
        },
        other => reply(format!(
            "unknown command /{other}; /help lists the commands"
        )),
    }
}

/// `/branch` (list) and `/branch N M` (show branch M of user message N;
/// both count from 1).
fn branch_command(arg: &str, session: &mut Session) -> String {
    let numbers: Vec<Option<usize>> = arg.split_whitespace().map(|w| w.parse().ok()).collect();
    match numbers.as_slice() {
        [] => branch_list(session),
        [Some(n), Some(m)] if *n >= 1 && *m >= 1 => {
            let Session { history, forks, .. } = session;
            match crate::switch(history, forks, n - 1, m - 1) {
                Ok(()) => format!("user message {n}: branch {m} shown"),
                Err(e) => e.to_string(),
            }
        }
        _ => "usage: /branch (list) or /branch N M (show branch M of user message N)".into(),
    }
}

/// Each edited user message, its branches and the one shown.
fn branch_list(session: &Session) -> String {
    let mut forks: Vec<&crate::Fork> = session.forks.iter().collect();
    forks.sort_by_key(|f| f.at);
    let lines: Vec<String> = forks
        .iter()
        .map(|f| {
            let said = crate::user_message_index(&session.history, f.at)
                .map(|i| session.history[i].text())
                .unwrap_or_default();
            let said: String = said.chars().take(60).collect();
            format!(
                "user message {} (\"{said}\"): branch {} of {} shown",
                f.at + 1,
                f.current + 1,
                f.branches.len()
            )
        })
        .collect();
    match lines.is_empty() {
        true => "no message has been edited: there are no branches (/edit N TEXT makes one)".into(),
        false => lines.join("\n"),
    }
}

/// `/session SUB [NAME]`.
async fn session_command(
    line: &str,
    arg: &str,
    session: &mut Session,
    repo: &dyn SessionRepo,
    policy: &CompactionPolicy,
) -> CommandOutcome {
    let reply = |s: String| CommandOutcome::Reply(s);
    let (sub, name) = match arg.split_once(char::is_whitespace) {
        Some((s, n)) => (s, n.trim()),
        None => (arg, ""),
    };
    let sub = sub.to_ascii_lowercase();
    match sub.as_str() {
        "info" | "" => reply(session_info(session, repo)),
        "reset" => {
            let n = session.history.len();
            session.history.clear();
            session.forks.clear();
            session.title.clear();
            reply(format!("conversation cleared ({n} messages)"))
        }
        "compact" => {
            let users = crate::user_messages(&session.history);
            let r = compact(&mut session.history, policy.keep_exchanges);
            let gone = users - crate::user_messages(&session.history);
            crate::shift_forks(&mut session.forks, gone);
            reply(format!(
                "compacted: {} → {} messages ({} tool messages dropped, {} older messages trimmed)",
                r.before, r.after, r.tool_messages_dropped, r.window_trimmed
            ))
        }
        "bypass" => match bypass_prompt(line) {
            Some(prompt) => CommandOutcome::Bypass(prompt.to_string()),
            None => reply("usage: /session bypass PROMPT".into()),
        },
        "disable" => {
            session.history_enabled = false;
            reply("history off: each message is answered on its own and nothing is added to this conversation (/session enable turns it back on)".into())
        }
        "enable" => {
            session.history_enabled = true;
            reply("history on: messages are answered with the conversation so far".into())
        }
        "save" | "load" | "delete" if name.is_empty() => {
            reply(format!("usage: /session {sub} NAME"))
        }
        "save" | "load" | "delete" => reply(saved_session(&sub, name, session, repo).await),
        "list" => reply(saved_list(repo).await),
        other => reply(format!(
            "unknown /session command `{other}`; /help lists the commands"
        )),
    }
}

/// `/session info`.
fn session_info(session: &Session, repo: &dyn SessionRepo) -> String {
    format!(
        "session {} — {}\n{} messages (history {}); model: {}; instructions: {}\nsaved in {}",
        session.id,
        if session.title.is_empty() {
            "(untitled)"
        } else {
            &session.title
        },
        session.history.len(),
        if session.history_enabled { "on" } else { "off" },
        session.model.as_deref().unwrap_or("(default)"),
        session.instructions.as_deref().unwrap_or("(none)"),
        repo.place()
    )
}

/// `/session save|load|delete NAME`.
async fn saved_session(
    sub: &str,
    name: &str,
    session: &mut Session,
    repo: &dyn SessionRepo,
) -> String {
    let id = match SessionId::parse(name) {
        Ok(id) => id,
        Err(e) => return format!("error: {e}"),
    };
    match sub {
        "save" => {
            let copy = Session {
                id: id.clone(),
                ..session.clone()
            };
            match repo.save(&copy).await {
                Ok(()) => format!("saved as `{id}` ({})", repo.place()),
                Err(e) => format!("error: {e}"),
            }
        }
        "load" => match repo.load(&id).await {
            Ok(s) => {
                let n = s.history.len();
                *session = s;
                format!("loaded `{id}` ({n} messages)")
            }
            Err(e) => format!("error: {e}"),
        },
        _ => match repo.delete(&id).await {
            Ok(true) => format!("deleted `{id}`"),
            Ok(false) => format!("error: no saved session named `{id}`"),
            Err(e) => format!("error: {e}"),
        },
    }
}

/// `/session list`.
async fn saved_list(repo: &dyn SessionRepo) -> String {
    let mut all = match repo.list().await {
        Ok(all) => all,
        Err(e) => return format!("error: {e}"),
    };
    if all.is_empty() {
        return "no saved sessions".into();
    }
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all.iter()
        .map(|s| format!("{}  {}", s.id, s.title))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionStore;
    use baton_llm::Message;

    #[tokio::test]
    async fn session_commands_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let p = CompactionPolicy::default();
        let mut s = Session::new();
        s.history = vec![Message::user("hi"), Message::assistant("hello")];
        assert_eq!(
            handle_command("hello", &mut s, &store, &p).await,
            CommandOutcome::NotACommand
        );
        assert!(
            matches!(handle_command("/help", &mut s, &store, &p).await, CommandOutcome::Reply(h) if h.contains("/session save NAME"))
        );
        assert!(
            matches!(handle_command("/session save work", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.starts_with("saved as `work`"))
        );
        assert!(
            matches!(handle_command("/session reset", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("2 messages"))
        );
        assert!(s.history.is_empty());
        assert!(
            matches!(handle_command("/session load work", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("2 messages"))
        );
        assert_eq!(s.history.len(), 2);
        assert_eq!(
            handle_command("/model gpt-x", &mut s, &store, &p).await,
            CommandOutcome::ModelChanged("gpt-x".into())
        );
        assert_eq!(s.model.as_deref(), Some("gpt-x"));
        assert!(matches!(
            handle_command("/instructions Be terse.", &mut s, &store, &p).await,
            CommandOutcome::Reply(_)
        ));
        assert_eq!(s.instructions.as_deref(), Some("Be terse."));
        assert!(
            matches!(handle_command("/session info", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("2 messages") && r.contains("gpt-x"))
        );
        assert!(
            matches!(handle_command("/session delete work", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r == "deleted `work`")
        );
        assert!(
            matches!(handle_command("/session load work", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("no saved session named `work`"))
        );
        assert!(
            matches!(handle_command("/session save ../x", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("not a usable session name"))
        );
        assert!(
            matches!(handle_command("/frobnicate", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("unknown command /frobnicate"))
        );
    }

    #[tokio::test]
    async fn bypass_enable_and_disable() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let p = CompactionPolicy::default();
        let mut s = Session::new();
        assert_eq!(
            handle_command("/session bypass  what is 2+2? ", &mut s, &store, &p).await,
            CommandOutcome::Bypass("what is 2+2?".into())
        );
        assert_eq!(bypass_prompt("/Session BYPASS hi"), Some("hi"));
        assert_eq!(bypass_prompt("/session bypass"), None);
        assert_eq!(bypass_prompt("hello"), None);
        assert!(
            matches!(handle_command("/session bypass", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.starts_with("usage"))
        );
        assert!(
            matches!(handle_command("/session disable", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.starts_with("history off"))
        );
        assert!(!s.history_enabled);
        assert!(
            matches!(handle_command("/session info", &mut s, &store, &p).await, CommandOutcome::Reply(r) if r.contains("(history off)"))
        );
        let saved: Session = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert!(!saved.history_enabled);
        handle_command("/session enable", &mut s, &store, &p).await;
        assert!(s.history_enabled);
    }
}
