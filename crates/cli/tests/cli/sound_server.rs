//! `baton voice` through a private PulseAudio server: loudspeakers heard
//! back by the microphone (with and without echo cancellation), and the
//! real devices through cpal.

use std::process::Stdio;
use std::time::{Duration, Instant};

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::support::audio::*;
use crate::support::*;

type EventLines = tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>;

/// The next JSON event line, within 30 s.
async fn next(lines: &mut EventLines) -> Option<Value> {
    tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("an event in time")
        .unwrap()
        .map(|l| serde_json::from_str::<Value>(&l).unwrap())
}

/// The speaker heard back by the microphone, as loudspeakers in a room
/// would be: the private server's speaker monitor, through sox's reverb at
/// `level`, into the microphone feed (the user's words are mixed in by
/// `paplay --device=micfeed`). The three programs stop when dropped.
struct RoomEcho(Vec<std::process::Child>);

impl RoomEcho {
    fn start(pulse: &Pulse, level: f32) -> Self {
        let raw = [
            "--rate=16000",
            "--channels=1",
            "--format=float32le",
            "--latency-msec=20",
        ];
        let mut parec = pulse
            .cmd("parec")
            .arg("--device=spk.monitor")
            .args(raw)
            .stdout(Stdio::piped())
            .spawn()
            .expect("parec (make setup installs pulseaudio-utils)");
        let f32_raw = [
            "-t",
            "raw",
            "-r",
            "16000",
            "-e",
            "floating-point",
            "-b",
            "32",
            "-c",
            "1",
        ];
        let mut sox = std::process::Command::new("sox")
            .args(["-q", "--buffer", "640"])
            .args(f32_raw)
            .arg("-")
            .args(["-t", "raw", "-", "reverb", "40", "50", "60", "vol"])
            .arg(level.to_string())
            .stdin(parec.stdout.take().unwrap())
            .stdout(Stdio::piped())
            .spawn()
            .expect("sox (make setup installs it)");
        let pacat = pulse
            .cmd("pacat")
            .arg("--device=micfeed")
            .args(raw)
            .stdin(sox.stdout.take().unwrap())
            .spawn()
            .expect("pacat (make setup installs pulseaudio-utils)");
        Self(vec![parec, sox, pacat])
    }
}

impl Drop for RoomEcho {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `baton voice --json` on the private server's devices with `settings`,
/// answering from `server`: the process and its event lines (after the
/// ready line).
async fn voice_on_pulse(
    env: &Env,
    pulse: &Pulse,
    server: &ScriptedServer,
    settings: Value,
) -> (tokio::process::Child, EventLines) {
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    std::fs::write(env.path().join("config/setup.json"), settings.to_string()).unwrap();
    let mut c = env.scripted(server);
    c.env("PULSE_SERVER", pulse.server())
        .env("BATON_MODELS_DIR", models_dir())
        .args(["voice", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut baton = c.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(baton.stdout.take().unwrap()).lines();
    let ready = next(&mut lines).await.expect("a ready line");
    assert_eq!(ready["kind"], "ready", "{ready}");
    (baton, lines)
}

/// Says `text` into the private server's microphone (returns at once).
fn say_into_mic(env: &Env, pulse: &Pulse, name: &str, text: &str) -> std::process::Child {
    let wav = env.path().join(name);
    spoken_wav(&wav, &[text], 0.0);
    pulse
        .cmd("paplay")
        .arg("--device=micfeed")
        .arg(&wav)
        .spawn()
        .unwrap()
}

/// Reads events until `kind` (or the stream ends): the events before it.
async fn events_until(lines: &mut EventLines, kind: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    while let Some(ev) = next(lines).await {
        let done = ev["kind"] == kind;
        seen.push(ev);
        if done {
            break;
        }
    }
    seen
}

const LONG_ANSWER: &str = "The first meeting is with Alice in the morning. After that you have \
    an hour free. The second meeting is with the design team after lunch. Then the weekly \
    review starts at four.";

#[tokio::test(flavor = "multi_thread")]
async fn on_loudspeakers_the_answer_does_not_interrupt_itself_but_the_user_does() {
    let pulse = Pulse::start();
    let _room = RoomEcho::start(&pulse, 0.7);
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::paced(LONG_ANSWER, 20));
    server.reply(Reply::paced(LONG_ANSWER, 20));
    server.reply(Reply::paced("It is ten past four.", 20));
    let env = Env::new();
    let (_baton, mut lines) = voice_on_pulse(&env, &pulse, &server, json!({})).await;
    // The whole answer plays into the room and back into the microphone.
    let _ = say_into_mic(
        &env,
        &pulse,
        "q1.wav",
        "What is on my calendar for tomorrow?",
    )
    .wait();
    let first = events_until(&mut lines, "answerDone").await;
    let kinds: Vec<&str> = first.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(
        first.last().unwrap()["interrupted"],
        false,
        "its own echo interrupted it: {kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "speechStarted").count(),
        1,
        "{kinds:?}"
    );
    let spoken = kinds.iter().filter(|k| **k == "speaking").count();
    assert_eq!(spoken, 4, "{kinds:?}");
    // The user talks over the next answer: that interrupts it, at once.
    let _ = say_into_mic(&env, &pulse, "q2.wav", "And the day after?").wait();
    events_until(&mut lines, "speaking").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let talking = Instant::now();
    let mut user = say_into_mic(&env, &pulse, "q3.wav", "Stop. What time is it?");
    let mut cut = Vec::new();
    while let Some(ev) = next(&mut lines).await {
        let done = ev["kind"] == "bargeIn";
        if ev["kind"] != "answerText" {
            cut.push(format!("{} ms {ev}", talking.elapsed().as_millis()));
        }
        if done {
            break;
        }
    }
    let latency = talking.elapsed();
    let barge: Value =
        serde_json::from_str(cut.last().unwrap().split_once(" ms ").unwrap().1).unwrap();
    let _ = user.wait();
    // By the microphone's clock, from the user's first voiced moment to
    // silence; the wall clock adds paplay's start and the room's delay.
    let speech_ms = barge["speechMs"].as_f64().unwrap();
    eprintln!(
        "barge-in over the echo: silent {speech_ms:.0} ms into the user's words ({latency:?} after paplay started)"
    );
    assert!(
        speech_ms < 300.0,
        "silent {speech_ms} ms into the user's words: {cut:#?}"
    );
    // The wall clock is only a ceiling against a hang: it starts before
    // paplay does, and on a loaded machine paplay alone has taken over a
    // second to start (CI, 1.3 s with the barge-in 172 ms into the words).
    assert!(latency < Duration::from_secs(5), "{latency:?}: {cut:#?}");
    let rest = events_until(&mut lines, "transcript").await;
    let heard = rest.last().unwrap()["text"].as_str().unwrap_or_default();
    assert!(wer("Stop. What time is it?", heard) <= 0.34, "{heard}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_echo_cancellation_the_answer_on_loudspeakers_interrupts_itself() {
    // The same room, the canceller off: this is the echo it removes.
    let pulse = Pulse::start();
    let _room = RoomEcho::start(&pulse, 0.7);
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::paced(LONG_ANSWER, 20));
    let env = Env::new();
    let settings = json!({"voice": {"echoCancellation": false}});
    let (_baton, mut lines) = voice_on_pulse(&env, &pulse, &server, settings).await;
    let _ = say_into_mic(
        &env,
        &pulse,
        "q1.wav",
        "What is on my calendar for tomorrow?",
    )
    .wait();
    // Its own voice, heard back, cuts the answer short: the answer ends
    // interrupted, then the barge-in is reported (once the speaker is
    // silent).
    let first = events_until(&mut lines, "answerDone").await;
    assert_eq!(first.last().unwrap()["interrupted"], true, "{first:?}");
}

/// A private PulseAudio server: a null sink `spk` as the speaker and a
/// null sink `micfeed` remapped as the source `vmic`, the microphone.
struct Pulse {
    dir: tempfile::TempDir,
    child: std::process::Child,
}

impl Pulse {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("xdg")).unwrap();
        std::fs::create_dir_all(d.join("home")).unwrap();
        let conf = d.join("pulse.pa");
        std::fs::write(
            &conf,
            format!(
                ".fail\n\
                 load-module module-native-protocol-unix socket={}/native auth-anonymous=1\n\
                 load-module module-null-sink sink_name=spk norewinds=1 rate=48000 channels=2\n\
                 load-module module-null-sink sink_name=micfeed norewinds=1 rate=16000 channels=1\n\
                 load-module module-remap-source master=micfeed.monitor source_name=vmic\n\
                 set-default-sink spk\nset-default-source vmic\n",
                d.display()
            ),
        )
        .unwrap();
        let child = std::process::Command::new("pulseaudio")
            .args([
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--disallow-exit",
                "-n",
                "-F",
            ])
            .arg(&conf)
            .env("XDG_RUNTIME_DIR", d.join("xdg"))
            .env("HOME", d.join("home"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("pulseaudio (Debian `pulseaudio`; `make setup` installs it)");
        let pulse = Self { dir, child };
        // The socket appears before the server has loaded its devices:
        // ready once it answers (ALSA's `default` is PulseAudio only when
        // the server answers when a program opens ALSA).
        let t0 = Instant::now();
        while !pulse.answers() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "PulseAudio did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        pulse
    }

    /// Whether the server is up with its default source and sink.
    fn answers(&self) -> bool {
        self.cmd("pactl")
            .arg("info")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| {
                o.status.success() && String::from_utf8_lossy(&o.stdout).contains("vmic")
            })
    }

    fn server(&self) -> String {
        format!("unix:{}/native", self.dir.path().display())
    }

    fn cmd(&self, program: &str) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        c.env("PULSE_SERVER", self.server());
        c
    }
}

impl Drop for Pulse {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn voice_works_through_a_real_sound_server_with_cpal() {
    let pulse = Pulse::start();
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::paced(ANSWER, 20));
    let env = Env::new();
    // The devices cpal sees through ALSA's PulseAudio plugin.
    let mut c = env.cmd();
    c.env("PULSE_SERVER", pulse.server());
    c.args(["voice", "--list-devices"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("microphones:") && o.stdout.contains("(default)"),
        "{}",
        o.stdout
    );

    // Record the speaker.
    let heard_raw = env.path().join("heard.raw");
    let mut parec = pulse
        .cmd("parec")
        .args([
            "--device=spk.monitor",
            "--rate=16000",
            "--channels=1",
            "--format=s16le",
        ])
        .stdout(std::fs::File::create(&heard_raw).unwrap())
        .spawn()
        .unwrap();
    // Talk to Baton on the real microphone.
    let mut c = env.scripted(&server);
    c.env("PULSE_SERVER", pulse.server())
        .env("BATON_MODELS_DIR", models_dir())
        .args(["voice", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut baton = c.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(baton.stdout.take().unwrap()).lines();
    let ready = next(&mut lines).await.expect("a ready line");
    assert_eq!(ready["kind"], "ready", "{ready}");
    let question = env.path().join("question.wav");
    spoken_wav(&question, &["What is on my calendar for tomorrow?"], 0.3);
    let status = pulse
        .cmd("paplay")
        .arg("--device=micfeed")
        .arg(&question)
        .status()
        .unwrap();
    assert!(status.success());
    let mut transcript = None;
    let mut spoken = Vec::new();
    while let Some(ev) = next(&mut lines).await {
        match ev["kind"].as_str() {
            Some("transcript") => transcript = ev["text"].as_str().map(str::to_string),
            Some("speaking") => spoken.push(ev["sentence"].as_str().unwrap().to_string()),
            Some("answerDone") => break,
            _ => {}
        }
    }
    let transcript = transcript.expect("a transcript");
    assert!(
        wer("What is on my calendar for tomorrow?", &transcript) <= 0.25,
        "{transcript}"
    );
    assert_eq!(spoken.len(), 3, "{spoken:?}");
    // Ctrl-C ends the conversation cleanly.
    let pid = baton.id().unwrap().to_string();
    std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), baton.wait())
        .await
        .expect("baton voice ended after Ctrl-C")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let _ = parec.kill();
    let _ = parec.wait();
    // What the speaker played, transcribed, is the answer.
    let raw = std::fs::read(&heard_raw).unwrap();
    let samples: Vec<i16> = raw
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    let heard = env.path().join("heard.wav");
    baton_voice::Speech {
        samples,
        sample_rate: 16_000,
    }
    .write_wav(&heard)
    .unwrap();
    assert_says_in_order(&transcribe(&env, &heard).await, &ANSWER_PHRASES);
}
