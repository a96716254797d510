//! `baton transcribe`: an audio file to text with Whisper (whisper.cpp in
//! the `baton-stt` worker).

use std::process::ExitCode;

use baton_engine::api::voice::audio::decode_file;
use baton_engine::api::voice::stt::{
    Pass, STT_SAMPLE_RATE, SpeechToText, WhisperWorker, find_worker_binary, is_whisper_language,
};
use serde_json::json;

use crate::args::TranscribeArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: TranscribeArgs) -> anyhow::Result<ExitCode> {
    // The file first: a wrong file is the likelier mistake.
    let file = args.file.clone();
    let pcm = tokio::task::spawn_blocking(move || decode_file(&file)?.resampled(STT_SAMPLE_RATE))
        .await??;
    let language = args
        .language
        .clone()
        .unwrap_or_else(|| ctx.settings().voice_language());
    if !is_whisper_language(&language) {
        anyhow::bail!(
            "Whisper does not know the language `{language}` (use a code such as en, de, fr, or auto)"
        );
    }
    let model = match args.model.clone() {
        Some(m) => m,
        None => ctx.voice().stt_model_for(&language)?,
    };
    baton_engine::check_stt_language(&model, &language)?;
    let mut options = ctx.voice().stt_options_for(model);
    options.language = language;
    if let Some(b) = args.beam_size {
        options.beam_size = b.max(1);
    }
    if let Some(t) = args.threads {
        options.threads = t.max(1);
    }
    options.fit_audio_ctx = !args.full_window;
    let (transcript, model) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let worker = WhisperWorker::start(&find_worker_binary()?, &options)?;
        let t = worker.transcribe(&pcm.samples, Pass::Final)?;
        Ok((t, worker.name()))
    })
    .await??;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "file": args.file,
                "text": transcript.text,
                "segments": transcript.segments,
                "audioMs": transcript.audio_ms,
                "decodeMs": transcript.decode_ms,
                "model": model,
            }))?
        );
    } else if transcript.text.is_empty() {
        eprintln!("(no speech found)");
    } else {
        println!("{}", transcript.text);
    }
    Ok(ExitCode::SUCCESS)
}
