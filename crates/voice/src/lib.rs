//! Baton's voice pipeline. So far: the [`SentenceSplitter`], which turns an
//! answer streamed as Markdown into plain sentences a speech engine can
//! read, each as soon as it is complete, so the first sentence is spoken
//! while the model is still writing the rest.

mod splitter;

pub use splitter::{SentenceSplitter, SplitterOptions};
