//! The conversation API against the scripted server: backpressure, Stop
//! during a blocking tool, typed attachments across a restart, and the
//! confirmation of external actions.

use std::time::{Duration, Instant};

use baton_agent::{AgentEvent, StopReason, TurnOutcome};
use baton_docs::FileAttachment;
use baton_engine::{ConfirmMode, ConversationOptions, UserMessage};
use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::json;

mod common;
use common::{Setup, bodies, collect};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_gets_every_one_of_100000_deltas_in_order() {
    let server = ScriptedServer::start().await.unwrap();
    // One character per delta, cycling through the alphabet so that any
    // loss or reordering shows.
    let text: String = (0..100_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    server.reply(Reply {
        text_pieces: 100_000,
        ..Reply::text(text.clone())
    });
    let setup = Setup::new(&server);
    let options = ConversationOptions {
        tools: false,
        ..ConversationOptions::default()
    };
    let conversation = setup.engine().conversations().open(None, options).unwrap();
    let mut turn = conversation.send(UserMessage::text("count"));
    let (mut deltas, mut got, mut finished) = (0usize, String::new(), false);
    while let Some(e) = turn.next().await {
        match e.event {
            AgentEvent::TextDelta { text } => {
                deltas += 1;
                got.push_str(&text);
                // A reader slower than the model: the agent waits for it.
                if deltas % 500 == 0 {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            }
            AgentEvent::Finished(o) => {
                assert_eq!(o.stop, StopReason::Answered);
                finished = true;
            }
            _ => {}
        }
    }
    assert!(finished);
    assert_eq!(deltas, 100_000);
    assert!(got == text, "the text arrived changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_chat_knows_the_date_but_is_not_told_the_workspace() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("It is Thursday."));
    server.reply(Reply::text("Reading."));
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let last_user = |n: usize| {
        bodies(&server)[n]["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let plain = ConversationOptions {
        tools: false,
        ..ConversationOptions::default()
    };
    let conversation = engine.conversations().open(None, plain).unwrap();
    collect(conversation.send(UserMessage::text("What day is it?"))).await;
    let asked = last_user(0);
    assert!(asked.starts_with("What day is it?\n\nNow: "), "{asked}");
    assert!(!asked.contains("Workspace"), "{asked}");
    // With tools, the workspace's top comes too.
    let conversation = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    collect(conversation.send(UserMessage::text("Read my notes"))).await;
    let asked = last_user(1);
    assert!(
        asked.contains("\n\nNow: ") && asked.contains("Workspace `/`"),
        "{asked}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_during_a_30_second_blocking_tool_ends_the_turn_within_a_second() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::tool_call("block_for", json!({"seconds": 30})));
    let setup = Setup::new(&server);
    let conversation = setup
        .engine()
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    let mut turn = conversation.send(UserMessage::text("take your time"));
    loop {
        let e = turn.next().await.expect("the tool starts");
        if matches!(e.event, AgentEvent::ToolStarted { .. }) {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopped = Instant::now();
    turn.stopper().cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(5), turn.finish())
        .await
        .expect("the turn ends")
        .unwrap();
    let took = stopped.elapsed();
    assert!(took < Duration::from_secs(1), "stopping took {took:?}");
    assert_eq!(outcome.stop, StopReason::Cancelled);
    assert_eq!(outcome.stop.code(), "cancelled");
    let call = &outcome.result.tool_calls[0];
    assert!(call.outcome.is_err(), "{call:?}");
    assert!(call.outcome.to_model_text().contains("cancelled"));
    // The conversation goes on: the stopped turn was saved, the next works.
    server.reply(Reply::text("Still here."));
    let (next, _) = collect(conversation.send(UserMessage::text("hello?"))).await;
    assert_eq!(next.result.answer, "Still here.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_reloaded_after_a_restart_send_the_same_bytes() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let notes = FileAttachment::new(
        "notes.md",
        b"# Budget\n\nRent 900, food 300, travel 120.\n".to_vec(),
    );
    let csv = FileAttachment::new("q1.csv", b"month,total\njan,10\nfeb,12\n".to_vec());
    server.reply(Reply::text("Rent is the largest item."));
    let id = {
        let engine = setup.engine();
        let conversation = engine
            .conversations()
            .open(None, ConversationOptions::default())
            .unwrap();
        let (outcome, _) = collect(conversation.send(UserMessage {
            text: "What is the largest item?".into(),
            files: vec![notes, csv],
            replace_last: false,
            edit: None,
        }))
        .await;
        assert_eq!(outcome.stop, StopReason::Answered);
        outcome.session_id
    };
    // History keeps typed references, never the Markdown.
    let saved = std::fs::read_to_string(
        setup
            .root()
            .join("data/sessions")
            .join(format!("{id}.json")),
    )
    .unwrap();
    assert!(saved.contains("\"type\": \"file\""), "{saved}");
    assert!(!saved.contains("Rent 900"), "converted text was stored");
    // A restart: new engine, conversions recomputed from the kept bytes.
    let _ = std::fs::remove_dir_all(setup.root().join("data/cache"));
    server.reply(Reply::text("Rent is the largest item."));
    let engine = setup.engine();
    let conversation = engine
        .conversations()
        .open(Some(&id), ConversationOptions::default())
        .unwrap();
    let (outcome, _) = collect(conversation.regenerate()).await;
    assert_eq!(outcome.stop, StopReason::Answered);
    let b = bodies(&server);
    assert_eq!(b.len(), 2);
    assert_eq!(
        serde_json::to_string(&b[0]).unwrap(),
        serde_json::to_string(&b[1]).unwrap(),
        "the reloaded request differs from the live one"
    );
    let user = b[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.starts_with("<attachment name=\"notes.md\""), "{user}");
    assert!(user.contains("Rent 900") && user.contains("jan"), "{user}");
    // The question, then the per-call context (the time, the workspace).
    assert!(
        user.contains("\n\nWhat is the largest item?\n\nNow: "),
        "{user}"
    );
    // Edit and resend keeps the files of the edited message.
    server.reply(Reply::text("Food is second."));
    let (outcome, _) = collect(conversation.send(UserMessage {
        text: "And the second largest?".into(),
        files: Vec::new(),
        replace_last: true,
        edit: None,
    }))
    .await;
    assert_eq!(outcome.result.answer, "Food is second.");
    let b = bodies(&server);
    let msgs = b[2]["messages"].as_array().unwrap();
    let last = msgs.last().unwrap()["content"].as_str().unwrap();
    assert!(
        last.contains("Rent 900") && last.contains("\n\nAnd the second largest?\n\nNow: "),
        "{last}"
    );
    assert_eq!(
        msgs.iter().filter(|m| m["role"] == "user").count(),
        1,
        "the edited message was replaced"
    );
}

/// Runs one turn that calls `post_note` under `confirm`, answering a
/// confirmation request with `answer`; the outcome, the events and how
/// many notes reached the sink.
async fn post_note_turn(
    confirm: ConfirmMode,
    answer: bool,
) -> (TurnOutcome, Vec<AgentEvent>, usize) {
    let server = ScriptedServer::start().await.unwrap();
    let url = format!("{}/_sink/notes", server.url());
    // Keys as a model may spell them: the user is shown them as they run.
    server.reply(Reply::tool_call(
        "post_note",
        json!({"URL": url, "Text": "Lunch moved to 1 pm"}),
    ));
    server.reply(Reply::text("Done."));
    let setup = Setup::new(&server);
    let options = ConversationOptions {
        confirm,
        ..ConversationOptions::default()
    };
    let conversation = setup.engine().conversations().open(None, options).unwrap();
    let mut turn = conversation.send(UserMessage::text("Tell the team lunch moved."));
    let mut events = Vec::new();
    let mut outcome = None;
    while let Some(e) = turn.next().await {
        match &e.event {
            AgentEvent::ConfirmationRequested {
                id,
                tool,
                arguments,
                ..
            } => {
                assert_eq!(tool, "Diagnostics.post_note");
                assert_eq!(arguments["text"], "Lunch moved to 1 pm", "{arguments}");
                assert!(arguments.get("Text").is_none(), "{arguments}");
                assert!(turn.confirmations().answer(id, answer));
            }
            AgentEvent::Finished(o) => outcome = Some((**o).clone()),
            _ => {}
        }
        events.push(e.event);
    }
    let posted = server
        .requests()
        .iter()
        .filter(|r| r.path == "/_sink/notes")
        .count();
    (outcome.unwrap(), events, posted)
}

fn requested(events: &[AgentEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ConfirmationRequested { .. }))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_action_runs_only_once_confirmed() {
    let (outcome, events, posted) = post_note_turn(ConfirmMode::Ask, true).await;
    assert_eq!(requested(&events), 1);
    assert!(events.contains(&AgentEvent::ConfirmationResolved {
        id: "confirm_1".into(),
        approved: true
    }));
    assert_eq!(posted, 1);
    assert!(!outcome.result.tool_calls[0].outcome.is_err());

    let (outcome, events, posted) = post_note_turn(ConfirmMode::Ask, false).await;
    assert_eq!(requested(&events), 1);
    assert_eq!(posted, 0, "a declined action was sent");
    let text = outcome.result.tool_calls[0].outcome.to_model_text();
    assert!(text.contains("the user declined"), "{text}");
    assert_eq!(outcome.result.answer, "Done.");

    let (_, events, posted) = post_note_turn(ConfirmMode::Allow, false).await;
    assert_eq!((requested(&events), posted), (0, 1));

    let (outcome, events, posted) =
        post_note_turn(ConfirmMode::Refuse("nobody can confirm it".into()), false).await;
    assert_eq!((requested(&events), posted), (0, 0));
    let text = outcome.result.tool_calls[0].outcome.to_model_text();
    assert!(text.contains("nobody can confirm it"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_nobody_can_answer_is_a_no_and_the_turn_still_ends() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::tool_call(
        "post_note",
        json!({"url": format!("{}/_sink/notes", server.url()), "text": "hi"}),
    ));
    server.reply(Reply::text("Not sent."));
    let setup = Setup::new(&server);
    let conversation = setup
        .engine()
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    // The front door goes away without reading the turn.
    drop(conversation.send(UserMessage::text("post it")));
    let ended = Instant::now();
    let session = loop {
        let s = conversation.session().await;
        if s.history.last().is_some_and(|m| m.text() == "Not sent.") {
            break s;
        }
        assert!(
            ended.elapsed() < Duration::from_secs(10),
            "the turn did not end"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let tool = session
        .history
        .iter()
        .find_map(|m| match m {
            baton_llm::Message::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .unwrap();
    assert!(tool.contains("declined"), "{tool}");
    assert!(
        !server.requests().iter().any(|r| r.path == "/_sink/notes"),
        "sent without a yes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_that_cannot_be_opened_ends_the_turn_with_its_error() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let options = ConversationOptions {
        provider: Some("no-such-entry".into()),
        ..ConversationOptions::default()
    };
    let conversation = setup.engine().conversations().open(None, options).unwrap();
    assert!(conversation.ready().await.is_err());
    let (outcome, events) = collect(conversation.send(UserMessage::text("hi"))).await;
    assert_eq!(outcome.stop.code(), "error");
    assert!(
        outcome.stop.message().contains("no-such-entry"),
        "{}",
        outcome.stop.message()
    );
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Error { .. })));
}

/// The user messages' texts of the last request the model got.
fn asked(server: &ScriptedServer) -> Vec<String> {
    let b = bodies(server);
    b.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| {
            let text = m["content"].as_str().unwrap_or_default();
            text.split("\n\nNow: ").next().unwrap().to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_earlier_message_edited_is_a_branch_and_the_old_one_comes_back_whole() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let conversation = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    for (q, a) in [
        ("Plan a trip", "Where to?"),
        ("To Rome", "Rome it is."),
        ("By train", "Trains booked."),
    ] {
        server.reply(Reply::text(a));
        collect(conversation.send(UserMessage::text(q))).await;
    }
    // Edit the second message: the model sees the history up to it and
    // the new words, nothing of the old branch.
    server.reply(Reply::text("Lisbon it is."));
    let (outcome, _) = collect(conversation.send(UserMessage {
        edit: Some(1),
        ..UserMessage::text("To Lisbon")
    }))
    .await;
    assert_eq!(outcome.result.answer, "Lisbon it is.");
    assert_eq!(asked(&server), ["Plan a trip", "To Lisbon"]);
    let id = conversation.session_id().await;

    // Reopened from its file: both branches are there; switching back
    // brings the old one whole (its third message too).
    let reopened = engine
        .conversations()
        .open(Some(&id), ConversationOptions::default())
        .unwrap();
    let s = reopened.session().await;
    assert_eq!(baton_agent::branch_of(&s.forks, 1), Some((1, 2)));
    reopened.switch_branch(1, 0).await.unwrap();
    let texts: Vec<String> = reopened
        .session()
        .await
        .history
        .iter()
        .filter(|m| !matches!(m, baton_llm::Message::System { .. }))
        .map(|m| m.text())
        .collect();
    assert_eq!(
        texts,
        [
            "Plan a trip",
            "Where to?",
            "To Rome",
            "Rome it is.",
            "By train",
            "Trains booked."
        ]
    );
    server.reply(Reply::text("Sleeper at 21:00."));
    collect(reopened.send(UserMessage::text("Which train?"))).await;
    assert_eq!(
        asked(&server),
        ["Plan a trip", "To Rome", "By train", "Which train?"]
    );
    // And forward again, to the edited branch.
    reopened.switch_branch(1, 1).await.unwrap();
    let last = reopened.session().await.history.last().unwrap().text();
    assert_eq!(last, "Lisbon it is.");
    let err = reopened.switch_branch(1, 5).await.unwrap_err();
    assert_eq!(err.to_string(), "the message has no branch number 5");

    // The same from any front door's text: /branch lists and switches,
    // /edit N TEXT branches (counting from 1).
    let listed = reopened.command("/branch").await.unwrap().unwrap();
    assert!(
        listed.contains("user message 2 (\"To Lisbon\"): branch 2 of 2 shown"),
        "{listed}"
    );
    server.reply(Reply::text("A cheap plan."));
    collect(reopened.send(UserMessage::text("/edit 1 Plan a cheap trip"))).await;
    assert_eq!(asked(&server), ["Plan a cheap trip"]);
    let switched = reopened.command("/branch 1 1").await.unwrap().unwrap();
    assert_eq!(switched, "user message 1: branch 1 shown");
    let last = reopened.session().await.history.last().unwrap().text();
    assert_eq!(
        last, "Lisbon it is.",
        "the branches below came back with it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_set_for_one_agent_stays_with_it_when_the_chat_switches_agent() {
    let server = ScriptedServer::start().await.unwrap();
    for _ in 0..3 {
        server.reply(Reply::text("ok"));
    }
    let setup = Setup::new(&server);
    let engine = setup.engine();
    let open = |agent: &str, id: Option<&baton_agent::SessionId>| {
        let options = ConversationOptions {
            agent: Some(agent.into()),
            tools: false,
            persist: true,
            ..ConversationOptions::default()
        };
        engine.conversations().open(id, options).unwrap()
    };
    let chat = open("assistant", None);
    chat.command("/model big-model").await.unwrap();
    collect(chat.send(UserMessage::text("one"))).await;
    let id = chat.session_id().await;
    // The same chat with another agent: its own model.
    let chat = open("researcher", Some(&id));
    collect(chat.send(UserMessage::text("two"))).await;
    // Back to the first agent: the model set for it.
    let chat = open("assistant", Some(&id));
    collect(chat.send(UserMessage::text("three"))).await;
    let models: Vec<String> = bodies(&server)
        .iter()
        .map(|b| b["model"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(models.len(), 3, "{models:?}");
    assert_eq!(models[0], "big-model");
    assert_ne!(models[1], "big-model", "{models:?}");
    assert_eq!(models[2], "big-model");
}
