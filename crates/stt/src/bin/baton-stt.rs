//! `baton-stt`: the speech-to-text worker. Loads a ggml Whisper model, then
//! answers transcription requests on standard input/output (protocol in
//! `baton_voice::stt::protocol`). Started by the CLI and the desktop app.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use baton_stt::{Whisper, WhisperOptions};
use baton_voice::stt::SpeechToText;
use baton_voice::stt::protocol::{Ready, Request, Response, read_samples};
use clap::Parser;

/// Baton's speech-to-text worker (whisper.cpp).
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The ggml Whisper model.
    #[arg(long)]
    model: PathBuf,
    /// Spoken language ("en", or "auto").
    #[arg(long, default_value = "en")]
    language: String,
    /// CPU threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Beam width for final transcripts (1 = greedy).
    #[arg(long, default_value_t = 1)]
    beam_size: usize,
    /// Always run the encoder over whisper's full 30 s window.
    #[arg(long)]
    full_window: bool,
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BATON_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let args = Args::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let started = Instant::now();
    let options = WhisperOptions {
        language: args.language,
        threads: args.threads,
        beam_size: args.beam_size,
        fit_audio_ctx: !args.full_window,
    };
    let whisper = match Whisper::load(&args.model, options) {
        Ok(w) => w,
        Err(e) => {
            let ready = Ready {
                ok: false,
                model: String::new(),
                load_ms: 0,
                error: Some(e.to_string()),
            };
            writeln!(out, "{}", serde_json::to_string(&ready)?)?;
            return Ok(());
        }
    };
    let ready = Ready {
        ok: true,
        model: whisper.kind().to_string(),
        load_ms: started.elapsed().as_millis() as u64,
        error: None,
    };
    writeln!(out, "{}", serde_json::to_string(&ready)?)?;
    out.flush()?;

    let mut input = BufReader::new(std::io::stdin().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(()); // the client closed: done
        }
        let request: Request = match serde_json::from_str(line.trim()) {
            Ok(r) => r,
            Err(e) => {
                // Without a header the audio cannot be skipped: give up.
                anyhow::bail!("unreadable request ({e}): {}", line.trim());
            }
        };
        let samples = read_samples(&mut input, request.samples)?;
        let response = match whisper.transcribe(&samples, request.pass) {
            Ok(t) => Response {
                transcript: Some(t),
                error: None,
            },
            Err(e) => Response {
                transcript: None,
                error: Some(e.to_string()),
            },
        };
        writeln!(out, "{}", serde_json::to_string(&response)?)?;
        out.flush()?;
    }
}
