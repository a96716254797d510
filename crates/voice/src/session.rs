//! The voice conversation loop: microphone chunks in; voice detection
//! (hands-free) or a held button (push-to-talk) cuts utterances, with a
//! pre-roll so the first syllable is kept; drafts of the transcript while
//! the user talks; at the end of speech the final transcript goes to the
//! [`Responder`] (the agent) and its streamed answer is spoken sentence by
//! sentence. Speaking again (or pressing stop) is a barge-in: playback is
//! silenced at once, queued sentences are dropped and the model call is
//! cancelled; the new utterance is handled as usual.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::audio::{AudioChunks, Speaker};
use crate::stt::{Pass, STT_SAMPLE_RATE, SpeechToText, SttError, Transcript};
use crate::tts::f32_to_i16;
use crate::{
    SpeakStep, SplitterOptions, TextToSpeech, TtsError, VadEvent, VadOptions, VoiceActivity,
    speak_stream_observed,
};

mod held;
mod speculate;

use held::{Gate, HeldSink};
use speculate::Speculation;

/// Answers what the user said: the agent's streaming chat, or a stand-in.
pub trait Responder: Send + Sync {
    /// Starts answering `prompt`; the answer's text arrives on the
    /// receiver as it is produced and the channel closes at the end.
    /// Cancelling `cancel` stops the model call.
    fn respond(&self, prompt: String, cancel: CancellationToken) -> mpsc::Receiver<String>;

    /// An answer is over (spoken to the end, or cut short): what was
    /// heard, said and how fast, to keep with the conversation.
    fn finished(&self, _record: &TurnRecord) {}

    /// The answer to `prompt` was started on half a sentence (at a pause)
    /// and thrown away unheard: forget the exchange.
    fn retract(&self, _prompt: &str) {}

    /// Whether an answer may be started at a pause, before the end is
    /// sure (not while a question to the user waits: a half answer to it
    /// could not be taken back).
    fn may_speculate(&self) -> bool {
        true
    }
}

/// How utterances are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ListenMode {
    /// Voice detection starts and ends utterances.
    #[default]
    HandsFree,
    /// An utterance lasts while the talk button is held
    /// ([`Control::Talk`]).
    PushToTalk,
}

/// Tuning of the loop.
#[derive(Debug, Clone)]
pub struct LoopOptions {
    /// Voice detection (its `end_silence` ends an utterance).
    pub vad: VadOptions,
    /// Audio kept from before the detected start of speech.
    pub preroll: Duration,
    /// How often to re-decode the growing utterance for a draft
    /// transcript (`None`: no drafts).
    pub partial_every: Option<Duration>,
    /// Hands-free or push-to-talk.
    pub mode: ListenMode,
    /// How answers are cut into sentences.
    pub splitter: SplitterOptions,
    /// How often to report the input level.
    pub level_every: Duration,
    /// Take the speaker's sound out of the microphone
    /// ([`cancel_echo`](crate::audio::cancel_echo)).
    pub echo_cancellation: bool,
    /// With echo cancellation, also suppress steady noise (a fan, a busy
    /// room); off by default: on clean speech it costs Whisper accuracy
    /// and delays a barge-in.
    pub noise_suppression: bool,
    /// Hands-free: after this much silence, transcribe and start the
    /// answer (held, not heard) before the end-of-speech pause is over;
    /// the pause confirms it, or speech resuming throws it away (`None`:
    /// wait for the whole pause).
    pub speculate_after: Option<Duration>,
}

impl Default for LoopOptions {
    fn default() -> Self {
        Self {
            vad: VadOptions::default(),
            preroll: Duration::from_millis(500),
            partial_every: Some(Duration::from_millis(1000)),
            mode: ListenMode::HandsFree,
            splitter: SplitterOptions::default(),
            level_every: Duration::from_millis(50),
            echo_cancellation: true,
            noise_suppression: false,
            speculate_after: Some(Duration::from_millis(300)),
        }
    }
}

/// Commands from the user interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Push-to-talk pressed (`true`) or released (`false`).
    Talk(bool),
    /// Stop speaking (and cancel the answer).
    StopSpeaking,
    /// End the conversation.
    Quit,
}

/// Where the time went between the end of the user's speech and the first
/// sound of the answer.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TurnTiming {
    /// Silence waited for before the utterance was judged over.
    pub vad_tail_ms: f64,
    /// Final transcription.
    pub stt_ms: f64,
    /// From the transcript to the answer's first complete sentence.
    pub first_sentence_ms: f64,
    /// Synthesizing the first sentence and handing it to the device.
    pub tts_ms: f64,
    /// From the end of speech to the first sample played.
    pub first_audio_ms: f64,
}

/// What one turn of the conversation did.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// What the user said.
    pub transcript: String,
    /// The answer's text as far as it was produced.
    pub answer: String,
    /// The sentences spoken (queued on the device), in order.
    pub spoken: Vec<String>,
    /// Whether the answer was cut short by a barge-in or stop.
    pub interrupted: bool,
    /// Latency parts, when sound was played.
    pub timing: Option<TurnTiming>,
}

/// What the loop reports as it goes, for a UI or a terminal.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum VoiceEvent {
    /// The microphone's level (RMS, 0–1), a few times a second.
    Level {
        /// Root-mean-square of the last stretch.
        rms: f32,
    },
    /// The user started talking.
    SpeechStarted,
    /// A draft of what is being said.
    Partial {
        /// The draft text.
        text: String,
    },
    /// What was said, final.
    Transcript {
        /// The text (empty: nothing intelligible).
        text: String,
        /// Decoding time.
        stt_ms: f64,
    },
    /// A piece of the answer's text.
    AnswerText {
        /// The piece.
        text: String,
    },
    /// A sentence is being spoken.
    Speaking {
        /// The sentence.
        sentence: String,
    },
    /// The answer is over (finished, or cut short).
    AnswerDone {
        /// Whether it was cut short.
        interrupted: bool,
        /// Latency parts, when sound was played.
        timing: Option<TurnTiming>,
    },
    /// Speech or stop interrupted the answer.
    BargeIn {
        /// From the interruption to silence (ms) — the device's share.
        silenced_ms: f64,
        /// From the first voiced moment of the user's speech, by the
        /// microphone's clock, to silence (ms): how long the user talked
        /// over the answer (0 for the Stop button).
        speech_ms: f64,
    },
    /// Something failed; the loop goes on listening.
    Error {
        /// What, in plain words.
        message: String,
    },
    /// The conversation is over: the last event a front door passes on,
    /// once the run has finished (the loop itself just closes its channel).
    Stopped,
}

/// The engines a voice conversation uses.
#[derive(Clone)]
pub struct VoiceParts {
    /// Speech-to-text.
    pub stt: Arc<dyn SpeechToText>,
    /// Text-to-speech.
    pub tts: Arc<dyn TextToSpeech>,
    /// Where answers are played.
    pub speaker: Speaker,
    /// Who answers.
    pub responder: Arc<dyn Responder>,
}

/// A turn whose answer is being produced or spoken.
struct ActiveAnswer {
    cancel: CancellationToken,
    task: JoinHandle<TurnRecord>,
}

/// Samples kept since `start` (an absolute sample offset).
struct History {
    samples: Vec<f32>,
    start: u64,
}

impl History {
    fn end(&self) -> u64 {
        self.start + self.samples.len() as u64
    }
    fn slice(&self, from: u64, to: u64) -> Vec<f32> {
        let a = from.saturating_sub(self.start) as usize;
        let b = (to.saturating_sub(self.start) as usize).min(self.samples.len());
        self.samples
            .get(a.min(b)..b)
            .map(<[f32]>::to_vec)
            .unwrap_or_default()
    }
    /// Forgets everything before `keep_from`.
    fn trim(&mut self, keep_from: u64) {
        if keep_from > self.start {
            let n = ((keep_from - self.start) as usize).min(self.samples.len());
            self.samples.drain(..n);
            self.start += n as u64;
        }
    }
}

/// The length of `n` samples at the microphone's rate.
fn duration_of(n: u64) -> Duration {
    Duration::from_secs_f64(n as f64 / f64::from(STT_SAMPLE_RATE))
}

fn samples_of(d: Duration) -> u64 {
    (d.as_secs_f64() * f64::from(STT_SAMPLE_RATE)) as u64
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs a voice conversation until the microphone closes or
/// [`Control::Quit`]; returns every turn. Events go to `events` (dropped
/// if nobody listens). The loop sleeps until audio, a control or one of
/// its background jobs (drafts, final transcripts, the answer) arrives.
pub async fn run_voice_loop(
    mut mic: AudioChunks,
    parts: VoiceParts,
    options: LoopOptions,
    mut control: mpsc::Receiver<Control>,
    events: mpsc::UnboundedSender<VoiceEvent>,
) -> Vec<TurnRecord> {
    if options.echo_cancellation {
        mic = match crate::audio::cancel_echo(mic, &parts.speaker, options.noise_suppression) {
            Ok(clean) => clean,
            Err(e) => {
                // `mic` went to the canceller; nothing can be heard.
                let _ = events.send(VoiceEvent::Error {
                    message: e.to_string(),
                });
                return Vec::new();
            }
        };
    }
    let mut state = VoiceLoop::new(parts, options, events);
    let mut jobs = Jobs::default();
    let (mut mic_open, mut control_open) = (true, true);
    loop {
        if !mic_open && state.utterance_start.is_none() && jobs.settled() {
            break;
        }
        tokio::select! {
            chunk = mic.recv(), if mic_open => match chunk {
                Some(chunk) => state.on_audio(&chunk, &mut jobs).await,
                None => {
                    mic_open = false;
                    state.on_mic_closed(&mut jobs);
                }
            },
            ctl = control.recv(), if control_open => match ctl {
                Some(Control::Quit) => {
                    state.barge_in(&mut jobs, Duration::ZERO).await;
                    break;
                }
                Some(ctl) => state.on_control(ctl, &mut jobs).await,
                None => control_open = false,
            },
            done = jobs.next(), if !jobs.idle() => state.on_done(done, &mut jobs).await,
        }
    }
    state.finish(jobs).await
}

/// What runs in the background while the loop listens.
#[derive(Default)]
struct Jobs {
    /// A draft transcription of the utterance in progress.
    partial: Option<JoinHandle<Result<Transcript, SttError>>>,
    /// Final transcriptions of finished utterances.
    finals: tokio::task::JoinSet<FinalTranscript>,
    /// The answer being produced or spoken.
    answer: Option<ActiveAnswer>,
    /// A transcription started at a pause (see [`Speculation`]).
    spec: Option<JoinHandle<FinalTranscript>>,
}

/// A background job that ended.
enum Done {
    /// The transcription started at a pause.
    Speculative(Option<FinalTranscript>),
    /// A draft (`None` when it failed).
    Partial(Option<Transcript>),
    /// A final transcription.
    Final(Option<FinalTranscript>),
    /// The answer's turn.
    Answer(Option<TurnRecord>),
}

impl Jobs {
    fn idle(&self) -> bool {
        self.partial.is_none() && self.settled()
    }

    /// No transcript or answer pending (a draft does not count).
    fn settled(&self) -> bool {
        self.finals.is_empty() && self.answer.is_none() && self.spec.is_none()
    }

    /// Waits for the next job to end (only called when one is running).
    async fn next(&mut self) -> Done {
        let Jobs {
            partial,
            finals,
            answer,
            spec,
        } = self;
        tokio::select! {
            r = async {
                let r = spec.as_mut().expect("guarded").await;
                *spec = None;
                r
            }, if spec.is_some() => Done::Speculative(r.ok()),
            r = async {
                let r = partial.as_mut().expect("guarded").await;
                *partial = None;
                r
            }, if partial.is_some() => Done::Partial(r.ok().and_then(Result::ok)),
            Some(r) = finals.join_next(), if !finals.is_empty() => Done::Final(r.ok()),
            r = async {
                let r = (&mut answer.as_mut().expect("guarded").task).await;
                *answer = None;
                r
            }, if answer.is_some() => Done::Answer(r.ok()),
        }
    }

    /// Stops the answer in flight and keeps its record.
    async fn cancel_answer(&mut self, turns: &mut Vec<TurnRecord>, responder: &dyn Responder) {
        if let Some(old) = self.answer.take() {
            old.cancel.cancel();
            if let Ok(rec) = old.task.await {
                responder.finished(&rec);
                turns.push(rec);
            }
        }
    }
}

/// The conversation's state between events.
struct VoiceLoop {
    parts: VoiceParts,
    options: LoopOptions,
    events: mpsc::UnboundedSender<VoiceEvent>,
    vad: VoiceActivity,
    preroll: u64,
    history: History,
    /// Where the utterance in progress starts (an absolute sample).
    utterance_start: Option<u64>,
    /// A transcript that arrived while the user was talking again.
    carried: Option<String>,
    last_partial: Instant,
    level: (f64, usize, Instant),
    turns: Vec<TurnRecord>,
    /// Work started at a pause in the utterance in progress.
    spec: Option<Speculation>,
}

impl VoiceLoop {
    fn new(
        parts: VoiceParts,
        options: LoopOptions,
        events: mpsc::UnboundedSender<VoiceEvent>,
    ) -> Self {
        Self {
            vad: VoiceActivity::new(VadOptions {
                pause: options.speculate_after,
                ..options.vad.clone()
            }),
            preroll: samples_of(options.preroll),
            parts,
            options,
            events,
            history: History {
                samples: Vec::new(),
                start: 0,
            },
            utterance_start: None,
            carried: None,
            last_partial: Instant::now(),
            level: (0.0, 0, Instant::now()),
            turns: Vec::new(),
            spec: None,
        }
    }

    fn emit(&self, e: VoiceEvent) {
        let _ = self.events.send(e);
    }

    /// A chunk of microphone audio: level, voice detection, drafts.
    async fn on_audio(&mut self, chunk: &[f32], jobs: &mut Jobs) {
        let now = Instant::now();
        self.report_level(chunk, now);
        self.history.samples.extend_from_slice(chunk);
        if self.options.mode == ListenMode::HandsFree {
            self.vad.set_speaking(self.echo_expected());
            let pcm: Vec<i16> = chunk.iter().copied().map(f32_to_i16).collect();
            for ev in self.vad.push(&pcm) {
                match ev {
                    VadEvent::SpeechStart(at) => {
                        let heard = duration_of(self.history.end().saturating_sub(at));
                        self.start_utterance(at.saturating_sub(self.preroll), heard, jobs)
                            .await;
                    }
                    VadEvent::SpeechEnd(at) => {
                        if !self.confirm_speculation(at) {
                            self.end_utterance_at(at, now, jobs);
                        }
                    }
                    VadEvent::Pause(at) => self.speculate(at, now, jobs),
                    VadEvent::Resume => self.drop_speculation(jobs).await,
                }
            }
        }
        match self.utterance_start {
            Some(start) => self.maybe_draft(start, jobs),
            None => self
                .history
                .trim(self.history.end().saturating_sub(self.preroll * 2)),
        }
    }

    /// Whether the speaker is playing, or played within the time its sound
    /// takes to come back through a room and the devices' buffers.
    fn echo_expected(&self) -> bool {
        const ECHO_TAIL: Duration = Duration::from_millis(500);
        let queue = self.parts.speaker.queue();
        queue.queued() > 0 || queue.last_played().is_some_and(|t| t.elapsed() < ECHO_TAIL)
    }

    fn report_level(&mut self, chunk: &[f32], now: Instant) {
        self.level.0 += chunk
            .iter()
            .map(|v| f64::from(*v) * f64::from(*v))
            .sum::<f64>();
        self.level.1 += chunk.len();
        if now.duration_since(self.level.2) >= self.options.level_every && self.level.1 > 0 {
            let rms = (self.level.0 / self.level.1 as f64).sqrt() as f32;
            self.emit(VoiceEvent::Level { rms });
            self.level = (0.0, 0, now);
        }
    }

    /// The user starts talking (voice detected, or the talk button).
    async fn start_utterance(&mut self, from: u64, heard: Duration, jobs: &mut Jobs) {
        self.barge_in(jobs, heard).await;
        self.utterance_start = Some(from);
        self.last_partial = Instant::now();
        self.emit(VoiceEvent::SpeechStarted);
    }

    /// Voice detection judged the utterance over at sample `at`.
    fn end_utterance_at(&mut self, at: u64, now: Instant, jobs: &mut Jobs) {
        let Some(start) = self.utterance_start.take() else {
            return;
        };
        let (audio, speech_end) = self.heard(start, at, now);
        spawn_final(&mut jobs.finals, &self.parts, audio, speech_end, now);
    }

    /// The utterance from `start` to the voice's end at `at` (with a
    /// little of the tail: word endings are soft), and when, by the clock,
    /// the voice ended (`now` is when the loop got this far).
    fn heard(&self, start: u64, at: u64, now: Instant) -> (Vec<f32>, Instant) {
        let end = (at + samples_of(Duration::from_millis(150))).min(self.history.end());
        let behind = duration_of(self.history.end().saturating_sub(at));
        (
            self.history.slice(start, end),
            now.checked_sub(behind).unwrap_or(now),
        )
    }

    /// The utterance ends now (button released, source closed).
    fn end_utterance_now(&mut self, jobs: &mut Jobs) {
        if let Some(start) = self.utterance_start.take() {
            let now = Instant::now();
            let audio = self.history.slice(start, self.history.end());
            spawn_final(&mut jobs.finals, &self.parts, audio, now, now);
        }
    }

    /// Starts a draft transcription when one is due.
    fn maybe_draft(&mut self, start: u64, jobs: &mut Jobs) {
        let Some(every) = self.options.partial_every else {
            return;
        };
        if jobs.partial.is_some() || !jobs.finals.is_empty() || self.last_partial.elapsed() < every
        {
            return;
        }
        self.last_partial = Instant::now();
        let stt = Arc::clone(&self.parts.stt);
        let audio = self.history.slice(start, self.history.end());
        jobs.partial = Some(tokio::task::spawn_blocking(move || {
            stt.transcribe(&audio, Pass::Partial)
        }));
    }

    fn on_mic_closed(&mut self, jobs: &mut Jobs) {
        // The source ended during a pause: the pause was the end.
        if let Some(at) = self
            .spec
            .as_ref()
            .filter(|s| !s.is_confirmed())
            .map(|s| s.at())
        {
            self.confirm_speculation(at);
            return;
        }
        // The source ended: close an utterance in progress.
        self.end_utterance_now(jobs);
    }

    async fn on_control(&mut self, ctl: Control, jobs: &mut Jobs) {
        match ctl {
            Control::Talk(true) => {
                let from = self.history.end().saturating_sub(self.preroll);
                self.start_utterance(from, Duration::ZERO, jobs).await;
            }
            Control::Talk(false) => self.end_utterance_now(jobs),
            Control::StopSpeaking | Control::Quit => self.barge_in(jobs, Duration::ZERO).await,
        }
    }

    async fn on_done(&mut self, done: Done, jobs: &mut Jobs) {
        match done {
            Done::Partial(Some(t)) if self.utterance_start.is_some() && !t.text.is_empty() => {
                self.emit(VoiceEvent::Partial { text: t.text });
            }
            Done::Partial(_) | Done::Final(None) | Done::Answer(None) => {}
            Done::Final(Some(f)) => self.on_transcript(f, jobs).await,
            Done::Speculative(f) => self.on_speculative(f, jobs).await,
            Done::Answer(Some(rec)) => {
                self.parts.responder.finished(&rec);
                self.turns.push(rec);
            }
        }
    }

    /// A final transcript: answered, or carried on when the user is
    /// already talking again (speech judged over that went on is answered
    /// together with what followed).
    async fn on_transcript(&mut self, f: FinalTranscript, jobs: &mut Jobs) {
        let t = match f.result {
            Ok(t) => t,
            Err(e) => {
                self.emit(VoiceEvent::Error {
                    message: e.to_string(),
                });
                return;
            }
        };
        self.emit(VoiceEvent::Transcript {
            text: t.text.clone(),
            stt_ms: t.decode_ms as f64,
        });
        let text = match self.carried.take() {
            Some(before) if !t.text.trim().is_empty() => format!("{before} {}", t.text.trim()),
            Some(before) => before,
            None => t.text.trim().to_string(),
        };
        if text.is_empty() {
            return;
        }
        if self.utterance_start.is_some() {
            // Answered with what follows; work on the follow-up alone is
            // thrown away.
            self.drop_speculation(jobs).await;
            self.carried = Some(text);
            return;
        }
        jobs.cancel_answer(&mut self.turns, self.parts.responder.as_ref())
            .await;
        jobs.answer = Some(start_answer(
            &self.parts,
            &self.options,
            text,
            (f.speech_end, f.heard_end),
            self.events.clone(),
            Gate::open_now(),
        ));
    }

    /// Speech or Stop interrupts the answer.
    async fn barge_in(&self, jobs: &mut Jobs, heard: Duration) {
        barge_in(&mut jobs.answer, &self.parts, heard, &|e| self.emit(e)).await;
    }

    /// The loop ends: the answer is stopped, a draft dropped.
    async fn finish(mut self, mut jobs: Jobs) -> Vec<TurnRecord> {
        jobs.cancel_answer(&mut self.turns, self.parts.responder.as_ref())
            .await;
        if let Some(p) = jobs.partial.take() {
            p.abort();
        }
        self.turns
    }
}

/// A final transcription and when the speech it heard ended: `speech_end`
/// is the last voiced moment, `heard_end` when the loop judged it over.
struct FinalTranscript {
    result: Result<Transcript, SttError>,
    speech_end: Instant,
    heard_end: Instant,
}

fn spawn_final(
    finals: &mut tokio::task::JoinSet<FinalTranscript>,
    parts: &VoiceParts,
    audio: Vec<f32>,
    speech_end: Instant,
    heard_end: Instant,
) {
    let stt = Arc::clone(&parts.stt);
    finals.spawn_blocking(move || FinalTranscript {
        result: stt.transcribe(&audio, Pass::Final),
        speech_end,
        heard_end,
    });
}

/// Silences the speaker, drops queued sentences and cancels the answer.
async fn barge_in(
    answer: &mut Option<ActiveAnswer>,
    parts: &VoiceParts,
    heard: Duration,
    emit: &impl Fn(VoiceEvent),
) {
    let playing = parts.speaker.is_playing();
    let Some(a) = answer.as_ref() else {
        if playing {
            let at = Instant::now();
            parts.speaker.queue().stop();
            let silenced = at.elapsed();
            emit(VoiceEvent::BargeIn {
                silenced_ms: ms(silenced),
                speech_ms: ms(heard + silenced),
            });
        }
        return;
    };
    let at = Instant::now();
    a.cancel.cancel();
    parts.speaker.queue().stop();
    // The device stops at its next pull; wait for it to report silence.
    let silenced = wait_silent(&parts.speaker, at).await;
    emit(VoiceEvent::BargeIn {
        silenced_ms: ms(silenced),
        speech_ms: ms(heard + silenced),
    });
}

async fn wait_silent(speaker: &Speaker, since: Instant) -> Duration {
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let last = speaker.queue().last_played();
        if last.is_none_or(|l| l.elapsed() >= Duration::from_millis(4)) {
            return last.map_or(Duration::ZERO, |l| l.saturating_duration_since(since));
        }
    }
    since.elapsed()
}

/// Forwards the answer's text to the speech stream at once, and to the
/// user interface once `gate` lets it be seen (a held answer's text waits).
fn forward_answer(
    mut answer_rx: mpsc::Receiver<String>,
    speak_tx: mpsc::Sender<String>,
    answer_text: Arc<Mutex<String>>,
    events: mpsc::UnboundedSender<VoiceEvent>,
    (gate, cancel): (Gate, CancellationToken),
) {
    tokio::spawn(async move {
        let mut unseen = String::new();
        loop {
            let piece = tokio::select! {
                piece = answer_rx.recv() => piece,
                () = gate.released(), if !unseen.is_empty() => Some(String::new()),
            };
            let Some(piece) = piece else { break };
            answer_text
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(&piece);
            unseen.push_str(&piece);
            if gate.is_discarded() {
                unseen.clear();
            } else if !gate.is_held() && !unseen.is_empty() {
                let text = std::mem::take(&mut unseen);
                let _ = events.send(VoiceEvent::AnswerText { text });
            }
            if !piece.is_empty() && speak_tx.send(piece).await.is_err() {
                break;
            }
        }
        // The whole answer may have come while it was held.
        drop(speak_tx);
        tokio::select! {
            () = gate.released() => {}
            () = cancel.cancelled() => return,
        }
        if !gate.is_discarded() && !unseen.is_empty() {
            let _ = events.send(VoiceEvent::AnswerText { text: unseen });
        }
    });
}

/// Starts answering `prompt` and speaking the answer as it streams; a
/// held `gate` keeps it unheard and unseen until it opens.
fn start_answer(
    parts: &VoiceParts,
    options: &LoopOptions,
    prompt: String,
    (speech_end, heard_end): (Instant, Instant),
    events: mpsc::UnboundedSender<VoiceEvent>,
    gate: Gate,
) -> ActiveAnswer {
    let cancel = CancellationToken::new();
    let transcribed = Instant::now();
    let answer_rx = parts.responder.respond(prompt.clone(), cancel.clone());
    let (speak_tx, speak_rx) = mpsc::channel::<String>(256);
    let answer_text = Arc::new(Mutex::new(String::new()));
    let forward_gate = gate.clone();
    forward_answer(
        answer_rx,
        speak_tx,
        Arc::clone(&answer_text),
        events.clone(),
        (forward_gate, cancel.clone()),
    );
    let speaker = parts.speaker.clone();
    speaker.queue().mark();
    let sink = HeldSink {
        speaker: speaker.clone(),
        gate: gate.clone(),
        cancel: cancel.clone(),
    };
    let tts: Arc<dyn TextToSpeech> = Arc::clone(&parts.tts);
    let splitter = options.splitter.clone();
    let task_cancel = cancel.clone();
    let task = tokio::spawn(async move {
        let steps: Arc<Mutex<(Option<Instant>, Option<Instant>)>> = Arc::default();
        let observe_steps = Arc::clone(&steps);
        let observe_events = events.clone();
        let observe_gate = gate.clone();
        let result = speak_stream_observed(
            speak_rx,
            tts,
            sink,
            splitter,
            task_cancel.clone(),
            move |step| {
                let mut s = observe_steps.lock().unwrap_or_else(|e| e.into_inner());
                match step {
                    SpeakStep::Sentence(_, at) => {
                        s.0.get_or_insert(at);
                    }
                    SpeakStep::Queued(sentence, at) => {
                        // A held answer thrown away (or stopped) never sounded.
                        if !observe_gate.is_held() && !observe_gate.is_discarded() {
                            s.1.get_or_insert(at);
                            let _ = observe_events.send(VoiceEvent::Speaking { sentence });
                        }
                    }
                }
            },
        )
        .await;
        let (spoken, interrupted) = match result {
            Ok(r) => (r.spoken, r.stopped),
            Err(e) => {
                report_tts_error(&events, &e);
                (Vec::new(), true)
            }
        };
        let interrupted = interrupted || task_cancel.is_cancelled();
        let (first_sentence, queued) = *steps.lock().unwrap_or_else(|e| e.into_inner());
        let timing = turn_timing(
            [speech_end, heard_end, transcribed],
            first_sentence.zip(queued),
            speaker.queue().first_played(),
        );
        // An answer thrown away unheard was never there for the user.
        if !gate.is_discarded() {
            let _ = events.send(VoiceEvent::AnswerDone {
                interrupted,
                timing: timing.clone(),
            });
        }
        let answer = answer_text
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        TurnRecord {
            transcript: prompt,
            answer,
            spoken,
            interrupted,
            timing,
        }
    });
    ActiveAnswer { cancel, task }
}

/// Where the time went, from the end of speech (`speech_end`), the moment
/// it was judged over (`heard_end`) and transcribed, to the first
/// sentence, its audio queued, and the first sample played; `None` when
/// nothing was played.
fn turn_timing(
    [speech_end, heard_end, transcribed]: [Instant; 3],
    sentence_queued: Option<(Instant, Instant)>,
    played: Option<Instant>,
) -> Option<TurnTiming> {
    let ((sentence, queued), played) = sentence_queued.zip(played)?;
    Some(TurnTiming {
        vad_tail_ms: ms(heard_end.saturating_duration_since(speech_end)),
        stt_ms: ms(transcribed.saturating_duration_since(heard_end)),
        first_sentence_ms: ms(sentence.saturating_duration_since(transcribed)),
        tts_ms: ms(queued.saturating_duration_since(sentence)),
        first_audio_ms: ms(played.saturating_duration_since(speech_end)),
    })
}

fn report_tts_error(events: &mpsc::UnboundedSender<VoiceEvent>, e: &TtsError) {
    let _ = events.send(VoiceEvent::Error {
        message: e.to_string(),
    });
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::EspeakTts;
    use crate::audio::{paced_source, resample};

    /// Hands out scripted transcripts, after `delay`, and keeps the audio
    /// it was given.
    struct ScriptedStt {
        texts: Mutex<VecDeque<&'static str>>,
        heard: Mutex<Vec<usize>>,
        delay: Duration,
    }

    impl SpeechToText for ScriptedStt {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn transcribe(&self, samples: &[f32], pass: Pass) -> Result<Transcript, SttError> {
            if pass == Pass::Partial {
                return Ok(Transcript {
                    text: String::new(),
                    segments: Vec::new(),
                    audio_ms: 0,
                    decode_ms: 0,
                });
            }
            std::thread::sleep(self.delay);
            self.heard.lock().unwrap().push(samples.len());
            let text = self
                .texts
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or("")
                .to_string();
            Ok(Transcript {
                text,
                segments: Vec::new(),
                audio_ms: 0,
                decode_ms: self.delay.as_millis() as u64,
            })
        }
    }

    /// Answers every prompt with `answer`, and records the prompts.
    struct Echo {
        answer: &'static str,
        prompts: Mutex<Vec<String>>,
    }

    /// An [`Echo`] that also keeps what was retracted.
    #[derive(Default)]
    struct Retracting {
        prompts: Mutex<Vec<String>>,
        retracted: Mutex<Vec<String>>,
    }

    impl Responder for Retracting {
        fn respond(&self, prompt: String, cancel: CancellationToken) -> mpsc::Receiver<String> {
            let answer = format!("You said {prompt}.");
            self.prompts.lock().unwrap().push(prompt);
            let (tx, rx) = mpsc::channel(64);
            tokio::spawn(async move {
                for w in answer.split_inclusive(' ') {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    if cancel.is_cancelled() || tx.send(w.to_string()).await.is_err() {
                        return;
                    }
                }
            });
            rx
        }

        fn retract(&self, prompt: &str) {
            self.retracted.lock().unwrap().push(prompt.to_string());
        }
    }

    /// Runs the loop hands-free on `audio` with `stt` and `responder`:
    /// its turns and its events.
    async fn hands_free(
        audio: Vec<f32>,
        stt: Arc<ScriptedStt>,
        responder: Arc<dyn Responder>,
    ) -> (Vec<TurnRecord>, Vec<VoiceEvent>) {
        let (_ctl_tx, ctl_rx) = mpsc::channel(8);
        let (ev_tx, mut ev_rx) = mpsc::unbounded_channel();
        let parts = VoiceParts {
            stt,
            tts: Arc::new(EspeakTts::default()),
            speaker: Speaker::paced(22_050),
            responder,
        };
        let options = LoopOptions {
            partial_every: None,
            echo_cancellation: false,
            ..LoopOptions::default()
        };
        let turns = run_voice_loop(
            paced_source(audio, Duration::from_millis(10)),
            parts,
            options,
            ctl_rx,
            ev_tx,
        )
        .await;
        let mut events = Vec::new();
        while let Ok(e) = ev_rx.try_recv() {
            if !matches!(e, VoiceEvent::Level { .. }) {
                events.push(e);
            }
        }
        (turns, events)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_started_at_a_pause_is_heard_as_soon_as_the_pause_ends() {
        let stt = Arc::new(ScriptedStt {
            texts: Mutex::new(VecDeque::from(["what time is it"])),
            heard: Mutex::new(Vec::new()),
            delay: Duration::from_millis(150),
        });
        let mut audio = silence(500);
        audio.extend(speech("What time is it?"));
        audio.extend(silence(2500));
        let responder = Arc::new(Retracting::default());
        let (turns, events) = hands_free(audio, Arc::clone(&stt), responder.clone()).await;
        // Transcribed once, at the pause; the answer waited for the end.
        assert_eq!(stt.heard.lock().unwrap().len(), 1);
        assert_eq!(turns.len(), 1, "{events:?}");
        let t = turns[0].timing.clone().expect("played");
        assert!(
            (650.0..850.0).contains(&t.first_audio_ms),
            "first audio {} ms after the end of speech",
            t.first_audio_ms
        );
        // The transcript is shown before the answer's text.
        let transcript = events
            .iter()
            .position(|e| matches!(e, VoiceEvent::Transcript { .. }));
        let text = events
            .iter()
            .position(|e| matches!(e, VoiceEvent::AnswerText { .. }));
        assert!(transcript.unwrap() < text.unwrap(), "{events:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pause_mid_sentence_never_gets_its_answer_spoken() {
        let stt = Arc::new(ScriptedStt {
            texts: Mutex::new(VecDeque::from([
                "book a table",
                "book a table for four people",
            ])),
            heard: Mutex::new(Vec::new()),
            delay: Duration::from_millis(100),
        });
        let mut audio = silence(500);
        audio.extend(speech("Book a table"));
        audio.extend(silence(500)); // a pause: longer than 300 ms, shorter than 700
        audio.extend(speech("for four people."));
        audio.extend(silence(3000));
        let responder = Arc::new(Retracting::default());
        let (turns, events) = hands_free(audio, stt, responder.clone()).await;
        // The half sentence was answered speculatively, then retracted.
        assert_eq!(
            *responder.prompts.lock().unwrap(),
            ["book a table", "book a table for four people"]
        );
        assert_eq!(*responder.retracted.lock().unwrap(), ["book a table"]);
        // Only the whole sentence was shown, answered and spoken.
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].transcript, "book a table for four people");
        let shown: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                VoiceEvent::Transcript { text, .. } => Some(text.clone()),
                VoiceEvent::Speaking { sentence } => Some(sentence.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            shown,
            [
                "book a table for four people",
                "You said book a table for four people."
            ]
        );
        assert!(!events.iter().any(|e| matches!(
            e,
            VoiceEvent::AnswerDone {
                interrupted: true,
                ..
            }
        )));
    }

    impl Responder for Echo {
        fn respond(&self, prompt: String, _cancel: CancellationToken) -> mpsc::Receiver<String> {
            self.prompts.lock().unwrap().push(prompt);
            let (tx, rx) = mpsc::channel(64);
            let answer = self.answer;
            tokio::spawn(async move {
                for w in answer.split_inclusive(' ') {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    let _ = tx.send(w.to_string()).await;
                }
            });
            rx
        }
    }

    fn speech(text: &str) -> Vec<f32> {
        let s = EspeakTts::default().synthesize(text).unwrap();
        resample(&s.to_f32(), s.sample_rate, STT_SAMPLE_RATE).unwrap()
    }

    fn silence(ms: u64) -> Vec<f32> {
        vec![0.0; (ms * 16) as usize]
    }

    fn parts(stt: Arc<ScriptedStt>, echo: Arc<Echo>) -> VoiceParts {
        VoiceParts {
            stt,
            tts: Arc::new(EspeakTts::default()),
            speaker: Speaker::paced(22_050),
            responder: echo,
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn push_to_talk_keeps_the_pre_roll_and_answers_on_release() {
        let stt = Arc::new(ScriptedStt {
            texts: Mutex::new(VecDeque::from(["open the report"])),
            heard: Mutex::new(Vec::new()),
            delay: Duration::ZERO,
        });
        let echo = Arc::new(Echo {
            answer: "Here it is. It has two pages.",
            prompts: Mutex::new(Vec::new()),
        });
        let clip = speech("Open the report.");
        let clip_len = clip.len();
        let mut audio = silence(1000);
        audio.extend(clip);
        audio.extend(silence(1500));
        let (ctl_tx, ctl_rx) = mpsc::channel(8);
        let (ev_tx, _ev_rx) = mpsc::unbounded_channel();
        let options = LoopOptions {
            mode: ListenMode::PushToTalk,
            partial_every: None,
            ..LoopOptions::default()
        };
        let run = tokio::spawn(run_voice_loop(
            paced_source(audio, Duration::from_millis(10)),
            parts(Arc::clone(&stt), Arc::clone(&echo)),
            options,
            ctl_rx,
            ev_tx,
        ));
        // The user presses a little late, after the speech began…
        tokio::time::sleep(Duration::from_millis(1200)).await;
        ctl_tx.send(Control::Talk(true)).await.unwrap();
        let held = Duration::from_secs_f64(clip_len as f64 / 16_000.0);
        tokio::time::sleep(held).await;
        ctl_tx.send(Control::Talk(false)).await.unwrap();
        let turns = run.await.unwrap();
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].transcript, "open the report");
        assert_eq!(turns[0].spoken, ["Here it is.", "It has two pages."]);
        assert!(!turns[0].interrupted);
        // …and the 500 ms pre-roll still holds its start.
        let heard = stt.heard.lock().unwrap()[0];
        assert!(
            heard >= clip_len,
            "{heard} samples heard, the clip is {clip_len}"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn speech_that_resumes_before_its_transcript_is_answered_as_one() {
        let stt = Arc::new(ScriptedStt {
            texts: Mutex::new(VecDeque::from(["book a table", "for four people"])),
            heard: Mutex::new(Vec::new()),
            delay: Duration::from_millis(1500),
        });
        let echo = Arc::new(Echo {
            answer: "Done.",
            prompts: Mutex::new(Vec::new()),
        });
        let mut audio = silence(500);
        audio.extend(speech("Book a table."));
        audio.extend(silence(900)); // judged over after 700 ms…
        audio.extend(speech("For four people.")); // …but it goes on
        audio.extend(silence(2500));
        let (_ctl_tx, ctl_rx) = mpsc::channel(8);
        let (ev_tx, _ev_rx) = mpsc::unbounded_channel();
        let turns = run_voice_loop(
            paced_source(audio, Duration::from_millis(10)),
            parts(Arc::clone(&stt), Arc::clone(&echo)),
            LoopOptions {
                partial_every: None,
                ..LoopOptions::default()
            },
            ctl_rx,
            ev_tx,
        )
        .await;
        assert_eq!(
            *echo.prompts.lock().unwrap(),
            ["book a table for four people"]
        );
        assert_eq!(turns.len(), 1);
    }
}
