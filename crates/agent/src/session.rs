//! Conversations on disk: one JSON file per session, written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use baton_llm::Message;
use serde::{Deserialize, Serialize};

use crate::ids::{BadSessionId, SessionId};

/// A conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Identifier (also the file name).
    pub id: SessionId,
    /// Title (from the first user message).
    pub title: String,
    /// The stored history (never holds per-call dynamic context).
    pub history: Vec<Message>,
    /// Model override (`/model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extra instructions (`/instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The named agent it talks to (the default when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Whether history is kept (`/session disable` turns it off: each
    /// message is then answered on its own and nothing is added).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub history_enabled: bool,
    /// The exchanges that were spoken, with their timing (a voice
    /// conversation, or a chat continued by voice).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voice: Vec<VoiceTurn>,
    /// The passages answers cited, so a reopened conversation shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cited: Vec<CitedAnswer>,
    /// The project it belongs to (`None`: none); its folder is the
    /// conversation's workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<baton_config::ProjectId>,
    /// The branches kept where an earlier user message was edited and
    /// sent again (the one in view is in `history`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forks: Vec<crate::Fork>,
    /// What was set for the other agents this conversation talked to
    /// (`/model`, `/instructions`, `/session disable`), by agent name:
    /// each agent gets back its own when the conversation returns to it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other_agents: BTreeMap<String, AgentSettings>,
}

/// What a conversation set for one agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSettings {
    /// Model override (`/model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extra instructions (`/instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Whether history is kept.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub history_enabled: bool,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            model: None,
            instructions: None,
            history_enabled: true,
        }
    }
}

/// The citations of one answer. The answer is known by its text's SHA-256,
/// not its place in the history: compaction, edits and regeneration move
/// or drop messages, and a citation must never land under another answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CitedAnswer {
    /// SHA-256 (hex) of the answer's text.
    pub answer: String,
    /// The passages it cites, in the order first cited.
    pub citations: Vec<baton_tools::Citation>,
}

/// The key an answer's citations are kept under.
fn answer_key(answer: &str) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(answer.trim().as_bytes()))
}

/// One spoken exchange: which user message was said aloud, and how fast
/// the answer was heard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoiceTurn {
    /// The index in `history` of the user message that was spoken.
    pub message: usize,
    /// Transcribing the speech (milliseconds).
    pub stt_ms: f64,
    /// From the end of the user's speech to the answer's first sound
    /// (`None`: nothing was played).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_audio_ms: Option<f64>,
    /// The sentences spoken aloud.
    pub sentences: usize,
    /// Whether the user talked over the answer (or stopped it).
    pub interrupted: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// A new, empty session with a fresh id.
    pub fn new() -> Self {
        Self::with_id(SessionId::new())
    }

    /// A new, empty session named `id`.
    pub fn with_id(id: SessionId) -> Self {
        Self {
            id,
            title: String::new(),
            history: Vec::new(),
            model: None,
            instructions: None,
            agent: None,
            history_enabled: true,
            voice: Vec::new(),
            cited: Vec::new(),
            project: None,
            forks: Vec::new(),
            other_agents: BTreeMap::new(),
        }
    }

    /// Talks to `agent` from now on: the model, instructions and history
    /// switch set for the agent it talked to are kept for that one, and
    /// those set earlier for `agent` come back (none: the agent's own).
    /// `default` names the agent it talked to when the session names
    /// none; it is asked only when there is something to keep.
    pub fn switch_agent(&mut self, agent: &str, default: impl FnOnce() -> String) {
        let Some(was) = self.agent.replace(agent.to_string()).or_else(|| {
            let kept = self.model.is_some() || self.instructions.is_some() || !self.history_enabled;
            kept.then(default)
        }) else {
            // Nothing set for the default agent: only `agent`'s come back.
            self.take_settings_of(agent);
            return;
        };
        if was == agent {
            return;
        }
        let mine = AgentSettings {
            model: self.model.take(),
            instructions: self.instructions.take(),
            history_enabled: std::mem::replace(&mut self.history_enabled, true),
        };
        if mine != AgentSettings::default() {
            self.other_agents.insert(was, mine);
        }
        self.take_settings_of(agent);
    }

    /// What was kept for `agent`, made the session's own again.
    fn take_settings_of(&mut self, agent: &str) {
        if let Some(theirs) = self.other_agents.remove(agent) {
            self.model = theirs.model;
            self.instructions = theirs.instructions;
            self.history_enabled = theirs.history_enabled;
        }
    }

    /// Keeps `citations` for the answer whose text is `answer`, and forgets
    /// those of answers no longer in the history.
    pub fn note_citations(&mut self, answer: &str, citations: Vec<baton_tools::Citation>) {
        // Most answers cite nothing: then, with nothing kept, there is
        // nothing to do (no hashing of the whole history every turn).
        if citations.is_empty() && self.cited.is_empty() {
            return;
        }
        let kept: std::collections::HashSet<String> = self
            .history
            .iter()
            .filter_map(|m| match m {
                Message::Assistant { content, .. } if !content.trim().is_empty() => {
                    Some(answer_key(content))
                }
                _ => None,
            })
            .collect();
        self.cited.retain(|c| kept.contains(&c.answer));
        let key = answer_key(answer);
        self.cited.retain(|c| c.answer != key);
        if !citations.is_empty() {
            self.cited.push(CitedAnswer {
                answer: key,
                citations,
            });
        }
    }

    /// The citations kept for the answer whose text is `answer`.
    pub fn citations_of(&self, answer: &str) -> &[baton_tools::Citation] {
        let key = answer_key(answer);
        self.cited
            .iter()
            .find(|c| c.answer == key)
            .map_or(&[], |c| c.citations.as_slice())
    }

    /// Sets the title from the first user message if there is none yet.
    pub fn title_from(&mut self, prompt: &str) {
        if self.title.is_empty() {
            let line = prompt
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim();
            self.title = line.chars().take(60).collect();
        }
    }
}

/// A saved session as a list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// Id (the file name).
    pub id: SessionId,
    /// Title.
    pub title: String,
    /// Last saved.
    pub modified: std::time::SystemTime,
    /// Stored messages.
    pub messages: usize,
    /// The named agent it talks to (`None`: the default).
    pub agent: Option<String>,
    /// How many exchanges were spoken ([`Session::voice`]).
    pub voice_turns: usize,
    /// The project it belongs to.
    pub project: Option<baton_config::ProjectId>,
}

impl SessionInfo {
    /// What a list shows of `session`, last saved at `modified`.
    pub fn of(session: &Session, modified: std::time::SystemTime) -> Self {
        Self {
            id: session.id.clone(),
            title: session.title.clone(),
            modified,
            messages: session.history.len(),
            agent: session.agent.clone(),
            voice_turns: session.voice.len(),
            project: session.project.clone(),
        }
    }
}

/// What a list needs from a session file.
#[derive(Deserialize)]
struct SessionHead {
    #[serde(default)]
    title: String,
    #[serde(default)]
    history: Count,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    voice: Count,
    #[serde(default)]
    project: Option<baton_config::ProjectId>,
}

/// The length of a JSON array, its elements skipped.
#[derive(Default)]
struct Count(usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Count, A::Error> {
                let mut n = 0;
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
        }
        d.deserialize_seq(Visit)
    }
}

/// Session store failures, naming the session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No such session.
    #[error("no saved session named `{0}`")]
    NotFound(SessionId),
    /// A name that cannot be a session id.
    #[error(transparent)]
    BadName(#[from] BadSessionId),
    /// Reading or writing failed.
    #[error("session `{name}`: {source}")]
    Io {
        /// The session.
        name: SessionId,
        /// The error.
        source: std::io::Error,
    },
    /// The stored session is not a session.
    #[error("session `{name}` is damaged: {reason}")]
    Corrupt {
        /// The session.
        name: SessionId,
        /// What is wrong.
        reason: String,
    },
    /// The store cannot be reached (a shared server that is down).
    #[error("the session store ({place}) cannot be reached: {reason}")]
    Unavailable {
        /// Which store, for the message.
        place: String,
        /// Why.
        reason: String,
    },
}

/// A folder of session files: the engine's own sessions (what `baton chat
/// --session` and the desktop open), one JSON file each, written
/// atomically and readable by the user only.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    /// A store in `dir` (created on first save).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file session `id` is kept in.
    pub fn path(&self, id: &SessionId) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Saves under the session's id.
    pub fn save(&self, session: &Session) -> Result<PathBuf, SessionError> {
        let path = self.path(&session.id);
        let text = serde_json::to_vec_pretty(session).expect("session serializes");
        baton_stdx::atomic_write_private(&path, &text).map_err(|source| SessionError::Io {
            name: session.id.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Loads session `id`.
    pub fn load(&self, id: &SessionId) -> Result<Session, SessionError> {
        let bytes = std::fs::read(self.path(id)).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                SessionError::NotFound(id.clone())
            } else {
                SessionError::Io {
                    name: id.clone(),
                    source,
                }
            }
        })?;
        let mut session: Session =
            serde_json::from_slice(&bytes).map_err(|e| SessionError::Corrupt {
                name: id.clone(),
                reason: e.to_string(),
            })?;
        // The file's name is the id (a copy saved under another name).
        session.id = id.clone();
        Ok(session)
    }

    /// Deletes a session; `Ok(false)` when there was none.
    pub fn delete(&self, id: &SessionId) -> Result<bool, SessionError> {
        match std::fs::remove_file(self.path(id)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(SessionError::Io {
                name: id.clone(),
                source,
            }),
        }
    }

    /// Saved sessions with what a sidebar shows, newest first.
    pub fn summaries(&self) -> Vec<SessionInfo> {
        let mut out: Vec<SessionInfo> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name();
                let id = SessionId::parse(name.to_string_lossy().strip_suffix(".json")?).ok()?;
                let modified = e.metadata().ok()?.modified().ok()?;
                // Only the title and a count: the messages are skipped, not built.
                let s: SessionHead = serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok()?;
                Some(SessionInfo {
                    id,
                    title: s.title,
                    modified,
                    messages: s.history.0,
                    agent: s.agent,
                    voice_turns: s.voice.0,
                    project: s.project,
                })
            })
            .collect();
        out.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
        out
    }

    /// Moves a session to the trash folder, where [`restore`](Self::restore)
    /// finds it again (delete with undo).
    pub fn trash(&self, id: &SessionId) -> Result<(), SessionError> {
        let from = self.path(id);
        let trash = self.dir.join(".trash");
        let io = |source| SessionError::Io {
            name: id.clone(),
            source,
        };
        if !from.exists() {
            return Err(SessionError::NotFound(id.clone()));
        }
        std::fs::create_dir_all(&trash).map_err(io)?;
        std::fs::rename(&from, trash.join(format!("{id}.json"))).map_err(io)
    }

    /// Brings a trashed session back.
    pub fn restore(&self, id: &SessionId) -> Result<Session, SessionError> {
        let from = self.dir.join(".trash").join(format!("{id}.json"));
        if !from.exists() {
            return Err(SessionError::NotFound(id.clone()));
        }
        std::fs::rename(&from, self.path(id)).map_err(|source| SessionError::Io {
            name: id.clone(),
            source,
        })?;
        self.load(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_gets_back_what_was_set_for_it() {
        let mut s = Session::new();
        s.model = Some("big-model".into());
        s.history_enabled = false;
        s.switch_agent("researcher", || "assistant".into());
        assert_eq!(s.agent.as_deref(), Some("researcher"));
        assert_eq!((s.model.as_deref(), s.history_enabled), (None, true));
        s.instructions = Some("Answer in French.".into());
        s.switch_agent("assistant", || unreachable!("the session names its agent"));
        assert_eq!(
            (
                s.model.as_deref(),
                s.instructions.as_deref(),
                s.history_enabled
            ),
            (Some("big-model"), None, false)
        );
        // Kept across a save.
        let back: Session = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        s.switch_agent("researcher", || unreachable!("the session names its agent"));
        assert_eq!(s.instructions.as_deref(), Some("Answer in French."));
        // The same agent again changes nothing.
        s.switch_agent("researcher", || unreachable!("the session names its agent"));
        assert_eq!(s.instructions.as_deref(), Some("Answer in French."));
        assert!(!s.other_agents.contains_key("researcher"));
    }

    fn citation(n: u32, path: &str) -> baton_tools::Citation {
        baton_tools::Citation {
            number: n,
            source: baton_tools::Source {
                path: path.into(),
                location: "page 3".into(),
                passage: "Pilotage fees came to 4,200 EUR.".into(),
                offset: 10,
            },
        }
    }

    #[test]
    fn citations_stay_with_their_answer_across_saves_and_go_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut s = Session::new();
        s.history.push(Message::user("What did we pay the pilots?"));
        s.history.push(Message::assistant("4,200 EUR [1]."));
        s.note_citations("4,200 EUR [1].", vec![citation(1, "/harbour.pdf")]);
        store.save(&s).unwrap();
        let back = store.load(&s.id).unwrap();
        assert_eq!(
            back.citations_of("4,200 EUR [1].")[0].source.path,
            "/harbour.pdf"
        );
        assert!(back.citations_of("Another answer.").is_empty());
        // The answer is dropped (regenerated): its citations go at the next note.
        let mut s = back;
        s.history.pop();
        s.history.push(Message::assistant("About 4,000 EUR [1]."));
        s.note_citations("About 4,000 EUR [1].", vec![citation(1, "/fees.pdf")]);
        assert_eq!(s.cited.len(), 1, "{:?}", s.cited);
        assert_eq!(
            s.citations_of("About 4,000 EUR [1].")[0].source.path,
            "/fees.pdf"
        );
        assert!(s.citations_of("4,200 EUR [1].").is_empty());
    }

    #[test]
    fn trash_and_restore_bring_a_session_back_and_summaries_list_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut older = Session::new();
        older.title_from("older chat");
        store.save(&older).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut newer = Session::new();
        newer.title_from("newer chat");
        newer.history.push(Message::user("hi"));
        newer.agent = Some("researcher".into());
        store.save(&newer).unwrap();

        let list = store.summaries();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].title, "newer chat");
        assert_eq!(list[0].messages, 1);
        assert_eq!(
            (list[0].agent.as_deref(), list[1].agent.as_deref()),
            (Some("researcher"), None)
        );

        store.trash(&newer.id).unwrap();
        assert_eq!(
            store.summaries().len(),
            1,
            "trashed sessions are not listed"
        );
        assert!(matches!(
            store.load(&newer.id),
            Err(SessionError::NotFound(_))
        ));
        let back = store.restore(&newer.id).unwrap();
        assert_eq!(back, newer);
        assert_eq!(store.summaries().len(), 2);
        let nope = SessionId::parse("nope").unwrap();
        assert!(matches!(store.trash(&nope), Err(SessionError::NotFound(_))));
        assert!(matches!(
            store.restore(&nope),
            Err(SessionError::NotFound(_))
        ));
    }
}
