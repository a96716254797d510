//! Voice activity: where speech starts and ends in a 16 kHz mono stream,
//! with earshot's small neural detector (pure Rust, no model download) on
//! 16 ms frames, and hysteresis so a breath or a click neither starts nor
//! ends an utterance.

use std::time::Duration;

/// Samples per second the detector works at.
pub const VAD_SAMPLE_RATE: u32 = 16_000;
/// Samples per detector frame (16 ms).
pub const FRAME: usize = 256;

/// Tuning of the detector.
#[derive(Debug, Clone)]
pub struct VadOptions {
    /// Score (0–1) at or above which a frame is voice.
    pub threshold: f32,
    /// Voiced time needed to start an utterance.
    pub min_speech: Duration,
    /// Silence that ends an utterance.
    pub end_silence: Duration,
    /// Silence after which a pause is reported ([`VadEvent::Pause`]), so
    /// work on the answer can start before the end is sure (`None`: no
    /// pauses).
    pub pause: Option<Duration>,
    /// Voiced time needed to start an utterance while Baton speaks (a
    /// barge-in): longer, so a burst of leftover echo does not count.
    pub barge_in_speech: Duration,
    /// While Baton speaks, a frame is voice only this loud or louder (RMS,
    /// 0–1): the echo left after cancellation is far quieter than a voice.
    pub barge_in_level: f32,
}

impl Default for VadOptions {
    fn default() -> Self {
        Self {
            threshold: 0.5,
            min_speech: Duration::from_millis(64),
            end_silence: Duration::from_millis(700),
            pause: None,
            barge_in_speech: Duration::from_millis(160),
            barge_in_level: 0.006,
        }
    }
}

/// A change found in the stream; positions are sample offsets from the
/// start of the stream (at 16 kHz).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VadEvent {
    /// Speech began at this sample.
    SpeechStart(u64),
    /// Speech ended at this sample (the last voiced frame's end; the
    /// event itself comes `end_silence` later).
    SpeechEnd(u64),
    /// The speaker paused at this sample ([`VadOptions::pause`] of
    /// silence so far): the end may be near ([`SpeechEnd`](Self::SpeechEnd)
    /// with the same sample), or speech resumes ([`Resume`](Self::Resume)).
    Pause(u64),
    /// Speech went on after a [`Pause`](Self::Pause).
    Resume,
}

/// Streaming voice activity detection.
pub struct VoiceActivity {
    detector: Box<earshot::Detector>,
    options: VadOptions,
    pending: Vec<i16>,
    /// Samples consumed so far (whole frames).
    position: u64,
    in_speech: bool,
    /// Consecutive voiced frames (before a start) and where they began.
    voiced_run: usize,
    run_start: u64,
    /// Consecutive unvoiced frames (during speech) and the last voiced end.
    silent_run: usize,
    last_voice_end: u64,
    /// A pause was reported and speech has not resumed.
    paused: bool,
    /// Baton is speaking: starts need [`VadOptions::barge_in_speech`] of
    /// voice at [`VadOptions::barge_in_level`].
    speaking: bool,
}

impl VoiceActivity {
    /// A detector with these options.
    pub fn new(options: VadOptions) -> Self {
        Self {
            detector: earshot::Detector::default_boxed(),
            options,
            pending: Vec::with_capacity(FRAME),
            position: 0,
            in_speech: false,
            voiced_run: 0,
            run_start: 0,
            silent_run: 0,
            last_voice_end: 0,
            speaking: false,
            paused: false,
        }
    }

    /// Whether Baton's answer is playing (or just stopped): a start then
    /// needs a longer, louder run of voice.
    pub fn set_speaking(&mut self, speaking: bool) {
        self.speaking = speaking;
    }

    /// Whether an utterance is in progress.
    pub fn in_speech(&self) -> bool {
        self.in_speech
    }

    fn frames(d: Duration) -> usize {
        ((d.as_secs_f64() * f64::from(VAD_SAMPLE_RATE)) / FRAME as f64).ceil() as usize
    }

    /// Feeds 16 kHz mono samples (any count); returns what changed.
    pub fn push(&mut self, samples: &[i16]) -> Vec<VadEvent> {
        let mut events = Vec::new();
        let (start_frames, min_level) = if self.speaking {
            (
                Self::frames(self.options.barge_in_speech),
                self.options.barge_in_level,
            )
        } else {
            (Self::frames(self.options.min_speech), 0.0)
        };
        let start_frames = start_frames.max(1);
        let end_frames = Self::frames(self.options.end_silence).max(1);
        let pause_frames = self
            .options
            .pause
            .map(|p| Self::frames(p).max(1))
            .filter(|p| *p < end_frames);
        let mut rest = samples;
        while !rest.is_empty() {
            let take = (FRAME - self.pending.len()).min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() < FRAME {
                break;
            }
            let loud = self.in_speech || min_level <= 0.0 || rms(&self.pending) >= min_level;
            let voiced = loud && self.detector.predict_i16(&self.pending) >= self.options.threshold;
            self.pending.clear();
            let frame_start = self.position;
            self.position += FRAME as u64;
            if self.in_speech {
                if voiced {
                    self.silent_run = 0;
                    self.last_voice_end = self.position;
                    if std::mem::take(&mut self.paused) {
                        events.push(VadEvent::Resume);
                    }
                } else {
                    self.silent_run += 1;
                    if Some(self.silent_run) == pause_frames {
                        self.paused = true;
                        events.push(VadEvent::Pause(self.last_voice_end));
                    }
                    if self.silent_run >= end_frames {
                        self.in_speech = false;
                        self.paused = false;
                        self.voiced_run = 0;
                        events.push(VadEvent::SpeechEnd(self.last_voice_end));
                    }
                }
            } else if voiced {
                if self.voiced_run == 0 {
                    self.run_start = frame_start;
                }
                self.voiced_run += 1;
                if self.voiced_run >= start_frames {
                    self.in_speech = true;
                    self.silent_run = 0;
                    self.last_voice_end = self.position;
                    events.push(VadEvent::SpeechStart(self.run_start));
                }
            } else {
                self.voiced_run = 0;
            }
        }
        events
    }

    /// The stream ended: closes an utterance in progress.
    pub fn finish(&mut self) -> Vec<VadEvent> {
        if self.in_speech {
            self.in_speech = false;
            vec![VadEvent::SpeechEnd(self.last_voice_end)]
        } else {
            Vec::new()
        }
    }
}

/// Root-mean-square level of 16-bit samples, 0–1.
fn rms(frame: &[i16]) -> f32 {
    let sum: f64 = frame.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    ((sum / frame.len().max(1) as f64).sqrt() / 32768.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EspeakTts, TextToSpeech};

    /// Linear resampling, good enough to feed test speech to the detector
    /// (capture will use a proper resampler).
    fn to_16k(samples: &[i16], rate: u32) -> Vec<i16> {
        let n = (samples.len() as u64 * u64::from(VAD_SAMPLE_RATE) / u64::from(rate)) as usize;
        (0..n)
            .map(|i| {
                let x = i as f64 * f64::from(rate) / f64::from(VAD_SAMPLE_RATE);
                let j = x.floor() as usize;
                let f = x - j as f64;
                let a = f64::from(samples[j.min(samples.len() - 1)]);
                let b = f64::from(samples[(j + 1).min(samples.len() - 1)]);
                (a + (b - a) * f) as i16
            })
            .collect()
    }

    /// Quiet background noise (a deterministic generator).
    fn noise(n: usize, amplitude: i16, seed: &mut u64) -> Vec<i16> {
        (0..n)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                ((*seed % (2 * amplitude as u64 + 1)) as i64 - i64::from(amplitude)) as i16
            })
            .collect()
    }

    #[test]
    fn finds_each_utterance_in_speech_separated_by_silence() {
        let tts = EspeakTts::default();
        let say = |t: &str| {
            let s = tts.synthesize(t).unwrap();
            to_16k(&s.samples, s.sample_rate)
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let sec = VAD_SAMPLE_RATE as usize;
        let first = say("Please open the quarterly report and read me the summary.");
        let second = say("Thank you, that is all for today.");
        let mut stream = noise(sec, 200, &mut seed);
        let first_at = stream.len() as u64;
        stream.extend(&first);
        let first_end = stream.len() as u64;
        stream.extend(noise(3 * sec / 2, 200, &mut seed));
        let second_at = stream.len() as u64;
        stream.extend(&second);
        stream.extend(noise(sec, 200, &mut seed));

        let mut vad = VoiceActivity::new(VadOptions::default());
        let mut events = Vec::new();
        // Fed in uneven pieces, as a capture callback would.
        for piece in stream.chunks(733) {
            events.extend(vad.push(piece));
        }
        events.extend(vad.finish());
        let starts: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                VadEvent::SpeechStart(s) => Some(*s),
                _ => None,
            })
            .collect();
        let ends: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                VadEvent::SpeechEnd(s) => Some(*s),
                _ => None,
            })
            .collect();
        assert_eq!(starts.len(), 2, "two utterances: {events:?}");
        assert_eq!(ends.len(), 2, "{events:?}");
        let ms = |samples: u64| samples as f64 * 1000.0 / f64::from(VAD_SAMPLE_RATE);
        // Onsets within 150 ms of where the speech was put.
        assert!((ms(starts[0]) - ms(first_at)).abs() < 150.0, "{events:?}");
        assert!((ms(starts[1]) - ms(second_at)).abs() < 150.0, "{events:?}");
        // The first utterance ends near its last sound, not in the pause
        // (the detector's decision trails the sound by a few frames).
        assert!(
            ms(ends[0]) <= ms(first_end) + 250.0,
            "end {} ms vs speech end {} ms: {events:?}",
            ms(ends[0]),
            ms(first_end)
        );
        assert!(ms(ends[0]) >= ms(first_end) - 600.0, "{events:?}");
        assert!(!vad.in_speech());
    }

    #[test]
    fn background_noise_alone_is_not_speech() {
        let mut seed = 42;
        let mut vad = VoiceActivity::new(VadOptions::default());
        let quiet = noise(5 * VAD_SAMPLE_RATE as usize, 300, &mut seed);
        assert!(vad.push(&quiet).is_empty());
        assert!(vad.finish().is_empty());
    }
}
