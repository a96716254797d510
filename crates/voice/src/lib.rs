//! Baton's voice pipeline: audio in and out ([`audio`]), where speech
//! starts and ends ([`VoiceActivity`]), speech-to-text ([`stt`], whisper.cpp
//! in the `baton-stt` worker), the [`SentenceSplitter`] that cuts a streamed
//! Markdown answer into speakable sentences, text-to-speech engines
//! ([`tts`]), and [`speak_stream`], which speaks each sentence as soon as it
//! is complete and stops at once on barge-in.

pub mod audio;
mod session;
mod speak;
mod splitter;
pub mod stt;
pub mod tts;
mod vad;

pub use session::{
    Control, ListenMode, LoopOptions, Responder, TurnRecord, TurnTiming, VoiceEvent, VoiceParts,
    run_voice_loop,
};
pub use speak::{
    AudioSink, RecordingSink, SpeakReport, SpeakStep, speak_stream, speak_stream_observed,
};
pub use splitter::{SentenceSplitter, SplitterOptions};
pub use tts::{EspeakTts, PiperTts, Speech, TextToSpeech, TtsError};
pub use vad::{FRAME, VAD_SAMPLE_RATE, VadEvent, VadOptions, VoiceActivity};

/// The files in `dir` that `keep` accepts, sorted by path (none when the
/// folder cannot be read).
pub(crate) fn files_in(
    dir: &std::path::Path,
    keep: impl Fn(&std::path::Path) -> bool,
) -> Vec<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| keep(p))
        .collect();
    found.sort();
    found
}
