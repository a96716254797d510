//! Events every front door consumes the same way, with backpressure: a
//! turn's events go through a bounded channel and the agent waits for a
//! slow reader instead of dropping anything. Each event carries the turn
//! id and the path of the agent that emitted it (depth 0 is the agent the
//! user talks to; subagents add their session id).

use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::agent::ActionResult;
use crate::compact::CompactionReport;
use crate::ids::{SessionId, TurnId};
use crate::stop::StopReason;

/// Something the agent did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AgentEvent {
    /// More answer text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// A tool call starts.
    ToolStarted {
        /// Call id.
        id: String,
        /// Method.
        name: String,
        /// Arguments as sent.
        arguments: Value,
    },
    /// A tool call ended.
    ToolFinished {
        /// Call id.
        id: String,
        /// Method as resolved.
        name: String,
        /// Result, or `{"error": …}`.
        result: Value,
        /// Whether it failed.
        is_error: bool,
        /// Milliseconds.
        duration_ms: f64,
        /// A thumbnail of the step (a browser page after a click), when
        /// the front door asked for them.
        #[serde(skip_serializing_if = "Option::is_none")]
        preview: Option<baton_llm::Image>,
    },
    /// A tool that sends something off the machine waits for the user's
    /// yes or no ([`Confirmations::answer`](crate::Confirmations::answer)).
    ConfirmationRequested {
        /// The request's id (answer with it).
        id: String,
        /// The tool (`Toolbox.method`).
        tool: String,
        /// The exact arguments it would run with.
        arguments: Value,
        /// What will really happen, in words, when the toolbox can tell
        /// more than the arguments (the element a click lands on and where
        /// it leads, the data an address carries), worked out before asking.
        action: Option<String>,
        /// The whole request in text, for a prompt: the action, then the
        /// tool and its arguments.
        summary: String,
    },
    /// The user answered a confirmation (or the turn was stopped).
    ConfirmationResolved {
        /// The request's id.
        id: String,
        /// Whether the action may run.
        approved: bool,
    },
    /// A subagent got a task.
    SubagentDelegated {
        /// Its session id.
        session_id: String,
        /// The task.
        task: String,
    },
    /// A subagent paused with a question. When the front door answers
    /// questions ([`Questions`](crate::Questions), keyed by the session
    /// id) it waits for the user; otherwise its parent gets the question.
    SubagentAsked {
        /// Its session id.
        session_id: String,
        /// The question.
        question: String,
    },
    /// The user answered a subagent's question; it resumes.
    SubagentAnswered {
        /// Its session id.
        session_id: String,
        /// The answer.
        answer: String,
    },
    /// A subagent finished.
    SubagentFinished {
        /// Its session id.
        session_id: String,
        /// It finished with an answer (not stopped early).
        answered: bool,
        /// Milliseconds since it was delegated to (questions to the user
        /// included).
        elapsed_ms: u64,
    },
    /// History was compacted.
    Compacted(CompactionReport),
    /// Tokens of one model call.
    Usage(baton_llm::Usage),
    /// Something the user should know that is not part of the answer (an
    /// attachment that was cut or could not be read).
    Notice {
        /// The note, in plain words.
        message: String,
    },
    /// A model call failed.
    Error {
        /// What happened.
        message: String,
    },
    /// The turn ended: the last event of every turn, with its result.
    Finished(Box<TurnOutcome>),
}

/// How a turn ended, as its last event carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    /// The conversation (session) the turn belongs to.
    pub session_id: SessionId,
    /// The conversation's title.
    pub title: String,
    /// Why it ended: a stable code and a sentence.
    pub stop: StopReason,
    /// The agent's result.
    pub result: ActionResult,
}

/// Which agent emitted an event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentPath {
    /// 0 for the agent the user talks to, 1 for its subagents, …
    pub depth: u32,
    /// The subagent's session id (`None` at depth 0).
    pub subagent: Option<String>,
}

/// One event of one turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEvent {
    /// The turn's id.
    pub turn: TurnId,
    /// The agent that emitted it.
    pub agent: AgentPath,
    /// What happened.
    pub event: AgentEvent,
}

impl TurnEvent {
    /// Whether this is the end of the whole turn (the top agent's
    /// [`AgentEvent::Finished`]).
    pub fn is_final(&self) -> bool {
        self.agent.depth == 0 && matches!(self.event, AgentEvent::Finished(_))
    }
}

#[derive(Debug, Clone)]
enum Tx {
    Bounded(mpsc::Sender<TurnEvent>),
    Unbounded(mpsc::UnboundedSender<TurnEvent>),
}

/// Where a turn's events go. Sending waits while the reader is behind
/// (backpressure); a reader that went away is ignored and the turn goes
/// on. The default sink has no reader.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    tx: Option<Tx>,
    turn: TurnId,
    path: AgentPath,
}

/// The reading end of an [`EventSink`].
#[derive(Debug)]
pub struct EventStream {
    rx: Rx,
}

#[derive(Debug)]
enum Rx {
    Bounded(mpsc::Receiver<TurnEvent>),
    Unbounded(mpsc::UnboundedReceiver<TurnEvent>),
}

impl EventStream {
    /// An event already waiting, without waiting for one.
    pub fn try_recv(&mut self) -> Option<TurnEvent> {
        match &mut self.rx {
            Rx::Bounded(rx) => rx.try_recv().ok(),
            Rx::Unbounded(rx) => rx.try_recv().ok(),
        }
    }

    /// The next event; `None` once every sink is gone.
    pub async fn recv(&mut self) -> Option<TurnEvent> {
        match &mut self.rx {
            Rx::Bounded(rx) => rx.recv().await,
            Rx::Unbounded(rx) => rx.recv().await,
        }
    }
}

impl EventSink {
    /// A sink for turn `turn` holding at most `capacity` unread events.
    pub fn channel(turn: impl Into<TurnId>, capacity: usize) -> (Self, EventStream) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let sink = Self {
            tx: Some(Tx::Bounded(tx)),
            turn: turn.into(),
            path: AgentPath::default(),
        };
        (
            sink,
            EventStream {
                rx: Rx::Bounded(rx),
            },
        )
    }

    /// A sink that never waits (for tests and for readers that collect
    /// everything after the run).
    pub fn unbounded(turn: impl Into<TurnId>) -> (Self, EventStream) {
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = Self {
            tx: Some(Tx::Unbounded(tx)),
            turn: turn.into(),
            path: AgentPath::default(),
        };
        (
            sink,
            EventStream {
                rx: Rx::Unbounded(rx),
            },
        )
    }

    /// The turn's id.
    pub fn turn(&self) -> &TurnId {
        &self.turn
    }

    /// The emitting agent.
    pub fn path(&self) -> &AgentPath {
        &self.path
    }

    /// The sink a subagent with session `id` emits to (one level deeper).
    pub fn for_subagent(&self, id: &str) -> Self {
        Self {
            tx: self.tx.clone(),
            turn: self.turn.clone(),
            path: AgentPath {
                depth: self.path.depth + 1,
                subagent: Some(id.to_string()),
            },
        }
    }

    /// Resolves once the reader is gone (never for a sink without one).
    pub async fn closed(&self) {
        match &self.tx {
            Some(Tx::Bounded(tx)) => tx.closed().await,
            Some(Tx::Unbounded(tx)) => tx.closed().await,
            None => std::future::pending().await,
        }
    }

    /// Sends `event`, waiting while the reader is behind.
    pub async fn emit(&self, event: AgentEvent) {
        let Some(tx) = &self.tx else { return };
        let event = TurnEvent {
            turn: self.turn.clone(),
            agent: self.path.clone(),
            event,
        };
        // A reader that went away is fine: the turn still finishes (and
        // is saved).
        let _ = match tx {
            Tx::Bounded(tx) => tx.send(event).await.map_err(|_| ()),
            Tx::Unbounded(tx) => tx.send(event).map_err(|_| ()),
        };
    }
}
