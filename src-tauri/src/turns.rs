//! The turns in flight: one per conversation, several conversations at
//! once, and a claim that no turn runs beside (restoring files). Stop,
//! confirmations and subagents' questions reach a turn through here.

use std::collections::HashMap;
use std::sync::Mutex;

use baton_engine::Turn;
use baton_engine::api::{Confirmations, Questions, SessionId};
use tokio_util::sync::CancellationToken;

use crate::state::lock;

/// A turn in flight: Stop cancels its token; its confirmations and
/// subagents' questions are answered from the chat view.
#[derive(Default)]
struct Running {
    stop: CancellationToken,
    confirmations: Confirmations,
    questions: Questions,
}

/// What a turn slot is claimed for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Slot {
    /// A turn of this conversation (each has at most one at a time).
    Chat(SessionId),
    /// Work no turn may run beside (restoring files).
    Alone,
}

/// The turns in flight, by what they were claimed for.
#[derive(Default)]
pub struct Turns {
    running: Mutex<HashMap<Slot, Running>>,
}

/// A claimed turn slot; the turn ends when dropped (on every path,
/// errors included).
pub struct TurnGuard<'a> {
    turns: &'a Turns,
    slot: Slot,
}

impl TurnGuard<'_> {
    /// Connects Stop, confirmations and questions to `turn`.
    pub fn attach(&self, turn: &Turn) {
        self.connect(Running {
            stop: turn.stopper(),
            confirmations: turn.confirmations(),
            questions: turn.questions(),
        });
    }

    fn connect(&self, running: Running) {
        let mut map = lock(&self.turns.running);
        // Stop pressed between the claim and the start still counts.
        if map.get(&self.slot).is_some_and(|r| r.stop.is_cancelled()) {
            running.stop.cancel();
        }
        map.insert(self.slot.clone(), running);
    }
}

impl Drop for TurnGuard<'_> {
    fn drop(&mut self) {
        lock(&self.turns.running).remove(&self.slot);
    }
}

impl Turns {
    /// Marks a turn of conversation `session` as running until the
    /// returned guard is dropped; `None` when that conversation already
    /// has one (other conversations' turns run beside it) or files are
    /// being restored.
    pub fn begin(&self, session: &SessionId) -> Option<TurnGuard<'_>> {
        let mut map = lock(&self.running);
        let slot = Slot::Chat(session.clone());
        if map.contains_key(&slot) || map.contains_key(&Slot::Alone) {
            return None;
        }
        map.insert(slot.clone(), Running::default());
        Some(TurnGuard { turns: self, slot })
    }

    /// Claims the turn slots when no turn is running (for work a running
    /// turn's tools could disturb); no turn starts until it is dropped.
    pub fn begin_alone(&self) -> Option<TurnGuard<'_>> {
        let mut map = lock(&self.running);
        if !map.is_empty() {
            return None;
        }
        map.insert(Slot::Alone, Running::default());
        Some(TurnGuard {
            turns: self,
            slot: Slot::Alone,
        })
    }

    /// Cancels conversation `session`'s turn in flight (model call and
    /// running tool); whether there was one.
    pub fn stop(&self, session: &SessionId) -> bool {
        match lock(&self.running).get(&Slot::Chat(session.clone())) {
            Some(running) => {
                running.stop.cancel();
                true
            }
            None => false,
        }
    }

    /// Answers confirmation `id` of a turn in flight; whether it was
    /// waiting.
    pub fn answer_confirmation(&self, id: &str, approved: bool) -> bool {
        lock(&self.running)
            .values()
            .any(|r| r.confirmations.answer(id, approved))
    }

    /// Answers subagent question `id` of a turn in flight (`None`:
    /// declined, the delegating agent gets the question); whether it was
    /// waiting.
    pub fn answer_question(&self, id: &str, answer: Option<String>) -> bool {
        lock(&self.running).values().any(|r| match &answer {
            Some(a) => r.questions.answer(id, a.clone()),
            None => r.questions.decline(id),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> SessionId {
        SessionId::parse(s).unwrap()
    }

    #[test]
    fn two_conversations_run_at_once_but_one_conversation_runs_one_turn() {
        let turns = Turns::default();
        let a = turns.begin(&id("chat-a")).expect("a starts");
        let b = turns.begin(&id("chat-b")).expect("b starts beside a");
        assert!(turns.begin(&id("chat-a")).is_none(), "a second turn in a");
        drop(a);
        assert!(turns.begin(&id("chat-a")).is_some(), "a is free again");
        drop(b);
    }

    #[test]
    fn stop_reaches_only_its_conversation_and_counts_before_the_turn_is_attached() {
        let turns = Turns::default();
        let a = turns.begin(&id("chat-a")).unwrap();
        let b = turns.begin(&id("chat-b")).unwrap();
        assert!(turns.stop(&id("chat-a")));
        assert!(!turns.stop(&id("chat-c")), "no turn there");
        let (ta, tb) = (Running::default(), Running::default());
        let (stop_a, stop_b) = (ta.stop.clone(), tb.stop.clone());
        a.connect(ta);
        b.connect(tb);
        assert!(
            stop_a.is_cancelled(),
            "Stop pressed before the start counts"
        );
        assert!(!stop_b.is_cancelled(), "the other chat goes on");
    }

    #[test]
    fn restoring_files_waits_for_every_turn_and_holds_new_ones_off() {
        let turns = Turns::default();
        let a = turns.begin(&id("chat-a")).unwrap();
        assert!(turns.begin_alone().is_none(), "a turn runs");
        drop(a);
        let alone = turns.begin_alone().expect("nothing runs");
        assert!(
            turns.begin(&id("chat-a")).is_none(),
            "no turn beside a restore"
        );
        drop(alone);
        assert!(turns.begin(&id("chat-a")).is_some());
    }
}
