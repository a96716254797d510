//! Baton's voice pipeline. So far: the [`SentenceSplitter`], which turns an
//! answer streamed as Markdown into plain sentences a speech engine can
//! read, each as soon as it is complete, so the first sentence is spoken
//! while the model is still writing the rest; and text-to-speech engines
//! behind [`TextToSpeech`] (eSpeak NG, offline); and [`VoiceActivity`], which
//! finds where speech starts and ends in a 16 kHz stream.

mod speak;
mod splitter;
pub mod tts;
mod vad;

pub use speak::{AudioSink, RecordingSink, SpeakReport, speak_stream};
pub use splitter::{SentenceSplitter, SplitterOptions};
pub use tts::{EspeakTts, Speech, TextToSpeech, TtsError};
pub use vad::{FRAME, VAD_SAMPLE_RATE, VadEvent, VadOptions, VoiceActivity};
