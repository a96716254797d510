//! Dictation: speech to text and nothing else. The desktop's push-to-talk
//! in dictation mode listens while the key is held and types what was said
//! into the application in front; no conversation, no model, no answer.

use baton_voice::audio::{AudioChunks, Microphone, decode_file, paced_source};
use baton_voice::stt::{Pass, STT_SAMPLE_RATE, SpeechToText, WhisperWorker};
use baton_voice::{VadEvent, VadOptions, VoiceActivity};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{Voice, VoiceInput};
use crate::EngineError;

/// Less audio than this is taken for a tap of the key: nothing is
/// transcribed.
const SHORTEST: Duration = Duration::from_millis(250);

/// The longest dictation: a key release that never came (the screen
/// locked, another program took the keyboard) does not hold the
/// microphone on for ever; what was said so far is written down.
const LONGEST: Duration = Duration::from_secs(300);

/// A dictation being listened to: [`Dictation::finish`] when the user lets
/// go gives what they said; dropping it stops listening and forgets it.
pub struct Dictation {
    release: Option<oneshot::Sender<()>>,
    heard: JoinHandle<Result<String, EngineError>>,
}

impl Voice<'_> {
    /// Starts listening for dictation on `input`: the speech model loads
    /// and the microphone opens off the runtime (≈ 0.1–0.5 s), while what
    /// is said meanwhile is kept.
    pub async fn dictate(&self, input: VoiceInput) -> Result<Dictation, EngineError> {
        let stt_options = self.stt_options()?;
        let device = self.e.settings.voice.input_device.clone();
        let open =
            move || -> Result<(WhisperWorker, Option<Microphone>, AudioChunks), EngineError> {
                // The microphone first: what is said while the model loads is kept.
                let (mic, chunks) = match input {
                    VoiceInput::Microphone => {
                        let (mic, chunks) = Microphone::open(device.as_deref())?;
                        (Some(mic), chunks)
                    }
                    VoiceInput::Recording(path) => {
                        let samples = decode_file(&path)?.resampled(STT_SAMPLE_RATE)?.samples;
                        (None, paced_source(samples, Duration::from_millis(10)))
                    }
                };
                let worker = baton_voice::stt::find_worker_binary()?;
                let stt = WhisperWorker::start(&worker, &stt_options)?;
                Ok((stt, mic, chunks))
            };
        let (stt, mic, chunks) = tokio::task::spawn_blocking(open)
            .await
            .map_err(|e| EngineError::VoiceStart(e.to_string()))??;
        let (release, released) = oneshot::channel();
        let heard = tokio::spawn(listen(stt, mic, chunks, released));
        Ok(Dictation {
            release: Some(release),
            heard,
        })
    }
}

impl Dictation {
    /// Stops listening and gives what was said, trimmed (empty for a tap
    /// of the key or silence).
    pub async fn finish(mut self) -> Result<String, EngineError> {
        if let Some(release) = self.release.take() {
            let _ = release.send(());
        }
        (&mut self.heard)
            .await
            .map_err(|e| EngineError::VoiceStart(e.to_string()))?
    }
}

impl Drop for Dictation {
    fn drop(&mut self) {
        if self.release.is_some() {
            self.heard.abort();
        }
    }
}

/// Keeps what `chunks` bring until `released` (or the input ends, or
/// [`LONGEST`] passed), then transcribes it off the runtime.
async fn listen(
    stt: WhisperWorker,
    mic: Option<Microphone>,
    mut chunks: AudioChunks,
    mut released: oneshot::Receiver<()>,
) -> Result<String, EngineError> {
    let mut audio = Vec::new();
    let deadline = tokio::time::sleep(LONGEST);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            chunk = chunks.recv() => match chunk {
                Some(c) => audio.extend(c),
                None => break,
            },
            _ = &mut released => break,
            () = &mut deadline => {
                tracing::warn!("a dictation held for {} s was ended", LONGEST.as_secs());
                break;
            }
        }
    }
    drop(mic);
    // What was already captured when the key came up is the user's too.
    while let Ok(c) = chunks.try_recv() {
        audio.extend(c);
    }
    // The detector, Whisper and stopping its worker all block.
    tokio::task::spawn_blocking(move || transcribe(stt, &audio))
        .await
        .map_err(|e| EngineError::VoiceStart(e.to_string()))?
}

/// What `audio` says: nothing for a tap or for no speech, else Whisper's
/// transcript.
fn transcribe(stt: WhisperWorker, audio: &[f32]) -> Result<String, EngineError> {
    let shortest = SHORTEST.as_secs_f64() * f64::from(STT_SAMPLE_RATE);
    if (audio.len() as f64) < shortest || !has_speech(audio) {
        return Ok(String::new());
    }
    let heard = stt.transcribe(audio, Pass::Final)?;
    tracing::info!(
        audio_ms = heard.audio_ms,
        decode_ms = heard.decode_ms,
        "dictation heard"
    );
    Ok(heard.text)
}

/// Whether the voice detector hears speech in `audio` (Whisper makes
/// words up from silence and noise, which must not be typed).
fn has_speech(audio: &[f32]) -> bool {
    let pcm: Vec<i16> = audio
        .iter()
        .map(|s| (s.clamp(-1.0, 1.0) * f32::from(i16::MAX)) as i16)
        .collect();
    let mut vad = VoiceActivity::new(VadOptions::default());
    let mut events = vad.push(&pcm);
    events.extend(vad.finish());
    events.iter().any(|e| matches!(e, VadEvent::SpeechStart(_)))
}
