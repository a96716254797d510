//! `baton ask`: a one-shot question streamed from an OpenAI-compatible
//! endpoint, JSON output and stdin prompts, clear failures, and Ctrl-C.

use std::time::Duration;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::Value;

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn ask_streams_the_answer_from_an_openai_compatible_endpoint() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(
        Reply {
            text_pieces: 5,
            ..Reply::text("Paris is the capital of France.")
        }
        .chunked(9),
    );
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.args(["ask", "--no-tools", "What", "is", "the", "capital?"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "Paris is the capital of France.\n");
    let req = server.requests()[0].json();
    let msgs = req["messages"].as_array().unwrap();
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(said(&last["content"]), "What is the capital?");
    // A plain chat still knows the date (the time only, no workspace).
    let content = last["content"].as_str().unwrap();
    assert!(
        content.contains("\n\nNow: ") && !content.contains("Workspace"),
        "{content}"
    );
    assert!(req.get("tools").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_json_and_stdin_prompt() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("four"));
    let env = Env::new();
    let mut c = env.cmd();
    c.env("BATON_PROVIDERS", env.providers(&server))
        .args(["ask", "--json", "-"]);
    let o = run(c, Some("what is 2+2?\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["text"], "four");
    assert_eq!(v["provider"], "scripted");
    assert_eq!(v["usage"]["promptTokens"], 11);
    assert_eq!(v["usage"]["completionTokens"], 7);
    assert!(v["timings"]["totalMs"].as_f64().unwrap() > 0.0);
    assert!(v["timings"]["firstTokenMs"].as_f64().unwrap() > 0.0);
    let req = server.requests()[0].json();
    let msgs = req["messages"].as_array().unwrap();
    assert_eq!(said(&msgs.last().unwrap()["content"]), "what is 2+2?\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_failures_are_clear_and_non_zero() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let providers = env.providers(&server);
    // Missing key.
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["ask", "--provider", "scripted-keyed", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("no API key for scripted-keyed: run `baton secret set scripted-keyed` or set BATON_TEST_SCRIPTED_KEY"), "{}", o.stderr);
    // Unknown provider.
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["ask", "--provider", "nope", "hi"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no provider named `nope`") && o.stderr.contains("scripted-ollama"),
        "{}",
        o.stderr
    );
    // Server error, as JSON.
    server.error(401, r#"{"error":{"message":"bad key"}}"#);
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["ask", "--json", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["error"]["code"], "auth");
    assert!(v["error"]["message"].as_str().unwrap().contains("bad key"));
    // A broken explicit providers file names the problem.
    let bad = env.path().join("bad.json");
    std::fs::write(&bad, r#"{"default":"a","providers":[{"name":"a","dialect":"openai","endpoint":"http://x","model":"m","contextWindow":"big"}]}"#).unwrap();
    let mut c = env.cmd();
    c.arg("--providers").arg(&bad).args(["ask", "hi"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("entry `a`, field `contextWindow`"),
        "{}",
        o.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_cancels_ask() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply {
        text_pieces: 20,
        chunk_size: Some(50),
        chunk_delay_ms: 300,
        ..Reply::text("a long answer that takes a while to arrive in pieces")
    });
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.args(["ask", "tell me"]);
    let (o, took) = interrupt_after_request(c, &server, Duration::from_millis(400)).await;
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("cancelled"));
}
