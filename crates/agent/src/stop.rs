//! Why a run ended, with the one stable code and the one sentence every
//! front door shows.

use serde::Serialize;

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "detail")]
pub enum StopReason {
    /// The model gave its answer.
    Answered,
    /// The model asked a question (subagents).
    Asked,
    /// `max_iterations` model calls were made.
    MaxIterations,
    /// The caller cancelled.
    Cancelled,
    /// The token budget ran out.
    Budget,
    /// The same failing call came three times.
    LoopGuard(String),
    /// A model call failed.
    Error(String),
}

impl StopReason {
    /// A stable code for programs (`answered`, `asked`, `maxIterations`,
    /// `cancelled`, `budget`, `loopGuard`, `error`).
    pub fn code(&self) -> &'static str {
        match self {
            StopReason::Answered => "answered",
            StopReason::Asked => "asked",
            StopReason::MaxIterations => "maxIterations",
            StopReason::Cancelled => "cancelled",
            StopReason::Budget => "budget",
            StopReason::LoopGuard(_) => "loopGuard",
            StopReason::Error(_) => "error",
        }
    }

    /// The reason as a sentence for people.
    pub fn message(&self) -> String {
        match self {
            StopReason::Answered => "Answered.".into(),
            StopReason::Asked => "The assistant asked a question.".into(),
            StopReason::MaxIterations => {
                "Stopped: the step limit was reached before an answer.".into()
            }
            StopReason::Cancelled => "Stopped by you.".into(),
            StopReason::Budget => "Stopped: the token budget for this turn ran out.".into(),
            StopReason::LoopGuard(why) => format!("Stopped: {why}."),
            StopReason::Error(e) => format!("The model could not answer: {e}"),
        }
    }

    /// Whether the turn ended normally (an answer or a question).
    pub fn is_success(&self) -> bool {
        matches!(self, StopReason::Answered | StopReason::Asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_a_code_and_a_sentence() {
        let all = [
            StopReason::Answered,
            StopReason::Asked,
            StopReason::MaxIterations,
            StopReason::Cancelled,
            StopReason::Budget,
            StopReason::LoopGuard("the same call failed three times".into()),
            StopReason::Error("timed out".into()),
        ];
        let codes: std::collections::HashSet<&str> = all.iter().map(StopReason::code).collect();
        assert_eq!(codes.len(), all.len());
        for r in &all {
            let m = r.message();
            assert!(m.chars().next().unwrap().is_uppercase(), "{m}");
        }
        assert_eq!(
            StopReason::LoopGuard("x failed".into()).message(),
            "Stopped: x failed."
        );
    }
}
