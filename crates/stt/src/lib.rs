//! whisper.cpp as a [`SpeechToText`] engine. This crate is the only one
//! that links whisper.cpp; programs that also hold llama.cpp (the CLI, the
//! desktop app) use it through the `baton-stt` worker and
//! [`baton_voice::stt::WhisperWorker`].

pub mod corpus;

use std::path::{Path, PathBuf};
use std::time::Instant;

use baton_voice::stt::{Pass, STT_SAMPLE_RATE, Segment, SpeechToText, SttError, Transcript};
use whisper_rs::{FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters};

/// Encoder frames per second of audio (1500 for 30 s).
const FRAMES_PER_SECOND: usize = 50;
/// Extra encoder frames kept beyond the audio when the window is fitted.
const CTX_MARGIN: usize = 128;

/// How to decode.
#[derive(Debug, Clone)]
pub struct WhisperOptions {
    /// Spoken language ("en"; "auto" detects with multilingual models).
    pub language: String,
    /// CPU threads.
    pub threads: usize,
    /// Beam width for final transcripts (1 = greedy). Partial passes are
    /// always greedy.
    pub beam_size: usize,
    /// Fit the encoder's window to the audio instead of whisper's fixed
    /// 30 s: short utterances decode several times faster.
    pub fit_audio_ctx: bool,
}

impl Default for WhisperOptions {
    fn default() -> Self {
        Self {
            language: "en".into(),
            threads: 2,
            beam_size: 1,
            fit_audio_ctx: true,
        }
    }
}

/// A loaded Whisper model.
pub struct Whisper {
    ctx: WhisperContext,
    options: WhisperOptions,
    path: PathBuf,
    kind: String,
}

impl Whisper {
    /// Loads a ggml Whisper model.
    pub fn load(path: &Path, options: WhisperOptions) -> Result<Self, SttError> {
        whisper_rs::install_logging_hooks();
        let fail = |reason: String| SttError::ModelLoad {
            path: path.to_path_buf(),
            reason,
        };
        if !path.is_file() {
            return Err(fail("the file does not exist".into()));
        }
        let file = path
            .to_str()
            .ok_or_else(|| fail("the path is not valid UTF-8".into()))?;
        let ctx = WhisperContext::new_with_params(file, WhisperContextParameters::default())
            .map_err(|e| {
                fail(format!(
                    "whisper.cpp could not read it ({e}); is it a ggml Whisper model?"
                ))
            })?;
        let kind = ctx
            .model_type_readable_str_lossy()
            .map(|s| s.into_owned())
            .unwrap_or_default();
        Ok(Self {
            ctx,
            options,
            path: path.to_path_buf(),
            kind,
        })
    }

    /// The model's kind as whisper.cpp reports it ("tiny", "base"…).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    fn params(&self, pass: Pass, samples: usize) -> FullParams<'_, '_> {
        let strategy = if pass == Pass::Final && self.options.beam_size > 1 {
            SamplingStrategy::BeamSearch {
                beam_size: self.options.beam_size as i32,
                patience: -1.0,
            }
        } else {
            SamplingStrategy::Greedy { best_of: 1 }
        };
        let mut p = FullParams::new(strategy);
        p.set_n_threads(self.options.threads.max(1) as i32);
        if self.options.language == "auto" {
            p.set_language(None);
            p.set_detect_language(false);
        } else {
            p.set_language(Some(&self.options.language));
        }
        p.set_print_special(false);
        p.set_print_progress(false);
        p.set_print_realtime(false);
        p.set_print_timestamps(false);
        p.set_no_context(true);
        p.set_suppress_blank(true);
        p.set_suppress_nst(true);
        if pass == Pass::Partial {
            p.set_single_segment(true);
            p.set_no_timestamps(true);
            // Drafts must be quick: no temperature fallback re-decodes.
            p.set_temperature_inc(0.0);
        }
        if self.options.fit_audio_ctx {
            let seconds = samples.div_ceil(STT_SAMPLE_RATE as usize);
            let ctx = (seconds * FRAMES_PER_SECOND + CTX_MARGIN).min(1500);
            if ctx < 1500 {
                p.set_audio_ctx(ctx as i32);
            }
        }
        p
    }
}

impl SpeechToText for Whisper {
    fn name(&self) -> String {
        format!(
            "whisper.cpp {}",
            self.path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        )
    }

    fn transcribe(&self, samples: &[f32], pass: Pass) -> Result<Transcript, SttError> {
        let started = Instant::now();
        let audio_ms = (samples.len() as u64 * 1000) / u64::from(STT_SAMPLE_RATE);
        // whisper.cpp refuses clips under one second: pad with silence.
        let min = STT_SAMPLE_RATE as usize + STT_SAMPLE_RATE as usize / 10;
        let padded;
        let audio = if samples.len() < min {
            padded = {
                let mut v = samples.to_vec();
                v.resize(min, 0.0);
                v
            };
            &padded[..]
        } else {
            samples
        };
        let mut state = self
            .ctx
            .create_state()
            .map_err(|e| SttError::Decode(format!("no decoder state: {e}")))?;
        state
            .full(self.params(pass, audio.len()), audio)
            .map_err(|e| SttError::Decode(e.to_string()))?;
        let mut segments = Vec::new();
        for seg in state.as_iter() {
            let text = seg
                .to_str_lossy()
                .map(|s| s.trim().to_string())
                .unwrap_or_default();
            if text.is_empty() || is_non_speech(&text) {
                continue;
            }
            let start_ms = (seg.start_timestamp().max(0) as u64) * 10;
            // With a shortened encoder window the decoder can run past the
            // audio and say the clip again: nothing starts after the end,
            // and a segment never repeats the one before it.
            if (start_ms >= audio_ms && !segments.is_empty())
                || segments
                    .last()
                    .is_some_and(|p: &Segment| same_words(&p.text, &text))
            {
                continue;
            }
            segments.push(Segment {
                start_ms,
                end_ms: (seg.end_timestamp().max(0) as u64) * 10,
                text,
            });
        }
        let text = segments
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Transcript {
            text,
            segments,
            audio_ms,
            decode_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// Whether two pieces of text say the same words.
fn same_words(a: &str, b: &str) -> bool {
    baton_voice::stt::normalize_words(a) == baton_voice::stt::normalize_words(b)
}

/// Whisper's stand-ins for silence and noise ("[BLANK_AUDIO]", "(music)").
fn is_non_speech(text: &str) -> bool {
    let t = text.trim();
    (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('(') && t.ends_with(')'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_the_same_words() {
        assert!(same_words("Move the meeting.", "move the meeting"));
        assert!(!same_words(
            "Move the meeting.",
            "Move the meeting to Monday."
        ));
    }

    #[test]
    fn markers_for_silence_are_not_speech() {
        assert!(is_non_speech("[BLANK_AUDIO]"));
        assert!(is_non_speech(" (music) "));
        assert!(!is_non_speech("Open the report."));
    }

    #[test]
    fn a_missing_model_says_which_file() {
        let err = Whisper::load(Path::new("/nope/ggml-x.bin"), WhisperOptions::default())
            .err()
            .unwrap();
        assert!(err.to_string().contains("/nope/ggml-x.bin"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_a_model_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ggml-bad.bin");
        std::fs::write(&path, b"not a model at all").unwrap();
        let err = Whisper::load(&path, WhisperOptions::default())
            .err()
            .unwrap();
        assert!(err.to_string().contains("ggml Whisper model"), "{err}");
    }
}
