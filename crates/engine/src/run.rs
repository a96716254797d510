//! One shape for everything that runs and reports progress: a turn, a
//! voice conversation and a team's run are each a [`Run`] — its events
//! (with backpressure where the producer can wait), a Stop
//! ([`Run::stopper`]), the controls that apply to it (a turn's
//! confirmations and questions, a voice conversation's push-to-talk), and
//! one final result ([`Run::finish`]). The engine assembles each kind once;
//! a front door only maps the events to its medium.

use std::future::Future;

use futures::StreamExt;
use futures::stream::{BoxStream, Fuse};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A thing that runs in the background: its events, its Stop, its
/// controls `C`, and its result `O`.
pub struct Run<E, O, C = ()> {
    /// Fused: reading on after the end (as `finish` does) gives `None`.
    events: Fuse<BoxStream<'static, E>>,
    result: JoinHandle<O>,
    cancel: CancellationToken,
    controls: C,
}

/// Where a run's events are read from: a channel's receiving end (the
/// run's own, a turn's [`baton_agent::EventStream`], the voice loop's).
pub trait EventSource<E>: Send + 'static {
    /// The next event; `None` once the sender is gone.
    fn recv(&mut self) -> impl Future<Output = Option<E>> + Send;
}

impl<E: Send + 'static> EventSource<E> for mpsc::Receiver<E> {
    fn recv(&mut self) -> impl Future<Output = Option<E>> + Send {
        mpsc::Receiver::recv(self)
    }
}

impl<E: Send + 'static> EventSource<E> for mpsc::UnboundedReceiver<E> {
    fn recv(&mut self) -> impl Future<Output = Option<E>> + Send {
        mpsc::UnboundedReceiver::recv(self)
    }
}

impl EventSource<baton_agent::TurnEvent> for baton_agent::EventStream {
    fn recv(&mut self) -> impl Future<Output = Option<baton_agent::TurnEvent>> + Send {
        baton_agent::EventStream::recv(self)
    }
}

/// What a run's task is given: where its events go and its Stop.
pub struct RunParts<E> {
    /// Where the run's events go; sending waits while the reader is
    /// behind, and a reader that went away is ignored.
    pub events: mpsc::Sender<E>,
    /// Cancelled when the front door stops the run.
    pub cancel: CancellationToken,
}

impl<E: Send + 'static, O: Send + 'static, C> Run<E, O, C> {
    /// Runs `task` in the background with a bounded event channel of
    /// `capacity` (the task waits while the reader is behind).
    pub fn spawn<F, Fut>(capacity: usize, controls: C, task: F) -> Self
    where
        F: FnOnce(RunParts<E>) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let cancel = CancellationToken::new();
        let fut = task(RunParts {
            events: tx,
            cancel: cancel.clone(),
        });
        Self::start(rx, cancel, controls, tokio::spawn(fut))
    }

    /// A run over a task already started: `events` end when it has no
    /// more to say, `result` is its outcome, `cancel` stops it.
    pub fn start(
        events: impl EventSource<E>,
        cancel: CancellationToken,
        controls: C,
        result: JoinHandle<O>,
    ) -> Self {
        let events = futures::stream::unfold(events, |mut source| async move {
            source.recv().await.map(|e| (e, source))
        });
        Self {
            events: events.boxed().fuse(),
            result,
            cancel,
            controls,
        }
    }

    /// The next event; `None` once the run has no more.
    pub async fn next(&mut self) -> Option<E> {
        self.events.next().await
    }

    /// Cancelling this stops the run (promptly: a model call, a tool, a
    /// pending confirmation, the microphone all give way).
    pub fn stopper(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// The controls that apply to this kind of run.
    pub fn controls(&self) -> &C {
        &self.controls
    }

    /// Reads the remaining events and returns the result (`None` only if
    /// the run's task died).
    pub async fn finish(mut self) -> Option<O> {
        while self.events.next().await.is_some() {}
        match self.result.await {
            Ok(o) => Some(o),
            Err(e) => {
                tracing::error!(error = %e, "a run's task ended without a result");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_come_in_order_then_the_result() {
        let mut run: Run<u32, &str> = Run::spawn(1, (), |p| async move {
            for i in 0..5 {
                p.events.send(i).await.unwrap();
            }
            "done"
        });
        assert_eq!(run.next().await, Some(0));
        assert_eq!(run.next().await, Some(1));
        // The rest are read by finish.
        assert_eq!(run.finish().await, Some("done"));
        // Read to the end first, then finished.
        let mut run: Run<u32, u32> = Run::spawn(1, (), |p| async move {
            p.events.send(7).await.unwrap();
            8
        });
        assert_eq!(run.next().await, Some(7));
        assert_eq!(run.next().await, None);
        assert_eq!(run.next().await, None);
        assert_eq!(run.finish().await, Some(8));
    }

    #[tokio::test]
    async fn the_stopper_reaches_the_task_and_its_result_says_so() {
        let run: Run<(), bool, &str> = Run::spawn(4, "controls", |p| async move {
            tokio::select! {
                _ = p.cancel.cancelled() => true,
                _ = tokio::time::sleep(std::time::Duration::from_secs(30)) => false,
            }
        });
        assert_eq!(*run.controls(), "controls");
        run.stopper().cancel();
        let stopped = tokio::time::timeout(std::time::Duration::from_secs(5), run.finish())
            .await
            .expect("a stopped run ends at once");
        assert_eq!(stopped, Some(true));
    }

    #[tokio::test]
    async fn a_task_that_dies_has_no_result() {
        let run: Run<(), ()> = Run::spawn(1, (), |_| async { panic!("boom") });
        assert_eq!(run.finish().await, None);
    }
}
