//! Speech-to-text behind one trait. The engine is whisper.cpp, which runs
//! in its own process (`baton-stt`, see [`WhisperWorker`]): whisper.cpp and
//! llama.cpp each bundle their own copy of ggml, so the two cannot be linked
//! into one program, and a separate process also keeps a crash in native
//! code away from the app.

pub mod protocol;
mod wer;
mod worker;

use std::path::PathBuf;

pub use wer::{normalize_words, word_error_rate};
pub use worker::{WhisperWorker, WorkerOptions, find_worker_binary, whisper_models};

/// Samples per second every transcriber takes.
pub const STT_SAMPLE_RATE: u32 = 16_000;

/// One stretch of the transcript with its time in the audio.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    /// Start, milliseconds from the start of the audio.
    pub start_ms: u64,
    /// End, milliseconds from the start of the audio.
    pub end_ms: u64,
    /// What was said.
    pub text: String,
}

/// What was said in a stretch of audio.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// The whole text, trimmed.
    pub text: String,
    /// The text in timed pieces.
    pub segments: Vec<Segment>,
    /// How long the audio was, in milliseconds.
    pub audio_ms: u64,
    /// How long decoding took, in milliseconds.
    pub decode_ms: u64,
}

/// Whether a decode is a draft of speech still going on or the final one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// A partial transcript while the user is still talking (fast: greedy).
    Partial,
    /// The transcript at the end of speech.
    Final,
}

/// Why speech could not be turned into text.
#[derive(Debug, thiserror::Error)]
pub enum SttError {
    /// No speech model in the models folder.
    #[error(
        "no speech-to-text model found in {dir}: run `make setup` (it converts Whisper tiny.en), \
         or put a ggml Whisper model (ggml-*.bin) there"
    )]
    NoModel {
        /// The models folder.
        dir: PathBuf,
    },
    /// The model file would not load.
    #[error("cannot load the speech model {path}: {reason}")]
    ModelLoad {
        /// The model file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The helper program that runs whisper.cpp is missing.
    #[error(
        "the speech-to-text helper `baton-stt` was not found (looked at {looked}); \
         build it with `cargo build -p baton-stt` or set BATON_STT_BIN"
    )]
    WorkerMissing {
        /// Where it was looked for.
        looked: String,
    },
    /// The helper stopped or answered nonsense.
    #[error("the speech-to-text helper failed: {0}")]
    Worker(String),
    /// Decoding this audio failed.
    #[error("transcription failed: {0}")]
    Decode(String),
}

/// Turns 16 kHz mono audio into text.
pub trait SpeechToText: Send + Sync {
    /// The engine and model, for logs and reports.
    fn name(&self) -> String;

    /// Transcribes `samples` (16 kHz mono, −1.0–1.0). Blocking: call it from
    /// a thread that may block.
    fn transcribe(&self, samples: &[f32], pass: Pass) -> Result<Transcript, SttError>;
}
