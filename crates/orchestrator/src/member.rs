//! A team member as the orchestrator sees it: a name, specialisations, and
//! one call that answers a request on a fresh session.

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

/// One request to a member: its brief (instructions for this call) and
/// the message it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    /// What the member is told before it works (its training: role,
    /// assignment, plan, shared state).
    pub brief: String,
    /// The message it answers.
    pub message: String,
    /// Whether it may search the internet (`web_search`).
    pub internet_search: bool,
    /// The answer must be one JSON object (the plan, a review): models
    /// that can are held to it (a grammar on the embedded model).
    pub json: bool,
}

/// A member's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The text.
    pub text: String,
    /// Tokens the call used (prompt and completion, its subagents too).
    pub tokens: u64,
}

/// Why a member could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemberError {
    /// Stopped by the cancellation token.
    #[error("cancelled")]
    Cancelled,
    /// It failed (the provider, its tools), in words.
    #[error("{0}")]
    Failed(String),
}

/// An agent the orchestrator can give work to.
pub trait Member: Send + Sync {
    /// Its unique name.
    fn name(&self) -> &str;
    /// What it is good at (`research`, `planning`, `review`, `synthesis`).
    fn specialisations(&self) -> &[String];
    /// Answers `ask` on a fresh session, stopping when `cancel` fires.
    fn ask(&self, ask: Ask, cancel: CancellationToken)
    -> BoxFuture<'_, Result<Reply, MemberError>>;
}

/// The roles the orchestrator looks for among specialisations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Planning,
    Review,
    Synthesis,
}

/// The team role `specialisation` names (`planning`, `review` or
/// `synthesis`, whichever spelling: see the selector), as that word; `None`
/// for a specialisation of work.
pub fn team_role(specialisation: &str) -> Option<&'static str> {
    [
        (Role::Planning, "planning"),
        (Role::Review, "review"),
        (Role::Synthesis, "synthesis"),
    ]
    .into_iter()
    .find(|(role, _)| role.matches(specialisation))
    .map(|(_, word)| word)
}

impl Role {
    /// Whether `specialisation` names this role (`planning`/`planner`,
    /// `review`/`reviewer`, `synthesis`/`synthesizer`, any casing).
    pub(crate) fn matches(self, specialisation: &str) -> bool {
        let s = specialisation.trim().to_ascii_lowercase();
        let names: &[&str] = match self {
            Role::Planning => &["planning", "planner", "plan"],
            Role::Review => &["review", "reviewer", "reviewing"],
            Role::Synthesis => &[
                "synthesis",
                "synthesizer",
                "synthesiser",
                "synthesising",
                "synthesizing",
            ],
        };
        names.contains(&s.as_str())
    }

    /// Whether `member` has this role.
    pub(crate) fn of(self, member: &dyn Member) -> bool {
        member.specialisations().iter().any(|s| self.matches(s))
    }
}
