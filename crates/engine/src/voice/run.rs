//! A voice conversation as a [`Run`]: assembled here once (the agent's
//! conversation, the speech engines, the microphone or a recording, the
//! speaker, the loop's tuning) for every front door, which only shows its
//! events and passes on the user's controls.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use baton_agent::SessionId;
use baton_voice::audio::{
    AudioChunks, Microphone, Speaker, decode_file, open_speaker, paced_source,
};
use baton_voice::stt::{STT_SAMPLE_RATE, SpeechToText};
use baton_voice::{Control, TurnRecord, VoiceEvent, VoiceParts, run_voice_loop};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{AgentResponder, Voice};
use crate::{EngineError, Run};

/// What the user's speech comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoiceInput {
    /// The microphone the settings name (else the system's default).
    Microphone,
    /// A recording played in real time (tests, `--mic-file`): it has no
    /// echo of the speaker in it, and two seconds of silence follow it so
    /// that its last words are heard out.
    Recording(PathBuf),
}

/// A voice conversation to start.
pub struct VoiceRequest {
    /// A saved conversation to continue by voice (`None`: a new one).
    pub session: Option<SessionId>,
    /// The named agent (else the session's or the default).
    pub agent: Option<String>,
    /// The provider entry, instead of the agent's.
    pub provider: Option<String>,
    /// Where the user's speech comes from.
    pub input: VoiceInput,
    /// Where answers are played (`None`: the speaker the settings name).
    pub speaker: Option<Speaker>,
    /// Push-to-talk (`true`) or hands-free, whatever the settings say
    /// (`None`: as they say); the desktop's talk shortcut is always
    /// push-to-talk.
    pub push_to_talk: Option<bool>,
}

impl VoiceRequest {
    /// A new conversation with the default agent, heard from `input` and
    /// played on the settings' speaker.
    pub fn new(input: VoiceInput) -> Self {
        Self {
            session: None,
            agent: None,
            provider: None,
            input,
            speaker: None,
            push_to_talk: None,
        }
    }
}

/// What a front door shows of a voice conversation and how it steers it
/// (push-to-talk, stop speaking, quit). Cheap to clone.
#[derive(Clone)]
pub struct VoiceControls {
    tx: mpsc::Sender<Control>,
    /// The conversation it is saved as.
    pub session_id: SessionId,
    /// The speech recognizer's name.
    pub stt: String,
    /// The speech engine's name.
    pub tts: String,
    /// The microphone's name and rate (`None`: a recording).
    pub microphone: Option<(String, u32)>,
    /// Whether the user holds a key to talk.
    pub push_to_talk: bool,
}

impl VoiceControls {
    /// Passes `control` to the conversation.
    pub fn send(&self, control: Control) -> Result<(), EngineError> {
        self.tx
            .try_send(control)
            .map_err(|_| EngineError::VoiceEnded)
    }
}

/// A voice conversation: the loop's events, its controls, and the turns
/// it had when it ends. Its Stop ends it as Quit does.
pub type VoiceRun = Run<VoiceEvent, Vec<TurnRecord>, VoiceControls>;

/// The blocking parts, opened off the runtime.
struct Opened {
    stt: baton_voice::stt::WhisperWorker,
    mic: Option<Microphone>,
    chunks: AudioChunks,
    speaker: Speaker,
}

impl Voice<'_> {
    /// Starts a voice conversation: the agent's conversation is made ready
    /// (a missing key is told now), then the speech model, the input and
    /// the speaker are opened.
    pub async fn start(&self, request: VoiceRequest) -> Result<VoiceRun, EngineError> {
        let conversation = self.conversation(
            request.session.as_ref(),
            request.agent.as_deref(),
            request.provider.as_deref(),
        )?;
        conversation.ready().await?;
        let session_id = conversation.session_id().await;
        let tts = self.tts()?;
        let mut options = self.loop_options();
        // A recording has no echo of this speaker in it.
        options.echo_cancellation &= request.input == VoiceInput::Microphone;
        if let Some(held) = request.push_to_talk {
            options.mode = if held {
                baton_voice::ListenMode::PushToTalk
            } else {
                baton_voice::ListenMode::HandsFree
            };
        }
        let opened = self.open_parts(request.input, request.speaker).await?;
        let (tx, ctl_rx) = mpsc::channel(16);
        let controls = VoiceControls {
            tx: tx.clone(),
            session_id,
            stt: opened.stt.name().to_string(),
            tts: tts.name().to_string(),
            microphone: opened.mic.as_ref().map(|m| (m.name.clone(), m.device_rate)),
            push_to_talk: options.mode == baton_voice::ListenMode::PushToTalk,
        };
        let parts = VoiceParts {
            stt: Arc::new(opened.stt),
            tts,
            speaker: opened.speaker,
            responder: Arc::new(AgentResponder::new(conversation)),
        };
        let (ev_tx, ev_rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        tokio::spawn(quit_on(cancel.clone(), tx));
        let (mic, chunks) = (opened.mic, opened.chunks);
        let task = tokio::spawn(async move {
            let _mic = mic; // capturing lasts as long as the loop
            let turns = run_voice_loop(chunks, parts, options, ctl_rx, ev_tx).await;
            tracing::info!(turns = turns.len(), "voice conversation ended");
            turns
        });
        Ok(Run::start(ev_rx, cancel, controls, task))
    }

    /// Loads the speech model and opens the input and the speaker
    /// (blocking, ≈ 0.1–0.5 s, off the runtime).
    async fn open_parts(
        &self,
        input: VoiceInput,
        speaker: Option<Speaker>,
    ) -> Result<Opened, EngineError> {
        let stt_options = self.stt_options()?;
        let voice = self.e.settings.voice.clone();
        let open = move || -> Result<Opened, EngineError> {
            let worker = baton_voice::stt::find_worker_binary()?;
            let stt = baton_voice::stt::WhisperWorker::start(&worker, &stt_options)?;
            let (mic, chunks) = match input {
                VoiceInput::Microphone => {
                    let (mic, chunks) = Microphone::open(voice.input_device.as_deref())?;
                    (Some(mic), chunks)
                }
                VoiceInput::Recording(path) => {
                    let mut samples = decode_file(&path)?.resampled(STT_SAMPLE_RATE)?.samples;
                    samples.extend(std::iter::repeat_n(0.0, STT_SAMPLE_RATE as usize * 2));
                    (None, paced_source(samples, Duration::from_millis(10)))
                }
            };
            let speaker = match speaker {
                Some(s) => s,
                None => open_speaker(voice.output_device.as_deref())?,
            };
            Ok(Opened {
                stt,
                mic,
                chunks,
                speaker,
            })
        };
        tokio::task::spawn_blocking(open)
            .await
            .map_err(|e| EngineError::VoiceStart(e.to_string()))?
    }
}

/// Ends the conversation (as Quit does) once `cancel` is cancelled, unless
/// it has ended by then.
async fn quit_on(cancel: CancellationToken, tx: mpsc::Sender<Control>) {
    tokio::select! {
        _ = cancel.cancelled() => {
            let _ = tx.send(Control::Quit).await;
        }
        _ = tx.closed() => {}
    }
}
