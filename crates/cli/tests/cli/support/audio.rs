//! Speech helpers shared by the `say`, `transcribe` and `voice` tests: a
//! recorded microphone made with eSpeak NG, Whisper transcripts of
//! `baton`'s output, word error rates, and the scripted spoken answer.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Env, run};

/// eSpeak NG saying each text, `gap_s` of silence before each, as a WAV
/// file: a recorded microphone.
pub(crate) fn spoken_wav(path: &Path, texts: &[&str], gap_s: f32) {
    use baton_voice::TextToSpeech;
    let tts = baton_voice::EspeakTts::default();
    let mut samples = Vec::new();
    let mut rate = 22_050;
    for t in texts {
        let s = tts.synthesize(t).unwrap();
        rate = s.sample_rate;
        samples.extend(std::iter::repeat_n(0i16, (gap_s * rate as f32) as usize));
        samples.extend(s.samples);
    }
    baton_voice::Speech {
        samples,
        sample_rate: rate,
    }
    .write_wav(path)
    .unwrap();
}

pub(crate) fn wer(reference: &str, hypothesis: &str) -> f64 {
    baton_voice::stt::word_error_rate(reference, hypothesis).0
}

pub(crate) async fn transcribe(env: &Env, file: &Path) -> String {
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", models_dir());
    // Beam search: steadier on long recordings of synthetic speech.
    c.args(["transcribe", "--json", "--beam-size", "5"])
        .arg(file);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str::<Value>(&o.stdout).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

pub(crate) fn models_dir() -> PathBuf {
    std::env::var_os("BATON_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".local/share/baton/models")
        })
}

pub(crate) const ANSWER: &str = "You have two meetings tomorrow. The first one is with Alice in the morning. \
    The second one is with the design team after lunch.";

/// Key phrases of the three sentences of [`ANSWER`], in order (tiny.en
/// mishears some of eSpeak's other words).
pub(crate) const ANSWER_PHRASES: [&str; 3] = ["meetings tomorrow", "alice", "design team"];

/// `heard` (a transcript) holds each phrase, in this order.
pub(crate) fn assert_says_in_order(heard: &str, phrases: &[&str]) {
    let words = |t: &str| baton_voice::stt::normalize_words(t).join(" ");
    let heard = words(heard);
    let mut at = 0;
    for phrase in phrases {
        let phrase = &words(phrase);
        let found = heard[at..].find(phrase);
        assert!(
            found.is_some(),
            "{phrase:?} not heard in order in {heard:?}"
        );
        at += found.unwrap_or(0) + phrase.len();
    }
}
