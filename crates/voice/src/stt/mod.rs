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
pub use worker::{
    MULTILINGUAL_MODEL, WhisperWorker, WorkerOptions, find_worker_binary, is_multilingual,
    whisper_models, whisper_models_for,
};

/// The languages Whisper transcribes (its codes, in its own order: by how
/// much training audio it had), with their English names. `auto` (detect)
/// is allowed too, with a multilingual model.
pub const WHISPER_LANGUAGES: &[(&str, &str)] = &[
    ("en", "English"),
    ("zh", "Chinese"),
    ("de", "German"),
    ("es", "Spanish"),
    ("ru", "Russian"),
    ("ko", "Korean"),
    ("fr", "French"),
    ("ja", "Japanese"),
    ("pt", "Portuguese"),
    ("tr", "Turkish"),
    ("pl", "Polish"),
    ("ca", "Catalan"),
    ("nl", "Dutch"),
    ("ar", "Arabic"),
    ("sv", "Swedish"),
    ("it", "Italian"),
    ("id", "Indonesian"),
    ("hi", "Hindi"),
    ("fi", "Finnish"),
    ("vi", "Vietnamese"),
    ("he", "Hebrew"),
    ("uk", "Ukrainian"),
    ("el", "Greek"),
    ("ms", "Malay"),
    ("cs", "Czech"),
    ("ro", "Romanian"),
    ("da", "Danish"),
    ("hu", "Hungarian"),
    ("ta", "Tamil"),
    ("no", "Norwegian"),
    ("th", "Thai"),
    ("ur", "Urdu"),
    ("hr", "Croatian"),
    ("bg", "Bulgarian"),
    ("lt", "Lithuanian"),
    ("la", "Latin"),
    ("mi", "Maori"),
    ("ml", "Malayalam"),
    ("cy", "Welsh"),
    ("sk", "Slovak"),
    ("te", "Telugu"),
    ("fa", "Persian"),
    ("lv", "Latvian"),
    ("bn", "Bengali"),
    ("sr", "Serbian"),
    ("az", "Azerbaijani"),
    ("sl", "Slovenian"),
    ("kn", "Kannada"),
    ("et", "Estonian"),
    ("mk", "Macedonian"),
    ("br", "Breton"),
    ("eu", "Basque"),
    ("is", "Icelandic"),
    ("hy", "Armenian"),
    ("ne", "Nepali"),
    ("mn", "Mongolian"),
    ("bs", "Bosnian"),
    ("kk", "Kazakh"),
    ("sq", "Albanian"),
    ("sw", "Swahili"),
    ("gl", "Galician"),
    ("mr", "Marathi"),
    ("pa", "Punjabi"),
    ("si", "Sinhala"),
    ("km", "Khmer"),
    ("sn", "Shona"),
    ("yo", "Yoruba"),
    ("so", "Somali"),
    ("af", "Afrikaans"),
    ("oc", "Occitan"),
    ("ka", "Georgian"),
    ("be", "Belarusian"),
    ("tg", "Tajik"),
    ("sd", "Sindhi"),
    ("gu", "Gujarati"),
    ("am", "Amharic"),
    ("yi", "Yiddish"),
    ("lo", "Lao"),
    ("uz", "Uzbek"),
    ("fo", "Faroese"),
    ("ht", "Haitian Creole"),
    ("ps", "Pashto"),
    ("tk", "Turkmen"),
    ("nn", "Nynorsk"),
    ("mt", "Maltese"),
    ("sa", "Sanskrit"),
    ("lb", "Luxembourgish"),
    ("my", "Myanmar"),
    ("bo", "Tibetan"),
    ("tl", "Tagalog"),
    ("mg", "Malagasy"),
    ("as", "Assamese"),
    ("tt", "Tatar"),
    ("haw", "Hawaiian"),
    ("ln", "Lingala"),
    ("ha", "Hausa"),
    ("ba", "Bashkir"),
    ("jw", "Javanese"),
    ("su", "Sundanese"),
];

/// Whether `code` is a language Whisper knows, or `auto`.
pub fn is_whisper_language(code: &str) -> bool {
    code == "auto" || WHISPER_LANGUAGES.iter().any(|(c, _)| *c == code)
}

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
    /// The models folder has Whisper models, but none for the language.
    #[error(
        "no speech-to-text model for the language `{language}` in {dir}: the models there \
         understand only English; run `make setup` (it converts the multilingual Whisper base, \
         ggml-base-q8_0.bin), or set the voice language to English"
    )]
    NoModelForLanguage {
        /// The models folder.
        dir: PathBuf,
        /// The language asked for.
        language: String,
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
