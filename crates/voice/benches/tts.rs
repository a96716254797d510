//! Text to speech, the natural voice against eSpeak NG, in one run on the
//! same sentences: time to the first audio of a sentence (synthesizing it
//! is all that stands between the answer's sentence and the speaker),
//! real-time factor, and intelligibility as Whisper hears it (word error
//! rate of tiny.en's transcript of each sentence). Medians; ratios
//! against eSpeak NG from the same run.
//!
//! `cargo bench -p baton-voice --bench tts` (needs `make setup`'s Piper
//! voice, ONNX Runtime and Whisper model, and a release `baton-stt`).
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use baton_voice::stt::{
    Pass, STT_SAMPLE_RATE, SpeechToText, WhisperWorker, WorkerOptions, find_worker_binary,
    word_error_rate,
};
use baton_voice::{EspeakTts, PiperTts, TextToSpeech};

const SENTENCES: &[&str] = &[
    "You have two meetings tomorrow.",
    "The first one is with Alice in the morning.",
    "Revenue grew by twelve percent compared with the previous quarter.",
    "Please read the attached report before Friday.",
    "The weather in Lisbon is sunny and warm today.",
    "I saved the spreadsheet with a backup of the old version.",
    "Your flight leaves at half past seven from terminal two.",
    "Should I send the summary to the whole team?",
    "The invoice from the printing company is still unpaid.",
    "There are three new messages in your inbox.",
    "The north region grew fastest, followed by the south.",
    "I could not open that file because it is damaged.",
];

struct Row {
    name: String,
    first_ms: Vec<f64>,
    synth_s: f64,
    audio_s: f64,
    wer_errors: usize,
    wer_words: usize,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn measure(tts: &dyn TextToSpeech, stt: &WhisperWorker) -> Row {
    let mut row = Row {
        name: tts.name().to_string(),
        first_ms: Vec::new(),
        synth_s: 0.0,
        audio_s: 0.0,
        wer_errors: 0,
        wer_words: 0,
    };
    tts.synthesize("Warm up.").expect("speech");
    for text in SENTENCES {
        let t = Instant::now();
        let speech = tts.synthesize(text).expect("speech");
        let took = t.elapsed().as_secs_f64();
        row.first_ms.push(took * 1000.0);
        row.synth_s += took;
        row.audio_s += speech.duration().as_secs_f64();
        let f: Vec<f32> = speech
            .samples
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect();
        let pcm = baton_voice::audio::resample(&f, speech.sample_rate, STT_SAMPLE_RATE)
            .expect("resample");
        let heard = stt.transcribe(&pcm, Pass::Final).expect("transcript").text;
        let (_, errors, words) = word_error_rate(text, &heard);
        row.wer_errors += errors;
        row.wer_words += words;
    }
    row
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return; // `cargo test` builds benches; only `cargo bench` runs them
    }
    let models = std::env::var_os("BATON_MODELS_DIR").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".local/share/baton/models")
        },
        PathBuf::from,
    );
    let mut options = WorkerOptions::new(models.join("ggml-tiny.en-q8_0.bin"));
    options.threads = 2;
    options.beam_size = 1;
    let stt = WhisperWorker::start(&find_worker_binary().expect("baton-stt"), &options)
        .expect("Whisper tiny.en (make setup)");
    let load = Instant::now();
    let piper = PiperTts::load(
        &models.join("piper/en_US-joe-medium.onnx"),
        &models.join("onnxruntime/libonnxruntime.so.1.32.0"),
        2,
        1.0,
    )
    .expect("the Piper voice (make setup)");
    let load_ms = load.elapsed().as_secs_f64() * 1000.0;
    let rows = [measure(&EspeakTts::default(), &stt), measure(&piper, &stt)];
    println!(
        "{} sentences, 2 threads; Whisper tiny.en (greedy) transcribes each for the word error rate",
        SENTENCES.len()
    );
    println!(
        "{:<28} {:>16} {:>10} {:>8}",
        "engine", "first audio (ms)", "RTF", "WER"
    );
    let mut base = (0.0, 0.0, 0.0);
    for (i, mut r) in rows.into_iter().enumerate() {
        let first = median(&mut r.first_ms);
        let rtf = r.synth_s / r.audio_s;
        let wer = r.wer_errors as f64 / r.wer_words.max(1) as f64;
        if i == 0 {
            base = (first, rtf, wer);
        }
        println!(
            "{:<28} {:>16.1} {:>10.4} {:>7.1}%",
            r.name,
            first,
            rtf,
            wer * 100.0
        );
        if i > 0 {
            println!(
                "  vs eSpeak NG: first audio {:.1}x, real-time factor {:.1}x, word errors {} vs {} (of {}); voice loaded in {load_ms:.0} ms",
                first / base.0,
                rtf / base.1,
                r.wer_errors,
                (base.2 * r.wer_words as f64).round(),
                r.wer_words
            );
        }
    }
}
