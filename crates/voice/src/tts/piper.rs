//! Piper, a natural neural voice that runs offline on the CPU: a VITS
//! model in ONNX, run by ONNX Runtime (the `ort` crate, which loads the
//! library `make setup` fetches at run time). Text becomes phonemes with
//! eSpeak NG (as Piper's own phonemizer does, from the same library Baton
//! already speaks with), phonemes become the voice's ids, and the model
//! turns them into audio in one call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use serde::Deserialize;

use super::espeak::phonemes;
use super::{Speech, TextToSpeech, TtsError};

/// Silence after each utterance, so sentences do not run together.
const TRAILING_SILENCE_S: f32 = 0.12;

/// A voice's `.onnx.json`: what Piper needs to drive the model.
#[derive(Debug, Clone, Deserialize)]
struct VoiceConfig {
    audio: AudioConfig,
    espeak: EspeakConfig,
    inference: InferenceConfig,
    phoneme_id_map: HashMap<String, Vec<i64>>,
    #[serde(default)]
    num_speakers: u32,
}

#[derive(Debug, Clone, Deserialize)]
struct AudioConfig {
    sample_rate: u32,
}

#[derive(Debug, Clone, Deserialize)]
struct EspeakConfig {
    voice: String,
}

#[derive(Debug, Clone, Deserialize)]
struct InferenceConfig {
    noise_scale: f32,
    length_scale: f32,
    noise_w: f32,
}

/// A Piper voice, loaded.
pub struct PiperTts {
    name: String,
    config: VoiceConfig,
    session: Mutex<Session>,
    /// Phonemes per second of speech (1.0 = the voice's own pace).
    length_scale: f32,
}

impl std::fmt::Debug for PiperTts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PiperTts")
            .field("name", &self.name)
            .finish()
    }
}

fn unavailable(what: impl std::fmt::Display) -> TtsError {
    TtsError::Unavailable(format!("the Piper voice cannot start: {what}"))
}

impl PiperTts {
    /// Loads the voice `model` (its `.onnx.json` beside it) with ONNX
    /// Runtime's library `runtime`, on up to `threads` CPU threads
    /// (≈ 0.3 s). `speed` 1.0 is the voice's own pace.
    pub fn load(
        model: &Path,
        runtime: &Path,
        threads: usize,
        speed: f32,
    ) -> Result<Self, TtsError> {
        let config_path = PathBuf::from(format!("{}.json", model.display()));
        let config: VoiceConfig = std::fs::read(&config_path)
            .map_err(|e| unavailable(format!("{}: {e}", config_path.display())))
            .and_then(|b| {
                serde_json::from_slice(&b)
                    .map_err(|e| unavailable(format!("{}: {e}", config_path.display())))
            })?;
        ort::init_from(runtime)
            .map_err(|e| unavailable(format!("ONNX Runtime ({}): {e}", runtime.display())))?
            .with_name("baton")
            .commit();
        let session = Session::builder()
            .and_then(|b| {
                b.with_optimization_level(GraphOptimizationLevel::Level1)
                    .map_err(Into::into)
            })
            .and_then(|b| b.with_intra_threads(threads.max(1)).map_err(Into::into))
            .and_then(|mut b| b.commit_from_file(model))
            .map_err(|e| unavailable(format!("{}: {e}", model.display())))?;
        let name = model
            .file_stem()
            .map_or_else(|| "piper".into(), |s| s.to_string_lossy().into_owned());
        Ok(Self {
            name: format!("piper ({name})"),
            length_scale: config.inference.length_scale / speed.clamp(0.5, 2.0),
            config,
            session: Mutex::new(session),
        })
    }

    /// The voice's ids for `text`: `^`, each phoneme followed by the pad
    /// `_`, the clauses' punctuation kept, `$` (as Piper builds them).
    fn ids(&self, text: &str) -> Result<Vec<i64>, TtsError> {
        let map = &self.config.phoneme_id_map;
        let id = |c: char| map.get(c.encode_utf8(&mut [0; 4]) as &str);
        let (bos, eos, pad) = match (id('^'), id('$'), id('_')) {
            (Some(b), Some(e), Some(p)) => (b.clone(), e.clone(), p.clone()),
            _ => return Err(unavailable("the voice's phoneme map lacks ^, $ or _")),
        };
        let mut ids = bos;
        ids.extend(&pad);
        for (n, clause) in phonemes(&self.config.espeak.voice, text)?
            .iter()
            .enumerate()
        {
            let mut symbols: Vec<char> = Vec::new();
            if n > 0 {
                symbols.push(' ');
            }
            symbols.extend(clause.phonemes.chars());
            symbols.extend(clause.punctuation);
            for c in symbols {
                // Symbols the voice was not trained on are left out.
                if let Some(i) = id(c) {
                    ids.extend(i);
                    ids.extend(&pad);
                }
            }
        }
        ids.extend(eos);
        Ok(ids)
    }

    fn infer(&self, ids: Vec<i64>) -> Result<Vec<f32>, TtsError> {
        let failed = |e: ort::Error| TtsError::Synthesis(format!("the Piper voice failed: {e}"));
        let n = ids.len();
        let inf = &self.config.inference;
        let scales = vec![inf.noise_scale, self.length_scale, inf.noise_w];
        let mut inputs = ort::inputs![
            "input" => Tensor::from_array(([1usize, n], ids)).map_err(failed)?,
            "input_lengths" => Tensor::from_array(([1usize], vec![n as i64])).map_err(failed)?,
            "scales" => Tensor::from_array(([3usize], scales)).map_err(failed)?,
        ];
        if self.config.num_speakers > 1 {
            let sid = Tensor::from_array(([1usize], vec![0i64])).map_err(failed)?;
            inputs.push(("sid".into(), sid.into()));
        }
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = session.run(inputs).map_err(failed)?;
        let audio = outputs
            .get("output")
            .ok_or_else(|| TtsError::Synthesis("the Piper voice gave no `output`".into()))?;
        let (_, samples) = audio.try_extract_tensor::<f32>().map_err(failed)?;
        Ok(samples.to_vec())
    }
}

impl TextToSpeech for PiperTts {
    fn name(&self) -> &str {
        &self.name
    }

    fn synthesize(&self, text: &str) -> Result<Speech, TtsError> {
        let ids = self.ids(text)?;
        let mut audio = if ids.len() <= 4 {
            Vec::new() // nothing speakable (only punctuation)
        } else {
            self.infer(ids)?
        };
        // Piper's own normalization: the loudest sample near full scale.
        let peak = audio.iter().fold(0.01f32, |m, s| m.max(s.abs()));
        for s in &mut audio {
            *s *= 0.9 / peak;
        }
        let rate = self.config.audio.sample_rate;
        audio.extend(std::iter::repeat_n(
            0.0,
            (rate as f32 * TRAILING_SILENCE_S) as usize,
        ));
        Ok(Speech::from_f32(&audio, rate))
    }
}

/// The Piper voices (`*.onnx` with their `.onnx.json`) in `dir`, by name.
pub fn piper_voices(dir: &Path) -> Vec<PathBuf> {
    crate::files_in(dir, |p| {
        p.extension().is_some_and(|e| e == "onnx")
            && PathBuf::from(format!("{}.json", p.display())).is_file()
    })
}

/// ONNX Runtime's library in `dir` (`libonnxruntime.so*`), newest first.
pub fn onnx_runtime(dir: &Path) -> Option<PathBuf> {
    crate::files_in(dir, |p| {
        p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            n.starts_with("libonnxruntime.so") || n.ends_with(".dylib") || n == "onnxruntime.dll"
        })
    })
    .pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voice() -> PiperTts {
        let (model, runtime) = baton_test_support::piper_voice();
        PiperTts::load(&model, &runtime, 2, 1.0).unwrap()
    }

    #[test]
    fn speaks_a_sentence_faster_than_real_time() {
        let tts = voice();
        let started = std::time::Instant::now();
        let speech = tts
            .synthesize("Your meeting with Alice starts at ten.")
            .unwrap();
        let took = started.elapsed();
        assert_eq!(speech.sample_rate, 22_050);
        let secs = speech.duration().as_secs_f64();
        assert!((1.0..6.0).contains(&secs), "{secs} s of audio");
        assert!(speech.rms() > 0.05, "audible: rms {}", speech.rms());
        assert!(
            took.as_secs_f64() < secs,
            "took {took:?} for {secs} s of audio"
        );
        // Punctuation alone is silence, not an error.
        let quiet = tts.synthesize("…").unwrap();
        assert!(quiet.rms() < 0.001);
    }

    #[test]
    fn a_missing_voice_is_said_in_words() {
        let (_, runtime) = baton_test_support::piper_voice();
        let e = PiperTts::load(Path::new("/nope/voice.onnx"), &runtime, 1, 1.0).unwrap_err();
        assert!(e.to_string().contains("/nope/voice.onnx.json"), "{e}");
    }
}
