//! `baton say` and `baton transcribe` on files: Markdown spoken sentence
//! by sentence, the natural voice against eSpeak NG, any audio format,
//! and German with the multilingual model.
//!
//! (Not named `voice`: .config/nextest.toml puts tests whose names match
//! `voice|transcribe|talking` in the one-at-a-time group, and a module
//! name is part of the test name.)

use serde_json::Value;

use crate::support::audio::*;
use crate::support::*;

#[tokio::test]
async fn say_speaks_markdown_sentence_by_sentence_into_a_wav_file() {
    let env = Env::new();
    let out = env.path().join("answer.wav");
    let mut c = env.cmd();
    c.args(["say", "--out"]).arg(&out).arg(
        "# Summary\nRevenue grew by **12 percent**. See [the report](https://x.io/r) for details.",
    );
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("3 sentences"), "{}", o.stderr);
    let mut wav = hound::WavReader::open(&out).expect("a valid WAV file");
    assert_eq!(wav.spec().channels, 1);
    let rate = wav.spec().sample_rate;
    let samples: Vec<i16> = wav.samples::<i16>().map(Result::unwrap).collect();
    let secs = samples.len() as f64 / f64::from(rate);
    assert!((2.0..12.0).contains(&secs), "{secs} s of speech");
    assert!(samples.iter().any(|s| s.unsigned_abs() > 3000), "audible");

    // An unknown voice fails with the reason and writes nothing.
    let bad = env.path().join("bad.wav");
    let mut c = env.cmd();
    c.args(["say", "--voice", "xx-nope", "--out"])
        .arg(&bad)
        .arg("Hello.");
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no voice named `xx-nope`"),
        "{}",
        o.stderr
    );
    assert!(!bad.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn transcribe_reads_any_format_and_rate_and_explains_bad_files() {
    let env = Env::new();
    let wav = env.path().join("q.wav");
    spoken_wav(&wav, &["Set a timer for fifteen minutes."], 0.3);
    let text = transcribe(&env, &wav).await;
    assert!(
        wer("Set a timer for fifteen minutes.", &text) <= 0.2,
        "{text}"
    );
    // A text file is refused with the reason, not a crash.
    let bad = env.path().join("notes.flac");
    std::fs::write(&bad, "not audio").unwrap();
    let mut c = env.cmd();
    c.args(["transcribe"]).arg(&bad);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("notes.flac") && o.stderr.contains("not an audio format"),
        "{}",
        o.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn say_speaks_with_the_natural_voice_more_clearly_than_espeak() {
    let env = Env::new();
    let text = "Revenue grew by twelve percent compared with the previous quarter. \
                Should I send the summary to the whole team?";
    let mut errors = Vec::new();
    for engine in ["piper", "espeak"] {
        let wav = env.path().join(format!("{engine}.wav"));
        let mut c = env.cmd();
        c.env("BATON_MODELS_DIR", models_dir());
        c.args(["say", "--engine", engine, "--out"])
            .arg(&wav)
            .arg(text);
        let o = run(c, None).await;
        assert_eq!(o.code, 0, "{}", o.stderr);
        errors.push(wer(text, &transcribe(&env, &wav).await));
    }
    // Whisper hears the natural voice almost word for word, better than
    // eSpeak NG's.
    assert!(errors[0] <= 0.1 && errors[0] <= errors[1], "{errors:?}");
    // Without the voice installed, Piper is named as missing; the default
    // engine falls back to eSpeak NG and still speaks.
    let empty = env.path().join("no-models");
    std::fs::create_dir_all(&empty).unwrap();
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", &empty);
    c.args(["say", "--engine", "piper", "--out"])
        .arg(env.path().join("x.wav"))
        .arg("Hello.");
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no Piper voice") && o.stderr.contains("make setup"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", &empty);
    c.args(["say", "--out"])
        .arg(env.path().join("y.wav"))
        .arg("Hello.");
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn transcribe_hears_german_with_the_multilingual_model_and_refuses_an_english_one() {
    let env = Env::new();
    let wav = env.path().join("de.wav");
    let speech = baton_voice::TextToSpeech::synthesize(
        &baton_voice::EspeakTts::new("de", 150),
        "Guten Morgen. Wie spät ist es?",
    )
    .unwrap();
    speech.write_wav(&wav).unwrap();
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", models_dir());
    c.args(["transcribe", "--json", "--language", "de"])
        .arg(&wav);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["model"].as_str().unwrap().contains("ggml-base"), "{v}");
    let words = baton_voice::stt::normalize_words(v["text"].as_str().unwrap()).join(" ");
    assert!(words.contains("guten morgen"), "{words}");
    // An English-only model would hear English words: refused in words.
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", models_dir());
    c.args(["transcribe", "--language", "de", "--model"])
        .arg(models_dir().join("ggml-tiny.en-q8_0.bin"))
        .arg(&wav);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("understands only English") && o.stderr.contains("ggml-base-q8_0.bin"),
        "{}",
        o.stderr
    );
}
