//! Audio files made by the real encoders (Debian's `flac`, `oggenc` and
//! `lame`) decode to the speech that went in.

use std::path::Path;
use std::process::Command;

use baton_voice::audio::decode_file;
use baton_voice::{EspeakTts, TextToSpeech};

fn encode(program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} ({e}); `make setup` installs flac, vorbis-tools and lame")
        });
    assert!(
        status.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

fn rms(s: &[f32]) -> f64 {
    (s.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>() / s.len().max(1) as f64).sqrt()
}

#[test]
fn flac_ogg_and_mp3_files_decode_to_the_speech_that_was_encoded() {
    let dir = tempfile::tempdir().unwrap();
    let speech = EspeakTts::default()
        .synthesize("Please summarize the quarterly report before Friday.")
        .unwrap();
    let wav = dir.path().join("speech.wav");
    speech.write_wav(&wav).unwrap();
    let original = speech.to_f32();
    let secs = original.len() as f64 / f64::from(speech.sample_rate);
    let p = |name: &str| dir.path().join(name);
    let s = |path: &Path| path.to_str().unwrap().to_string();
    encode("flac", &["--silent", "-o", &s(&p("a.flac")), &s(&wav)]);
    encode("oggenc", &["--quiet", "-o", &s(&p("a.ogg")), &s(&wav)]);
    encode(
        "lame",
        &["--quiet", "--resample", "44.1", &s(&wav), &s(&p("a.mp3"))],
    );

    // Lossless: the same samples.
    let flac = decode_file(&p("a.flac")).unwrap();
    assert_eq!(flac.sample_rate, speech.sample_rate);
    assert_eq!(flac.samples.len(), original.len());
    let max_diff = flac
        .samples
        .iter()
        .zip(&original)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(max_diff < 1e-4, "FLAC differs by {max_diff}");

    // Lossy, and MP3 at another rate: the same length and loudness.
    for (file, rate) in [("a.ogg", speech.sample_rate), ("a.mp3", 44_100)] {
        let pcm = decode_file(&p(file)).unwrap();
        assert_eq!(pcm.sample_rate, rate, "{file}");
        let d = pcm.duration().as_secs_f64();
        assert!(
            (d - secs).abs() < 0.12,
            "{file}: {d:.3} s, the speech is {secs:.3} s"
        );
        let ratio = rms(&pcm.samples) / rms(&original);
        assert!(
            (0.8..1.25).contains(&ratio),
            "{file}: loudness ratio {ratio:.2}"
        );
        let at16 = pcm.resampled(16_000).unwrap();
        assert!((at16.duration().as_secs_f64() - d).abs() < 0.01, "{file}");
    }
}
