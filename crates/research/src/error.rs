//! Why a research job could not give a report.

/// Why a research job could not give a report. A source that cannot be
/// read, a claim without its passage, a reviewer or writer that answers
/// badly do not end the job: they are told as events and in the report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResearchError {
    /// The question is empty.
    #[error("there is no question to research")]
    NoQuestion,
    /// Every search failed.
    #[error("the web search did not answer: {0}")]
    Search(String),
    /// The searches found nothing to read.
    #[error("the web search found no pages for this question; try other words")]
    NothingFound,
    /// Every source failed to open.
    #[error("none of the {count} pages found could be read (the first: {first})")]
    NothingRead {
        /// Pages tried.
        count: usize,
        /// Why the first failed.
        first: String,
    },
    /// An agent failed (its provider), in words.
    #[error("the {role} could not answer: {why}")]
    Agent {
        /// Which agent (`planner`, `reader`, …).
        role: &'static str,
        /// Why.
        why: String,
    },
    /// Stopped by the user.
    #[error("the research was stopped")]
    Cancelled,
}
