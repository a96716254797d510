//! Text-to-speech engines behind one trait, so the voice loop, the CLI
//! and tests use any of them the same way.

mod espeak;
mod piper;
mod speech;

pub use espeak::EspeakTts;
pub use piper::{PiperTts, onnx_runtime, piper_voices};
pub use speech::{Speech, f32_to_i16};

/// Why speech could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TtsError {
    /// The engine is missing or would not start.
    #[error("the speech engine is unavailable: {0}")]
    Unavailable(String),
    /// The engine refused or failed on this text.
    #[error("speech synthesis failed: {0}")]
    Synthesis(String),
    /// Writing the audio failed.
    #[error("cannot write the audio to {path}: {reason}")]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
}

/// Turns text into audio.
pub trait TextToSpeech: Send + Sync {
    /// The engine's name, for settings and logs.
    fn name(&self) -> &str;

    /// Speaks `text` into a buffer (one utterance).
    fn synthesize(&self, text: &str) -> Result<Speech, TtsError>;
}
