//! `baton say`: text to speech, sentence by sentence, into a WAV file.

use std::process::ExitCode;

use baton_voice::{EspeakTts, SentenceSplitter, Speech, SplitterOptions, TextToSpeech};

use crate::args::SayArgs;

pub fn run(args: SayArgs) -> anyhow::Result<ExitCode> {
    let tts = EspeakTts::new(&args.voice, args.rate);
    let mut splitter = SentenceSplitter::new(SplitterOptions::default());
    let mut sentences = splitter.push(&args.text.join(" "));
    sentences.extend(splitter.finish());
    if sentences.is_empty() {
        anyhow::bail!("there is nothing to say in that text");
    }
    let mut all = Speech {
        samples: Vec::new(),
        sample_rate: 22050,
    };
    for sentence in &sentences {
        let speech = tts.synthesize(sentence)?;
        all.sample_rate = speech.sample_rate;
        all.samples.extend(speech.samples);
    }
    all.write_wav(&args.out)?;
    eprintln!(
        "wrote {} ({} sentence{}, {:.1} s of speech)",
        args.out.display(),
        sentences.len(),
        if sentences.len() == 1 { "" } else { "s" },
        all.duration().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
