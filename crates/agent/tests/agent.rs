//! The agent loop against the scripted server, with the real FileTool.

use std::sync::Arc;
use std::time::Duration;

use baton_agent::{
    Agent, AgentConfig, AgentEvent, CompactionPolicy, EventSink, StopReason, SubagentSpec, compact,
};
use baton_docs::FileTool;
use baton_llm::{HttpProvider, InteractionMode, Message, ProviderConfig, ToolCall};
use baton_scripted_llm::{Reply, ScriptedServer};
use baton_tools::{Catalog, Sandbox, ToolOutcome};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello from a").unwrap();
    std::fs::create_dir(dir.path().join("reports")).unwrap();
    std::fs::write(dir.path().join("reports/q1.txt"), "Q1 up 12%").unwrap();
    dir
}

fn provider(server: &ScriptedServer, native: bool, json_mode: bool) -> Arc<HttpProvider> {
    let cfg: ProviderConfig = serde_json::from_value(json!({"name": "scripted", "dialect": "openai",
        "endpoint": format!("{}/v1", server.url()), "model": "m", "nativeTools": native, "jsonMode": json_mode,
        "contextWindow": 200000}))
    .unwrap();
    Arc::new(HttpProvider::new(cfg, None).unwrap())
}

fn file_catalog(dir: &std::path::Path) -> Catalog {
    Catalog::new()
        .with(Arc::new(FileTool::new(Sandbox::new(dir).unwrap())))
        .unwrap()
}

fn config(mode: InteractionMode, native: bool, json_mode: bool) -> AgentConfig {
    AgentConfig {
        mode,
        native_tools: native,
        json_mode,
        ..AgentConfig::default()
    }
}

fn bodies(server: &ScriptedServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.json())
        .collect()
}

#[tokio::test]
async fn native_tool_calls_loop_until_the_answer() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply::tool_call("list_directory", json!({"path": "/"})));
    server.reply(Reply::tool_call(
        "read_text_file",
        json!({"path": "/a.txt"}),
    ));
    server.reply(Reply::text("a.txt says: hello from a"));
    let (events, mut rx) = EventSink::unbounded("t1");
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        config(InteractionMode::Api, true, false),
    )
    .with_events(events);
    let mut history = Vec::new();
    let r = agent
        .execute_action(
            &mut history,
            "What does a.txt say?",
            vec![],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(r.stop, StopReason::Answered);
    assert_eq!(r.answer, "a.txt says: hello from a");
    assert_eq!(r.iterations, 3);
    assert_eq!(r.usage.len(), 3);
    assert_eq!(r.tool_calls.len(), 2);
    assert_eq!(
        r.tool_calls[1].outcome,
        ToolOutcome::Ok(json!({"path": "/a.txt", "text": "hello from a",
        "offset": 0, "total_chars": 12, "truncated": false}))
    );
    // The wire: tools offered natively, results sent back as tool messages.
    let b = bodies(&server);
    assert_eq!(b[0]["tools"].as_array().unwrap().len(), 11);
    assert!(
        b[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("## Steps")
    );
    let msgs = b[2]["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "tool"]
    );
    assert_eq!(msgs[5]["tool_call_id"], msgs[4]["tool_calls"][0]["id"]);
    assert!(
        msgs[5]["content"]
            .as_str()
            .unwrap()
            .contains("hello from a")
    );
    // Events, in order.
    let mut kinds = Vec::new();
    while let Some(ev) = rx.try_recv() {
        assert_eq!((&*ev.turn, ev.agent.depth), ("t1", 0));
        kinds.push(match ev.event {
            AgentEvent::TextDelta { .. } => "text",
            AgentEvent::ToolStarted { .. } => "started",
            AgentEvent::ToolFinished { .. } => "finished",
            AgentEvent::Usage(_) => "usage",
            _ => "other",
        });
    }
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "usage", "started", "finished", "usage", "started", "finished", "text", "usage"
        ]
    );
}

#[tokio::test]
async fn prompt_json_tool_calls_with_json_mode() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply::text(
        r#"{"method": "read_text_file", "path": "/reports/q1.txt"}"#,
    ));
    server.reply(Reply::text(r#"{"answer": "Revenue rose 12% in Q1."}"#));
    let agent = Agent::new(
        provider(&server, false, true),
        file_catalog(dir.path()),
        config(InteractionMode::Api, false, true),
    );
    let mut history = Vec::new();
    let r = agent
        .execute_action(
            &mut history,
            "Summarize Q1",
            vec![],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(r.stop, StopReason::Answered);
    assert_eq!(r.answer, "Revenue rose 12% in Q1.");
    let b = bodies(&server);
    assert!(b[0].get("tools").is_none());
    assert_eq!(b[0]["response_format"], json!({"type": "json_object"}));
    let system = b[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("### read_text_file")
            && system.contains("Reply with exactly one JSON object")
    );
    let msgs = b[1]["messages"].as_array().unwrap();
    assert_eq!(
        msgs[2],
        json!({"role": "assistant", "content": "{\"method\": \"read_text_file\", \"path\": \"/reports/q1.txt\"}"})
    );
    assert_eq!(msgs[3]["role"], "user");
    assert!(
        msgs[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("Result of `read_text_file`:\n{")
    );
    assert!(msgs[3]["content"].as_str().unwrap().contains("Q1 up 12%"));
}

#[tokio::test]
async fn cli_mode_runs_command_lines_and_help() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply::text(
        r#"{"method": "cli", "command": "FileTool list_directory --help"}"#,
    ));
    server.reply(Reply::text(
        r#"{"method": "cli", "command": "FileTool find_files '*.txt'"}"#,
    ));
    server.reply(Reply::text(r#"{"answer": "Two text files."}"#));
    let agent = Agent::new(
        provider(&server, false, false),
        file_catalog(dir.path()),
        config(InteractionMode::Cli, false, false),
    );
    let mut history = Vec::new();
    let r = agent
        .execute_action(
            &mut history,
            "How many text files?",
            vec![],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(r.stop, StopReason::Answered, "{r:?}");
    assert_eq!(r.tool_calls[1].name, "find_files");
    assert_eq!(
        r.tool_calls[1].outcome,
        ToolOutcome::Ok(json!(["/a.txt", "/reports/q1.txt"]))
    );
    let b = bodies(&server);
    let system = b[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("- FileTool {list_directory|read_text_file|write_text_file|find_files|move_file|list_backups|restore|get_file_info|search_documents|read_document|get_document_outline}"), "{system}");
    assert!(
        !system.contains("### read_text_file"),
        "CLI mode sends no full manual"
    );
    let help = b[1]["messages"][3]["content"].as_str().unwrap();
    assert!(
        help.contains("Usage: FileTool list_directory [--path <string>]"),
        "{help}"
    );
}

#[tokio::test]
async fn malformed_calls_are_repaired_and_unknown_methods_corrected() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply::text(
        "Sure:\n```json\n{'method': 'ReadTextFile', path: '/a.txt',}\n```",
    ));
    server.reply(Reply::text(r#"{"method": "list_dir", "path": "/"}"#));
    server.reply(Reply::text(r#"{"method": "list_directory", "path": "/"}"#));
    server.reply(Reply::text(r#"{"answer": "done"}"#));
    let agent = Agent::new(
        provider(&server, false, false),
        file_catalog(dir.path()),
        config(InteractionMode::Api, false, false),
    );
    let mut history = Vec::new();
    let r = agent
        .execute_action(&mut history, "go", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.stop, StopReason::Answered);
    assert_eq!(r.tool_calls[0].name, "read_text_file");
    assert!(!r.tool_calls[0].outcome.is_err());
    let ToolOutcome::Err(e) = &r.tool_calls[1].outcome else {
        panic!()
    };
    assert!(
        e.contains("unknown method `list_dir`; did you mean `list_directory`"),
        "{e}"
    );
    // The model saw the suggestion, and its corrected call worked.
    let b = bodies(&server);
    assert!(
        b[2]["messages"][5]["content"]
            .as_str()
            .unwrap()
            .contains("did you mean `list_directory`")
    );
    assert!(!r.tool_calls[2].outcome.is_err());
}

#[tokio::test]
async fn subagent_asks_a_question_and_resumes() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    // Replies in arrival order: main, sub, main, sub, sub, main.
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "Read the file the user means", "agent": "files"}),
    ));
    server.reply(Reply::text(r#"{"question": "Which file?"}"#));
    server.reply(Reply::tool_call(
        "provide_subagent_input",
        json!({"input": "a.txt"}),
    ));
    server.reply(Reply::tool_call(
        "read_text_file",
        json!({"path": "/a.txt"}),
    ));
    server.reply(Reply::text("The file says hello from a."));
    server.reply(Reply::text("Your file says hello from a."));
    let (events, mut rx) = EventSink::unbounded("t1");
    let sub_provider = provider(&server, true, false);
    let root = dir.path().to_path_buf();
    let spec = SubagentSpec {
        name: "files".into(),
        summary: "Files in the user's workspace".into(),
        factory: Arc::new(move || {
            Agent::new(
                sub_provider.clone(),
                file_catalog(&root),
                config(InteractionMode::Api, true, false),
            )
        }),
    };
    let agent = Agent::new(
        provider(&server, true, false),
        Catalog::new(),
        config(InteractionMode::Api, true, false),
    )
    .with_subagent(spec)
    .with_events(events);
    let mut history = Vec::new();
    let r = agent
        .execute_action(
            &mut history,
            "What does my file say?",
            vec![],
            CancellationToken::new(),
        )
        .await;
    assert_eq!(r.stop, StopReason::Answered, "{r:?}");
    assert_eq!(r.answer, "Your file says hello from a.");
    assert_eq!(
        r.tool_calls[0].outcome,
        ToolOutcome::Ok(json!({"done": true, "question": "Which file?", "sessionId": "sub_1"}))
    );
    assert_eq!(
        r.tool_calls[1].outcome,
        ToolOutcome::Ok(
            json!({"done": true, "result": "The file says hello from a.",
        "sessionId": "sub_1", "files": []})
        )
    );
    let b = bodies(&server);
    // Main agent: delegation line and the two tools, nothing of the sub's traffic.
    assert!(
        b[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Delegation to the sub-agent of: Files in the user's workspace")
    );
    let main_tools: Vec<&str> = b[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(main_tools, ["launch_subagent", "provide_subagent_input"]);
    assert!(
        !b[5].to_string().contains("read_text_file"),
        "sub-agent traffic leaked into the parent"
    );
    // Sub-agent resumed with its own history: task, question, then the answer.
    let sub_resume = b[3]["messages"].as_array().unwrap();
    assert_eq!(sub_resume[1]["content"], "Read the file the user means");
    assert_eq!(sub_resume[2]["content"], "{\"question\": \"Which file?\"}");
    assert_eq!(sub_resume[3]["content"], "a.txt");
    // The subagent's three model calls are tagged with its path, and their
    // tokens are merged into the parent's result.
    assert_eq!(question_and_sub_usage(&mut rx), (true, 3));
    assert_eq!(r.usage.len(), 6);
}

/// Whether sub_1 asked "Which file?", and how many usage events the
/// subagent (depth 1, tagged sub_1) sent.
fn question_and_sub_usage(rx: &mut baton_agent::EventStream) -> (bool, usize) {
    let mut asked = false;
    let mut sub_usage = 0;
    while let Some(ev) = rx.try_recv() {
        if ev.agent.depth == 1 && matches!(ev.event, AgentEvent::Usage(_)) {
            assert_eq!(ev.agent.subagent.as_deref(), Some("sub_1"));
            sub_usage += 1;
        }
        if let AgentEvent::SubagentAsked {
            session_id,
            question,
        } = ev.event
        {
            assert_eq!(
                (session_id.as_str(), question.as_str()),
                ("sub_1", "Which file?")
            );
            asked = true;
        }
    }
    (asked, sub_usage)
}

#[tokio::test]
async fn files_made_by_a_subagent_reach_the_top() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "write a note"}),
    ));
    server.reply(Reply::tool_call(
        "write_text_file",
        json!({"path": "/notes/n.md", "text": "note"}),
    ));
    server.reply(Reply::text("Written."));
    server.reply(Reply::text("Saved your note."));
    let sub_provider = provider(&server, true, false);
    let root = dir.path().to_path_buf();
    let agent = Agent::new(
        provider(&server, true, false),
        Catalog::new(),
        config(InteractionMode::Api, true, false),
    )
    .with_subagent(SubagentSpec {
        name: "files".into(),
        summary: "files".into(),
        factory: Arc::new(move || {
            Agent::new(
                sub_provider.clone(),
                file_catalog(&root),
                config(InteractionMode::Api, true, false),
            )
        }),
    });
    let mut history = Vec::new();
    let r = agent
        .execute_action(&mut history, "note", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.files, ["/notes/n.md"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/n.md")).unwrap(),
        "note"
    );
}

#[tokio::test]
async fn max_iterations_and_loop_guard() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    for i in 0..3 {
        server.reply(Reply::tool_call(
            "get_file_info",
            json!({"path": if i % 2 == 0 { "/a.txt" } else { "/reports" }}),
        ));
    }
    let cfg = AgentConfig {
        max_iterations: 3,
        ..config(InteractionMode::Api, true, false)
    };
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        cfg,
    );
    let r = agent
        .execute_action(&mut Vec::new(), "loop", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.stop, StopReason::MaxIterations);
    assert_eq!(r.iterations, 3);

    for _ in 0..3 {
        server.reply(Reply::tool_call(
            "read_text_file",
            json!({"path": "/missing.txt"}),
        ));
    }
    server.reply(Reply::text("never reached"));
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        config(InteractionMode::Api, true, false),
    );
    let r = agent
        .execute_action(&mut Vec::new(), "loop", vec![], CancellationToken::new())
        .await;
    let StopReason::LoopGuard(why) = &r.stop else {
        panic!("{:?}", r.stop)
    };
    assert!(
        why.contains("`read_text_file` failed three times: `/missing.txt` does not exist"),
        "{why}"
    );
    assert_eq!(r.iterations, 3);
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn cancellation_mid_stream() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply {
        text_pieces: 20,
        chunk_size: Some(40),
        chunk_delay_ms: 200,
        ..Reply::text("a slow answer that keeps coming in little pieces")
    });
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        config(InteractionMode::Api, true, false),
    );
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let t = std::time::Instant::now();
    let r = agent
        .execute_action(&mut Vec::new(), "hi", vec![], cancel)
        .await;
    assert_eq!(r.stop, StopReason::Cancelled);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[tokio::test]
async fn compaction_in_a_long_session_then_a_valid_request() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    // A long session: many tool exchanges.
    let mut history = vec![Message::system("old system prompt")];
    for i in 0..30 {
        history.push(Message::user(format!("question {i}")));
        history.push(Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: format!("c{i}"),
                name: "list_directory".into(),
                arguments: json!({"path": "/"}),
            }],
        });
        history.push(Message::tool(
            format!("c{i}"),
            "list_directory",
            "[]",
            false,
        ));
        history.push(Message::assistant(format!("answer {i}")));
    }
    let (events, mut rx) = EventSink::unbounded("t1");
    let cfg = AgentConfig {
        compaction: CompactionPolicy {
            max_messages: 40,
            max_context_share: 0.9,
            keep_exchanges: 4,
        },
        ..config(InteractionMode::Api, true, false)
    };
    server.reply(Reply::text("fine"));
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        cfg,
    )
    .with_events(events);
    let r = agent
        .execute_action(&mut history, "and now?", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.stop, StopReason::Answered);
    let report = loop {
        if let AgentEvent::Compacted(rep) = rx.recv().await.unwrap().event {
            break rep;
        }
    };
    assert_eq!(report.before, 121);
    assert_eq!(report.tool_messages_dropped, 60);
    assert_eq!(report.after, 9);
    // The request after compaction is valid: no tool message without its call.
    let b = bodies(&server);
    let msgs = b[0]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 10);
    assert!(
        msgs.iter()
            .all(|m| m["role"] != "tool" && m.get("tool_calls").is_none())
    );
    assert_eq!(msgs[1]["content"], "question 26");
    assert_eq!(msgs[9]["content"], "and now?");
    // Manual compaction gives the same shape.
    let mut h2 = history.clone();
    let rep = compact(&mut h2, 2);
    assert!(rep.after <= history.len());
}

#[tokio::test]
async fn chat_stream_yields_chunks_and_keeps_history() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply {
        text_pieces: 4,
        ..Reply::text("one two three four")
    });
    let agent = Agent::new(
        provider(&server, true, false),
        Catalog::new(),
        AgentConfig::default(),
    );
    let mut history = Vec::new();
    let mut chunks = Vec::new();
    let text = agent
        .execute_chat_stream(
            &mut history,
            "count",
            vec![],
            CancellationToken::new(),
            |t| chunks.push(t.to_string()),
        )
        .await
        .unwrap();
    assert_eq!(text, "one two three four");
    assert_eq!(chunks.len(), 4);
    assert_eq!(
        history,
        vec![
            Message::user("count"),
            Message::assistant("one two three four")
        ]
    );
    assert!(bodies(&server)[0].get("tools").is_none());
}

#[tokio::test]
async fn repeating_the_same_call_gets_a_nudge_then_stops() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    for _ in 0..4 {
        server.reply(Reply::tool_call("get_file_info", json!({"path": "/a.txt"})));
    }
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        config(InteractionMode::Api, true, false),
    );
    let r = agent
        .execute_action(&mut Vec::new(), "info", vec![], CancellationToken::new())
        .await;
    assert_eq!(server.remaining(), 0);
    assert!(!r.tool_calls[0].outcome.is_err());
    let ToolOutcome::Err(e) = &r.tool_calls[1].outcome else {
        panic!("{:?}", r.tool_calls[1])
    };
    assert!(e.contains("already called with these arguments"), "{e}");
    assert!(matches!(r.stop, StopReason::LoopGuard(_)), "{:?}", r.stop);
    assert_eq!(r.iterations, 4);
    // A write in between makes a repeat legitimate again.
    server.reply(Reply::tool_call(
        "read_text_file",
        json!({"path": "/a.txt"}),
    ));
    server.reply(Reply::tool_call(
        "write_text_file",
        json!({"path": "/a.txt", "text": "new"}),
    ));
    server.reply(Reply::tool_call(
        "read_text_file",
        json!({"path": "/a.txt"}),
    ));
    server.reply(Reply::text("It now says new."));
    let server_left = server.remaining();
    let agent = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        config(InteractionMode::Api, true, false),
    );
    let r = agent
        .execute_action(&mut Vec::new(), "rewrite", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.stop, StopReason::Answered);
    assert_eq!(
        r.tool_calls[2].outcome,
        ToolOutcome::Ok(
            json!({"path": "/a.txt", "text": "new", "offset": 0, "total_chars": 3, "truncated": false})
        )
    );
    assert_eq!(server_left - server.remaining(), 4);
}

#[tokio::test]
async fn subagent_depth_is_bounded() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    // The main agent delegates; the sub-agent tries to delegate again.
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "outer"}),
    ));
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "inner"}),
    ));
    server.reply(Reply::text("I did it myself."));
    server.reply(Reply::text("Done."));
    let p = provider(&server, true, false);
    let root = dir.path().to_path_buf();
    let inner_p = p.clone();
    let nested = SubagentSpec {
        name: "worker".into(),
        summary: "does work".into(),
        factory: Arc::new(move || {
            let leaf_p = inner_p.clone();
            let leaf_root = root.clone();
            Agent::new(
                inner_p.clone(),
                Catalog::new(),
                config(InteractionMode::Api, true, false),
            )
            .with_subagent(SubagentSpec {
                name: "leaf".into(),
                summary: "leaf".into(),
                factory: Arc::new(move || {
                    Agent::new(
                        leaf_p.clone(),
                        file_catalog(&leaf_root),
                        config(InteractionMode::Api, true, false),
                    )
                }),
            })
        }),
    };
    let cfg = AgentConfig {
        max_depth: 1,
        ..config(InteractionMode::Api, true, false)
    };
    let agent = Agent::new(p, Catalog::new(), cfg).with_subagent(nested);
    let r = agent
        .execute_action(&mut Vec::new(), "go", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.stop, StopReason::Answered, "{r:?}");
    // The sub-agent's own attempt to delegate was refused with a reason it could act on.
    let sub_second = bodies(&server)[2]["messages"].as_array().unwrap().clone();
    let refusal = sub_second.iter().find(|m| m["role"] == "tool").unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        refusal.contains("cannot be nested more than 1 deep"),
        "{refusal}"
    );
}

fn files_subagent(server: &ScriptedServer, name: &str, root: &std::path::Path) -> SubagentSpec {
    let sub_provider = provider(server, true, false);
    let root = root.to_path_buf();
    SubagentSpec {
        name: name.into(),
        summary: format!("Files ({name})"),
        factory: Arc::new(move || {
            Agent::new(
                sub_provider.clone(),
                file_catalog(&root),
                config(InteractionMode::Api, true, false),
            )
        }),
    }
}

/// A parent that delegates to one `files` subagent, and a turn context
/// whose questions the test answers.
fn delegating(
    server: &ScriptedServer,
    root: &std::path::Path,
) -> (
    Agent,
    baton_agent::TurnContext,
    baton_agent::Questions,
    baton_agent::EventStream,
) {
    let agent = Agent::new(
        provider(server, true, false),
        Catalog::new(),
        config(InteractionMode::Api, true, false),
    )
    .with_subagent(files_subagent(server, "files", root));
    let (events, rx) = EventSink::unbounded("t1");
    let questions = baton_agent::Questions::default();
    let ctx = baton_agent::TurnContext {
        events,
        questions: Some(questions.clone()),
        ..Default::default()
    };
    (agent, ctx, questions, rx)
}

#[tokio::test]
async fn the_user_answers_a_subagents_question_and_it_resumes_in_the_same_turn() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    // Arrival order: main, sub (asks), sub (resumed, answers), main.
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "Read the file the user means", "agent": "files"}),
    ));
    server.reply(Reply::text(r#"{"question": "Which file?"}"#));
    server.reply(Reply::text("The file says hello from a."));
    server.reply(Reply::text("Your file says hello from a."));
    let (agent, ctx, questions, mut rx) = delegating(&server, dir.path());
    // The front door: answers the question shown to the user.
    let front = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(ev) = rx.recv().await {
            if let AgentEvent::SubagentAsked {
                session_id,
                question,
            } = &ev.event
            {
                assert_eq!(question, "Which file?");
                assert!(questions.answer(session_id, "a.txt".into()));
            }
            seen.push(ev);
        }
        seen
    });
    let mut history = Vec::new();
    let r = agent
        .execute_turn(
            &mut history,
            vec![baton_llm::ContentPart::Text {
                text: "What does my file say?".into(),
            }],
            &ctx,
        )
        .await;
    drop(ctx);
    drop(agent);
    let seen = front.await.unwrap();
    assert_eq!(r.stop, StopReason::Answered, "{r:?}");
    assert_eq!(r.answer, "Your file says hello from a.");
    // The parent never saw the question: one delegation, straight to the result.
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(
        r.tool_calls[0].outcome,
        ToolOutcome::Ok(
            json!({"done": true, "result": "The file says hello from a.", "sessionId": "sub_1", "files": []})
        )
    );
    assert!(seen.iter().any(|e| matches!(&e.event,
        AgentEvent::SubagentAnswered { session_id, answer } if session_id == "sub_1" && answer == "a.txt")));
    let b = bodies(&server);
    assert_eq!(b.len(), 4);
    let resumed = b[2]["messages"].as_array().unwrap();
    assert_eq!(resumed.last().unwrap()["content"], "a.txt");
    assert!(
        !b[3].to_string().contains("Which file?"),
        "the question leaked to the parent"
    );
    // Every model call's tokens, the subagent's two included.
    assert_eq!(r.usage.len(), 4);
}

#[tokio::test]
async fn a_declined_question_goes_to_the_parent() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "Read it"}),
    ));
    server.reply(Reply::text(r#"{"question": "Which file?"}"#));
    server.reply(Reply::text("Which file do you mean?"));
    let (agent, ctx, questions, mut rx) = delegating(&server, dir.path());
    let front = tokio::spawn(async move {
        while let Some(ev) = rx.recv().await {
            if let AgentEvent::SubagentAsked { session_id, .. } = &ev.event {
                assert!(questions.decline(session_id));
            }
        }
    });
    let mut history = Vec::new();
    let r = agent
        .execute_turn(
            &mut history,
            vec![baton_llm::ContentPart::Text {
                text: "Read my file".into(),
            }],
            &ctx,
        )
        .await;
    drop(ctx);
    front.await.unwrap();
    assert_eq!(r.answer, "Which file do you mean?");
    assert_eq!(
        r.tool_calls[0].outcome,
        ToolOutcome::Ok(json!({"done": true, "question": "Which file?", "sessionId": "sub_1"}))
    );
}

#[tokio::test]
async fn the_budget_spans_the_parent_and_two_subagents() {
    let server = ScriptedServer::start().await.unwrap();
    let dir = workspace();
    // Every reply costs 18 tokens; the budget is 60.
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "Count A", "agent": "a"}),
    ));
    server.reply(Reply::text("A is done."));
    server.reply(Reply::tool_call(
        "launch_subagent",
        json!({"task": "Count B", "agent": "b"}),
    ));
    server.reply(Reply::tool_call("list_directory", json!({"path": "/"})));
    server.reply(Reply::text("never sent"));
    let agent = Agent::new(
        provider(&server, true, false),
        Catalog::new(),
        AgentConfig {
            token_budget: Some(60),
            ..config(InteractionMode::Api, true, false)
        },
    )
    .with_subagent(files_subagent(&server, "a", dir.path()))
    .with_subagent(files_subagent(&server, "b", dir.path()));
    let mut history = Vec::new();
    let r = agent
        .execute_action(&mut history, "Count both", vec![], CancellationToken::new())
        .await;
    assert_eq!(r.stop, StopReason::Budget, "{r:?}");
    // Two parent calls and one call of each subagent, merged.
    assert_eq!(r.usage.len(), 4);
    let total = r.total_usage();
    assert_eq!(total.prompt_tokens + total.completion_tokens, 72);
    assert_eq!(
        server.remaining(),
        1,
        "nothing was called after the budget ran out"
    );
    assert!(r.tool_calls[1].outcome.is_err(), "{:?}", r.tool_calls[1]);
    // The history stays a valid request: every call has its result.
    let calls = history
        .iter()
        .filter(|m| matches!(m, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty()))
        .count();
    let results = history
        .iter()
        .filter(|m| matches!(m, Message::Tool { .. }))
        .count();
    assert_eq!(calls, results);
}

/// A small local model without tools is sent the brief prompt; with
/// tools, or as another dialect, the general one.
#[tokio::test]
async fn the_brief_prompt_goes_to_a_local_model_without_tools_only() {
    let local: ProviderConfig = serde_json::from_value(serde_json::json!({
        "name": "local", "dialect": "local", "modelPath": "m.gguf", "contextWindow": 8192
    }))
    .unwrap();
    let config = AgentConfig::for_provider(&local);
    assert!(config.brief_answers);
    let remote: ProviderConfig = serde_json::from_value(serde_json::json!({
        "name": "r", "dialect": "openai", "endpoint": "http://127.0.0.1:9/v1", "model": "m", "contextWindow": 8192
    }))
    .unwrap();
    assert!(!AgentConfig::for_provider(&remote).brief_answers);

    let server = ScriptedServer::start().await.unwrap();
    let bare = Agent::new(
        provider(&server, true, false),
        Catalog::new(),
        config.clone(),
    );
    assert!(bare.system_prompt().starts_with(baton_agent::BRIEF_PROMPT));
    let dir = workspace();
    let with_tools = Agent::new(
        provider(&server, true, false),
        file_catalog(dir.path()),
        config,
    );
    let p = with_tools.system_prompt();
    assert!(
        p.contains("careful assistant") && p.contains("## Steps"),
        "{p}"
    );
}
