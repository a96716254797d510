//! Confirmation of external actions: a tool that sends something off the
//! machine (declared `#[effect(external)]`) runs only when the user says
//! yes. This is the guard against instructions hidden in web pages, mails
//! and files: whatever the model was talked into, nothing leaves the
//! machine without the user seeing the exact action.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// What happens when a tool with an external effect is called.
#[derive(Debug, Clone)]
pub enum ConfirmPolicy {
    /// Ask the user: a [`ConfirmationRequested`](crate::AgentEvent::ConfirmationRequested)
    /// event, answered through [`Confirmations::answer`].
    Ask(Confirmations),
    /// Run without asking (`--yes`).
    Allow,
    /// Refuse; the text says why and how to allow it (non-interactive
    /// runs).
    Refuse(String),
}

impl Default for ConfirmPolicy {
    fn default() -> Self {
        ConfirmPolicy::Refuse("nobody is there to confirm it".into())
    }
}

/// Requests of a turn waiting for the user's answer, answered by the
/// front door: confirmations ([`Confirmations`], yes or no) and subagents'
/// questions ([`Questions`], text).
#[derive(Debug)]
pub struct Pending<T> {
    waiting: Arc<Mutex<HashMap<String, oneshot::Sender<T>>>>,
}

impl<T> Clone for Pending<T> {
    fn clone(&self) -> Self {
        Self {
            waiting: Arc::clone(&self.waiting),
        }
    }
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Self {
            waiting: Arc::default(),
        }
    }
}

/// The open confirmation requests of a turn.
pub type Confirmations = Pending<bool>;

/// The subagents' questions of a turn waiting for the user's answer.
pub type Questions = Pending<String>;

impl<T> Pending<T> {
    /// Answers request `id`; `false` when no such request is waiting.
    pub fn answer(&self, id: &str, answer: T) -> bool {
        let sender = self.lock().remove(id);
        sender.is_some_and(|tx| tx.send(answer).is_ok())
    }

    /// Declines request `id` without an answer (the user dismissed it).
    pub fn decline(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// The ids waiting for an answer.
    pub fn pending(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// Registers request `id`; the receiver gets the answer.
    pub(crate) fn open(&self, id: &str) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id.to_string(), tx);
        rx
    }

    /// Drops request `id` unanswered (the turn was stopped).
    pub(crate) fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<T>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}
