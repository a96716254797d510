//! `baton voice`: a voice conversation in the terminal. The microphone
//! (or a recording, `--mic-file`) is listened to; each utterance is
//! transcribed and answered by the agent, and the answer is spoken on the
//! speaker (or recorded, `--speaker-file`) sentence by sentence. Talking
//! over the answer interrupts it.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use baton_engine::api::voice::VoiceEvent;
use baton_engine::api::voice::audio::{Speaker, input_devices, output_devices};
use baton_engine::{VoiceInput, VoiceRequest};
use serde_json::json;

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
    let speaker = args.speaker_file.as_ref().map(|_| Speaker::paced(22_050));
    let request = VoiceRequest {
        session: args.session.clone(),
        agent: args.agent.clone(),
        provider: args.provider.clone(),
        input: match &args.mic_file {
            Some(file) => VoiceInput::Recording(file.clone()),
            None => VoiceInput::Microphone,
        },
        speaker: speaker.clone(),
        // As the settings say (`voice.pushToTalk`).
        push_to_talk: None,
    };
    let mut run = ctx.voice().start(request).await?;
    let controls = run.controls().clone();
    let session = controls.session_id.clone();
    if args.json {
        println!(
            "{}",
            json!({"kind": "ready", "stt": controls.stt, "tts": controls.tts,
                   "microphone": controls.microphone.as_ref().map(|m| m.0.clone()),
                   "session": session})
        );
    } else if let Some((name, rate)) = &controls.microphone {
        eprintln!("listening on {name} ({rate} Hz); speak, and press Ctrl-C to stop");
    }
    let stop = run.stopper();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    let mut printer = Printer::new(args.json, verbose);
    while let Some(ev) = run.next().await {
        printer.show(ev);
    }
    let turns = run.finish().await.unwrap_or_default();
    if let (Some(path), Some(speaker)) = (&args.speaker_file, &speaker) {
        save_recording(speaker, path).await?;
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

/// Shows the loop's events: JSON lines with `--json`, else the transcript
/// on stderr and the answer on stdout.
struct Printer {
    json: bool,
    verbose: bool,
    answering: bool,
}

impl Printer {
    fn new(json: bool, verbose: bool) -> Self {
        Self {
            json,
            verbose,
            answering: false,
        }
    }

    fn show(&mut self, ev: VoiceEvent) {
        if self.json {
            if !matches!(ev, VoiceEvent::Level { .. }) {
                println!("{}", serde_json::to_string(&ev).unwrap_or_default());
            }
            return;
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
                if !self.answering {
                    self.answering = true;
                    print!("baton: ");
                }
                print!("{text}");
                let _ = std::io::stdout().flush();
            }
            VoiceEvent::AnswerDone {
                interrupted,
                timing,
            } => {
                if self.answering {
                    println!("{}", if interrupted { " [interrupted]" } else { "" });
                }
                self.answering = false;
                if let (true, Some(t)) = (self.verbose, timing) {
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
            VoiceEvent::BargeIn { .. }
            | VoiceEvent::Level { .. }
            | VoiceEvent::Speaking { .. }
            | VoiceEvent::Stopped => {}
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
