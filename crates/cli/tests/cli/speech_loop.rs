//! `baton voice` on a recorded microphone and speaker (WAV files): a
//! question heard and the streamed answer spoken sentence by sentence,
//! and talking over the answer.

use std::path::PathBuf;
use std::time::Duration;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::audio::*;
use crate::support::*;

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `baton voice` (`c`) hearing `utterances` from a recorded microphone,
/// `gap_s` of silence before each, and playing into a recorded speaker:
/// its JSON events and the speaker's WAV file. It runs in real time, so
/// it gets 90 s.
async fn voice_on_files(
    env: &Env,
    mut c: tokio::process::Command,
    utterances: &[&str],
    gap_s: f32,
) -> (Vec<Value>, PathBuf) {
    let mic = env.path().join("mic.wav");
    let spk = env.path().join("speaker.wav");
    spoken_wav(&mic, utterances, gap_s);
    c.env("BATON_MODELS_DIR", models_dir())
        .args(["voice", "--json", "--mic-file"])
        .arg(&mic)
        .arg("--speaker-file")
        .arg(&spk);
    let o = run_for(c, None, Duration::from_secs(90)).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    (events(&o.stdout), spk)
}

#[tokio::test(flavor = "multi_thread")]
async fn voice_loop_hears_a_question_and_speaks_the_streamed_answer_sentence_by_sentence() {
    let server = ScriptedServer::start().await.unwrap();
    // 24 words 80 ms apart (about 1.9 s): longer than an answer started at
    // the 300 ms pause is ever held (the rest of the 700 ms pause), so the
    // first sentence must be spoken while text still arrives. At 20 ms the
    // whole answer could come while held and be shown at once.
    server.reply(Reply::paced(ANSWER, 80));
    let env = Env::new();
    let (evs, spk) = voice_on_files(
        &env,
        env.scripted(&server),
        &["What is on my calendar for tomorrow?"],
        0.8,
    )
    .await;
    let kinds: Vec<&str> = evs.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(kinds.contains(&"speechStarted"), "{kinds:?}");
    let transcript = evs.iter().find(|e| e["kind"] == "transcript").unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        wer("What is on my calendar for tomorrow?", &transcript) <= 0.25,
        "{transcript}"
    );
    // The model got the transcript as the user's message.
    let req = server.requests()[0].json();
    let last = req["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    // The transcript, then the turn's context (time, workspace): the
    // agent answers with its tools, as in a typed chat.
    let content = last["content"].as_str().unwrap_or_default();
    assert!(content.starts_with(transcript.trim()), "{content}");
    assert!(
        req["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "{req}"
    );
    // Three sentences spoken in order, the first while text still arrived.
    let spoken: Vec<&str> = evs
        .iter()
        .filter(|e| e["kind"] == "speaking")
        .map(|e| e["sentence"].as_str().unwrap())
        .collect();
    assert_eq!(
        spoken,
        [
            "You have two meetings tomorrow.",
            "The first one is with Alice in the morning.",
            "The second one is with the design team after lunch."
        ]
    );
    let first_speaking = kinds.iter().position(|k| *k == "speaking").unwrap();
    let last_text = kinds.iter().rposition(|k| *k == "answerText").unwrap();
    assert!(
        first_speaking < last_text,
        "the first sentence waited for the whole answer"
    );
    let summary = evs.iter().find(|e| e["kind"] == "summary").unwrap();
    let turn = &summary["turns"][0];
    assert_eq!(turn["interrupted"], false);
    let timing = &turn["timing"];
    assert!(timing["firstAudioMs"].as_f64().unwrap() > 0.0, "{timing}");
    // Saved like a chat, with the spoken message's timing.
    let id = summary["session"].as_str().unwrap();
    let file = env.path().join(format!("data/sessions/{id}.json"));
    let saved: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(saved["voice"].as_array().map(Vec::len), Some(1), "{saved}");
    assert!(saved["voice"][0]["firstAudioMs"].as_f64().unwrap() > 0.0);
    // The speaker's recording is a WAV that says the three sentences, in
    // order (tiny.en mishears some of eSpeak's words, so key phrases).
    assert_says_in_order(&transcribe(&env, &spk).await, &ANSWER_PHRASES);
}

#[tokio::test(flavor = "multi_thread")]
async fn talking_over_the_answer_stops_it_and_the_new_question_is_answered() {
    let server = ScriptedServer::start().await.unwrap();
    let long: String = std::iter::once("Sure. ".to_string())
        .chain((1..=12).map(|i| format!("This is sentence number {i} of a long answer. ")))
        .collect();
    // Slow enough that the model is still writing when the user interrupts
    // (about 11 s), while the first sentence is spoken at once.
    server.reply(Reply::paced(long.clone(), 100));
    server.reply(Reply::paced("It is ten past four.", 20));
    // The speech stand-in: one tone per word, so words can be counted.
    let env = Env::new();
    let providers = env.path().join("speech-providers.json");
    std::fs::write(
        &providers,
        json!({"default": "scripted", "providers": [
            {"name": "scripted", "dialect": "openai", "endpoint": format!("{}/v1", server.url()), "model": "m"},
            {"name": "speech", "dialect": "openai", "endpoint": format!("{}/v1", server.url()),
             "model": "tts-1", "voice": "alloy"}
        ]})
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    std::fs::write(
        env.path().join("config/setup.json"),
        json!({"voice": {"ttsEngine": "speech", "partialEveryMs": 0}}).to_string(),
    )
    .unwrap();
    let mut c = env.cmd();
    c.arg("--providers").arg(&providers);
    let (evs, spk) = voice_on_files(
        &env,
        c,
        &["Tell me about the project.", "Stop. What time is it?"],
        4.0,
    )
    .await;
    let barge = evs
        .iter()
        .find(|e| e["kind"] == "bargeIn")
        .expect("a barge-in");
    let silenced = barge["silencedMs"].as_f64().unwrap();
    assert!(
        silenced < 100.0,
        "playback went on {silenced} ms after the barge-in"
    );
    let turns = evs.iter().find(|e| e["kind"] == "summary").unwrap()["turns"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(turns[0]["interrupted"], true);
    // Cancelled: the model stopped writing, so the answer is cut short…
    let first = turns[0]["answer"].as_str().unwrap();
    assert!(
        first.len() < long.trim().len(),
        "the model was not cancelled: {first}"
    );
    // …and only the sentences before the interruption were spoken.
    let spoken0 = turns[0]["spoken"].as_array().unwrap().len();
    assert!((1..13).contains(&spoken0), "{spoken0} sentences");
    assert!(
        wer("What time is it?", turns[1]["transcript"].as_str().unwrap()) <= 0.34,
        "{:?}",
        turns[1]
    );
    assert_eq!(turns[1]["interrupted"], false);
    assert_eq!(turns[1]["answer"], "It is ten past four.");
    // The speech endpoint was asked for each spoken sentence.
    let speech_calls = server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/audio/speech"))
        .count();
    assert!(speech_calls > spoken0, "{speech_calls} speech requests");
    // The recording holds the second answer's five words as five tones
    // after the cut-off first answer.
    let mut wav = hound::WavReader::open(&spk).unwrap();
    let samples: Vec<i16> = wav.samples::<i16>().map(Result::unwrap).collect();
    let bursts = count_bursts(&samples, wav.spec().sample_rate);
    assert!(bursts >= 5, "{bursts} tones heard");
    let full_answer_words = long.split_whitespace().count();
    assert!(
        bursts < full_answer_words + 5,
        "the whole first answer was played"
    );
}

/// Runs of sound separated by at least 30 ms of silence.
fn count_bursts(samples: &[i16], rate: u32) -> usize {
    let gap = rate as usize * 30 / 1000;
    let (mut bursts, mut quiet, mut in_sound) = (0, gap, false);
    for s in samples {
        if s.unsigned_abs() > 1000 {
            if !in_sound && quiet >= gap {
                bursts += 1;
            }
            in_sound = true;
            quiet = 0;
        } else {
            quiet += 1;
            if quiet >= gap {
                in_sound = false;
            }
        }
    }
    bursts
}
