//! The output queue: utterances go in as they are synthesized, a device
//! (or a pacing thread standing in for one) pulls samples out in real
//! time, and [`PlaybackQueue::stop`] silences it at once (barge-in).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::resample;
use crate::{AudioSink, Speech, TtsError};

#[derive(Default)]
struct State {
    samples: VecDeque<f32>,
    /// Samples handed to the device so far (sound only, not padding).
    played: u64,
    /// When the first sample after the last [`PlaybackQueue::mark`] was
    /// handed to the device.
    first_played: Option<Instant>,
    /// When the last sample of sound was handed to the device.
    last_played: Option<Instant>,
    stops: u64,
    /// Told every piece handed to the device (silence included): the echo
    /// canceller's reference.
    tap: Option<Tap>,
}

/// Receives what the device plays, on the device's thread: must not block.
pub type Tap = Box<dyn FnMut(&[f32]) + Send>;

/// Samples waiting to be played, at one rate, shared by the producer and
/// the device.
pub struct PlaybackQueue {
    rate: u32,
    state: Mutex<State>,
}

impl PlaybackQueue {
    /// An empty queue for a device playing at `rate` Hz.
    pub fn new(rate: u32) -> Arc<Self> {
        Arc::new(Self {
            rate,
            state: Mutex::new(State::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device's rate.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Queues samples at the device's rate.
    pub fn push(&self, samples: &[f32]) {
        self.lock().samples.extend(samples.iter().copied());
    }

    /// Fills `out` with the next samples, silence when there are none;
    /// returns how many were sound. Called by the device.
    pub fn pull(&self, out: &mut [f32]) -> usize {
        let mut s = self.lock();
        let n = out.len().min(s.samples.len());
        for (o, v) in out.iter_mut().zip(s.samples.drain(..n)) {
            *o = v;
        }
        out[n..].fill(0.0);
        if let Some(tap) = s.tap.as_mut() {
            tap(out);
        }
        if n > 0 {
            let now = Instant::now();
            s.first_played.get_or_insert(now);
            s.last_played = Some(now);
            s.played += n as u64;
        }
        n
    }

    /// Sets (or with `None` removes) what is told each piece the device
    /// plays.
    pub fn set_tap(&self, tap: Option<Tap>) {
        self.lock().tap = tap;
    }

    /// Drops everything queued: the device is silent from its next pull.
    /// Returns how many samples were dropped.
    pub fn stop(&self) -> usize {
        let mut s = self.lock();
        s.stops += 1;
        let n = s.samples.len();
        s.samples.clear();
        n
    }

    /// Samples still to play.
    pub fn queued(&self) -> usize {
        self.lock().samples.len()
    }

    /// Forgets when sound was first played, so the next
    /// [`first_played`](Self::first_played) belongs to a new answer.
    pub fn mark(&self) {
        self.lock().first_played = None;
    }

    /// When the first sample since the last [`mark`](Self::mark) played.
    pub fn first_played(&self) -> Option<Instant> {
        self.lock().first_played
    }

    /// When the last sample of sound was handed to the device.
    pub fn last_played(&self) -> Option<Instant> {
        self.lock().last_played
    }

    /// Samples of sound played so far.
    pub fn played(&self) -> u64 {
        self.lock().played
    }
}

/// A speaker: the queue plus whatever drains it (a sound card, or a
/// pacing thread that records what "played", for tests and benchmarks).
/// Clones share the queue.
#[derive(Clone)]
pub struct Speaker {
    queue: Arc<PlaybackQueue>,
    recording: Option<Arc<Mutex<Vec<f32>>>>,
    _device: Arc<DeviceGuard>,
}

/// Stops the thread that drains the queue when the last clone goes.
pub(crate) struct DeviceGuard {
    stop: CancellationToken,
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Speaker {
    pub(crate) fn from_parts(queue: Arc<PlaybackQueue>, stop: CancellationToken) -> Self {
        Self {
            queue,
            recording: None,
            _device: Arc::new(DeviceGuard { stop }),
        }
    }

    /// A speaker that plays into memory in real time: a thread pulls
    /// 10 ms of samples every 10 ms, as a sound card would, and keeps
    /// everything (silence included) for [`recording`](Self::recording).
    pub fn paced(rate: u32) -> Self {
        let queue = PlaybackQueue::new(rate);
        let stop = CancellationToken::new();
        let recording = Arc::new(Mutex::new(Vec::new()));
        {
            let (queue, stop, recording) =
                (Arc::clone(&queue), stop.clone(), Arc::clone(&recording));
            std::thread::Builder::new()
                .name("baton-paced-speaker".into())
                .spawn(move || {
                    let period = Duration::from_millis(10);
                    let mut buf = vec![0.0f32; rate as usize / 100];
                    let start = Instant::now();
                    let mut ticks = 0u32;
                    while !stop.is_cancelled() {
                        queue.pull(&mut buf);
                        recording
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .extend_from_slice(&buf);
                        ticks += 1;
                        let next = start + period * ticks;
                        if let Some(wait) = next.checked_duration_since(Instant::now()) {
                            std::thread::sleep(wait);
                        }
                    }
                })
                .expect("spawn the paced speaker");
        }
        Self {
            recording: Some(recording),
            ..Self::from_parts(queue, stop)
        }
    }

    /// The queue the device drains.
    pub fn queue(&self) -> &Arc<PlaybackQueue> {
        &self.queue
    }

    /// What a [`paced`](Self::paced) speaker has played so far, silence
    /// included; `None` for a sound card.
    pub fn recording(&self) -> Option<Speech> {
        let rec = self.recording.as_ref()?;
        let rec = rec.lock().unwrap_or_else(|e| e.into_inner());
        Some(Speech::from_f32(&rec, self.queue.rate()))
    }

    /// Whether sound is queued or still playing.
    pub fn is_playing(&self) -> bool {
        self.queue.queued() > 0
    }
}

impl AudioSink for Speaker {
    fn play(&mut self, speech: &Speech) -> Result<(), TtsError> {
        let f = speech.to_f32();
        let at_rate = resample(&f, speech.sample_rate, self.queue.rate())
            .map_err(|e| TtsError::Synthesis(e.to_string()))?;
        self.queue.push(&at_rate);
        Ok(())
    }

    fn finish(&mut self, cancel: &CancellationToken) -> Result<(), TtsError> {
        while self.queue.queued() > 0 && !cancel.is_cancelled() {
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    fn interrupter(&self) -> Option<Arc<dyn Fn() + Send + Sync>> {
        let q = Arc::clone(&self.queue);
        Some(Arc::new(move || {
            q.stop();
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulls_in_order_pads_with_silence_and_stops_at_once() {
        let q = PlaybackQueue::new(16_000);
        q.push(&[0.1, 0.2, 0.3]);
        let mut out = [9.0; 2];
        assert_eq!(q.pull(&mut out), 2);
        assert_eq!(out, [0.1, 0.2]);
        let mut out = [9.0; 3];
        assert_eq!(q.pull(&mut out), 1);
        assert_eq!(out, [0.3, 0.0, 0.0]);
        assert!(q.first_played().is_some());
        q.mark();
        assert!(q.first_played().is_none());
        q.push(&[0.5; 100]);
        assert_eq!(q.stop(), 100);
        assert_eq!(q.pull(&mut out), 0);
        assert_eq!(q.played(), 3);
    }

    #[test]
    fn a_paced_speaker_plays_in_real_time_and_stops_within_a_tick() {
        let mut spk = Speaker::paced(16_000);
        let tone = Speech {
            samples: vec![8000; 16_000],
            sample_rate: 16_000,
        };
        let t0 = Instant::now();
        spk.play(&tone).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(spk.is_playing());
        (spk.interrupter().unwrap())();
        let stopped_at = Instant::now();
        std::thread::sleep(Duration::from_millis(100));
        let last = spk.queue().last_played().unwrap();
        assert!(
            last <= stopped_at + Duration::from_millis(15),
            "sound {:?} after the stop",
            last - stopped_at
        );
        let played = spk.queue().played();
        // About 300 ms played, not the whole second.
        assert!((3_000..=8_000).contains(&played), "{played} samples played");
        assert!(t0.elapsed() < Duration::from_secs(1));
        let rec = spk.recording().unwrap();
        assert!(rec.samples.len() >= 16_000 * 35 / 100);
    }
}
