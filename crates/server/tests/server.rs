//! The OpenAI-compatible API over a real socket, with the scripted LLM
//! server behind the engine: completions (whole and streamed), models,
//! health, readiness, and bad requests answered in OpenAI's error shape.

use std::net::SocketAddr;
use std::sync::Arc;

use baton_config::BatonPaths;
use baton_engine::api::keys::{Door, KeyStore};
use baton_engine::{Engine, Overrides};
use baton_scripted_llm::{Reply, ScriptedServer};
use baton_test_support::TestHome;
use serde_json::{Value, json};

struct Running {
    base: String,
    dir: TestHome,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

async fn start(llm: &ScriptedServer) -> Running {
    start_with(llm, no_indexing()).await
}

/// Options that serve this computer without a key (`--no-auth`): the
/// tests that make keys make them after start.
fn open() -> baton_server::ServeOptions {
    baton_server::ServeOptions {
        no_auth: true,
        ..Default::default()
    }
}

/// Options that leave the (empty) workspace index as it is.
fn no_indexing() -> baton_server::ServeOptions {
    baton_server::ServeOptions {
        skip_indexing: true,
        ..open()
    }
}

async fn start_with(llm: &ScriptedServer, options: baton_server::ServeOptions) -> Running {
    start_at(&llm.url(), options, |_| {}).await
}

/// A server whose provider is at `llm_url`, its workspace prepared by
/// `prepare` (given the workspace folder) before the engine loads.
async fn start_at(
    llm_url: &str,
    options: baton_server::ServeOptions,
    prepare: impl FnOnce(&std::path::Path),
) -> Running {
    let dir = TestHome::new();
    let providers = dir.write_providers(llm_url, None);
    dir.write_settings(json!({"diagnosticTools": true}));
    prepare(&dir.workspace());
    let overrides = Overrides {
        providers: Some(providers),
        ..Overrides::default()
    };
    let engine = Arc::new(Engine::load_with(dir.paths(), overrides).unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel::<SocketAddr>();
    let task = tokio::spawn(async move {
        baton_server::serve(
            engine,
            "127.0.0.1:0".parse().unwrap(),
            options,
            move |a, _| {
                let _ = bound_tx.send(a);
            },
            async {
                let _ = rx.await;
            },
        )
        .await
        .unwrap();
    });
    let addr = bound_rx.await.unwrap();
    Running {
        base: format!("http://{addr}"),
        dir,
        stop: Some(tx),
        task,
    }
}

/// GETs `url` and reads its JSON body.
async fn get_json(url: String) -> Value {
    client()
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .tls_certs_only(std::iter::empty())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_completions_whole_and_streamed() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    llm.reply(Reply::text("Paris is the capital of France."));
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .header("x-request-id", "req-42")
        .json(&json!({"model": "assistant", "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Capital of France?"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-request-id"], "req-42");
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "assistant");
    assert_eq!(
        v["choices"][0]["message"]["content"],
        "Paris is the capital of France."
    );
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    // The system message reached the model as instructions; the question last.
    let sent = llm.requests().last().unwrap().json();
    let text = sent["messages"].to_string();
    assert!(
        text.contains("Answer briefly.") && text.contains("Capital of France?"),
        "{text}"
    );

    // Streamed, with the earlier exchange as history and usage at the end.
    llm.reply(Reply::text("It has about two million people."));
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(
            &json!({"model": "baton", "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "user", "content": "Capital of France?"},
                {"role": "assistant", "content": "Paris."},
                {"role": "user", "content": [{"type": "text", "text": "How big is it?"}]}]}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    assert!(res.headers().contains_key("x-request-id"));
    let body = res.text().await.unwrap();
    let data: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{body}");
    let chunks: Vec<Value> = data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "It has about two million people.");
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    assert!(
        chunks
            .iter()
            .any(|c| c["choices"][0]["finish_reason"] == "stop")
    );
    assert!(
        chunks.last().unwrap()["usage"]["total_tokens"].is_number(),
        "{body}"
    );
    let history = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        history.contains("Paris.") && history.contains("How big is it?"),
        "{history}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_health_ready_and_errors_in_openai_shape() {
    let llm = ScriptedServer::start().await.unwrap();
    let mut s = start(&llm).await;
    let v: Value = get_json(format!("{}/v1/models", s.base)).await;
    let ids: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"assistant") && ids.contains(&"provider/scripted"),
        "{ids:?}"
    );
    let v: Value = get_json(format!("{}/health", s.base)).await;
    assert_eq!(v["status"], "ok");
    let v: Value = get_json(format!("{}/ready", s.base)).await;
    assert_eq!(
        (v["status"].as_str(), v["provider"]["name"].as_str()),
        (Some("ready"), Some("scripted")),
        "{v}"
    );
    assert_eq!(v["index"]["state"], "not refreshed at start", "{v}");

    let post = |body: String| {
        client()
            .post(format!("{}/v1/chat/completions", s.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let cases = [
        ("{not json".to_string(), 400, None),
        (json!({"model": "assistant", "messages": "hi"}).to_string(), 400, None),
        (json!({"model": "nobody", "messages": [{"role": "user", "content": "hi"}]}).to_string(), 404, Some("model_not_found")),
        (json!({"model": "assistant", "messages": []}).to_string(), 400, None),
        (json!({"model": "assistant", "messages": [{"role": "assistant", "content": "hi"}]}).to_string(), 400, None),
        (json!({"model": "assistant", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}).to_string(), 400, None),
        ("x".repeat(baton_server::BODY_LIMIT + 10), 413, None),
    ];
    for (body, status, code) in cases {
        let res = post(body.chars().take(80).collect::<String>() + &body[body.len().min(80)..])
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), status);
        let v: Value = res.json().await.unwrap_or(Value::Null);
        if status != 413 {
            assert!(
                v["error"]["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty()),
                "{v}"
            );
            assert!(v["error"]["type"].is_string(), "{v}");
        }
        if let Some(c) = code {
            assert_eq!(v["error"]["code"], c, "{v}");
        }
    }
    let res = client()
        .get(format!("{}/v1/nothing", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    // Still serving after all that.
    llm.reply(Reply::text("fine"));
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "provider/scripted", "messages": [{"role": "user", "content": "ok?"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Graceful shutdown ends the server task.
    s.stop.take().unwrap().send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), s.task)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn without_a_key_it_starts_only_when_asked_and_for_this_computer_only() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        Arc::new(Engine::load_with(BatonPaths::under(dir.path()), Overrides::default()).unwrap());
    let refused = |addr: &str, options| {
        baton_server::serve(
            Arc::clone(&engine),
            addr.parse().unwrap(),
            options,
            |_, _| {},
            async {},
        )
    };
    let e = refused("127.0.0.1:0", baton_server::ServeOptions::default())
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("no API key yet") && e.to_string().contains("--no-auth"),
        "{e}"
    );
    let e = refused("0.0.0.0:0", open()).await.unwrap_err();
    assert!(e.to_string().contains("this computer only"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_stops_the_turn() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    llm.reply(Reply::tool_call("block_for", json!({"seconds": 3})));
    llm.reply(Reply::text("Blocked, then answered."));
    let mut res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "assistant", "stream": true,
            "messages": [{"role": "user", "content": "Block for 3 s."}]}))
        .send()
        .await
        .unwrap();
    // Tool activity arrives as SSE comments while the tool runs.
    let mut seen = String::new();
    while !seen.contains(": tool block_for started") {
        let chunk = res.chunk().await.unwrap().expect("the stream goes on");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(res);
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let calls = llm
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count();
    assert_eq!(calls, 1, "the turn went on after the client left");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_page_cannot_drive_the_api() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let get = |headers: Vec<(&'static str, String)>| {
        let mut r = client().get(format!("{}/v1/models", s.base));
        for (k, v) in headers {
            r = r.header(k, v);
        }
        async move { r.send().await.unwrap() }
    };
    // A page in the user's browser (it sends its Origin).
    let page = get(vec![("origin", "https://evil.example".into())]).await;
    assert_eq!(page.status(), 403);
    let body = page.text().await.unwrap();
    assert!(body.contains("web pages"), "{body}");
    // A page's own name re-pointed at 127.0.0.1 (DNS rebinding).
    let rebound = get(vec![("host", format!("evil.example:{port}"))]).await;
    assert_eq!(rebound.status(), 403);
    assert!(rebound.text().await.unwrap().contains("not this computer"));
    // Programs on this computer, and pages served from it, are answered.
    for ok in [
        vec![],
        vec![("host", format!("localhost:{port}"))],
        vec![("origin", "http://localhost:5173".into())],
        vec![("host", format!("[::1]:{port}"))],
    ] {
        let r = get(ok.clone()).await;
        assert_eq!(r.status(), 200, "{ok:?}");
    }
}

/// Asks for the lunch note with a model that posts it (`post_note`, which
/// sends it off the machine), then says "Done.".
async fn lunch_note(llm: &ScriptedServer, s: &Running, stream: bool) -> reqwest::Response {
    let sink = format!("{}/_sink/notes", llm.url());
    llm.reply(Reply::tool_call(
        "post_note",
        json!({"url": sink, "text": "Lunch moved to 1 pm"}),
    ));
    llm.reply(Reply::text("Done."));
    client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "assistant", "stream": stream,
            "messages": [{"role": "user", "content": "Tell the team lunch moved"}]}))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_held_back_is_told_to_the_caller() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let v: Value = lunch_note(&llm, &s, false).await.json().await.unwrap();
    let notices = v["baton"]["notices"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        notices.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.starts_with("held back: Diagnostics.post_note"))),
        "the caller hears it, whatever the model says: {v}"
    );
    assert_eq!(v["baton"]["tool_calls"][0]["ok"], false, "{v}");
    assert!(
        !llm.requests().iter().any(|r| r.path == "/_sink/notes"),
        "nothing was sent"
    );
    // Streamed, it is a comment beside the text.
    let streamed = lunch_note(&llm, &s, true).await.text().await.unwrap();
    assert!(
        streamed.contains(": notice held back: Diagnostics.post_note"),
        "{streamed}"
    );
}

use baton_test_support::venv_python;

/// Runs an official SDK's client script against a server whose scripted
/// model gives the three answers it asks for, and checks its report.
async fn sdk_journey(program: std::path::PathBuf, script: &str) {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    // As a user would run it: with a key.
    let key = KeyStore::new(&s.dir.paths().data_dir)
        .add("sdk", Door::Serve)
        .unwrap();
    llm.reply(Reply::text("Paris."));
    llm.reply(Reply::text("Madrid, since 1561."));
    llm.reply(Reply::text("Revenue grew by 12 percent."));
    let script = format!("{}/tests/clients/{script}", manifest_dir());
    let out = tokio::process::Command::new(program)
        .arg(script)
        .arg(&s.base)
        .arg(docx())
        .arg(&key)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let models: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        models.contains(&"assistant") && models.contains(&"provider/scripted"),
        "{v}"
    );
    assert_eq!(v["whole"]["text"], "Paris.");
    assert_eq!(v["whole"]["finish"], "stop");
    assert_eq!(v["whole"]["object"], "chat.completion");
    assert!(v["whole"]["usage"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["streamed"]["text"], "Madrid, since 1561.");
    assert_eq!(v["streamed"]["finish"], "stop");
    assert!(v["streamed"]["usage"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["unknown"]["status"], 404, "{v}");
    assert_eq!(v["unknown"]["code"], "model_not_found", "{v}");
    check_files_journey(&v["files"], &llm);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_python_sdk_is_a_client() {
    sdk_journey(venv_python(), "openai_sdk.py").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_javascript_sdk_is_a_client() {
    let modules = format!("{}/tests/clients/node_modules/openai", manifest_dir());
    assert!(
        std::path::Path::new(&modules).exists(),
        "{modules} is missing: run scripts/make-fixtures.sh --tools-only (make test does)"
    );
    sdk_journey("node".into(), "openai_sdk.mjs").await;
}

/// The Word document the SDK clients upload.
fn docx() -> String {
    format!("{}/../../tests/fixtures/docs/report.docx", manifest_dir())
}

/// This crate's folder, as cargo gives it to the running test (not as
/// compiled in: one build serves every clone that shares the target dir).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
}

/// What an SDK client reported of the files journey, and what reached the
/// model: the uploaded document converted to text in the message.
fn check_files_journey(files: &Value, llm: &ScriptedServer) {
    let size = std::fs::metadata(docx()).unwrap().len();
    assert!(
        files["id"].as_str().unwrap().starts_with("file-"),
        "{files}"
    );
    assert_eq!(files["object"], "file", "{files}");
    assert_eq!(files["bytes"], size, "{files}");
    assert_eq!(files["filename"], "report.docx", "{files}");
    assert_eq!(files["purpose"], "user_data", "{files}");
    assert_eq!(files["listed"], true, "{files}");
    assert_eq!(files["same_content"], true, "{files}");
    assert_eq!(files["answer"], "Revenue grew by 12 percent.", "{files}");
    assert_eq!(files["deleted"], true, "{files}");
    assert_eq!(files["after_delete"], 404, "{files}");
    let sent = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        sent.contains("Revenue grew by 12 percent compared with the previous quarter")
            && sent.contains("report.docx")
            && sent.contains("Summarise the attached report."),
        "the document reached the model converted: {sent}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_keys_are_required_once_made_and_revoking_one_counts_at_once() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let store = KeyStore::new(&s.dir.paths().data_dir);
    let models = |key: Option<&str>| {
        let mut r = client().get(format!("{}/v1/models", s.base));
        if let Some(k) = key {
            r = r.bearer_auth(k);
        }
        r.send()
    };
    // No key made: open (on loopback).
    assert_eq!(models(None).await.unwrap().status(), 200);
    let key = store.add("ci-bot", Door::Serve).unwrap();
    assert!(key.starts_with("bk-") && key.len() > 60);
    let stored = std::fs::read_to_string(
        s.dir
            .paths()
            .data_dir
            .join(baton_engine::api::keys::KEYS_FILE),
    )
    .unwrap();
    assert!(!stored.contains(&key), "only the hash is kept");
    // From the next request on, a key is needed.
    let res = models(None).await.unwrap();
    assert_eq!(res.status(), 401);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["error"]["code"], "invalid_api_key", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Authorization: Bearer")
    );
    assert_eq!(models(Some("bk-wrong")).await.unwrap().status(), 401);
    assert_eq!(models(Some(&key)).await.unwrap().status(), 200);
    // Health stays open for load balancers.
    assert_eq!(
        client()
            .get(format!("{}/health", s.base))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert!(matches!(
        store.add("ci-bot", Door::Serve),
        Err(baton_engine::api::keys::KeyError::Exists(_))
    ));
    assert!(matches!(
        store.add("bad name", Door::Serve),
        Err(baton_engine::api::keys::KeyError::BadName(_))
    ));
    store.revoke("ci-bot", Door::Serve).unwrap();
    assert!(store.list().unwrap().is_empty());
    assert_eq!(
        models(Some(&key)).await.unwrap().status(),
        200,
        "no key left: open again on loopback"
    );

    // With a key, another host may be served; revoking every key then
    // closes the server instead of opening it.
    let other = store.add("lan", Door::Serve).unwrap();
    let engine = Arc::new(
        Engine::load_with(
            s.dir.paths(),
            Overrides {
                providers: Some(s.dir.root().join("providers.json")),
                ..Overrides::default()
            },
        )
        .unwrap(),
    );
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(baton_server::serve(
        engine,
        "0.0.0.0:0".parse().unwrap(),
        open(),
        move |a, with_keys| {
            let _ = bound_tx.send((a, with_keys));
        },
        std::future::pending(),
    ));
    let (addr, with_keys) = bound_rx.await.unwrap();
    assert!(with_keys);
    let lan = format!("http://127.0.0.1:{}/v1/models", addr.port());
    assert_eq!(
        client()
            .get(&lan)
            .bearer_auth(&other)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    store.revoke("lan", Door::Serve).unwrap();
    assert_eq!(
        client()
            .get(&lan)
            .bearer_auth(&other)
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    assert_eq!(client().get(&lan).send().await.unwrap().status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_at_once_or_per_minute_is_429_with_retry_after() {
    let llm = ScriptedServer::start().await.unwrap();
    let limits = baton_server::Limits {
        max_concurrent: 1,
        per_minute: 3,
        ..Default::default()
    };
    let options = baton_server::ServeOptions { limits, ..open() };
    let s = start_with(&llm, options).await;
    // One slow answer holds the only place while it streams.
    llm.reply(Reply::paced("one two three four five six", 200));
    let body = |content: &str| {
        json!({"model": "assistant", "stream": true,
        "messages": [{"role": "user", "content": content}]})
    };
    let mut first = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body("slow"))
        .send()
        .await
        .unwrap();
    let _ = first.chunk().await.unwrap();
    let second = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body("meanwhile"))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 429);
    assert_eq!(second.headers()["retry-after"], "1");
    let v: Value = second.json().await.unwrap();
    assert_eq!(v["error"]["code"], "rate_limit_exceeded", "{v}");
    while first.chunk().await.unwrap().is_some() {}
    // Two requests made so far this minute (the refused one counts): the
    // third passes, the fourth not.
    assert_eq!(
        client()
            .get(format!("{}/v1/models", s.base))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let fourth = client()
        .get(format!("{}/v1/models", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(fourth.status(), 429);
    let wait: u64 = fourth.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_baton_session_keeps_the_history_on_the_server() {
    for kind in [
        baton_server::SessionKind::Memory,
        baton_server::SessionKind::File,
    ] {
        let llm = ScriptedServer::start().await.unwrap();
        let options = baton_server::ServeOptions {
            sessions: kind.clone(),
            ..open()
        };
        let s = start_with(&llm, options).await;
        let ask = |content: &str, session: &str| {
            client()
                .post(format!("{}/v1/chat/completions", s.base))
                .header("x-baton-session", session)
                .json(&json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}))
                .send()
        };
        llm.reply(Reply::text("Noted: your name is Ada."));
        assert_eq!(
            ask("My name is Ada.", "team-7").await.unwrap().status(),
            200
        );
        llm.reply(Reply::text("You are Ada."));
        let v: Value = ask("Who am I?", "team-7")
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "You are Ada.");
        // Only the new message was posted; the server brought the rest.
        let sent = llm.requests().last().unwrap().json()["messages"].to_string();
        assert!(
            sent.contains("My name is Ada.") && sent.contains("Noted: your name is Ada."),
            "{sent}"
        );
        // Another session knows nothing of it.
        llm.reply(Reply::text("I do not know."));
        ask("Who am I?", "team-8").await.unwrap();
        let sent = llm.requests().last().unwrap().json()["messages"].to_string();
        assert!(!sent.contains("Ada"), "{sent}");
        // Slash commands work on a kept session, without the model.
        let before = llm.requests().len();
        let v: Value = ask("/help", "team-7").await.unwrap().json().await.unwrap();
        assert!(
            !v["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .is_empty(),
            "{v}"
        );
        assert_eq!(llm.requests().len(), before);
        let e = ask("hi", "../etc").await.unwrap();
        assert_eq!(e.status(), 400);
        // Kept apart from the desktop's sessions, in the API's own folder.
        let file = s
            .dir
            .paths()
            .data_dir
            .join("api-sessions/local/team-7.json");
        assert_eq!(
            file.exists(),
            kind == baton_server::SessionKind::File,
            "{kind:?}"
        );
        assert!(!s.dir.paths().data_dir.join("sessions/team-7.json").exists());
        // Commands reaching beyond the one session are refused.
        for command in [
            "/session list",
            "/session load team-8",
            "/session delete team-8",
            "/session save copy",
        ] {
            let res = ask(command, "team-7").await.unwrap();
            assert_eq!(res.status(), 400, "{command}");
            let v: Value = res.json().await.unwrap();
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("not available over the HTTP API"),
                "{v}"
            );
        }
        // A command that changes the session is kept: after a reset the
        // next question comes without the history.
        let v: Value = ask("/session reset", "team-7")
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let said = v["choices"][0]["message"]["content"].as_str().unwrap();
        assert!(said.contains("conversation cleared"), "{v}");
        llm.reply(Reply::text("I do not know you yet."));
        ask("Who am I?", "team-7").await.unwrap();
        let sent = llm.requests().last().unwrap().json()["messages"].to_string();
        assert!(!sent.contains("Ada"), "{kind:?}: {sent}");
    }
}

/// A redis-server of the test's own (Debian's; no persistence), with a
/// password, as a shared one would have.
struct Redis {
    child: std::process::Child,
    port: u16,
}

/// The test Redis's password: it must never show in an answer.
const REDIS_PASSWORD: &str = "s3cret-redis-pass";

impl Redis {
    /// Its URL, password included.
    fn url(&self) -> String {
        format!("redis://:{REDIS_PASSWORD}@127.0.0.1:{}", self.port)
    }

    /// On a free port (another, should a process take it first).
    fn start_anywhere() -> Self {
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            if let Some(r) = Self::try_start(port) {
                return r;
            }
        }
        panic!("redis-server did not start");
    }

    fn start(port: u16) -> Self {
        Self::try_start(port).expect("redis-server starts again on its port")
    }

    /// `None` when it exits (its port was taken).
    fn try_start(port: u16) -> Option<Self> {
        let mut child = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--requirepass", REDIS_PASSWORD])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server is installed (scripts/setup.sh)");
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if child.try_wait().ok().flatten().is_some() {
                return None;
            }
            assert!(start.elapsed().as_secs() < 20, "redis-server did not start");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Some(Self { child, port })
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_sessions_on_redis_and_say_so_when_it_is_down() {
    let mut redis = Redis::start_anywhere();
    let port = redis.port;
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::parse(&redis.url(), 30).unwrap(),
        ..open()
    };
    let a = start_with(&llm, options.clone()).await;
    let b = start_with(&llm, options).await;
    let ask = |base: &str, content: &str, session: Option<&str>| {
        let mut r = client().post(format!("{base}/v1/chat/completions")).json(
            &json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}),
        );
        if let Some(s) = session {
            r = r.header("x-baton-session", s);
        }
        r.send()
    };
    llm.reply(Reply::text("Noted, Ada."));
    assert_eq!(
        ask(&a.base, "My name is Ada.", Some("shared"))
            .await
            .unwrap()
            .status(),
        200
    );
    llm.reply(Reply::text("You are Ada."));
    assert_eq!(
        ask(&b.base, "Who am I?", Some("shared"))
            .await
            .unwrap()
            .status(),
        200
    );
    let sent = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        sent.contains("My name is Ada.") && sent.contains("Noted, Ada."),
        "the other server continued it: {sent}"
    );

    // A file uploaded to one server is there on the other.
    let form = reqwest::multipart::Form::new()
        .text("purpose", "assistants")
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"Shared notes: the password hint is heron.".to_vec())
                .file_name("notes.txt"),
        );
    let up: Value = client()
        .post(format!("{}/v1/files", a.base))
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = up["id"].as_str().unwrap();
    let on_b = client()
        .get(format!("{}/v1/files/{id}/content", b.base))
        .send()
        .await
        .unwrap();
    assert_eq!(on_b.status(), 200);
    assert_eq!(
        on_b.text().await.unwrap(),
        "Shared notes: the password hint is heron."
    );
    let listed: Value = get_json(format!("{}/v1/files", b.base)).await;
    assert_eq!(listed["data"][0]["id"], id, "{listed}");

    // Redis goes away: a clear error for kept sessions; stateless requests go on.
    redis.stop();
    let res = ask(&a.base, "Still there?", Some("shared")).await.unwrap();
    assert_eq!(res.status(), 503);
    let v: Value = res.json().await.unwrap();
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("Redis at redis://127.0.0.1") && msg.contains("cannot be reached"),
        "{msg}"
    );
    assert!(
        !msg.contains(REDIS_PASSWORD),
        "the password is shown: {msg}"
    );
    llm.reply(Reply::text("Stateless still works."));
    assert_eq!(ask(&a.base, "Hello?", None).await.unwrap().status(), 200);

    // Back again: the servers recover by themselves.
    let _redis = Redis::start(port);
    let mut ok = false;
    for _ in 0..40 {
        llm.reply(Reply::text("Back."));
        if ask(&b.base, "Back?", Some("shared"))
            .await
            .unwrap()
            .status()
            == 200
        {
            ok = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(ok, "no recovery after Redis came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_bad_uploads_and_unknown_ids_are_refused_in_openai_shape() {
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        limits: baton_server::Limits {
            max_file_bytes: 1 << 20,
            ..Default::default()
        },
        ..open()
    };
    let s = start_with(&llm, options).await;
    let upload = |purpose: Option<&str>, bytes: Vec<u8>| {
        let mut form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name("a.txt"),
        );
        if let Some(p) = purpose {
            form = form.text("purpose", p.to_string());
        }
        client()
            .post(format!("{}/v1/files", s.base))
            .multipart(form)
            .send()
    };
    let error = |res: reqwest::Response| async move {
        let status = res.status().as_u16();
        let v: Value = res.json().await.unwrap();
        (
            status,
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            v["error"]["param"].clone(),
        )
    };
    let (status, msg, param) = error(upload(None, b"x".to_vec()).await.unwrap()).await;
    assert_eq!((status, param), (400, json!("purpose")), "{msg}");
    let (status, msg, _) = error(upload(Some("memes"), b"x".to_vec()).await.unwrap()).await;
    assert!(
        status == 400 && msg.contains("`memes` is not a purpose"),
        "{msg}"
    );
    let (status, msg, _) = error(
        upload(Some("assistants"), vec![b'a'; 2 << 20])
            .await
            .unwrap(),
    )
    .await;
    assert!(
        status == 413 && msg.contains("larger than this server takes (1 MB)"),
        "{status} {msg}"
    );
    let missing = "file-0123456789abcdef0123456789abcdef";
    for path in [
        format!("/v1/files/{missing}"),
        format!("/v1/files/{missing}/content"),
        "/v1/files/..%2F..%2Fsettings".into(),
    ] {
        let res = client()
            .get(format!("{}{path}", s.base))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{path}");
    }
    let res = client()
        .delete(format!("{}/v1/files/{missing}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    // A chat message naming a file that is not there, or a remote image.
    let chat = |part: Value| {
        client().post(format!("{}/v1/chat/completions", s.base)).json(&json!({"model": "assistant",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Read it."}, part]}]})).send()
    };
    let (status, msg, _) = error(
        chat(json!({"type": "file", "file": {"file_id": missing}}))
            .await
            .unwrap(),
    )
    .await;
    assert!(status == 404 && msg.contains(missing), "{msg}");
    let (status, msg, _) = error(
        chat(json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}))
            .await
            .unwrap(),
    )
    .await;
    assert!(status == 400 && msg.contains("data:"), "{msg}");
    let (status, msg, _) = error(
        chat(json!({"type": "file", "file": {"filename": "a.txt", "file_data": "not base64!"}}))
            .await
            .unwrap(),
    )
    .await;
    assert!(status == 400 && msg.contains("base64"), "{msg}");
    // Inline file data is converted like an upload; the server kept serving.
    llm.reply(Reply::text("It says hello."));
    let data = format!(
        "data:text/plain;base64,{}",
        "SGVsbG8gZnJvbSBhbiBpbmxpbmUgZmlsZS4="
    ); // "Hello from an inline file."
    let res = chat(json!({"type": "file", "file": {"filename": "inline.txt", "file_data": data}}))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let sent = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        sent.contains("Hello from an inline file.") && sent.contains("inline.txt"),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_waits_for_the_first_index_scan_and_says_when_the_provider_is_gone() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start_at(&llm.url(), open(), |ws| {
        for i in 0..300 {
            std::fs::write(
                ws.join(format!("note{i}.md")),
                format!("# Note {i}\nThe heron count is {i}."),
            )
            .unwrap();
        }
    })
    .await;
    let ready = || async {
        let res = client()
            .get(format!("{}/ready", s.base))
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json::<Value>().await.unwrap())
    };
    let started = std::time::Instant::now();
    let mut states = Vec::new();
    let v = loop {
        let (status, v) = ready().await;
        states.push((
            status,
            v["index"]["state"].as_str().unwrap_or_default().to_string(),
        ));
        if status == 200 {
            break v;
        }
        assert_eq!(v["status"], "not ready", "{v}");
        assert!(started.elapsed().as_secs() < 60, "never ready: {states:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(v["index"]["state"], "ready", "{v} after {states:?}");
    assert_eq!(v["index"]["documents"], 300, "{v}");
    assert_eq!(
        states.first(),
        Some(&(503, "indexing".to_string())),
        "not ready while the first scan runs: {states:?}"
    );

    // A provider nobody answers for: 503 and why.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let gone = start_at(&format!("http://{closed}"), no_indexing(), |_| {}).await;
    let res = client()
        .get(format!("{}/ready", gone.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["provider"]["ready"], false, "{v}");
    assert!(
        v["provider"]["detail"]
            .as_str()
            .unwrap()
            .contains("no server answering"),
        "{v}"
    );
    // Liveness is another matter.
    let res = client()
        .get(format!("{}/health", gone.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_finishes_the_answers_in_flight_and_takes_no_new_ones() {
    let llm = ScriptedServer::start().await.unwrap();
    let mut s = start(&llm).await;
    // About a second of answer, a word every 50 ms.
    let words = "one two three four five six seven eight nine ten ".repeat(2);
    llm.reply(Reply::paced(words.clone(), 50).chunked(4));
    let mut res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "assistant", "stream": true,
            "messages": [{"role": "user", "content": "Count."}]}))
        .send()
        .await
        .unwrap();
    let first = res.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("chat.completion.chunk"));
    // Ctrl-C (the shutdown signal) while it streams.
    s.stop.take().unwrap().send(()).unwrap();
    let mut body = String::from_utf8_lossy(&first).into_owned();
    while let Some(chunk) = res.chunk().await.unwrap() {
        body.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");
    let text: String = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(text, words, "the whole answer arrived");
    tokio::time::timeout(std::time::Duration::from_secs(5), &mut s.task)
        .await
        .expect("the server stopped once the answer was done")
        .unwrap();
    let refused = client().get(format!("{}/health", s.base)).send().await;
    assert!(refused.is_err(), "a stopped server takes no new requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_model_orchestrates_and_streams_its_stages() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start_at(&llm.url(), open(), |ws| {
        let agent = |name: &str, spec: &str| {
            json!({"name": name, "specialisations": [spec], "instructions": format!("ROLE-{name}"), "toolboxes": []})
        };
        let team = json!({"agents": [agent("planner", "planning"), agent("alpha", "alpha-work"), agent("beta", "beta-work"), agent("rita", "review"), agent("syn", "synthesis")]});
        let config = ws.parent().unwrap().join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("agents.json"), team.to_string()).unwrap();
    })
    .await;
    let plan = r#"[{"task": "Part A", "specialisation": "alpha-work"}, {"task": "Part B", "specialisation": "beta-work"}]"#;
    let script = |llm: &ScriptedServer| {
        llm.reply_when("ROLE-planner", Reply::text(plan));
        llm.reply_when("ROLE-alpha", Reply::text("A done."));
        llm.reply_when("ROLE-beta", Reply::text("B done."));
        llm.reply_when("ROLE-rita", Reply::text(r#"{"approved": true}"#));
        llm.reply_when("ROLE-rita", Reply::text(r#"{"approved": true}"#));
        llm.reply_when("ROLE-syn", Reply::text("A and B, together."));
    };
    let models = get_json(format!("{}/v1/models", s.base)).await;
    assert!(
        models["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "team"),
        "{models}"
    );

    script(&llm);
    let body = json!({"model": "team", "messages": [{"role": "user", "content": "Do A and B"}]});
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "A and B, together.");
    assert_eq!(
        v["baton"]["team"]["plan"].as_array().unwrap().len(),
        2,
        "{v}"
    );
    let team = &v["baton"]["team"];
    assert_eq!(team["reviews"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(team["notes"], json!([]), "{v}");
    assert_eq!(llm.remaining(), 0);

    script(&llm);
    let body = json!({"model": "team", "stream": true, "messages": [{"role": "user", "content": "Do A and B"}]});
    let text = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let planning = text.find("\"stage\":\"planning\"").expect(&text);
    let answer = text.find("A and B, together.").expect(&text);
    assert!(
        planning < answer,
        "the stages come before the answer: {text}"
    );
    assert!(text.trim_end().ends_with("data: [DONE]"), "{text}");
    assert_eq!(llm.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_notes_are_kept_on_the_sessions_redis() {
    let redis = Redis::start_anywhere();
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::parse(&redis.url(), 30).unwrap(),
        ..open()
    };
    let s = start_at(&llm.url(), options, |ws| {
        let agent = |name: &str, spec: &str| {
            json!({"name": name, "specialisations": [spec], "instructions": format!("ROLE-{name}"), "toolboxes": []})
        };
        let team = json!({"agents": [agent("planner", "planning"), agent("alpha", "alpha-work"), agent("syn", "synthesis")]});
        let config = ws.parent().unwrap().join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("agents.json"), team.to_string()).unwrap();
    })
    .await;
    let plan = r#"[{"task": "Part A", "specialisation": "alpha-work"}, {"task": "Part B", "specialisation": "alpha-work"}]"#;
    llm.reply_when("ROLE-planner", Reply::text(plan));
    llm.reply_when("ROLE-alpha", Reply::text("A done."));
    llm.reply_when("ROLE-alpha", Reply::text("B done."));
    llm.reply_when("ROLE-syn", Reply::text("Both done."));
    // alpha is the only one with work; syn reviews it (no reviewer role).
    llm.reply_when("ROLE-syn", Reply::text(r#"{"approved": true}"#));
    llm.reply_when("ROLE-syn", Reply::text(r#"{"approved": true}"#));
    let body = json!({"model": "team", "messages": [{"role": "user", "content": "Do A and B"}]});
    let v: Value = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["baton"]["team"]["success"], true, "{v}");
    let key = format!(
        "baton:team:{}",
        v["baton"]["team"]["sessionId"].as_str().unwrap()
    );
    let cli = |args: &[&str]| {
        let out = std::process::Command::new("redis-cli")
            .args(["-p", &redis.port.to_string()])
            .env("REDISCLI_AUTH", REDIS_PASSWORD)
            .args(args)
            .output()
            .expect("redis-cli is installed with redis-server");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(cli(&["HLEN", &key]), "2", "both answers are on Redis");
    let kept = cli(&["HGETALL", &key]);
    assert!(
        ["alpha: Part A", "alpha: Part B", "A done.", "B done."]
            .iter()
            .all(|w| kept.contains(w)),
        "{kept}"
    );
    let ttl: i64 = cli(&["TTL", &key]).parse().unwrap();
    assert!(
        ttl > 3600 && ttl <= 24 * 3600,
        "it expires within a day: {ttl}"
    );
}

/// A multipart form with one file, `name`, holding `text`.
fn one_file(name: &str, text: &str) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new()
        .text("purpose", "assistants")
        .part(
            "file",
            reqwest::multipart::Part::bytes(text.as_bytes().to_vec()).file_name(name.to_string()),
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_key_sees_only_its_own_sessions_and_files() {
    let redis = Redis::start_anywhere();
    let kinds = [
        baton_server::SessionKind::Memory,
        baton_server::SessionKind::File,
        baton_server::SessionKind::parse(&redis.url(), 30).unwrap(),
    ];
    for kind in kinds {
        let llm = ScriptedServer::start().await.unwrap();
        let options = baton_server::ServeOptions {
            sessions: kind.clone(),
            ..no_indexing()
        };
        let s = start_with(&llm, options).await;
        let store = KeyStore::new(&s.dir.paths().data_dir);
        let alice = store.add("alice", Door::Serve).unwrap();
        let bob = store.add("bob", Door::Serve).unwrap();
        let ask = |key: &str, content: &str| {
            client()
                .post(format!("{}/v1/chat/completions", s.base))
                .bearer_auth(key)
                .header("x-baton-session", "same-name")
                .json(&json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}))
                .send()
        };
        let last_sent = || llm.requests().last().unwrap().json()["messages"].to_string();
        llm.reply(Reply::text("Noted."));
        assert_eq!(ask(&alice, "My PIN is 4711.").await.unwrap().status(), 200);
        // Bob, with the same session name, gets a conversation of his own,
        // and neither his turn nor his reset touches Alice's.
        llm.reply(Reply::text("I do not know it."));
        assert_eq!(ask(&bob, "What is my PIN?").await.unwrap().status(), 200);
        assert!(!last_sent().contains("4711"), "{kind:?}: {}", last_sent());
        let reset = ask(&bob, "/session reset").await.unwrap();
        assert_eq!(reset.status(), 200, "{kind:?}");
        llm.reply(Reply::text("It is 4711."));
        ask(&alice, "What is my PIN?").await.unwrap();
        let sent = last_sent();
        assert!(
            sent.contains("My PIN is 4711.") && !sent.contains("I do not know it."),
            "{kind:?}: {sent}"
        );

        // Files: Bob can neither list, read, delete nor attach Alice's.
        let up: Value = client()
            .post(format!("{}/v1/files", s.base))
            .bearer_auth(&alice)
            .multipart(one_file("pin.txt", "Alice's PIN is 4711."))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = up["id"].as_str().unwrap().to_string();
        let as_bob = |method: reqwest::Method, path: String| {
            client()
                .request(method, format!("{}{path}", s.base))
                .bearer_auth(&bob)
                .send()
        };
        let listed: Value = as_bob(reqwest::Method::GET, "/v1/files".into())
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(listed["data"], json!([]), "{kind:?}");
        for (method, path) in [
            (reqwest::Method::GET, format!("/v1/files/{id}")),
            (reqwest::Method::GET, format!("/v1/files/{id}/content")),
            (reqwest::Method::DELETE, format!("/v1/files/{id}")),
        ] {
            let res = as_bob(method.clone(), path.clone()).await.unwrap();
            assert_eq!(res.status(), 404, "{kind:?}: {method} {path}");
        }
        let attach = client()
            .post(format!("{}/v1/chat/completions", s.base))
            .bearer_auth(&bob)
            .json(
                &json!({"model": "assistant", "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Read it."},
                {"type": "file", "file": {"file_id": id}}]}]}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(attach.status(), 404, "{kind:?}");
        let mine = client()
            .get(format!("{}/v1/files/{id}/content", s.base))
            .bearer_auth(&alice)
            .send()
            .await
            .unwrap();
        assert_eq!(mine.text().await.unwrap(), "Alice's PIN is 4711.");

        // Readiness: the status to anyone, the details to a key's holder.
        let ready = |key: Option<&str>| {
            let mut r = client().get(format!("{}/ready", s.base));
            if let Some(k) = key {
                r = r.bearer_auth(k);
            }
            async move { r.send().await.unwrap().json::<Value>().await.unwrap() }
        };
        let plain = ready(None).await;
        assert_eq!(
            plain.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["status"],
            "{plain}"
        );
        let full = ready(Some(&alice)).await;
        assert_eq!(full["agent"], "assistant", "{full}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_whose_owner_shares_its_sessions_adds_them_to_the_desktops_history() {
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::File,
        ..no_indexing()
    };
    let s = start_with(&llm, options).await;
    let store = KeyStore::new(&s.dir.paths().data_dir);
    let phone = store.add("phone", Door::Serve).unwrap();
    let script = store.add("script", Door::Serve).unwrap();
    store.share_sessions("phone", Door::Serve, true).unwrap();
    let ask = |key: &str, session: &str, content: &str| {
        llm.reply(Reply::text("Noted."));
        client()
            .post(format!("{}/v1/chat/completions", s.base))
            .bearer_auth(key)
            .header("x-baton-session", session)
            .json(
                &json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}),
            )
            .send()
    };
    assert_eq!(
        ask(&phone, "groceries", "Buy milk.")
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        ask(&script, "plans", "The plan.").await.unwrap().status(),
        200
    );
    let desktop = s.dir.paths().data_dir.join("sessions");
    let kept = std::fs::read_to_string(desktop.join("groceries.json")).unwrap();
    assert!(kept.contains("Buy milk."), "{kept}");
    assert!(
        !desktop.join("plans.json").exists(),
        "a key that does not share stays apart"
    );
    // Sharing does not let the holder browse the desktop's conversations.
    let listed = ask(&phone, "groceries", "/session list").await.unwrap();
    assert_eq!(listed.status(), 400);
    // Apart again: its next conversation is not the desktop's.
    store.share_sessions("phone", Door::Serve, false).unwrap();
    assert_eq!(
        ask(&phone, "later", "Call Ann.").await.unwrap().status(),
        200
    );
    assert!(!desktop.join("later.json").exists());
    let e = store
        .share_sessions("nobody", Door::Serve, true)
        .unwrap_err();
    assert!(e.to_string().contains("nobody"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_count_against_the_keys_quota_and_expire() {
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        limits: baton_server::Limits {
            max_file_bytes: 1 << 20,
            file_quota_bytes: 3 << 19,
            file_days: 2,
            ..Default::default()
        },
        ..no_indexing()
    };
    let s = start_with(&llm, options).await;
    let upload = |form: reqwest::multipart::Form| {
        client()
            .post(format!("{}/v1/files", s.base))
            .multipart(form)
            .send()
    };
    let mb = "m".repeat(1 << 20);
    let first: Value = upload(one_file("a.txt", &mb))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (created, expires) = (
        first["created_at"].as_i64().unwrap(),
        first["expires_at"].as_i64().unwrap(),
    );
    assert_eq!(expires - created, 2 * 86_400, "{first}");
    // Half a MB of the quota is left: a whole MB is refused, and why.
    let res = upload(one_file("b.txt", &mb)).await.unwrap();
    assert_eq!(res.status(), 413);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["error"]["code"], "quota_exceeded", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1.0 MB of its 1.5 MB"),
        "{v}"
    );
    // The refused upload left nothing behind.
    let folder = s.dir.paths().data_dir.join("api-files/local");
    let names = || -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names().len(), 2, "{:?}", names());
    // An upload may ask to be kept for less; not for less than an hour.
    let short = one_file("c.txt", "brief").text("expires_after[anchor]", "created_at");
    let v: Value = upload(short.text("expires_after[seconds]", "3600"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        v["expires_at"].as_i64().unwrap() - v["created_at"].as_i64().unwrap(),
        3600
    );
    let bad = one_file("d.txt", "x").text("expires_after[seconds]", "60");
    assert_eq!(upload(bad).await.unwrap().status(), 400);
    // Once its time is up (the record says so), a file is gone.
    let id = first["id"].as_str().unwrap();
    let record = folder.join(format!("{id}.json"));
    let mut r: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    r["expires_at"] = json!(created - 1);
    std::fs::write(&record, r.to_string()).unwrap();
    let listed: Value = get_json(format!("{}/v1/files", s.base)).await;
    let ids: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(!ids.contains(&id) && ids.len() == 1, "{listed}");
    let res = client()
        .get(format!("{}/v1/files/{id}/content", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    assert!(!folder.join(format!("{id}.bin")).exists());
    // Its room is free again.
    assert_eq!(upload(one_file("e.txt", &mb)).await.unwrap().status(), 200);
}

/// This process's resident memory now, in MB (Linux).
fn rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_uploads_are_streamed_to_disk_not_held_in_memory() {
    const UPLOADS: usize = 64;
    // 64 × 100 MB: 6.4 GB through the server (10 s on 2 cores);
    // BATON_UPLOAD_TEST_MB sets another size.
    let mb_each: usize = std::env::var("BATON_UPLOAD_TEST_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        limits: baton_server::Limits {
            file_quota_bytes: u64::MAX,
            ..Default::default()
        },
        ..no_indexing()
    };
    let s = start_with(&llm, options).await;
    let before = rss_mb();
    let peak = Arc::new(std::sync::atomic::AtomicU64::new(before));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak.fetch_max(rss_mb(), std::sync::atomic::Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
    };
    // Each upload is generated as it is sent: the client holds a piece at
    // a time, so what the process holds is the server's share.
    let uploads = (0..UPLOADS).map(|i| {
        let pieces = futures::stream::iter(
            (0..mb_each * 4)
                .map(move |_| Ok::<_, std::io::Error>(vec![b'a' + (i % 26) as u8; 256 << 10])),
        );
        let part = reqwest::multipart::Part::stream_with_length(
            reqwest::Body::wrap_stream(pieces),
            (mb_each << 20) as u64,
        )
        .file_name(format!("big{i}.bin"));
        let form = reqwest::multipart::Form::new()
            .text("purpose", "assistants")
            .part("file", part);
        client()
            .post(format!("{}/v1/files", s.base))
            .multipart(form)
            .send()
    });
    let answers = futures::future::join_all(uploads).await;
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    sampler.join().unwrap();
    for a in answers {
        assert_eq!(a.unwrap().status(), 200);
    }
    let grew = peak.load(std::sync::atomic::Ordering::Relaxed) - before;
    let total = UPLOADS * mb_each;
    eprintln!("{UPLOADS} parallel uploads of {mb_each} MB ({total} MB): memory grew {grew} MB");
    // Held whole, the uploads alone would take `total` MB; streamed, what
    // stays is the pieces in flight and the allocator's high-water mark
    // (160 MB measured on 2 cores): the ceiling is 256 MB whatever their
    // size.
    assert!(
        grew < 256,
        "memory grew {grew} MB for {total} MB of uploads"
    );
    let listed: Value = get_json(format!("{}/v1/files", s.base)).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), UPLOADS);
}
