//! External actions and long tools, with the diagnostics toolbox: `ask`
//! refuses them without `--yes`, `chat` asks first, and Ctrl-C stops a
//! 30-second tool within a second.

use std::time::Duration;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

/// `baton` with the diagnostics toolbox (`block_for`, `post_note`) on.
fn diagnostic(env: &Env, server: &ScriptedServer) -> tokio::process::Command {
    let mut c = env.scripted(server);
    c.env("BATON_DIAGNOSTIC_TOOLS", "1")
        .arg("--workspace")
        .arg(env.path().join("ws"));
    c
}

/// How many notes `post_note` delivered to the scripted server's sink.
fn notes_posted(server: &ScriptedServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter(|r| r.path == "/_sink/notes")
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect()
}

fn script_post_note(server: &ScriptedServer) {
    server.reply(Reply::tool_call(
        "post_note",
        json!({"url": format!("{}/_sink/notes", server.url()), "text": "Lunch moved to 1 pm"}),
    ));
    server.reply(Reply::text("Done."));
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_refuses_external_actions_unless_yes() {
    let server = ScriptedServer::start().await.unwrap();
    script_post_note(&server);
    let env = Env::new();
    let mut c = diagnostic(&env, &server);
    c.args(["ask", "--json", "Tell the team lunch moved"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let refusal = v["toolCalls"][0]["outcome"]["err"].as_str().unwrap();
    assert!(refusal.contains("--yes"), "{refusal}");
    assert!(
        notes_posted(&server).is_empty(),
        "ask sent it without --yes"
    );
    assert_eq!(v["stopCode"], "answered");
    // So does the JSON, apart from the model's words.
    let notices = v["notices"].as_array().unwrap();
    assert!(
        notices.len() == 1
            && notices[0]
                .as_str()
                .unwrap()
                .starts_with("held back: Diagnostics.post_note"),
        "{v}"
    );
    // The terminal says so itself, whatever the model answers.
    script_post_note(&server);
    let mut c = diagnostic(&env, &server);
    c.args(["ask", "Tell the team lunch moved"]);
    let o = run(c, None).await;
    assert!(
        o.stderr.contains("held back: Diagnostics.post_note")
            && o.stderr.contains("Lunch moved to 1 pm"),
        "{}",
        o.stderr
    );
    assert!(notes_posted(&server).is_empty());

    script_post_note(&server);
    let mut c = diagnostic(&env, &server);
    c.args(["ask", "--yes", "Tell the team lunch moved"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "Done.\n");
    assert_eq!(notes_posted(&server), ["Lunch moved to 1 pm"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_asks_before_an_external_action() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    // Declined: nothing is sent, the model is told.
    script_post_note(&server);
    let c = diagnostic(&env, &server);
    let mut c = c;
    c.arg("chat");
    let o = run(c, Some("Tell the team lunch moved\nn\n/exit\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("Allow it? [y/N]"), "{}", o.stderr);
    assert!(o.stderr.contains("post_note"), "{}", o.stderr);
    assert!(o.stderr.contains("(declined)"), "{}", o.stderr);
    assert!(notes_posted(&server).is_empty());
    let told = server.requests().last().unwrap().json();
    let msgs = told["messages"].as_array().unwrap();
    // After the tool result, only the per-call context (time, workspace).
    assert!(
        msgs.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .starts_with("Now: ")
    );
    let last = msgs[msgs.len() - 2].clone();
    assert_eq!(last["role"], "tool");
    assert!(last["content"].as_str().unwrap().contains("declined"));
    // Allowed: sent once.
    script_post_note(&server);
    let mut c = diagnostic(&env, &server);
    c.arg("chat");
    let o = run(c, Some("Tell the team lunch moved\ny\n/exit\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("(allowed)"), "{}", o.stderr);
    assert_eq!(o.stdout, "Done.\n");
    assert_eq!(notes_posted(&server), ["Lunch moved to 1 pm"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_interrupts_a_30_second_tool_within_a_second() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::tool_call("block_for", json!({"seconds": 30})));
    let env = Env::new();
    let mut c = diagnostic(&env, &server);
    c.args(["ask", "take your time"]);
    // The reply is a call and nothing else: the tool is running by then.
    let (o, took) = interrupt_after_request(c, &server, Duration::from_millis(500)).await;
    assert!(took < Duration::from_secs(1), "Ctrl-C took {took:?}");
    assert_eq!(o.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&o.stderr).contains("(cancelled)"));
}
