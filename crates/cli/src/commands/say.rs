//! `baton say`: text to speech, sentence by sentence, on the speaker or
//! into a WAV file. `--voice`/`--rate` pick an eSpeak NG voice; without
//! them the voice settings choose the engine.

use std::process::ExitCode;
use std::sync::Arc;

use baton_engine::api::voice::audio::open_speaker;
use baton_engine::api::voice::{
    AudioSink, EspeakTts, SentenceSplitter, Speech, SplitterOptions, TextToSpeech,
};
use tokio_util::sync::CancellationToken;

use crate::args::SayArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: SayArgs) -> anyhow::Result<ExitCode> {
    let tts: Arc<dyn TextToSpeech> = match &args.engine {
        Some(name) => ctx.voice().tts_named(name)?,
        None if args.voice != "en-us" || args.rate != 175 => {
            Arc::new(EspeakTts::new(&args.voice, args.rate))
        }
        None => ctx.voice().tts()?,
    };
    let mut splitter = SentenceSplitter::new(SplitterOptions::default());
    let mut sentences = splitter.push(&args.text.join(" "));
    sentences.extend(splitter.finish());
    if sentences.is_empty() {
        anyhow::bail!("there is nothing to say in that text");
    }
    let out = args.out.clone();
    let output_device = ctx.settings().voice.output_device.clone();
    let count = sentences.len();
    let all = tokio::task::spawn_blocking(move || -> anyhow::Result<Speech> {
        let mut speaker = match &out {
            Some(_) => None,
            None => Some(open_speaker(output_device.as_deref())?),
        };
        let mut all = Speech {
            samples: Vec::new(),
            sample_rate: 22050,
        };
        for sentence in &sentences {
            let speech = tts.synthesize(sentence)?;
            if let Some(s) = speaker.as_mut() {
                s.play(&speech)?;
            }
            all.sample_rate = speech.sample_rate;
            all.samples.extend(speech.samples);
        }
        if let Some(s) = speaker.as_mut() {
            s.finish(&CancellationToken::new())?;
            // The device's own buffer is still sounding.
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Ok(all)
    })
    .await??;
    let plural = if count == 1 { "" } else { "s" };
    match &args.out {
        Some(path) => {
            all.write_wav(path)?;
            eprintln!(
                "wrote {} ({count} sentence{plural}, {:.1} s of speech)",
                path.display(),
                all.duration().as_secs_f64()
            );
        }
        None => eprintln!(
            "said {count} sentence{plural} ({:.1} s of speech)",
            all.duration().as_secs_f64()
        ),
    }
    Ok(ExitCode::SUCCESS)
}
