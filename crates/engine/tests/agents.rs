//! Named agents, delegation, per-call dynamic context and the session
//! commands that bypass or turn off history, against the scripted server.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use baton_agent::{AgentEvent, StopReason};
use baton_engine::{ConversationOptions, UserMessage};
use baton_scripted_llm::{Reply, ScriptedServer};
use chrono::{FixedOffset, TimeZone};
use serde_json::{Value, json};

mod common;
use common::{Setup, bodies, collect};

fn write_agents(setup: &Setup, agents: Value) {
    let file = setup.root().join("config").join("agents.json");
    std::fs::write(file, json!({ "agents": agents }).to_string()).unwrap();
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn options(agent: &str) -> ConversationOptions {
    ConversationOptions {
        agent: Some(agent.into()),
        ..ConversationOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_agent_gets_its_filtered_tools_instructions_and_delegates() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    std::fs::write(
        setup.root().join("config").join("clerk.md"),
        "Sign as the clerk.",
    )
    .unwrap();
    write_agents(
        &setup,
        json!([
            {"name": "clerk", "instructions": "Answer in one line.", "instructionsFile": "clerk.md",
             "toolboxes": [{"name": "FileTool", "includeTools": ["read_text_file", "list_directory"]}],
             "delegation": false},
            {"name": "boss", "description": "Runs the office",
             "toolboxes": [{"name": "FileTool", "excludeTools": ["move_file"]}]}
        ]),
    );
    let engine = setup.engine();
    server.reply(Reply::text("one line"));
    server.reply(Reply::text("done"));
    let clerk = engine.conversations().open(None, options("clerk")).unwrap();
    let (outcome, _) = collect(clerk.send(UserMessage::text("hi"))).await;
    assert_eq!(outcome.stop, StopReason::Answered);
    let boss = engine.conversations().open(None, options("Boss")).unwrap();
    collect(boss.send(UserMessage::text("hi"))).await;
    let b = bodies(&server);
    // Catalog order, exactly the included tools, no delegation.
    assert_eq!(tool_names(&b[0]), ["list_directory", "read_text_file"]);
    let system = b[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Answer in one line.\n\nSign as the clerk."),
        "{system}"
    );
    // The boss delegates: to its toolbox (with its filter) and to the
    // shipped delegable researcher.
    let names = tool_names(&b[1]);
    assert!(!names.contains(&"move_file".to_string()), "{names:?}");
    assert!(names.contains(&"write_text_file".to_string()));
    let launch = b[1]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "launch_subagent")
        .expect("delegation offered");
    assert_eq!(
        launch["function"]["parameters"]["properties"]["agent"]["enum"],
        json!(["FileTool", "researcher", "document-preparer"])
    );
    // The conversation remembers its agent.
    assert_eq!(clerk.session().await.agent.as_deref(), Some("clerk"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegated_agent_runs_with_its_own_catalog_and_instructions() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    std::fs::create_dir_all(setup.root().join("ws")).unwrap();
    std::fs::write(setup.root().join("ws/plan.txt"), "ship on Friday").unwrap();
    let engine = setup.engine();
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "Read /plan.txt", "agent": "researcher"}),
    ));
    server.reply(Reply::tool_call(
        "read_text_file",
        json!({"path": "/plan.txt"}),
    ));
    server.reply(Reply::text("It says: ship on Friday."));
    server.reply(Reply::text("The plan: ship on Friday."));
    let chat = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    let (outcome, events) = collect(chat.send(UserMessage::text("What is the plan?"))).await;
    assert_eq!(outcome.result.answer, "The plan: ship on Friday.");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::SubagentDelegated { .. }))
    );
    // Its end is told, with how it ended and how long it took.
    assert!(
        events.iter().any(|e| matches!(
            e,
            AgentEvent::SubagentFinished { answered: true, elapsed_ms, .. } if *elapsed_ms < 60_000
        )),
        "{events:?}"
    );
    let b = bodies(&server);
    // The researcher's own catalog: no writing tools, its instructions.
    let sub_tools = tool_names(&b[1]);
    assert!(sub_tools.contains(&"read_text_file".to_string()));
    // (FileTool's tools that write: none of them, restore included.)
    for writes in ["write_text_file", "move_file", "restore", "launch_subagent"] {
        assert!(
            !sub_tools.iter().any(|t| t == writes),
            "{writes}: {sub_tools:?}"
        );
    }
    assert!(
        b[1]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Never change a file.")
    );
    // Four model calls, the subagent's two merged into the result.
    assert_eq!(outcome.result.usage.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cached_prefix_stays_byte_identical_while_the_clock_moves() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let seconds = Arc::new(AtomicI64::new(0));
    let clock_seconds = Arc::clone(&seconds);
    let zone = FixedOffset::east_opt(3600).unwrap();
    let start = zone.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap();
    let engine = Arc::new(
        Arc::into_inner(setup.engine())
            .unwrap()
            .with_clock(Arc::new(move || {
                start + chrono::Duration::seconds(clock_seconds.load(Ordering::SeqCst))
            })),
    );
    server.reply(Reply::text("Hello."));
    server.reply(Reply::tool_call("list_directory", json!({"path": "/"})));
    server.reply(Reply::text("Nothing there."));
    let chat = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    collect(chat.send(UserMessage::text("hi"))).await;
    seconds.store(7 * 60, Ordering::SeqCst);
    collect(chat.send(UserMessage::text("what is in my folder?"))).await;
    let b = bodies(&server);
    let msgs = |i: usize| b[i]["messages"].as_array().unwrap().clone();
    let (first, second, third) = (msgs(0), msgs(1), msgs(2));
    // The system prompt is the same bytes every time, and has no time in it.
    assert_eq!(first[0].to_string(), second[0].to_string());
    assert_eq!(first[0].to_string(), third[0].to_string());
    assert!(!first[0].to_string().contains("Now:"));
    // The time rides on the last message only, and moved.
    assert!(
        first
            .last()
            .unwrap()
            .to_string()
            .contains("09:00 (time zone")
    );
    assert!(
        second
            .last()
            .unwrap()
            .to_string()
            .contains("09:07 (time zone")
    );
    for m in &second[..second.len() - 1] {
        assert!(
            !m.to_string().contains("Now:"),
            "stored history holds the time: {m}"
        );
    }
    // Within the tool loop, everything before the new tool traffic is
    // byte-identical to the stored history.
    let n = second.len();
    assert_eq!(
        serde_json::to_string(&third[..n - 1]).unwrap(),
        serde_json::to_string(&second[..n - 1]).unwrap()
    );
    let session = chat.session().await;
    assert!(
        !serde_json::to_string(&session.history)
            .unwrap()
            .contains("Now:")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bypass_and_disabled_history_answer_alone_and_add_nothing() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    let engine = setup.engine();
    for text in ["first answer", "bypassed", "alone", "with history"] {
        server.reply(Reply::text(text));
    }
    let chat = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    collect(chat.send(UserMessage::text("remember 7"))).await;
    let stored = chat.session().await.history.len();
    assert_eq!(
        chat.command("/session bypass what is 2+2?").await.unwrap(),
        None
    );
    let (o, _) = collect(chat.send(UserMessage::text("/session bypass what is 2+2?"))).await;
    assert_eq!(o.result.answer, "bypassed");
    assert!(
        chat.command("/session disable")
            .await
            .unwrap()
            .unwrap()
            .starts_with("history off")
    );
    collect(chat.send(UserMessage::text("on its own"))).await;
    assert_eq!(chat.session().await.history.len(), stored);
    chat.command("/session enable").await.unwrap();
    collect(chat.send(UserMessage::text("and now?"))).await;
    let b = bodies(&server);
    let users = |i: usize| -> Vec<String> {
        b[i]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .map(|m| m.to_string())
            .collect()
    };
    assert_eq!(users(1).len(), 1);
    assert!(users(1)[0].contains("what is 2+2?") && !users(1)[0].contains("/session"));
    assert_eq!(users(2).len(), 1);
    assert!(users(2)[0].contains("on its own"));
    assert_eq!(
        users(3).len(),
        2,
        "history back on: the first exchange and the new message"
    );
    assert!(users(3)[0].contains("remember 7"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_document_has_the_document_preparer_write_it_from_the_conversation() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    std::fs::create_dir_all(setup.root().join("ws")).unwrap();
    let engine = setup.engine();
    server.reply(Reply::text("Sales rose 12%."));
    server.reply(Reply::tool_call(
        "create_document",
        json!({"path": "/summary.md", "content": "# Summary\n\nSales rose 12%."}),
    ));
    server.reply(Reply::text("Wrote /summary.md."));
    let chat = engine
        .conversations()
        .open(None, ConversationOptions::default())
        .unwrap();
    collect(chat.send(UserMessage::text("How did sales go?"))).await;
    assert_eq!(
        chat.command("/document a one-page summary").await.unwrap(),
        None
    );
    let usage = chat.command("/document").await.unwrap().unwrap();
    assert!(usage.starts_with("usage: /document"), "{usage}");
    let (outcome, _) = collect(chat.send(UserMessage::text("/document a one-page summary"))).await;
    assert_eq!(outcome.result.files, ["/summary.md"]);
    assert_eq!(
        std::fs::read_to_string(setup.root().join("ws/summary.md")).unwrap(),
        "# Summary\n\nSales rose 12%."
    );
    let b = bodies(&server);
    let system = b[1]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("You prepare documents"), "{system}");
    let tools = tool_names(&b[1]);
    assert!(tools.contains(&"create_document".to_string()), "{tools:?}");
    assert!(!tools.contains(&"write_text_file".to_string()), "{tools:?}");
    let said: Vec<String> = b[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        said.iter().any(|m| m.contains("How did sales go?")),
        "the conversation so far: {said:?}"
    );
    assert!(
        said.last()
            .unwrap()
            .contains("Write this document: a one-page summary"),
        "{said:?}"
    );
    // The conversation keeps its own agent.
    assert_ne!(
        chat.session().await.agent.as_deref(),
        Some("document-preparer")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coordinator_without_toolboxes_delegates_to_the_agents() {
    let server = ScriptedServer::start().await.unwrap();
    let setup = Setup::new(&server);
    write_agents(
        &setup,
        json!([{"name": "coordinator", "instructions": "Hand the work to the right agent.", "toolboxes": []}]),
    );
    let engine = setup.engine();
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "What is in the workspace?", "agent": "researcher"}),
    ));
    server.reply(Reply::text("The workspace is empty."));
    server.reply(Reply::text("The researcher says the workspace is empty."));
    let chat = engine
        .conversations()
        .open(None, options("coordinator"))
        .unwrap();
    let (outcome, _) = collect(chat.send(UserMessage::text("What is in my workspace?"))).await;
    assert_eq!(outcome.stop, StopReason::Answered, "{:?}", outcome.stop);
    assert_eq!(
        outcome.result.answer,
        "The researcher says the workspace is empty."
    );
    let b = bodies(&server);
    // Its own tools: none but delegation, to every delegable agent.
    assert_eq!(
        tool_names(&b[0]),
        ["launch_subagent", "provide_subagent_input"]
    );
    let launch = &b[0]["tools"][0]["function"]["parameters"]["properties"]["agent"]["enum"];
    assert_eq!(launch, &json!(["researcher", "document-preparer"]));
    // The researcher ran with its own tools.
    assert!(tool_names(&b[1]).contains(&"read_text_file".to_string()));
    // A chat without tools is offered no delegation.
    server.reply(Reply::text("Hello."));
    let plain = ConversationOptions {
        tools: false,
        ..options("coordinator")
    };
    let chat = engine.conversations().open(None, plain).unwrap();
    collect(chat.send(UserMessage::text("Hi"))).await;
    assert!(tool_names(bodies(&server).last().unwrap()).is_empty());
}
