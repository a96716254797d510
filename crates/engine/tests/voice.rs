//! The agent as the voice loop's responder, against the scripted server:
//! tools run with a spoken cue, an external action is confirmed (or
//! refused) by what the user says next, and spoken exchanges are saved
//! with the conversation, which a typed chat can continue and vice versa.

use baton_engine::{AgentResponder, ConversationOptions, UserMessage};
use baton_scripted_llm::{Reply, ScriptedServer};
use baton_voice::{Responder, TurnRecord, TurnTiming};
use serde_json::json;
use tokio_util::sync::CancellationToken;

mod common;
use common::{Setup, bodies, collect};

/// Everything one spoken answer says (the channel closes at its end).
async fn answer(responder: &AgentResponder, said: &str) -> String {
    let mut rx = responder.respond(said.to_string(), CancellationToken::new());
    let mut out = String::new();
    while let Some(piece) = rx.recv().await {
        out.push_str(&piece);
    }
    out
}

fn notes_posted(server: &ScriptedServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.path == "/_sink/notes")
        .count()
}

/// The scripted model posts a note (an external action), then says so.
fn script_post_note(server: &ScriptedServer) {
    let url = format!("{}/_sink/notes", server.url());
    server.reply(Reply::tool_call(
        "post_note",
        json!({"url": url, "text": "Lunch moved to 1 pm"}),
    ));
    server.reply(Reply::text("I told the team."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_action_is_asked_aloud_and_a_spoken_yes_runs_it() {
    let server = ScriptedServer::start().await.unwrap();
    script_post_note(&server);
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let responder = AgentResponder::new(engine.voice().conversation(None, None, None).unwrap());
    let first = answer(&responder, "Tell the team lunch moved.").await;
    // A cue while the tool starts, then the question; nothing sent yet.
    assert!(first.contains("One moment."), "{first:?}");
    assert!(
        first.contains("Shall I post note, text: Lunch moved to 1 pm"),
        "{first:?}"
    );
    assert!(responder.is_waiting());
    // A half-said answer to the question must not be acted on at a pause.
    assert!(!responder.may_speculate());
    assert_eq!(notes_posted(&server), 0);
    // Neither yes nor no: asked again, still nothing sent.
    let unclear = answer(&responder, "Hmm, what was that?").await;
    assert!(unclear.contains("Please say yes or no"), "{unclear:?}");
    assert_eq!(notes_posted(&server), 0);
    let done = answer(&responder, "Yes, send it.").await;
    assert_eq!(done.trim(), "I told the team.");
    assert!(!responder.is_waiting());
    assert_eq!(notes_posted(&server), 1);
    // The model was told the tool ran (its result is in the next request).
    let last = bodies(&server).last().unwrap().to_string();
    assert!(last.contains("status"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spoken_no_refuses_the_action() {
    let server = ScriptedServer::start().await.unwrap();
    script_post_note(&server);
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let responder = AgentResponder::new(engine.voice().conversation(None, None, None).unwrap());
    answer(&responder, "Tell the team lunch moved.").await;
    assert!(responder.is_waiting());
    answer(&responder, "No, don't.").await;
    assert_eq!(notes_posted(&server), 0);
    assert!(!responder.is_waiting());
    let last = bodies(&server).last().unwrap().to_string();
    assert!(
        last.contains("declined") || last.contains("refused"),
        "{last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spoken_turns_are_saved_as_a_chat_that_typing_continues() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("It is sunny."));
    server.reply(Reply::text("Take a hat."));
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let conversation = engine.voice().conversation(None, None, None).unwrap();
    let id = conversation.session_id().await;
    let responder = AgentResponder::new(conversation);
    assert_eq!(
        answer(&responder, "How is the weather?").await,
        "It is sunny."
    );
    responder.finished(&TurnRecord {
        transcript: "How is the weather?".into(),
        answer: "It is sunny.".into(),
        spoken: vec!["It is sunny.".into()],
        interrupted: false,
        timing: Some(TurnTiming {
            stt_ms: 120.0,
            first_audio_ms: 640.0,
            ..TurnTiming::default()
        }),
    });
    drop(responder);
    // The timing is kept with the saved session, on the spoken message.
    let mut saved = None;
    for _ in 0..100 {
        let s = engine.conversations().store().load(&id).unwrap();
        if !s.voice.is_empty() {
            saved = Some(s);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let saved = saved.expect("the voice turn was saved");
    assert_eq!(saved.title, "How is the weather?");
    assert_eq!(saved.voice.len(), 1);
    let spoken = &saved.history[saved.voice[0].message];
    assert_eq!(spoken.text(), "How is the weather?", "{:?}", saved.history);
    assert_eq!(saved.voice[0].first_audio_ms, Some(640.0));
    let listed = engine.conversations().store().summaries();
    let info = listed.iter().find(|s| s.id == id).unwrap();
    assert_eq!(info.voice_turns, 1);
    // Typing continues it: the model sees the spoken exchange.
    let typed = engine
        .conversations()
        .open(Some(&id), ConversationOptions::default())
        .unwrap();
    let (_, _) = collect(typed.send(UserMessage::text("Should I take anything?"))).await;
    let request = bodies(&server).last().unwrap().to_string();
    assert!(
        request.contains("How is the weather?") && request.contains("It is sunny."),
        "{request}"
    );
    let reopened = engine.conversations().store().load(&id).unwrap();
    assert_eq!(reopened.voice.len(), 1, "typing keeps the voice record");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_continued_by_voice_keeps_its_history_and_gets_the_voice_instructions() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Noted."));
    server.reply(Reply::text("You asked me to remember milk."));
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let typed = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    collect(typed.send(UserMessage::text("Remember: buy milk."))).await;
    let id = typed.session_id().await;
    let voice = engine.voice().conversation(Some(&id), None, None).unwrap();
    let responder = AgentResponder::new(voice);
    let said = answer(&responder, "What did I ask you to remember?").await;
    assert_eq!(said, "You asked me to remember milk.");
    let request = bodies(&server).last().unwrap().to_string();
    assert!(request.contains("Remember: buy milk."), "{request}");
    assert!(request.contains("read aloud"), "{request}");
    // Tools are offered to a voice conversation.
    assert!(request.contains("\"tools\""), "{request}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_speech_model_follows_the_language() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let models = setup.root().join("data/models");
    std::fs::create_dir_all(&models).unwrap();
    // ggml's magic number is all a models list looks at.
    let ggml =
        |name: &str| std::fs::write(models.join(name), 0x6767_6d6cu32.to_le_bytes()).unwrap();
    ggml("ggml-tiny.en-q8_0.bin");
    let engine = setup.engine();
    let name = |p: std::path::PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        name(engine.voice().stt_model_for("en").unwrap()),
        "ggml-tiny.en-q8_0.bin"
    );
    let err = engine.voice().stt_model_for("de").unwrap_err().to_string();
    assert!(
        err.contains("`de`")
            && err.contains("understand only English")
            && err.contains("make setup"),
        "{err}"
    );
    ggml("ggml-base-q8_0.bin");
    assert_eq!(
        name(engine.voice().stt_model_for("de").unwrap()),
        "ggml-base-q8_0.bin"
    );
    assert_eq!(
        name(engine.voice().stt_model_for("auto").unwrap()),
        "ggml-base-q8_0.bin"
    );
    // English keeps the small, fast English model.
    assert_eq!(
        name(engine.voice().stt_model_for("en").unwrap()),
        "ggml-tiny.en-q8_0.bin"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_to_half_a_sentence_is_forgotten_when_retracted() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Noted."));
    server.reply(Reply::text("A table for four, booked."));
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let conversation = engine.voice().conversation(None, None, None).unwrap();
    let responder = AgentResponder::new(conversation.clone());
    answer(&responder, "Book a table").await;
    responder.retract("Book a table");
    answer(&responder, "Book a table for four people").await;
    let history = conversation.session().await.history;
    let said: Vec<String> = history
        .iter()
        .filter(|m| matches!(m, baton_llm::Message::User { .. }))
        .map(|m| m.text())
        .collect();
    assert_eq!(said, ["Book a table for four people"]);
    // The model never saw the half sentence with the whole one.
    let last = bodies(&server).last().unwrap().to_string();
    assert!(!last.contains("Noted."), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dictation_gives_what_was_said_and_silence_gives_nothing() {
    use baton_voice::TextToSpeech;
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let model = baton_test_support::models_dir().join("ggml-tiny.en-q8_0.bin");
    assert!(
        model.is_file(),
        "{} is missing: run `make setup`",
        model.display()
    );
    setup.home.write_settings(json!({
        "skipIndexingOnStartup": true,
        "voice": {"sttModel": model, "language": "en"}
    }));
    let said = baton_voice::EspeakTts::default()
        .synthesize("Please buy milk and eggs on the way home.")
        .unwrap();
    let wav = setup.root().join("said.wav");
    said.write_wav(&wav).unwrap();
    let engine = setup.engine();
    // The recording ends by itself; the key comes up after it.
    let dictation = engine
        .voice()
        .dictate(baton_engine::VoiceInput::Recording(wav.clone()))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
    let text = dictation.finish().await.unwrap();
    let wer =
        baton_voice::stt::word_error_rate("please buy milk and eggs on the way home", &text).0;
    assert!(wer <= 0.25, "{text:?} (WER {wer})");
    // Held in silence: nothing is made up from it.
    let silence = setup.root().join("silence.wav");
    baton_voice::Speech {
        samples: vec![0; 22_050 * 2],
        sample_rate: 22_050,
    }
    .write_wav(&silence)
    .unwrap();
    let quiet = engine
        .voice()
        .dictate(baton_engine::VoiceInput::Recording(silence))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert_eq!(quiet.finish().await.unwrap(), "");
    // Nothing was asked of a model.
    assert!(bodies(&server).is_empty());
}
