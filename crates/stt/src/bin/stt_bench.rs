//! `baton-stt-bench`: whisper.cpp speed and accuracy against
//! faster-whisper (CTranslate2, int8) on the same clips, threads and beam,
//! in one run, so the ratios hold on a noisy machine.
//!
//! Clips: the fixture corpus spoken by eSpeak NG. Each model variant is
//! loaded once, warmed up on one clip, then timed on every clip.
//! faster-whisper runs through `scripts/bench-faster-whisper.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use baton_stt::corpus::{SENTENCES, spoken};
use baton_stt::{Whisper, WhisperOptions};
use baton_voice::stt::{Pass, STT_SAMPLE_RATE, SpeechToText, word_error_rate};
use clap::Parser;
use serde_json::{Value, json};

/// Speech-to-text benchmark: whisper.cpp variants against faster-whisper.
#[derive(Parser)]
struct Args {
    /// The models folder (ggml-tiny.en*.bin).
    #[arg(long, env = "BATON_MODELS_DIR")]
    models: PathBuf,
    /// CPU threads for both engines.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Beam width for both engines (1 = greedy).
    #[arg(long, default_value_t = 1)]
    beam_size: usize,
    /// How many clips of the corpus to use.
    #[arg(long, default_value_t = 30)]
    clips: usize,
    /// The faster-whisper wrapper script (skipped when absent).
    #[arg(long, default_value = "scripts/bench-faster-whisper.sh")]
    baseline: PathBuf,
    /// Write the results as JSON here too.
    #[arg(long)]
    json: Option<PathBuf>,
}

struct Run {
    name: String,
    decode_ms: f64,
    audio_ms: f64,
    edits: usize,
    words: usize,
}

fn write_clips(dir: &Path, n: usize) -> Result<Vec<(Vec<f32>, &'static str)>> {
    let mut clips = Vec::new();
    let mut manifest = Vec::new();
    for (i, text) in SENTENCES.iter().take(n).enumerate() {
        let samples = spoken(text)?;
        let file = format!("clip{i:02}.wav");
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: STT_SAMPLE_RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(dir.join(&file), spec)?;
        for &s in &samples {
            w.write_sample(baton_voice::tts::f32_to_i16(s))?;
        }
        w.finalize()?;
        manifest.push(json!({"file": file, "text": text}));
        clips.push((samples, *text));
    }
    std::fs::write(
        dir.join("manifest.json"),
        Value::Array(manifest).to_string(),
    )?;
    Ok(clips)
}

fn run_whisper(
    name: &str,
    model: &Path,
    options: WhisperOptions,
    clips: &[(Vec<f32>, &str)],
) -> Result<Run> {
    let whisper = Whisper::load(model, options)?;
    whisper.transcribe(&clips[0].0, Pass::Final)?; // warm-up
    let (mut decode_ms, mut audio_ms, mut edits, mut words) = (0.0, 0.0, 0, 0);
    for (samples, text) in clips {
        let t0 = Instant::now();
        let t = whisper.transcribe(samples, Pass::Final)?;
        decode_ms += t0.elapsed().as_secs_f64() * 1000.0;
        audio_ms += samples.len() as f64 * 1000.0 / f64::from(STT_SAMPLE_RATE);
        let (_, e, w) = word_error_rate(text, &t.text);
        edits += e;
        words += w;
    }
    Ok(Run {
        name: name.to_string(),
        decode_ms,
        audio_ms,
        edits,
        words,
    })
}

fn run_baseline(args: &Args, dir: &Path) -> Result<Run> {
    let out = dir.join("faster-whisper.json");
    let status = Command::new(&args.baseline)
        .arg("--clips")
        .arg(dir)
        .args(["--threads", &args.threads.to_string()])
        .args(["--beam-size", &args.beam_size.to_string()])
        .arg("--out")
        .arg(&out)
        .status()
        .with_context(|| format!("cannot run {}", args.baseline.display()))?;
    if !status.success() {
        bail!("{} failed ({status})", args.baseline.display());
    }
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&out)?)?;
    let (mut edits, mut words) = (0, 0);
    for c in r["clips"]
        .as_array()
        .context("no clips in the baseline's result")?
    {
        let (_, e, w) = word_error_rate(
            c["reference"].as_str().unwrap_or_default(),
            c["text"].as_str().unwrap_or_default(),
        );
        edits += e;
        words += w;
    }
    Ok(Run {
        name: r["engine"].as_str().unwrap_or("faster-whisper").to_string(),
        decode_ms: r["decodeMs"].as_f64().unwrap_or(f64::NAN),
        audio_ms: r["audioMs"].as_f64().unwrap_or(f64::NAN),
        edits,
        words,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    whisper_rs::install_logging_hooks();
    let dir = tempfile::tempdir()?;
    let clips = write_clips(dir.path(), args.clips.clamp(1, SENTENCES.len()))?;
    let options = |fit: bool| WhisperOptions {
        language: "en".into(),
        threads: args.threads,
        beam_size: args.beam_size,
        fit_audio_ctx: fit,
    };
    let mut runs = Vec::new();
    let baseline = if args.baseline.is_file() {
        Some(run_baseline(&args, dir.path())?)
    } else {
        eprintln!("(no {}: faster-whisper skipped)", args.baseline.display());
        None
    };
    for (name, file, fit) in [
        ("whisper.cpp f16, 30 s window", "ggml-tiny.en.bin", false),
        ("whisper.cpp f16, fitted window", "ggml-tiny.en.bin", true),
        (
            "whisper.cpp q8_0, fitted window",
            "ggml-tiny.en-q8_0.bin",
            true,
        ),
        (
            "whisper.cpp q5_0, fitted window",
            "ggml-tiny.en-q5_0.bin",
            true,
        ),
    ] {
        let model = args.models.join(file);
        if !model.is_file() {
            eprintln!("(no {}: skipped)", model.display());
            continue;
        }
        runs.push(run_whisper(name, &model, options(fit), &clips)?);
    }
    println!(
        "STT, {} clips ({:.1} s of speech), {} threads, beam {}:",
        clips.len(),
        runs.first().map_or(0.0, |r| r.audio_ms / 1000.0),
        args.threads,
        args.beam_size
    );
    println!(
        "  {:<40} {:>9} {:>7} {:>7} {:>16}",
        "engine", "decode", "RTF", "WER", "speed vs baseline"
    );
    let mut out = Vec::new();
    for r in baseline.iter().chain(runs.iter()) {
        let ratio = baseline.as_ref().map(|b| b.decode_ms / r.decode_ms);
        println!(
            "  {:<40} {:>7.0} ms {:>7.3} {:>6.1}% {:>16}",
            r.name,
            r.decode_ms,
            r.decode_ms / r.audio_ms,
            100.0 * r.edits as f64 / r.words.max(1) as f64,
            ratio.map_or("-".into(), |x| format!("{x:.2}×"))
        );
        out.push(
            json!({"engine": r.name, "decodeMs": r.decode_ms, "audioMs": r.audio_ms,
                        "wer": r.edits as f64 / r.words.max(1) as f64, "speedVsBaseline": ratio}),
        );
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&out)?)?;
    }
    Ok(())
}
