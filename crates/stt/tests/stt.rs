//! whisper.cpp through the `baton-stt` worker, on speech spoken by
//! eSpeak NG at test time: accuracy (word error rate) and error paths.

use std::path::PathBuf;
use std::time::Instant;

use baton_stt::corpus::SENTENCES;
use baton_voice::stt::{
    Pass, SpeechToText, SttError, WhisperWorker, WorkerOptions, whisper_models, word_error_rate,
};

fn models_dir() -> PathBuf {
    std::env::var_os("BATON_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".local/share/baton/models")
        })
}

fn model(name: &str) -> PathBuf {
    let path = models_dir().join(name);
    assert!(
        path.is_file(),
        "{} is missing: run `make setup` (scripts/fetch-whisper.sh converts it)",
        path.display()
    );
    path
}

fn worker(model_file: &str) -> WhisperWorker {
    WhisperWorker::start(
        &PathBuf::from(env!("CARGO_BIN_EXE_baton-stt")),
        &WorkerOptions {
            threads: 2,
            ..WorkerOptions::new(model(model_file))
        },
    )
    .unwrap()
}

fn spoken(text: &str) -> Vec<f32> {
    baton_stt::corpus::spoken(text).unwrap()
}

#[test]
fn tiny_en_transcribes_espeak_speech_within_15_percent_wer() {
    let stt = worker("ggml-tiny.en-q8_0.bin");
    let (mut edits, mut words) = (0, 0);
    let started = Instant::now();
    let mut audio_ms = 0;
    for sentence in SENTENCES {
        let t = stt.transcribe(&spoken(sentence), Pass::Final).unwrap();
        let (_, e, w) = word_error_rate(sentence, &t.text);
        if e > 0 {
            eprintln!("{e} error(s): {sentence:?} → {:?}", t.text);
        }
        edits += e;
        words += w;
        audio_ms += t.audio_ms;
    }
    let wer = edits as f64 / words as f64;
    eprintln!(
        "WER {:.1}% ({edits}/{words} words), {:.1} s of speech in {:.1} s",
        wer * 100.0,
        audio_ms as f64 / 1000.0,
        started.elapsed().as_secs_f64()
    );
    assert!(
        wer <= 0.15,
        "word error rate {:.1}% is over 15%",
        wer * 100.0
    );
}

#[test]
fn partial_passes_and_silence() {
    let stt = worker("ggml-tiny.en.bin");
    assert!(stt.name().contains("ggml-tiny.en.bin"));
    let audio = spoken("Please open the quarterly report.");
    // A draft of the first half, then the whole.
    let half = stt
        .transcribe(&audio[..audio.len() / 2], Pass::Partial)
        .unwrap();
    assert!(!half.text.is_empty());
    let full = stt.transcribe(&audio, Pass::Final).unwrap();
    assert!(
        word_error_rate("Please open the quarterly report.", &full.text).0 <= 0.2,
        "{full:?}"
    );
    // Silence and a very short clip give no words, not an error.
    let quiet = stt.transcribe(&vec![0.0; 8000], Pass::Final).unwrap();
    assert!(quiet.text.split_whitespace().count() <= 1, "{quiet:?}");
    assert!(stt.transcribe(&[], Pass::Final).is_ok());
}

#[test]
fn a_bad_model_file_is_reported_by_the_worker() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("ggml-broken.bin");
    std::fs::write(&bad, vec![7u8; 4096]).unwrap();
    let err = WhisperWorker::start(
        &PathBuf::from(env!("CARGO_BIN_EXE_baton-stt")),
        &WorkerOptions::new(bad.clone()),
    )
    .err()
    .unwrap();
    assert!(matches!(err, SttError::ModelLoad { .. }), "{err}");
    assert!(err.to_string().contains("ggml-broken.bin"), "{err}");
    // It is not listed as a model either (wrong magic number).
    assert!(whisper_models(dir.path()).is_empty());
    let listed = whisper_models(&models_dir());
    assert_eq!(
        listed
            .first()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str()),
        Some("ggml-tiny.en-q8_0.bin")
    );
}

#[test]
fn a_missing_worker_program_says_what_to_do() {
    let err = WhisperWorker::start(
        &PathBuf::from("/nonexistent/baton-stt"),
        &WorkerOptions::new(model("ggml-tiny.en.bin")),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("cannot start"), "{err}");
}
