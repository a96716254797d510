//! Events for every stage, delivered off the working path: handlers run
//! on a thread of their own, in order, and one that panics is logged and
//! skipped.

use std::sync::Arc;

use serde::Serialize;

use crate::Assignment;

/// A stage of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum Stage {
    /// The whole orchestration.
    Orchestration,
    /// The planner making the plan.
    Planning,
    /// A member being briefed on its assignment.
    AgentTraining,
    /// A member working on its assignment.
    AgentExecution,
    /// A reviewer reviewing an answer.
    AgentReview,
    /// A member revising its answer after a review.
    AgentRevise,
    /// The synthesizer writing the answer.
    Synthesis,
}

/// Whether a stage starts or stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// It starts.
    Starting,
    /// It ended (with its outcome in the event).
    Stopped,
}

/// One event of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OrchestrationEvent {
    /// The run's id.
    pub session_id: String,
    /// The stage.
    pub stage: Stage,
    /// Starting or stopped.
    pub phase: Phase,
    /// The member at work.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub agent: Option<String>,
    /// Which assignment (from 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional, type = Option<u32>)]
    pub assignment: Option<usize>,
    /// The review round or revision (from 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub round: Option<u32>,
    /// The plan (planning stopped).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub plan: Option<Vec<Assignment>>,
    /// The answer, the feedback or the final response (when stopped).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub text: Option<String>,
    /// The verdict (review stopped).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub approved: Option<bool>,
    /// What went wrong (stopped without success).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub error: Option<String>,
    /// How long the stage took, in milliseconds (when stopped).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional, type = Option<u32>)]
    pub elapsed_ms: Option<u64>,
}

impl OrchestrationEvent {
    /// An event of `stage` without details.
    pub(crate) fn new(session_id: &str, stage: Stage, phase: Phase) -> Self {
        Self {
            session_id: session_id.to_string(),
            stage,
            phase,
            agent: None,
            assignment: None,
            round: None,
            plan: None,
            text: None,
            approved: None,
            error: None,
            elapsed_ms: None,
        }
    }

    /// What tells this stage's start and stop apart from every other's:
    /// the stage, the member, the assignment and the round.
    pub(crate) fn key(&self) -> StageKey {
        (self.stage, self.agent.clone(), self.assignment, self.round)
    }

    /// The same event for `agent` on assignment `index`.
    pub(crate) fn of(mut self, agent: &str, index: usize) -> Self {
        self.agent = Some(agent.to_string());
        self.assignment = Some(index);
        self
    }
}

/// What tells one stage of a run from another: the stage, the member, the
/// assignment and the round.
pub(crate) type StageKey = (Stage, Option<String>, Option<usize>, Option<u32>);

/// Something told about each event.
pub type EventHandler = Arc<dyn Fn(&OrchestrationEvent) + Send + Sync>;

/// Events queued for the handlers at most; past that (a handler stuck)
/// new events are dropped rather than held in memory without end.
pub(crate) const EVENT_CAPACITY: usize = 4096;

/// Sends events to the handlers on a thread of their own.
#[derive(Clone)]
pub(crate) struct EventSink {
    tx: Option<std::sync::mpsc::SyncSender<OrchestrationEvent>>,
}

impl EventSink {
    /// A sink delivering to `handlers` (none: events are dropped).
    pub(crate) fn start(handlers: Vec<EventHandler>, enabled: bool) -> Self {
        if !enabled || handlers.is_empty() {
            return Self { tx: None };
        }
        let (tx, rx) = std::sync::mpsc::sync_channel::<OrchestrationEvent>(EVENT_CAPACITY);
        std::thread::spawn(move || {
            for event in rx {
                for handler in &handlers {
                    let call = std::panic::AssertUnwindSafe(|| handler(&event));
                    if std::panic::catch_unwind(call).is_err() {
                        tracing::warn!(stage = ?event.stage, "an orchestration event handler failed; ignored");
                    }
                }
            }
        });
        Self { tx: Some(tx) }
    }

    /// Queues `event`; never waits (a full queue drops it, and says so).
    pub(crate) fn emit(&self, event: OrchestrationEvent) {
        if let Some(tx) = &self.tx
            && let Err(std::sync::mpsc::TrySendError::Full(e)) = tx.try_send(event)
        {
            tracing::warn!(stage = ?e.stage, "the orchestration's event handlers are {EVENT_CAPACITY} events behind: an event is dropped");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_stuck_handler_holds_a_bounded_queue_and_never_the_run() {
        let (release, stuck) = std::sync::mpsc::channel::<()>();
        let stuck = std::sync::Mutex::new(stuck);
        let seen = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&seen);
        let handler: EventHandler = Arc::new(move |_| {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                let _ = stuck.lock().unwrap().recv();
            }
        });
        let sink = EventSink::start(vec![handler], true);
        let started = std::time::Instant::now();
        for _ in 0..EVENT_CAPACITY + 100 {
            sink.emit(OrchestrationEvent::new(
                "run",
                Stage::Planning,
                Phase::Starting,
            ));
        }
        assert!(
            started.elapsed().as_secs() < 5,
            "emitting waited for the handler"
        );
        release.send(()).unwrap();
        drop(sink);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while seen.load(Ordering::SeqCst) < EVENT_CAPACITY && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        let n = seen.load(Ordering::SeqCst);
        // The one in the handler, the queue's worth, none of the rest.
        assert!((EVENT_CAPACITY..=EVENT_CAPACITY + 1).contains(&n), "{n}");
    }
}
