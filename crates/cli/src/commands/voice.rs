//! `baton voice`: a voice conversation in the terminal. The microphone
//! (or a recording, `--mic-file`) is listened to; each utterance is
//! transcribed and answered by the agent, and the answer is spoken on the
//! speaker (or recorded, `--speaker-file`) sentence by sentence. Talking
//! over the answer interrupts it.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use baton_engine::AgentResponder;
use baton_engine::api::voice::audio::{
    Microphone, Speaker, decode_file, input_devices, open_speaker, output_devices, paced_source,
};
use baton_engine::api::voice::stt::STT_SAMPLE_RATE;
use baton_engine::api::voice::{Control, VoiceEvent, VoiceParts, run_voice_loop};
use serde_json::json;
use tokio::sync::mpsc;

use crate::args::VoiceArgs;
use crate::context::Context;

fn list_devices() -> anyhow::Result<ExitCode> {
    for (title, list) in [
        ("microphones", input_devices()?),
        ("speakers", output_devices()?),
    ] {
        println!("{title}:");
        if list.is_empty() {
            println!("  (none)");
        }
        for d in list {
            let mark = if d.is_default { " (default)" } else { "" };
            println!("  {}  {}{mark}", d.id, d.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn run(ctx: &Context, args: VoiceArgs, verbose: bool) -> anyhow::Result<ExitCode> {
    if args.list_devices {
        return list_devices();
    }
    let conversation = ctx.voice().conversation(
        args.session.as_deref(),
        args.agent.as_deref(),
        args.provider.as_deref(),
    )?;
    conversation.ready().await?;
    let responder = Arc::new(AgentResponder::new(conversation));
    let session = responder.session_id().await;
    let tts = ctx.voice().tts()?;
    // Loading the model blocks for a moment; nothing else runs yet.
    let stt = ctx.voice().start_stt()?;
    let voice = &ctx.settings().voice;
    let (mic, chunks) = open_microphone(&args, voice.input_device.as_deref())?;
    let speaker = match &args.speaker_file {
        Some(_) => Speaker::paced(22_050),
        None => open_speaker(voice.output_device.as_deref())?,
    };
    if args.json {
        println!(
            "{}",
            json!({"kind": "ready", "stt": baton_engine::api::voice::stt::SpeechToText::name(&stt),
                   "tts": tts.name(), "microphone": mic.as_ref().map(|m| m.name.clone()),
                   "session": session})
        );
    }
    let parts = VoiceParts {
        stt: Arc::new(stt),
        tts,
        speaker: speaker.clone(),
        responder,
    };
    let (ctl_tx, ctl_rx) = mpsc::channel(8);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = ctl_tx.send(Control::Quit).await;
        }
    });
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    let printer = tokio::spawn(print_events(ev_rx, args.json, verbose));
    let mut options = ctx.voice().loop_options();
    // A recording has no echo of this speaker in it.
    options.echo_cancellation &= args.mic_file.is_none();
    let turns = run_voice_loop(chunks, parts, options, ctl_rx, ev_tx).await;
    drop(mic);
    let _ = printer.await;
    if let Some(path) = &args.speaker_file {
        save_recording(&speaker, path).await?;
    }
    if args.json {
        println!(
            "{}",
            json!({"kind": "summary", "session": session, "turns": turns})
        );
    } else if !turns.is_empty() {
        eprintln!("saved as conversation {session}; `baton chat --session {session}` continues it");
    }
    Ok(ExitCode::SUCCESS)
}

/// The microphone, or the recording played in real time (`--mic-file`).
fn open_microphone(
    args: &VoiceArgs,
    device: Option<&str>,
) -> anyhow::Result<(
    Option<Microphone>,
    baton_engine::api::voice::audio::AudioChunks,
)> {
    Ok(match &args.mic_file {
        Some(file) => {
            let mut samples = decode_file(file)?.resampled(STT_SAMPLE_RATE)?.samples;
            // Room to hear the end of the last utterance.
            samples.extend(std::iter::repeat_n(0.0, STT_SAMPLE_RATE as usize * 2));
            (None, paced_source(samples, Duration::from_millis(10)))
        }
        None => {
            let (mic, chunks) = Microphone::open(device)?;
            if !args.json {
                eprintln!(
                    "listening on {} ({} Hz); speak, and press Ctrl-C to stop",
                    mic.name, mic.device_rate
                );
            }
            (Some(mic), chunks)
        }
    })
}

/// Shows the loop's events: JSON lines with `--json`, else the transcript
/// on stderr and the answer on stdout.
async fn print_events(mut ev_rx: mpsc::UnboundedReceiver<VoiceEvent>, json: bool, verbose: bool) {
    let mut answering = false;
    while let Some(ev) = ev_rx.recv().await {
        if json {
            if !matches!(ev, VoiceEvent::Level { .. }) {
                println!("{}", serde_json::to_string(&ev).unwrap_or_default());
            }
            continue;
        }
        let mut err = std::io::stderr().lock();
        match ev {
            VoiceEvent::SpeechStarted => {
                let _ = write!(err, "\r\x1b[2K🎤 …");
            }
            VoiceEvent::Partial { text } => {
                let _ = write!(err, "\r\x1b[2K🎤 {text}");
            }
            VoiceEvent::Transcript { text, .. } => {
                let _ = writeln!(err, "\r\x1b[2Kyou: {text}");
            }
            VoiceEvent::AnswerText { text } => {
                if !answering {
                    answering = true;
                    print!("baton: ");
                }
                print!("{text}");
                let _ = std::io::stdout().flush();
            }
            VoiceEvent::AnswerDone {
                interrupted,
                timing,
            } => {
                if answering {
                    println!("{}", if interrupted { " [interrupted]" } else { "" });
                }
                answering = false;
                if let (true, Some(t)) = (verbose, timing) {
                    let _ = writeln!(
                        err,
                        "  first audio {:.0} ms (silence wait {:.0}, transcription {:.0}, first sentence {:.0}, speech {:.0})",
                        t.first_audio_ms, t.vad_tail_ms, t.stt_ms, t.first_sentence_ms, t.tts_ms
                    );
                }
            }
            VoiceEvent::Error { message } => {
                let _ = writeln!(err, "\nerror: {message}");
            }
            VoiceEvent::BargeIn { .. } | VoiceEvent::Level { .. } | VoiceEvent::Speaking { .. } => {
            }
        }
    }
}

/// Writes what was "played" into `path` once the last sentence ends.
async fn save_recording(speaker: &Speaker, path: &std::path::Path) -> anyhow::Result<()> {
    while speaker.is_playing() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if let Some(rec) = speaker.recording() {
        rec.write_wav(path)?;
    }
    Ok(())
}
