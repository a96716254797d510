//! Baton's voice pipeline. So far: the [`SentenceSplitter`], which turns an
//! answer streamed as Markdown into plain sentences a speech engine can
//! read, each as soon as it is complete, so the first sentence is spoken
//! while the model is still writing the rest; and text-to-speech engines
//! behind [`TextToSpeech`] (eSpeak NG, offline).

mod splitter;
pub mod tts;

pub use splitter::{SentenceSplitter, SplitterOptions};
pub use tts::{EspeakTts, Speech, TextToSpeech, TtsError};
