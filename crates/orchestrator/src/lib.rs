//! Multi-agent orchestration (seed 001).
//!
//! [`Orchestrator::orchestrate`] runs one request through a team of
//! [`Member`]s: the prompt is filtered, a planner splits it into
//! assignments by specialisation, a selector gives each to a member (and
//! a reviewer who is never the author), each member is briefed (its
//! *training*: role, assignment, plan, shared state) and works — all at
//! once, or one after the other — a reviewer approves or asks for a
//! revision (up to `max_revise_attempts`), and a synthesizer writes one
//! answer. One assignment short-circuits review and synthesis. Every
//! stage raises events (off the working path), a token budget stops the
//! run cleanly with what it has, cancellation returns promptly, and
//! `tracing` spans carry seed 001's tags. The crate knows nothing of
//! models: the engine makes members of its named agents.

mod events;
mod member;
mod plan;
mod run;
mod select;
mod stages;
mod state;
mod types;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use events::{EventHandler, OrchestrationEvent, Phase, Stage};
pub use member::{Ask, Member, MemberError, Reply, team_role};
pub use stages::{
    AsOptionsSay, ByTheTeam, ControlCharacters, Planner, PromptFilter, Scheduler, Selection,
    SelectionFactory, Stages, Synthesizer,
};
pub use state::{InMemoryState, SharedState};
pub use tokio_util::sync::CancellationToken;
pub use types::{
    AgentResponse, Assignment, Options, OrchestrationResult, ReviewResult, StageTiming,
};

/// A file given with the request, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Its name.
    pub name: String,
    /// Its content as Markdown.
    pub text: String,
}

/// Why an orchestration could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrchestratorError {
    /// Another orchestration is running on this orchestrator.
    #[error("an orchestration is already running; wait for it to finish or stop it")]
    Busy,
    /// No members.
    #[error("a team needs at least one agent")]
    NoMembers,
    /// Two members share a name.
    #[error("two agents of the team are named `{0}`")]
    DuplicateName(String),
    /// Nothing to do.
    #[error("the request is empty")]
    EmptyPrompt,
}

/// Makes the shared state of each run.
pub type StateFactory = Arc<dyn Fn(&str) -> Arc<dyn SharedState> + Send + Sync>;

/// Runs requests through a team, one at a time.
pub struct Orchestrator {
    members: Vec<Arc<dyn Member>>,
    options: Options,
    handlers: Vec<EventHandler>,
    state: StateFactory,
    stages: Stages,
    processing: AtomicBool,
}

impl Orchestrator {
    /// A team of `members` (distinct names, at least one) run with `options`.
    pub fn new(members: Vec<Arc<dyn Member>>, options: Options) -> Result<Self, OrchestratorError> {
        if members.is_empty() {
            return Err(OrchestratorError::NoMembers);
        }
        for (i, m) in members.iter().enumerate() {
            if members[..i]
                .iter()
                .any(|o| o.name().eq_ignore_ascii_case(m.name()))
            {
                return Err(OrchestratorError::DuplicateName(m.name().to_string()));
            }
        }
        Ok(Self {
            members,
            options,
            handlers: Vec::new(),
            state: Arc::new(|_| Arc::new(InMemoryState::default())),
            stages: Stages::default(),
            processing: AtomicBool::new(false),
        })
    }

    /// Calls `handler` with every event (when `enable_events` is on).
    pub fn on_event(mut self, handler: EventHandler) -> Self {
        self.handlers.push(handler);
        self
    }

    /// Makes each run's shared state with `factory` (given the run's id;
    /// default: in memory).
    pub fn with_state(mut self, factory: StateFactory) -> Self {
        self.state = factory;
        self
    }

    /// Runs with `stages` instead of Baton's own (see [`Stages`]).
    pub fn with_stages(mut self, stages: Stages) -> Self {
        self.stages = stages;
        self
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Whether a run is in progress.
    pub fn is_processing(&self) -> bool {
        self.processing.load(Ordering::SeqCst)
    }

    /// Runs `prompt` (with `attachments`) through the team. Never fails
    /// once started: a budget, a cancellation or a failing member end the
    /// run with what it has, `success: false` and the error in words.
    pub async fn orchestrate(
        &self,
        prompt: &str,
        attachments: &[Attachment],
        cancel: CancellationToken,
    ) -> Result<OrchestrationResult, OrchestratorError> {
        let prompt = self
            .stages
            .filter
            .filter(prompt)
            .ok_or(OrchestratorError::EmptyPrompt)?;
        if self.processing.swap(true, Ordering::SeqCst) {
            return Err(OrchestratorError::Busy);
        }
        let _done = Processing(&self.processing);
        let id = uuid::Uuid::new_v4().simple().to_string();
        let request = with_attachments(&prompt, attachments);
        let run = run::Run::new(
            id.clone(),
            request,
            (&self.options, &self.stages),
            events::EventSink::start(self.handlers.clone(), self.options.enable_events),
            (self.state)(&id),
            cancel,
        );
        Ok(run.orchestrate(self.members.clone()).await)
    }
}

/// Clears the busy flag when the run ends, however it ends.
struct Processing<'a>(&'a AtomicBool);

impl Drop for Processing<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// The request with its files after it.
fn with_attachments(prompt: &str, attachments: &[Attachment]) -> String {
    let mut out = prompt.to_string();
    for a in attachments {
        out.push_str(&format!(
            "\n\n--- attached file: {} ---\n{}",
            a.name, a.text
        ));
    }
    out
}
