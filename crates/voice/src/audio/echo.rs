//! Acoustic echo cancellation, so voice mode works on loudspeakers: what
//! the speaker plays is the reference of WebRTC's AEC3 (the pure-Rust
//! `aec3` port: high-pass filter, echo canceller, noise suppression) on
//! the microphone, and the voice detector hears the user, not Baton's own
//! answer coming back through the room. AEC3 finds the speaker-to-mic
//! delay itself (up to about half a second).
//!
//! The pipeline is not `Send`: it lives on a thread of its own, fed
//! through a channel by the speaker's device callback (the reference, as
//! it is handed to the device) and by the microphone.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use aec3::audio_processing::ns::{NsConfig, SuppressionLevel};
use aec3::nodes::audio::AudioFormat;
use aec3::pipelines::linear::{self, LinearPipeline};

use super::{AudioChunks, AudioError, Speaker, StreamResampler};

/// The microphone's rate (and the canceller's capture rate).
const MIC_RATE: u32 = 16_000;
/// One 10 ms capture frame.
const FRAME: usize = (MIC_RATE / 100) as usize;
/// Reference frames kept ahead of the microphone at most (AEC3's render
/// queue holds 100); beyond that the oldest are skipped.
const MAX_AHEAD: i64 = 80;
/// The microphone may run this many frames ahead of the reference (a
/// device hands its sound over in bursts; AEC3 absorbs that jitter)
/// before silence stands in for a speaker that stopped pulling.
const MAX_BEHIND: i64 = 50;
/// Pieces waiting for the canceller (about 5 s of 10 ms pieces).
const QUEUE: usize = 512;

/// What reaches the canceller's thread.
enum Feed {
    /// Samples the speaker played, at its rate.
    Render(Vec<f32>),
    /// Samples the microphone heard, 16 kHz.
    Capture(Vec<f32>),
    /// The microphone closed.
    End,
}

/// The microphone's audio with the speaker's echo removed (16 kHz mono,
/// as `mic` delivers it), and steady noise too when `noise_suppression`
/// (it costs Whisper some accuracy on clean speech). The speaker's output
/// becomes the reference from now until the microphone closes or the
/// returned stream is dropped.
pub fn cancel_echo(
    mic: AudioChunks,
    speaker: &Speaker,
    noise_suppression: bool,
) -> Result<AudioChunks, AudioError> {
    let queue = Arc::clone(speaker.queue());
    let (render_rate, resampler) = reference_rate(queue.rate())?;
    let pipeline = move || {
        linear::builder(
            AudioFormat::ten_ms(render_rate, 1),
            AudioFormat::ten_ms(MIC_RATE, 1),
        )
        .enable_gain_controller2(false)
        .enable_noise_suppression(noise_suppression)
        .noise_suppression_config(NsConfig {
            // Gentle: stronger suppression swallows the start of a user
            // talking over the answer (it takes them for leftover echo).
            target_level: SuppressionLevel::K6dB,
            ..NsConfig::default()
        })
        .initial_delay_ms(40)
        .build()
    };
    let (feed_tx, feed_rx) = sync_channel::<Feed>(QUEUE);
    let (out_tx, out_rx) = tokio::sync::mpsc::channel(QUEUE);
    let render_tx = feed_tx.clone();
    queue.set_tap(Some(Box::new(move |played: &[f32]| {
        // Never block the device: a full queue drops this piece.
        let _ = render_tx.try_send(Feed::Render(played.to_vec()));
    })));
    spawn_named("baton-echo-mic", move || forward_mic(mic, feed_tx))?;
    let tap_owner = Arc::clone(&queue);
    spawn_named("baton-echo", move || {
        match pipeline() {
            Ok(p) => {
                let render_frame = p.render_format().sample_count();
                Canceller {
                    pipeline: p,
                    resampler,
                    render: Vec::new(),
                    render_frame,
                    capture: Vec::new(),
                    ahead: 0,
                }
                .run(feed_rx, out_tx);
            }
            Err(e) => {
                tracing::warn!("echo cancellation is off: {e}");
                pass_through(feed_rx, out_tx);
            }
        }
        tap_owner.set_tap(None);
    })?;
    Ok(out_rx)
}

/// The rate the reference is fed at: the speaker's when AEC3 takes it,
/// else 16 kHz through a resampler.
fn reference_rate(rate: u32) -> Result<(u32, Option<StreamResampler>), AudioError> {
    if matches!(rate, 16_000 | 32_000 | 44_100 | 48_000) {
        Ok((rate, None))
    } else {
        Ok((MIC_RATE, Some(StreamResampler::new(rate, MIC_RATE)?)))
    }
}

fn spawn_named(name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), AudioError> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map(drop)
        .map_err(|e| AudioError::Device(format!("cannot start the echo canceller: {e}")))
}

/// Moves the microphone's pieces onto the canceller's channel.
fn forward_mic(mut mic: AudioChunks, feed: SyncSender<Feed>) {
    while let Some(piece) = mic.blocking_recv() {
        if feed.send(Feed::Capture(piece)).is_err() {
            return;
        }
    }
    let _ = feed.send(Feed::End);
}

/// Without a canceller the microphone goes through as it is.
fn pass_through(feed: Receiver<Feed>, out: tokio::sync::mpsc::Sender<Vec<f32>>) {
    for f in feed {
        match f {
            Feed::Capture(piece) => {
                if out.blocking_send(piece).is_err() {
                    return;
                }
            }
            Feed::End => return,
            Feed::Render(_) => {}
        }
    }
}

/// The canceller's state on its thread.
struct Canceller {
    pipeline: LinearPipeline,
    resampler: Option<StreamResampler>,
    render: Vec<f32>,
    render_frame: usize,
    capture: Vec<f32>,
    /// Reference frames fed minus microphone frames processed.
    ahead: i64,
}

impl Canceller {
    fn run(mut self, feed: Receiver<Feed>, out: tokio::sync::mpsc::Sender<Vec<f32>>) {
        for f in feed {
            match f {
                Feed::Render(played) => self.on_render(&played),
                Feed::Capture(heard) => {
                    let clean = self.on_capture(&heard);
                    if !clean.is_empty() && out.blocking_send(clean).is_err() {
                        return;
                    }
                }
                Feed::End => return,
            }
        }
    }

    fn on_render(&mut self, played: &[f32]) {
        match self.resampler.as_mut() {
            Some(r) => self.render.extend(r.push(played)),
            None => self.render.extend_from_slice(played),
        }
        let n = self.render_frame;
        while self.render.len() >= n {
            let frame: Vec<f32> = self.render.drain(..n).collect();
            if self.ahead >= MAX_AHEAD {
                continue; // the microphone fell behind: skip, do not overflow
            }
            self.feed_render(&frame);
        }
    }

    fn feed_render(&mut self, frame: &[f32]) {
        match self.pipeline.handle_render_frame(frame) {
            Ok(()) => self.ahead += 1,
            Err(e) => tracing::debug!("echo reference frame dropped: {e}"),
        }
    }

    /// The microphone's frames, cleaned (whole 10 ms frames; the rest
    /// waits for the next piece).
    fn on_capture(&mut self, heard: &[f32]) -> Vec<f32> {
        self.capture.extend_from_slice(heard);
        let mut clean = Vec::with_capacity(self.capture.len());
        let mut out = [0.0f32; FRAME];
        while self.capture.len() >= FRAME {
            let frame: Vec<f32> = self.capture.drain(..FRAME).collect();
            // The speaker stalled (or never started): silence is the
            // reference, so both sides stay in step. A shorter lag is the
            // device's bursts, which AEC3 absorbs; filling it would shift
            // the reference against the echo.
            if self.ahead <= -MAX_BEHIND {
                let silence = vec![0.0; self.render_frame];
                self.feed_render(&silence);
            }
            match self.pipeline.process_capture_frame(&frame, &mut out) {
                Ok(true) => clean.extend_from_slice(&out),
                Ok(false) => clean.extend(std::iter::repeat_n(0.0, FRAME)),
                Err(e) => {
                    tracing::debug!("echo cancellation skipped a frame: {e}");
                    clean.extend_from_slice(&frame);
                }
            }
            self.ahead -= 1;
        }
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audio::{paced_source, resample};
    use crate::{EspeakTts, TextToSpeech};
    use std::time::Duration;

    fn speech(text: &str) -> Vec<f32> {
        let s = EspeakTts::default().synthesize(text).unwrap();
        let f: Vec<f32> = s.samples.iter().map(|&v| f32::from(v) / 32768.0).collect();
        resample(&f, s.sample_rate, MIC_RATE).unwrap()
    }

    fn energy(s: &[f32]) -> f32 {
        s.iter().map(|x| x * x).sum::<f32>() / s.len().max(1) as f32
    }

    /// The answer played on the speaker comes back to the microphone 60 ms
    /// later at 60 % of its level; then the user talks over it. After the
    /// canceller the echo is far weaker while the user's words remain.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_speakers_own_voice_is_taken_out_and_the_users_kept() {
        let speaker = Speaker::paced(16_000);
        let answer = speech(
            "The first meeting is with Alice in the morning, and the second one is with \
             the design team after lunch, in the big room on the third floor.",
        );
        let user = speech("Stop. What time is it?");
        let delay = 960; // 60 ms
        let user_at = answer.len() / 2;
        let mut heard = vec![0.0f32; delay + answer.len() + 8_000];
        for (i, s) in answer.iter().enumerate() {
            heard[delay + i] += 0.6 * s;
        }
        for (i, s) in user.iter().enumerate() {
            heard[user_at + i] += s;
        }
        let mic = paced_source(heard.clone(), Duration::from_millis(10));
        let mut clean = cancel_echo(mic, &speaker, true).unwrap();
        speaker.queue().push(&answer);
        let mut out = Vec::new();
        while let Some(piece) = clean.recv().await {
            out.extend(piece);
        }
        // Echo alone: from 1 s in (AEC3 has converged) to the user's words.
        let echo = 16_000..user_at;
        let erle = 10.0 * (energy(&heard[echo.clone()]) / energy(&out[echo]).max(1e-12)).log10();
        assert!(erle > 10.0, "the echo was reduced by only {erle:.1} dB");
        // Measured here: about 45 dB less echo, 0.89 of the voice kept.
        // The user's words (over the echo) keep most of their energy.
        let words = user_at..user_at + user.len();
        let kept = energy(&out[words.clone()]) / energy(&user);
        assert!(kept > 0.3, "only {kept:.2} of the user's voice was kept");
    }
}
