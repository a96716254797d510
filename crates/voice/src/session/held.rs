//! An answer started before the user's end was sure (at a pause) is held:
//! its speech is made but not played, and its text not shown, until the
//! pause is confirmed as the end ([`Gate::open`]) or speech resumes and it
//! is thrown away ([`Gate::discard`]).

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::audio::Speaker;
use crate::{AudioSink, Speech, TtsError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Held,
    Open,
    Discarded,
}

struct Inner {
    state: Mutex<State>,
    changed: Condvar,
    opened: tokio::sync::Notify,
}

/// Whether an answer may be heard yet. Cheap to clone.
#[derive(Clone)]
pub(super) struct Gate(Arc<Inner>);

impl Gate {
    fn with(state: State) -> Self {
        Self(Arc::new(Inner {
            state: Mutex::new(state),
            changed: Condvar::new(),
            opened: tokio::sync::Notify::new(),
        }))
    }

    /// A gate that lets everything through (an answer to a sure end).
    pub(super) fn open_now() -> Self {
        Self::with(State::Open)
    }

    /// A closed gate (an answer to a pause).
    pub(super) fn held() -> Self {
        Self::with(State::Held)
    }

    fn state(&self) -> State {
        *self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, to: State) {
        *self.0.state.lock().unwrap_or_else(|e| e.into_inner()) = to;
        self.0.changed.notify_all();
        self.0.opened.notify_waiters();
    }

    /// The pause was the end: play.
    pub(super) fn open(&self) {
        self.set(State::Open);
    }

    /// Speech resumed: never play.
    pub(super) fn discard(&self) {
        self.set(State::Discarded);
    }

    /// Whether it is still held.
    pub(super) fn is_held(&self) -> bool {
        self.state() == State::Held
    }

    /// Whether the answer behind it was thrown away.
    pub(super) fn is_discarded(&self) -> bool {
        self.state() == State::Discarded
    }

    /// Waits until it is no longer held.
    pub(super) async fn released(&self) {
        loop {
            let wait = self.0.opened.notified();
            if !self.is_held() {
                return;
            }
            wait.await;
        }
    }

    /// Blocks until it is no longer held (or `cancel` fires); whether it
    /// opened.
    fn wait_blocking(&self, cancel: &CancellationToken) -> bool {
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        while *state == State::Held && !cancel.is_cancelled() {
            state = self
                .0
                .changed
                .wait_timeout(state, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *state == State::Open && !cancel.is_cancelled()
    }
}

/// The speaker behind a [`Gate`]: the first sentence waits for it.
pub(super) struct HeldSink {
    pub(super) speaker: Speaker,
    pub(super) gate: Gate,
    pub(super) cancel: CancellationToken,
}

impl AudioSink for HeldSink {
    fn play(&mut self, speech: &Speech) -> Result<(), TtsError> {
        if self.gate.wait_blocking(&self.cancel) {
            self.speaker.play(speech)
        } else {
            Ok(()) // thrown away, or stopped while held
        }
    }

    fn finish(&mut self, cancel: &CancellationToken) -> Result<(), TtsError> {
        if self.gate.wait_blocking(cancel) {
            self.speaker.finish(cancel)
        } else {
            Ok(())
        }
    }

    fn interrupter(&self) -> Option<Arc<dyn Fn() + Send + Sync>> {
        self.speaker.interrupter()
    }
}
