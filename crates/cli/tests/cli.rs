//! The `baton` binary end to end: a real process against the scripted
//! server, with its own config folder; keychain tests use the real Secret
//! Service that `make test` starts (gnome-keyring in a D-Bus session).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A providers file whose `scripted` entry (OpenAI dialect, no key) and
    /// `scripted-keyed` entry (declares a key variable) point at `server`.
    fn providers(&self, server: &ScriptedServer) -> PathBuf {
        let file = self.path().join("providers.json");
        let doc = json!({"default": "scripted", "providers": [
            {"name": "scripted", "dialect": "openai", "endpoint": format!("{}/v1", server.url()), "model": "m"},
            {"name": "scripted-keyed", "dialect": "openai", "endpoint": format!("{}/v1", server.url()),
             "model": "m", "apiKeyEnv": "BATON_TEST_SCRIPTED_KEY"},
            {"name": "scripted-ollama", "dialect": "ollama", "endpoint": server.url(), "model": "m"}
        ]});
        std::fs::write(&file, doc.to_string()).unwrap();
        file
    }

    /// `baton` on the scripted server's providers file.
    fn scripted(&self, server: &ScriptedServer) -> tokio::process::Command {
        let mut c = self.cmd();
        c.arg("--providers").arg(self.providers(server));
        c
    }

    fn cmd(&self) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_baton"));
        // HOME too, so the default workspace (~/Documents) is a temp folder.
        c.env("HOME", self.path().join("home"))
            .env("BATON_CONFIG_DIR", self.path().join("config"))
            .env("BATON_DATA_DIR", self.path().join("data"))
            .env_remove("BATON_WORKSPACE")
            .env_remove("BATON_PROVIDERS")
            .env_remove("BATON_TEST_SCRIPTED_KEY")
            .env_remove("SCRIPTED_KEYED_API_KEY")
            .kill_on_drop(true)
            .stdin(Stdio::null());
        c
    }
}

/// A message's text without the per-call context the engine appends to
/// the last one (the time and the workspace, after "\n\nNow: ").
fn said(content: &Value) -> String {
    let text = content.as_str().unwrap_or_default();
    text.split_once("\n\nNow: ")
        .map_or(text, |(before, _)| before)
        .to_string()
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `c` to its end (at most 30 s), feeding it `stdin`.
async fn run(c: tokio::process::Command, stdin: Option<&str>) -> Out {
    run_for(c, stdin, Duration::from_secs(30)).await
}

/// Runs `c` to its end (at most `limit`), feeding it `stdin`.
async fn run_for(mut c: tokio::process::Command, stdin: Option<&str>, limit: Duration) -> Out {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    if stdin.is_some() {
        c.stdin(Stdio::piped());
    }
    let mut child = c.spawn().unwrap();
    if let Some(text) = stdin {
        let mut s = child.stdin.take().unwrap();
        s.write_all(text.as_bytes()).await.unwrap();
        drop(s);
    }
    let o = tokio::time::timeout(limit, child.wait_with_output())
        .await
        .expect("the command ended in time")
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into(),
        stderr: String::from_utf8_lossy(&o.stderr).into(),
    }
}

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
    assert_eq!(
        msgs.last().unwrap(),
        &json!({"role": "user", "content": "What is the capital?"})
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
async fn key_from_environment_is_sent() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.env("BATON_TEST_SCRIPTED_KEY", "sk-from-env")
        .args(["ask", "-p", "scripted-keyed", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-from-env")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_keeps_history_between_turns() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Hello Ada."));
    server.reply(Reply::text("Your name is Ada."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(env.path().join("ws")).arg("chat");
    let o = run(c, Some("I am Ada\nWhat is my name?\n/exit\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "Hello Ada.\nYour name is Ada.\n");
    let second = server.requests()[1].json();
    let msgs = second["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    // The stored exchange exactly; the new message carries the time too.
    assert_eq!(
        &msgs[1..3],
        &[
            json!({"role": "user", "content": "I am Ada"}),
            json!({"role": "assistant", "content": "Hello Ada."}),
        ]
    );
    assert_eq!(
        (msgs.len(), said(&msgs[3]["content"])),
        (4, "What is my name?".into())
    );
}

/// Runs `c`, and `settle` after the scripted server got its first request
/// sends it Ctrl-C (SIGINT); its output and how long it took to end.
async fn interrupt_after_request(
    mut c: tokio::process::Command,
    server: &ScriptedServer,
    settle: Duration,
) -> (std::process::Output, Duration) {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let pid = child.id().unwrap();
    let t = Instant::now();
    while server.requests().is_empty() && t.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(settle).await;
    let t = Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let o = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("the command ended after Ctrl-C")
        .unwrap();
    (o, t.elapsed())
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

#[tokio::test(flavor = "multi_thread")]
async fn config_set_show_and_workspace_override() {
    let env = Env::new();
    let mut c = env.cmd();
    c.args(["config", "set", "smtp.port", "587"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut c = env.cmd();
    c.args(["config", "set", "smtp.port", "lots"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("invalid value for `smtp.port`"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.args(["config", "set", "provider", "nope"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("no provider named `nope`"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.args(["config", "set", "workspace", "/srv/docs"]);
    assert_eq!(run(c, None).await.code, 0);

    let mut c = env.cmd();
    c.args(["config", "show", "--json"]);
    let o = run(c, None).await;
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["settings"]["smtp"]["port"], 587);
    assert_eq!(v["workspace"], "/srv/docs");
    assert_eq!(v["settings"]["attachmentContextChars"], 30000);
    // BATON_WORKSPACE and --workspace override the setting.
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", "/from/env")
        .args(["config", "show", "--json"]);
    let v: Value = serde_json::from_str(&run(c, None).await.stdout).unwrap();
    assert_eq!(v["workspace"], "/from/env");
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", "/from/env").args([
        "--workspace",
        "/from/flag",
        "config",
        "show",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&run(c, None).await.stdout).unwrap();
    assert_eq!(v["workspace"], "/from/flag");
    // The settings file never holds secrets.
    let text = std::fs::read_to_string(env.path().join("config/setup.json")).unwrap();
    assert!(!text.to_lowercase().contains("key"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn corrupt_settings_warn_and_are_kept_aside() {
    let env = Env::new();
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    std::fs::write(env.path().join("config/setup.json"), "{ broken").unwrap();
    let mut c = env.cmd();
    c.args(["config", "set", "anonymize", "true"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("warning: settings file") && o.stderr.contains("kept as"),
        "{}",
        o.stderr
    );
    let names: Vec<String> = std::fs::read_dir(env.path().join("config"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let aside = names
        .iter()
        .find(|n| n.starts_with("setup.json.corrupt-"))
        .expect("kept aside");
    assert_eq!(
        std::fs::read_to_string(env.path().join("config").join(aside)).unwrap(),
        "{ broken"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn providers_lists_readiness() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.env("BATON_TEST_SCRIPTED_KEY", "k")
        .args(["providers", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let by = |n: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by("scripted")["ready"], true);
    assert_eq!(by("scripted")["default"], true);
    assert_eq!(by("scripted-keyed")["ready"], true);
    assert!(
        by("scripted-keyed")["detail"]
            .as_str()
            .unwrap()
            .contains("BATON_TEST_SCRIPTED_KEY")
    );
    assert_eq!(by("scripted-ollama")["ready"], true);
    assert!(server.requests().iter().any(|r| r.path == "/api/tags"));
    drop(server);
    // Nothing answering → not ready, said plainly.
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(env.path().join("providers.json"))
        .args(["providers", "--json"]);
    let v: Value = serde_json::from_str(&run(c, None).await.stdout).unwrap();
    assert_eq!(v[0]["ready"], false);
    assert!(
        v[0]["detail"]
            .as_str()
            .unwrap()
            .contains("no server answering")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_keychain_secrets_fail_clearly_and_nothing_is_written() {
    let env = Env::new();
    let mut c = env.cmd();
    c.env(
        "DBUS_SESSION_BUS_ADDRESS",
        format!("unix:path={}", env.path().join("no-bus").display()),
    )
    .args(["secret", "set", "deepseek"]);
    let o = run(c, Some("sk-should-not-be-stored\n")).await;
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("no keychain is available") && o.stderr.contains("environment variable"),
        "{}",
        o.stderr
    );
    // No plain-text fallback anywhere under Baton's folders.
    for entry in walk(env.path()) {
        let text = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&text).contains("sk-should-not-be-stored"),
            "{}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Whether the real Secret Service is up for this run. `make test` sets
/// BATON_REQUIRE_KEYCHAIN=1 and starts gnome-keyring, so there a missing
/// keychain fails the test instead of skipping it.
fn keychain_available() -> bool {
    let required = std::env::var("BATON_REQUIRE_KEYCHAIN").is_ok_and(|v| v == "1");
    let status = baton_config::Secrets::new().status();
    match (status, required) {
        (Ok(()), _) => true,
        (Err(e), true) => panic!("BATON_REQUIRE_KEYCHAIN=1 but the keychain is unavailable: {e}"),
        (Err(e), false) => {
            eprintln!("skipping keychain test (run it with `make test`): {e}");
            false
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_live_in_the_real_keychain_and_env_overrides_them() {
    if !keychain_available() {
        return;
    }
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let providers = env.providers(&server);
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["secret", "set", "scripted-keyed"]);
    let o = run(c, Some("sk-in-keychain-42\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Stored in the Secret Service under service "baton".
    let lookup = std::process::Command::new("secret-tool")
        .args(["lookup", "service", "baton", "username", "scripted-keyed"])
        .output();
    let l = lookup.expect("secret-tool (apt: libsecret-tools) runs");
    assert!(l.status.success(), "secret-tool found no entry");
    assert_eq!(
        String::from_utf8_lossy(&l.stdout).trim(),
        "sk-in-keychain-42"
    );
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["secret", "list"]);
    let o = run(c, None).await;
    assert_eq!(
        o.stdout.lines().collect::<Vec<_>>(),
        vec!["scripted-keyed"],
        "{}",
        o.stderr
    );
    assert!(!o.stdout.contains("sk-in"));

    // The key from the keychain is used…
    server.reply(Reply::text("ok"));
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["ask", "-p", "scripted-keyed", "hi"]);
    assert_eq!(run(c, None).await.code, 0);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-in-keychain-42")
    );
    // …unless the environment says otherwise.
    server.reply(Reply::text("ok"));
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .env("BATON_TEST_SCRIPTED_KEY", "sk-env")
        .args(["ask", "-p", "scripted-keyed", "hi"]);
    assert_eq!(run(c, None).await.code, 0);
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some("Bearer sk-env")
    );
    // config show masks it.
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["config", "show", "--json"]);
    let v: Value = serde_json::from_str(&run(c, None).await.stdout).unwrap();
    assert_eq!(v["secrets"]["scripted-keyed"], "****n-42 (keychain)");

    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["secret", "delete", "scripted-keyed"]);
    let o = run(c, None).await;
    assert!(o.stdout.contains("deleted"), "{}", o.stderr);
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .args(["secret", "list"]);
    assert_eq!(run(c, None).await.stdout, "");
}

fn ws(env: &Env) -> PathBuf {
    let dir = env.path().join("ws");
    std::fs::create_dir_all(dir.join("reports")).unwrap();
    std::fs::write(dir.join("reports/q1.txt"), "Q1 revenue up 12%").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_edits_a_workbook_through_the_agent_loop() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    let fixture =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/sheets/rich_lo.xlsx");
    std::fs::copy(&fixture, dir.join("budget.xlsx")).unwrap();
    server.reply(Reply::tool_call(
        "describe_worksheet",
        json!({"path": "/budget.xlsx"}),
    ));
    server.reply(Reply::tool_call(
        "set_range_values",
        json!({"path": "/budget.xlsx", "sheet": "Sales", "range": "G1", "values": [["Shipping"], [4.5], ["=G2*2"]]}),
    ));
    server.reply(Reply::tool_call("save", json!({"path": "/budget.xlsx"})));
    server.reply(Reply::text(
        "Added a Shipping column; the old file is /budget.xlsx.001.bak.",
    ));
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(&dir).args([
        "ask",
        "--mode",
        "api",
        "--json",
        "Add a shipping column to my budget",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["iterations"], 4, "{v}");
    assert_eq!(
        v["toolCalls"][0]["outcome"]["ok"]["column_types"][0]["header"], "Month",
        "{v}"
    );
    assert_eq!(
        v["toolCalls"][1]["outcome"]["ok"]["changed"], "G1:G3",
        "{v}"
    );
    assert_eq!(
        v["toolCalls"][2]["outcome"]["ok"]["backup"], "/budget.xlsx.001.bak",
        "{v}"
    );
    assert!(dir.join("budget.xlsx.001.bak").exists());
    // A fresh process reads the saved file: the column is there.
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args([
        "tools",
        "call",
        r#"{"method": "get_cell_value", "path": "/budget.xlsx", "sheet": "Sales", "cell": "G3"}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let cell: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(cell["formula"], "=G2*2", "{cell}");
}

/// A loopback site with a sign-up form; what it was sent.
async fn form_site() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use axum::response::Html;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    let app = axum::Router::new()
        .route(
            "/signup",
            axum::routing::get(|| async {
                Html(r#"<html><head><title>Sign up</title></head><body><h1>Newsletter</h1><form method="post" action="/done"><label>Name <input name="name"></label><button>Sign up</button></form></body></html>"#)
            }),
        )
        .route(
            "/done",
            axum::routing::post(move |body: String| {
                kept.lock().unwrap().push(body);
                async { Html("<html><head><title>Welcome</title></head><body>You are signed up.</body></html>") }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_does_a_chore_in_the_browser() {
    let (site, seen) = form_site().await;
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    std::fs::write(
        env.path().join("config/setup.json"),
        json!({"skipIndexingOnStartup": true, "browser": {"mode": "headless", "path": "/usr/bin/chromium"}}).to_string(),
    )
    .unwrap();
    server.reply(Reply::tool_call(
        "navigate",
        json!({"url": format!("{site}/signup")}),
    ));
    server.reply(Reply::tool_call("get_page_content", json!({})));
    server.reply(Reply::tool_call(
        "fill_fields",
        json!({"fields": [{"target": "e1", "value": "Grace Hopper"}]}),
    ));
    server.reply(Reply::tool_call("click", json!({"target": "e2"})));
    server.reply(Reply::tool_call(
        "screenshot",
        json!({"path": "/shots/done.png"}),
    ));
    server.reply(Reply::text("You are signed up."));
    // A model that reads images sees the screenshot.
    let vision = env.path().join("vision.json");
    let entry = json!({"name": "vision", "dialect": "openai", "ocr": true,
        "endpoint": format!("{}/v1", server.url()), "model": "m"});
    std::fs::write(
        &vision,
        json!({"default": "vision", "providers": [entry]}).to_string(),
    )
    .unwrap();
    let mut c = env.cmd();
    c.arg("--providers").arg(&vision);
    c.arg("--workspace").arg(&dir).args([
        "ask",
        "--mode",
        "api",
        "--json",
        "--yes",
        "Sign me up for the newsletter as Grace Hopper",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let page = v["toolCalls"][1]["outcome"]["ok"]["markdown"]
        .as_str()
        .unwrap_or_default();
    assert!(
        page.contains("<<<INTERACTIVE::input::{\"id\":\"e1\""),
        "{v}"
    );
    assert_eq!(v["toolCalls"][3]["outcome"]["ok"]["navigated"], true, "{v}");
    assert_eq!(seen.lock().unwrap().as_slice(), ["name=Grace+Hopper"]);
    let png = std::fs::read(dir.join("shots/done.png")).unwrap();
    let last = server.requests().last().unwrap().json();
    let shown = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find_map(|m| {
            m["content"]
                .as_array()?
                .iter()
                .find_map(|p| p["image_url"]["url"].as_str())
        })
        .expect("the screenshot is shown to the model");
    use base64::Engine as _;
    let want = base64::engine::general_purpose::STANDARD.encode(&png);
    assert_eq!(shown, format!("data:image/png;base64,{want}"));
    // Without --yes nobody confirms the click: it is refused, nothing is sent.
    for r in [
        Reply::tool_call("navigate", json!({"url": format!("{site}/signup")})),
        Reply::tool_call("click", json!({"target": "//button"})),
        Reply::text("I could not sign you up."),
    ] {
        server.reply(r);
    }
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--mode", "api", "--json", "Sign me up"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert!(
        v["toolCalls"][1]["outcome"]["err"]
            .as_str()
            .unwrap_or_default()
            .contains("--yes"),
        "{v}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_runs_the_agent_loop_with_file_tool() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    // The `scripted` entry has a small context window: CLI mode by default.
    server.reply(Reply::text(
        r#"{"method": "cli", "command": "FileTool read_text_file /reports/q1.txt"}"#,
    ));
    server.reply(Reply::text(r#"{"answer": "Revenue rose 12% in Q1."}"#));
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--json", "Summarize Q1"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["text"], "Revenue rose 12% in Q1.");
    assert_eq!(v["iterations"], 2);
    assert_eq!(v["stop"]["kind"], "answered");
    assert_eq!(v["toolCalls"][0]["name"], "read_text_file");
    assert_eq!(
        v["toolCalls"][0]["outcome"]["ok"]["text"],
        "Q1 revenue up 12%"
    );
    let system = server.requests()[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("You have one tool: a command line"),
        "{system}"
    );

    // --mode api puts the manual in the prompt instead; the answer streams to stdout.
    server.reply(Reply::tool_call(
        "list_directory",
        json!({"path": "/reports"}),
    ));
    server.reply(Reply::text("There is one report."));
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--mode", "api", "List reports"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "There is one report.\n");
    let req = server.requests()[2].json();
    // FileTool's eleven, SpreadsheetTool's twenty-eight, WebTool's seventeen, DocumentTool's two, and delegation to the subagents (its own, and
    // the shipped researcher).
    let names: Vec<&str> = req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 71, "native tools in API mode: {names:?}");
    assert!(names.contains(&"describe_worksheet"), "{names:?}");
    assert!(
        names.ends_with(&["launch_subagent", "provide_subagent_input"]),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_catalog_and_tools_call() {
    let env = Env::new();
    let dir = ws(&env);
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args(["tools", "--json"]);
    let o = run(c, None).await;
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v[0]["toolbox"], "FileTool");
    assert_eq!(v[0]["methods"].as_array().unwrap().len(), 11);
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).arg("tools");
    assert!(run(c, None).await.stdout.contains("### write_text_file"));
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args(["tools", "--cli"]);
    assert!(
        run(c, None)
            .await
            .stdout
            .contains("Usage: FileTool read_text_file --path <string>")
    );

    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", &dir).args([
        "tools",
        "call",
        "```json\n{'method': 'ReadTextFile', path: '/reports/q1.txt',}\n```",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["text"], "Q1 revenue up 12%");

    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", &dir).args([
        "tools",
        "call",
        r#"{"method": "read_text_file", "path": "/../../etc/passwd"}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("climbs above the workspace root"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_slash_commands_and_saved_sessions() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Noted."));
    server.reply(Reply::text("You said the sky is green."));
    let env = Env::new();
    let dir = ws(&env);
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(&dir).arg("chat");
    let o = run(c, Some("The sky is green.\n/session save colours\n/session info\n/model other-model\n/instructions Be brief.\nWhat did I say?\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("saved as `colours`"), "{}", o.stdout);
    assert!(
        o.stdout.contains("model set to other-model"),
        "{}",
        o.stdout
    );
    let second = server.requests()[1].json();
    assert_eq!(second["model"], "other-model");
    assert!(
        second["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Be brief.")
    );
    // The saved session continues later.
    server.reply(Reply::text("Green, you said."));
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["chat", "--session", "colours"]);
    let o = run(c, Some("Remind me?\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let third = server.requests()[2].json();
    let texts: Vec<String> = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| said(&m["content"]))
        .collect();
    assert!(
        texts.contains(&"The sky is green.".to_string()),
        "{texts:?}"
    );
    assert_eq!(texts.last().unwrap(), "Remind me?");
    assert!(env.path().join("data/sessions/colours.json").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_embedded_model_answers_out_of_the_box() {
    // No providers file, no key, no server: the factory default is the
    // embedded model that `make setup` fetched into BATON_MODELS_DIR.
    let env = Env::new();
    let mut c = env.cmd();
    c.args([
        "ask",
        "--no-tools",
        "--json",
        "What is the capital of France?",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["provider"], "local");
    assert!(
        v["text"].as_str().unwrap().to_lowercase().contains("paris"),
        "{v}"
    );
    assert!(v["usage"]["completionTokens"].as_u64().unwrap() > 0);

    let mut c = env.cmd();
    c.args(["models", "--json"]);
    let v: Value = serde_json::from_str(&run(c, None).await.stdout).unwrap();
    let m = &v["models"][0];
    assert_eq!(m["architecture"], "llama");
    assert_eq!(m["contextLength"], 8192);
    assert_eq!(m["usedBy"], json!(["local"]));
    // The speech models are listed too, the one voice uses marked.
    let speech = v["speechModels"].as_array().unwrap();
    let used: Vec<_> = speech.iter().filter(|m| m["usedByVoice"] == true).collect();
    assert_eq!(used.len(), 1, "{speech:?}");
    assert!(
        used[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("ggml-tiny.en-q8_0.bin")
    );

    // A missing model file is named, with the command that fetches it.
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", env.path().join("empty"))
        .args(["ask", "--no-tools", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("SmolLM2-135M-Instruct.Q4_1.gguf is missing")
            && o.stderr.contains("make setup"),
        "{}",
        o.stderr
    );
}

/// The text of the last user message in the server's `n`th request.
fn last_user_text(server: &ScriptedServer, n: usize) -> String {
    let req = server.requests()[n].json();
    req["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/docs")
        .join(name)
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_with_attachments_sends_them_converted_before_the_question() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("North grew fastest."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(ws(&env))
        .args(["ask", "--no-tools", "--json", "--attach"])
        .arg(fixture("report.docx"))
        .arg("-a")
        .arg(fixture("encrypted.pdf"))
        .arg("Which region grew fastest?");
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["text"], "North grew fastest.");
    assert_eq!(v["attachments"][0]["name"], "report.docx");
    assert_eq!(v["attachments"][0]["format"], "Word document");
    assert!(
        v["attachments"][1]["error"]
            .as_str()
            .unwrap()
            .contains("password protected")
    );
    let user = last_user_text(&server, 0);
    assert!(
        user.starts_with("<attachment name=\"report.docx\" format=\"Word document\""),
        "{user}"
    );
    assert!(user.contains("| North | 120 | 135 | 150 |"), "{user}");
    assert!(
        user.contains("<attachment name=\"encrypted.pdf\""),
        "{user}"
    );
    assert!(
        user.contains("This file could not be read: the PDF file is password protected"),
        "{user}"
    );
    assert!(
        user.ends_with("</attachment>\n\nWhich region grew fastest?"),
        "{user}"
    );

    // A missing attachment is a clear error before anything is sent.
    let mut c = env.scripted(&server);
    c.args(["ask", "--no-tools", "--attach", "/nonexistent/x.pdf", "hi"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr
            .contains("cannot read the attachment /nonexistent/x.pdf"),
        "{}",
        o.stderr
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn convert_prints_markdown_or_json_with_reasons() {
    let env = Env::new();
    let mut c = env.cmd();
    c.args(["convert", "--json", "--no-ocr"])
        .arg(fixture("deck.pptx"))
        .arg(fixture("zipbomb.docx"))
        .arg(fixture("budget.ods"));
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v[0]["format"], "pptx");
    assert_eq!(v[0]["pages"], 3);
    assert!(
        v[0]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Slide 2: Roadmap")
    );
    assert!(
        v[1]["error"].as_str().unwrap().contains("zip bomb"),
        "{}",
        v[1]
    );
    assert!(
        v[2]["markdown"]
            .as_str()
            .unwrap()
            .contains("| Cables | 10 | 45.5 | 455 | 2024-03-28 |")
    );

    let mut c = env.cmd();
    c.arg("convert")
        .arg(fixture("data.tsv"))
        .arg(fixture("random.bin"));
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "a failed file fails the command");
    assert!(o.stdout.contains("| id | name |"), "{}", o.stdout);
    assert!(
        o.stderr
            .contains("random.bin: a binary `.bin` file cannot be converted to text"),
        "{}",
        o.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn index_search_watch_and_a_second_process() {
    let env = Env::new();
    let dir = ws(&env);
    std::fs::copy(fixture("layout.pdf"), dir.join("layout.pdf")).unwrap();
    std::fs::copy(fixture("corrupt.docx"), dir.join("corrupt.docx")).unwrap();
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args(["index", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["stats"]["indexed"], 2, "{v}");
    assert_eq!(v["skipped"][0]["path"], "/corrupt.docx");

    let mut c = env.cmd();
    c.arg("--workspace")
        .arg(&dir)
        .args(["search", "--json", "inventory table"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let hits: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(hits[0]["path"], "/layout.pdf");

    // A watching process holds the index; a second indexer is told it is busy,
    // search still answers, and files saved meanwhile become searchable.
    let mut watcher = env.cmd();
    watcher
        .arg("--workspace")
        .arg(&dir)
        .args(["index", "--watch"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = watcher.spawn().unwrap();
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    use tokio::io::AsyncBufReadExt;
    while !line.contains("watching") {
        line.clear();
        let n = tokio::time::timeout(Duration::from_secs(20), stderr.read_line(&mut line))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "the watcher exited");
    }
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).arg("index");
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("the search index is busy"),
        "{}",
        o.stderr
    );

    std::fs::write(dir.join("fresh.md"), "# Fresh\n\nThe narwhal memo.\n").unwrap();
    let start = Instant::now();
    loop {
        let mut c = env.cmd();
        c.arg("--workspace")
            .arg(&dir)
            .args(["search", "--json", "narwhal"]);
        let o = run(c, None).await;
        if o.code == 0 {
            let hits: Value = serde_json::from_str(o.stdout.trim()).unwrap();
            assert_eq!(hits[0]["path"], "/fresh.md");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "never found: {}",
            o.stderr
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn images_are_read_by_a_vision_provider_when_one_is_ready() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("INVOICE 2024-117\n\nTotal due: 1,234.56 EUR"));
    let env = Env::new();
    let file = env.path().join("providers-ocr.json");
    let doc = json!({"default": "vision", "providers": [
        {"name": "vision", "dialect": "openai", "endpoint": format!("{}/v1", server.url()),
         "model": "ocr-model", "apiKeyEnv": "BATON_TEST_VISION_KEY", "ocr": true}
    ]});
    std::fs::write(&file, doc.to_string()).unwrap();
    let mut c = env.cmd();
    c.env("BATON_TEST_VISION_KEY", "k")
        .arg("--providers")
        .arg(&file)
        .arg("convert")
        .arg(fixture("invoice.png"));
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "INVOICE 2024-117\n\nTotal due: 1,234.56 EUR\n");
    assert!(
        o.stderr.contains("text read by OCR (vision"),
        "{}",
        o.stderr
    );
    let req = server.requests()[0].json();
    assert_eq!(req["model"], "ocr-model");
    let parts = req["messages"][0]["content"].as_array().unwrap();
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Transcribe all text")
    );
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{}",
        &url[..40]
    );

    // Without its key the entry is not ready: local Tesseract reads the image.
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&file)
        .arg("convert")
        .arg(fixture("invoice.png"));
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("Total due: 1,234.56 EUR"), "{}", o.stdout);
    assert!(o.stderr.contains("tesseract"), "{}", o.stderr);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_attach_adds_files_to_the_next_message_only() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("North grew fastest."));
    server.reply(Reply::text("You are welcome."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(ws(&env))
        .args(["chat", "--no-tools"]);
    let script = format!(
        "/attach '{}' {}\n/attach\nWhich region grew fastest?\nThanks\n/exit\n",
        fixture("report.docx").display(),
        fixture("encrypted.pdf").display()
    );
    let o = run(c, Some(&script)).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("attached report.docx (Word document, "),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("attached encrypted.pdf — it cannot be read and will be sent as a note: the PDF file is password protected"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("attached to the next message: report.docx, encrypted.pdf"),
        "{}",
        o.stdout
    );
    let user = last_user_text(&server, 0);
    assert!(
        user.starts_with("<attachment name=\"report.docx\""),
        "{user}"
    );
    assert!(user.ends_with("Which region grew fastest?"), "{user}");
    let second = server.requests()[1].json();
    let last = second["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last,
        json!({"role": "user", "content": "Thanks"}),
        "attachments go with one message only"
    );
}

#[tokio::test]
async fn say_speaks_markdown_sentence_by_sentence_into_a_wav_file() {
    let env = Env::new();
    let out = env.path().join("answer.wav");
    let mut c = env.cmd();
    c.args(["say", "--out"]).arg(&out).arg(
        "# Summary\nRevenue grew by **12 percent**. See [the report](https://x.io/r) for details.",
    );
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("3 sentences"), "{}", o.stderr);
    let mut wav = hound::WavReader::open(&out).expect("a valid WAV file");
    assert_eq!(wav.spec().channels, 1);
    let rate = wav.spec().sample_rate;
    let samples: Vec<i16> = wav.samples::<i16>().map(Result::unwrap).collect();
    let secs = samples.len() as f64 / f64::from(rate);
    assert!((2.0..12.0).contains(&secs), "{secs} s of speech");
    assert!(samples.iter().any(|s| s.unsigned_abs() > 3000), "audible");

    // An unknown voice fails with the reason and writes nothing.
    let bad = env.path().join("bad.wav");
    let mut c = env.cmd();
    c.args(["say", "--voice", "xx-nope", "--out"])
        .arg(&bad)
        .arg("Hello.");
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no voice named `xx-nope`"),
        "{}",
        o.stderr
    );
    assert!(!bad.exists());
}

/// eSpeak NG saying each text, `gap_s` of silence before each, as a WAV
/// file: a recorded microphone.
fn spoken_wav(path: &Path, texts: &[&str], gap_s: f32) {
    use baton_voice::TextToSpeech;
    let tts = baton_voice::EspeakTts::default();
    let mut samples = Vec::new();
    let mut rate = 22_050;
    for t in texts {
        let s = tts.synthesize(t).unwrap();
        rate = s.sample_rate;
        samples.extend(std::iter::repeat_n(0i16, (gap_s * rate as f32) as usize));
        samples.extend(s.samples);
    }
    baton_voice::Speech {
        samples,
        sample_rate: rate,
    }
    .write_wav(path)
    .unwrap();
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn wer(reference: &str, hypothesis: &str) -> f64 {
    baton_voice::stt::word_error_rate(reference, hypothesis).0
}

async fn transcribe(env: &Env, file: &Path) -> String {
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", models_dir());
    // Beam search: steadier on long recordings of synthetic speech.
    c.args(["transcribe", "--json", "--beam-size", "5"])
        .arg(file);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str::<Value>(&o.stdout).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn models_dir() -> PathBuf {
    std::env::var_os("BATON_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".local/share/baton/models")
        })
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
async fn transcribe_reads_any_format_and_rate_and_explains_bad_files() {
    let env = Env::new();
    let wav = env.path().join("q.wav");
    spoken_wav(&wav, &["Set a timer for fifteen minutes."], 0.3);
    let text = transcribe(&env, &wav).await;
    assert!(
        wer("Set a timer for fifteen minutes.", &text) <= 0.2,
        "{text}"
    );
    // A text file is refused with the reason, not a crash.
    let bad = env.path().join("notes.flac");
    std::fs::write(&bad, "not audio").unwrap();
    let mut c = env.cmd();
    c.args(["transcribe"]).arg(&bad);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("notes.flac") && o.stderr.contains("not an audio format"),
        "{}",
        o.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn say_speaks_with_the_natural_voice_more_clearly_than_espeak() {
    let env = Env::new();
    let text = "Revenue grew by twelve percent compared with the previous quarter. \
                Should I send the summary to the whole team?";
    let mut errors = Vec::new();
    for engine in ["piper", "espeak"] {
        let wav = env.path().join(format!("{engine}.wav"));
        let mut c = env.cmd();
        c.env("BATON_MODELS_DIR", models_dir());
        c.args(["say", "--engine", engine, "--out"])
            .arg(&wav)
            .arg(text);
        let o = run(c, None).await;
        assert_eq!(o.code, 0, "{}", o.stderr);
        errors.push(wer(text, &transcribe(&env, &wav).await));
    }
    // Whisper hears the natural voice almost word for word, better than
    // eSpeak NG's.
    assert!(errors[0] <= 0.1 && errors[0] <= errors[1], "{errors:?}");
    // Without the voice installed, Piper is named as missing; the default
    // engine falls back to eSpeak NG and still speaks.
    let empty = env.path().join("no-models");
    std::fs::create_dir_all(&empty).unwrap();
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", &empty);
    c.args(["say", "--engine", "piper", "--out"])
        .arg(env.path().join("x.wav"))
        .arg("Hello.");
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no Piper voice") && o.stderr.contains("make setup"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", &empty);
    c.args(["say", "--out"])
        .arg(env.path().join("y.wav"))
        .arg("Hello.");
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn transcribe_hears_german_with_the_multilingual_model_and_refuses_an_english_one() {
    let env = Env::new();
    let wav = env.path().join("de.wav");
    let speech = baton_voice::TextToSpeech::synthesize(
        &baton_voice::EspeakTts::new("de", 150),
        "Guten Morgen. Wie spät ist es?",
    )
    .unwrap();
    speech.write_wav(&wav).unwrap();
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", models_dir());
    c.args(["transcribe", "--json", "--language", "de"])
        .arg(&wav);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["model"].as_str().unwrap().contains("ggml-base"), "{v}");
    let words = baton_voice::stt::normalize_words(v["text"].as_str().unwrap()).join(" ");
    assert!(words.contains("guten morgen"), "{words}");
    // An English-only model would hear English words: refused in words.
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", models_dir());
    c.args(["transcribe", "--language", "de", "--model"])
        .arg(models_dir().join("ggml-tiny.en-q8_0.bin"))
        .arg(&wav);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("understands only English") && o.stderr.contains("ggml-base-q8_0.bin"),
        "{}",
        o.stderr
    );
}

const ANSWER: &str = "You have two meetings tomorrow. The first one is with Alice in the morning. \
    The second one is with the design team after lunch.";

/// Key phrases of the three sentences of [`ANSWER`], in order (tiny.en
/// mishears some of eSpeak's other words).
const ANSWER_PHRASES: [&str; 3] = ["meetings tomorrow", "alice", "design team"];

/// `heard` (a transcript) holds each phrase, in this order.
fn assert_says_in_order(heard: &str, phrases: &[&str]) {
    let words = |t: &str| baton_voice::stt::normalize_words(t).join(" ");
    let heard = words(heard);
    let mut at = 0;
    for phrase in phrases {
        let phrase = &words(phrase);
        let found = heard[at..].find(phrase);
        assert!(
            found.is_some(),
            "{phrase:?} not heard in order in {heard:?}"
        );
        at += found.unwrap_or(0) + phrase.len();
    }
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
    assert!(
        latency < Duration::from_millis(700),
        "{latency:?}: {cut:#?}"
    );
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
        let socket = d.join("native");
        let t0 = Instant::now();
        while !socket.exists() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "PulseAudio did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Self { dir, child }
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

/// A damaged PDF gets Baton's one clear line, without the PDF library's own
/// WARN/ERROR log lines (those come back with `-v`).
#[tokio::test(flavor = "multi_thread")]
async fn damaged_pdfs_print_no_library_log_lines_unless_verbose() {
    let env = Env::new();
    let report = std::fs::read(fixture("report.pdf")).unwrap();
    let truncated = env.path().join("truncated.pdf");
    std::fs::write(&truncated, &report[..3000]).unwrap();
    let mut c = env.cmd();
    c.env_remove("BATON_LOG")
        .args(["convert", "--no-ocr"])
        .arg(&truncated)
        .arg(fixture("corrupt.pdf"));
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("truncated.pdf: the PDF file is damaged or incomplete"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("corrupt.pdf: "), "{}", o.stderr);
    assert!(
        !o.stderr.contains("WARN") && !o.stderr.contains("ERROR") && !o.stderr.contains("xref"),
        "library log lines leaked: {}",
        o.stderr
    );

    let mut c = env.cmd();
    c.env_remove("BATON_LOG")
        .args(["-v", "convert", "--no-ocr"])
        .arg(&truncated);
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("WARN"), "-v shows them: {}", o.stderr);
}

/// An empty `BATON_WORKSPACE` or `BATON_PROVIDERS` counts as unset, as it
/// does for the desktop app (`Overrides::from_env`).
#[tokio::test(flavor = "multi_thread")]
async fn empty_workspace_and_providers_variables_count_as_unset() {
    let env = Env::new();
    let mut c = env.cmd();
    c.args(["config", "show", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let unset: Value = serde_json::from_str(&o.stdout).unwrap();
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", "")
        .env("BATON_PROVIDERS", "")
        .args(["config", "show", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let empty: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(empty["workspace"], unset["workspace"]);
    assert_eq!(empty["provider"], unset["provider"]);
}

/// `baton ARGS` in `env`.
fn with_args(env: &Env, args: &[&str]) -> tokio::process::Command {
    let mut c = env.cmd();
    c.args(args);
    c
}

/// Writes `agents` as the user's agents.json.
fn write_agents(env: &Env, agents: Value) {
    let dir = env.path().join("config");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("agents.json"),
        json!({ "agents": agents }).to_string(),
    )
    .unwrap();
}

#[tokio::test]
async fn agents_are_listed_and_a_broken_file_is_named() {
    let env = Env::new();
    let out = run(with_args(&env, &["agents", "--json"]), None).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let list: Value = serde_json::from_str(&out.stdout).unwrap();
    let by_name = |n: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_name("assistant")["default"], true);
    let researcher = by_name("researcher");
    assert_eq!(researcher["delegable"], true);
    let tools: Vec<&str> = researcher["toolboxes"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"read_text_file") && !tools.contains(&"write_text_file"),
        "{tools:?}"
    );
    // A wrong type: named with agent and field; the shipped agents still work.
    write_agents(&env, json!([{"name": "clerk", "maxMessages": "ten"}]));
    let out = run(with_args(&env, &["agents"]), None).await;
    assert_eq!(out.code, 0);
    assert!(
        out.stderr
            .contains("agent `clerk`: `maxMessages`: invalid type: string \"ten\""),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("researcher"));
    // A filter naming a tool that does not exist: the agent's problem.
    write_agents(
        &env,
        json!([{"name": "clerk", "toolboxes": [{"name": "FileTool", "includeTools": ["read_txt"]}]}]),
    );
    let out = run(with_args(&env, &["agents", "--json"]), None).await;
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("FileTool has no tool `read_txt`"),
        "{}",
        out.stdout
    );
    let out = run(with_args(&env, &["ask", "--agent", "nobody", "hi"]), None).await;
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains(
            "agent `nobody`: no such agent; agents: assistant, researcher, document-preparer, clerk"
        ),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn an_agents_catalog_is_filtered_in_all_four_renderings() {
    let env = Env::new();
    write_agents(
        &env,
        json!([{"name": "clerk", "toolboxes": [{"name": "FileTool", "includeTools": ["list_directory", "read_text_file"]}]}]),
    );
    let tools = |flag: &'static str| {
        let mut c = env.cmd();
        c.args(["tools", "--agent", "clerk", flag]);
        run(c, None)
    };
    let markdown = tools("--markdown").await.stdout;
    let json_listing = tools("--json").await.stdout;
    let native = tools("--native").await.stdout;
    let cli = tools("--cli").await.stdout;
    for (name, text) in [
        ("markdown", &markdown),
        ("json", &json_listing),
        ("native", &native),
        ("cli", &cli),
    ] {
        assert!(
            text.contains("list_directory") && text.contains("read_text_file"),
            "{name}: {text}"
        );
        for hidden in ["write_text_file", "move_file", "search_documents"] {
            assert!(!text.contains(hidden), "{name} shows {hidden}: {text}");
        }
    }
    // Without an agent: every built-in tool, callable from the shell.
    let all = run(with_args(&env, &["tools", "--json"]), None)
        .await
        .stdout;
    assert!(all.contains("write_text_file") && all.contains("search_documents"));
    let mut c = env.cmd();
    c.args([
        "tools",
        "--agent",
        "clerk",
        "call",
        r#"{"method": "write_text_file", "path": "/x.txt", "content": "x"}"#,
    ]);
    let out = run(c, None).await;
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("unknown method"), "{}", out.stdout);
}

#[tokio::test]
async fn ask_an_agent_runs_on_its_catalog_and_instructions() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    write_agents(
        &env,
        json!([{"name": "clerk", "instructions": "Answer as the clerk.",
                "toolboxes": [{"name": "FileTool", "includeTools": ["list_directory", "read_text_file"]}]}]),
    );
    server.reply(Reply::text("Filed."));
    let mut c = env.scripted(&server);
    c.args(["ask", "--agent", "clerk", "--json", "file this"]);
    let out = run(c, None).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let answer: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(
        (answer["agent"].as_str(), answer["text"].as_str()),
        (Some("clerk"), Some("Filed."))
    );
    let body = server.requests().last().unwrap().json();
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Answer as the clerk.")
    );
    // The scripted entry's small context window means CLI mode: one `cli`
    // tool whose command pattern names only the agent's tools.
    let pattern = body["tools"][0]["function"]["parameters"]["properties"]["command"]["pattern"]
        .as_str()
        .unwrap();
    assert!(
        pattern.contains("FileTool (list_directory|read_text_file)"),
        "{pattern}"
    );
}

#[path = "../../mail/tests/support/mod.rs"]
mod mail_servers;

#[tokio::test(flavor = "multi_thread")]
async fn ask_reads_mail_and_sends_only_when_allowed() {
    let servers = mail_servers::MailServers::with_smtp();
    servers.deliver(
        mail_servers::ANA.0,
        b"From: Bob <bob@baton.test>\r\nTo: ana@baton.test\r\nSubject: Budget\r\nMessage-ID: <budget@baton.test>\r\n\r\nThe budget is 1200 EUR.\r\n",
    );
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    let ca = servers.ca_file();
    let settings = json!({"skipIndexingOnStartup": true,
        "email": {"address": "ana@baton.test", "name": "Ana"},
        "imap": {"host": "localhost", "port": servers.imap, "tls": "starttls", "caFile": ca},
        "smtp": {"host": "localhost", "port": servers.smtps, "tls": "tls", "caFile": ca}});
    std::fs::write(env.path().join("config/setup.json"), settings.to_string()).unwrap();
    let script = |server: &ScriptedServer| {
        server.reply(Reply::tool_call("get_emails", json!({})));
        server.reply(Reply::tool_call("read_email", json!({"id": "INBOX:1"})));
        server.reply(Reply::tool_call(
            "send_email",
            json!({"to": ["bob@baton.test"], "subject": "Re: Budget", "body": "Noted: **1200 EUR**."}),
        ));
        server.reply(Reply::text("Done."));
    };
    // The passwords from the environment (a server without a keychain).
    let password = mail_servers::ANA.1;
    let ask = |server: &ScriptedServer| {
        let mut c = env.scripted(server);
        c.env("BATON_IMAP_PASSWORD", password)
            .env("BATON_SMTP_PASSWORD", password);
        c.arg("--workspace").arg(&dir).args([
            "ask",
            "--mode",
            "api",
            "--json",
            "Answer Bob's mail",
        ]);
        c
    };
    // Nobody to confirm: reading works, sending is refused.
    script(&server);
    let o = run(ask(&server), None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(
        v["toolCalls"][0]["outcome"]["ok"][0]["subject"], "Budget",
        "{v}"
    );
    let body = v["toolCalls"][1]["outcome"]["ok"]["body"]
        .as_str()
        .unwrap_or_default();
    assert!(body.contains("1200 EUR"), "{v}");
    let refused = v["toolCalls"][2]["outcome"]["err"]
        .as_str()
        .unwrap_or_default();
    assert!(refused.contains("--yes"), "{v}");
    assert!(servers.messages(mail_servers::BOB.0, "INBOX").is_empty());

    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args([
        "tools",
        "call",
        r#"{"method": "send_email", "to": ["bob@baton.test"], "subject": "x", "body": "y"}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    assert!(
        o.stdout.contains("MailTool.send_email") && o.stdout.contains("--yes"),
        "{}",
        o.stdout
    );

    // The user allowed sending in the settings: it goes.
    let mut c = env.cmd();
    c.args(["config", "set", "email.confirmSend", "false"]);
    assert_eq!(run(c, None).await.code, 0);
    script(&server);
    let o = run(ask(&server), None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(
        v["toolCalls"][2]["outcome"]["ok"]["sent_to"],
        json!(["bob@baton.test"]),
        "{v}"
    );
    let got = servers.wait_for_messages(mail_servers::BOB.0, "INBOX", 1);
    let text = String::from_utf8_lossy(&got[0]);
    assert!(text.contains("Subject: Re: Budget"), "{text}");
    assert!(
        text.contains("<ana@baton.test>"),
        "sent from the user's address: {text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_answers_on_the_printed_address_and_refuses_other_hosts() {
    use tokio::io::AsyncReadExt;
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .expect("the address is printed");
    let addr = url.strip_prefix("http://").unwrap();
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains(r#"{"status":"ok"}"#) && answer.contains("x-request-id"),
        "{answer}"
    );
    child.kill().await.unwrap();

    let mut c = env.scripted(&server);
    c.args(["serve", "--host", "0.0.0.0", "--port", "0"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("this computer only"), "{}", o.stderr);

    // Keys: made (printed once), listed by name and prefix, revoked.
    let mut c = env.cmd();
    c.args(["serve", "keys", "add", "editor"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let key = o.stdout.trim().to_string();
    assert!(key.starts_with("bk-"), "{key}");
    let mut c = env.cmd();
    c.args(["serve", "keys", "list"]);
    let o = run(c, None).await;
    assert!(
        o.stdout.starts_with(&format!("editor\t{}…", &key[..10])),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains(&key));
    let mut c = env.cmd();
    c.args(["serve", "keys", "revoke", "nobody"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("no key named `nobody`"), "{}", o.stderr);
    let mut c = env.cmd();
    c.args(["serve", "keys", "revoke", "editor"]);
    assert_eq!(run(c, None).await.code, 0);
    let mut c = env.cmd();
    c.args(["serve", "keys", "list"]);
    assert_eq!(run(c, None).await.stdout, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_servers_in_mcp_json_join_the_tools_and_run() {
    let env = Env::new();
    let dir = ws(&env);
    let everything = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../mcp/tests/servers/node_modules/.bin/mcp-server-everything");
    assert!(
        everything.exists(),
        "run scripts/make-fixtures.sh --tools-only (make test does)"
    );
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    let mcp = json!({"mcpServers": {
        "everything": {"command": everything, "includeTools": ["echo", "get-sum"]},
        "broken": {"command": "false"}
    }});
    std::fs::write(env.path().join("config/mcp.json"), mcp.to_string()).unwrap();
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args(["tools", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let server = v
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["toolbox"] == "everything")
        .unwrap_or_else(|| panic!("no MCP toolbox: {v}"));
    let names: Vec<&str> = server["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "get-sum"], "includeTools: {server}");
    assert_eq!(
        v[0]["toolbox"], "FileTool",
        "the built-in tools are still there"
    );
    assert!(
        o.stderr.contains("MCP server `broken` left out"),
        "{}",
        o.stderr
    );

    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", &dir).args([
        "tools",
        "call",
        "--yes",
        r#"{"method": "get-sum", "a": 20, "b": 22}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("The sum of 20 and 22 is 42."),
        "{}",
        o.stdout
    );
    plugins_are_listed_disabled_and_added(&env, &dir).await;
}

/// A plugin in the data folder's Tools joins the tools; `baton mcp
/// servers|disable|add` show and change what Baton uses.
async fn plugins_are_listed_disabled_and_added(env: &Env, dir: &Path) {
    let plugin = env.path().join("data/Tools/Words");
    std::fs::create_dir_all(&plugin).unwrap();
    let script = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../mcp/tests/servers/word_tools.py");
    let def = json!({"command": baton_test_support::venv_python(), "args": [script]});
    std::fs::write(plugin.join("plugin.json"), def.to_string()).unwrap();
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", dir)
        .args(["mcp", "servers", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let servers: Value = serde_json::from_str(&o.stdout).unwrap();
    let names: Vec<&str> = servers
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Words", "broken", "everything"], "{servers}");
    assert_eq!(servers[0]["state"], "running", "{servers}");
    assert_eq!(servers[0]["source"]["kind"], "plugin", "{servers}");
    assert_eq!(servers[0]["tools"], json!(["count_words", "reverse_words"]));
    assert_eq!(servers[1]["state"], "failed", "{servers}");
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", dir).args([
        "tools",
        "call",
        r#"{"method": "count_words", "text": "a b c d"}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout.trim(), "\"4\"");

    let mut c = env.cmd();
    c.args(["mcp", "disable", "Words"]);
    assert_eq!(run(c, None).await.code, 0);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(plugin.join("plugin.json")).unwrap())
            .unwrap();
    assert_eq!(saved["enabled"], false, "{saved}");
    let mut c = env.cmd();
    c.args([
        "mcp",
        "add",
        "remote",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--header",
        "Authorization: Bearer ${keychain:remote-token}",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut c = env.cmd();
    c.args(["mcp", "add", "remote", "--", "true"]);
    let o = run(c, None).await;
    assert!(
        o.code != 0 && o.stderr.contains("already a server named `remote`"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", dir)
        .args(["mcp", "servers", "--json"]);
    let o = run(c, None).await;
    let servers: Value = serde_json::from_str(&o.stdout).unwrap();
    let find = |n: &str| {
        servers
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(find("Words")["state"], "disabled");
    let remote = find("remote");
    assert_eq!(remote["state"], "failed", "{remote}");
    let why = remote["problem"].as_str().unwrap();
    assert!(why.contains("needs the secret `remote-token`"), "{remote}");
    // From its environment variable, the secret is filled in and the
    // server is tried (nothing answers at port 9).
    let mut c = env.cmd();
    c.env("REMOTE_TOKEN_API_KEY", "t0ken")
        .args(["mcp", "servers", "--json"]);
    let o = run(c, None).await;
    let servers: Value = serde_json::from_str(&o.stdout).unwrap();
    let remote = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "remote")
        .unwrap();
    let why = remote["problem"].as_str().unwrap();
    assert!(
        why.contains("did not start") && !why.contains("secret"),
        "{remote}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baton_mcp_serves_the_toolboxes_to_the_official_python_sdk() {
    let env = Env::new();
    let dir = ws(&env);
    let script = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("tests/clients/mcp_client.py");
    let mut c = tokio::process::Command::new(baton_test_support::venv_python());
    c.arg(script)
        .arg(env!("CARGO_BIN_EXE_baton"))
        .arg(&dir)
        .arg(env.path().join("config"))
        .arg(env.path().join("data"))
        .arg(env.path().join("home"))
        .kill_on_drop(true);
    let o = run_for(c, None, Duration::from_secs(120)).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    for check in [
        "stdio: wrote and read /from-stdio.md",
        "http: escapes, bad arguments and unknown tools are refused in words",
        "key: refused without the key, served with it",
    ] {
        assert!(o.stdout.contains(check), "{check}: {}", o.stdout);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baton_mcp_answers_the_mcp_inspector_cli() {
    let env = Env::new();
    let dir = ws(&env);
    std::fs::write(dir.join("todo.md"), "- water the plants\n").unwrap();
    let inspector = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../mcp/tests/servers/node_modules/.bin/mcp-inspector");
    assert!(
        inspector.exists(),
        "run scripts/make-fixtures.sh --tools-only (make test does)"
    );
    let inspect = |method: &[&str]| {
        let mut c = tokio::process::Command::new(&inspector);
        c.args(["--cli", env!("CARGO_BIN_EXE_baton"), "mcp"]);
        for (k, v) in [
            ("HOME", env.path().join("home")),
            ("BATON_CONFIG_DIR", env.path().join("config")),
            ("BATON_DATA_DIR", env.path().join("data")),
            ("BATON_WORKSPACE", dir.clone()),
        ] {
            c.arg("-e").arg(format!("{k}={}", v.display()));
        }
        c.args(method).kill_on_drop(true);
        run_for(c, None, Duration::from_secs(60))
    };
    let o = inspect(&["--method", "tools/list"]).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let listed: Value = serde_json::from_str(&o.stdout).unwrap();
    let tools = listed["tools"].as_array().unwrap();
    let read = tools
        .iter()
        .find(|t| t["name"] == "read_text_file")
        .unwrap();
    assert_eq!(read["annotations"]["readOnlyHint"], true, "{read}");
    assert_eq!(read["inputSchema"]["required"], json!(["path"]), "{read}");
    let o = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "read_text_file",
        "--tool-arg",
        "path=/todo.md",
    ])
    .await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let called: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        called["structuredContent"]["text"], "- water the plants\n",
        "{called}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_prompts_are_listed_and_sent_from_chat() {
    let everything = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../mcp/tests/servers/node_modules/.bin/mcp-server-everything");
    let env = Env::new();
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    let mcp = json!({"mcpServers": {"everything": {"command": everything}}});
    std::fs::write(env.path().join("config/mcp.json"), mcp.to_string()).unwrap();
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Sunny in Paris."));
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(env.path().join("ws")).arg("chat");
    let input =
        "/prompts\n/prompt args-prompt\n/prompt nosuch\n/prompt args-prompt city=Paris\n/exit\n";
    let o = run(c, Some(input)).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("everything:args-prompt city=… [state=…]")
            && o.stdout.contains("A prompt with two arguments"),
        "{}",
        o.stdout
    );
    assert!(
        o.stderr.contains("the prompt `args-prompt` needs city=…")
            && o.stderr
                .contains("there is no prompt `nosuch`; /prompts lists them"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("Sunny in Paris."), "{}", o.stdout);
    let asked = server.requests()[0].json();
    let last = asked["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(said(&last["content"]), "What's weather in Paris?");
}

/// A team where each agent's instructions are a marker the scripted
/// server routes by (the agents work in parallel, in any order).
fn team_file(env: &Env) -> PathBuf {
    let agent = |name: &str, spec: &str, marker: &str| json!({"name": name, "specialisations": [spec], "instructions": marker, "toolboxes": []});
    let file = env.path().join("team.json");
    let team = json!({"agents": [
        agent("planner", "planning", "ROLE-PLANNER"),
        agent("alpha", "research", "ROLE-ALPHA"),
        agent("beta", "writing", "ROLE-BETA"),
        agent("rita", "review", "ROLE-REVIEWER"),
        agent("syn", "synthesis", "ROLE-SYNTH"),
    ]});
    std::fs::write(&file, team.to_string()).unwrap();
    file
}

const TEAM_PLAN: &str = r#"{"assignments": [{"task": "Summarise report A", "specialisation": "research"}, {"task": "Summarise report B", "specialisation": "writing"}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestrate_plans_works_in_parallel_reviews_revises_and_synthesizes() {
    let server = ScriptedServer::start().await.unwrap();
    // The most specific markers first: a review of alpha, alpha revising.
    server.reply_when(
        "alpha's answer",
        Reply::text(r#"{"approved": false, "feedback": "Add the figures."}"#),
    );
    server.reply_when(
        "alpha's answer",
        Reply::text(r#"{"approved": true, "feedback": "Good."}"#),
    );
    server.reply_when("beta's answer", Reply::text(r#"{"approved": true}"#));
    server.reply_when(
        "A reviewer asked for changes",
        Reply::text("Report A: revenue up 12%."),
    );
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("Report A: revenue up."));
    server.reply_when("ROLE-BETA", Reply::text("Report B: costs down."));
    server.reply_when("ROLE-SYNTH", Reply::text("Overall: A grew 12%, B saved."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(env.path().join("ws"))
        .arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env));
    c.args(["--json", "Compare reports A and B"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["finalResponse"], "Overall: A grew 12%, B saved.");
    assert_eq!(r["plan"].as_array().unwrap().len(), 2);
    let alpha = r["agentResponses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "alpha")
        .unwrap();
    assert_eq!(
        (
            alpha["response"].as_str().unwrap(),
            alpha["revisions"].as_u64().unwrap()
        ),
        ("Report A: revenue up 12%.", 1)
    );
    let reviews = r["reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 3, "{r}");
    assert!(reviews.iter().all(|x| x["reviewer"] == "rita"));
    assert_eq!(r["totalTokens"], 8 * 18, "eight model calls of 18 tokens");
    assert_eq!(server.remaining(), 0);
    // Each member was briefed with the plan and its assignment.
    let to_alpha = server
        .requests()
        .into_iter()
        .map(|q| String::from_utf8_lossy(&q.body).into_owned())
        .find(|b| b.contains("ROLE-ALPHA") && !b.contains("A reviewer asked"))
        .unwrap();
    assert!(
        to_alpha.contains("You are alpha") && to_alpha.contains("Summarise report B"),
        "{to_alpha}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestrate_stops_at_the_token_budget_and_says_so() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("Report A: revenue up."));
    server.reply_when("ROLE-BETA", Reply::text("Report B: costs down."));
    server.reply_when("ROLE-SYNTH", Reply::text("never asked"));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(env.path().join("ws"))
        .arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env));
    c.args([
        "--no-review",
        "--max-tokens",
        "40",
        "Compare reports A and B",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("plan: 2 parts") && o.stderr.contains("alpha is working (part 1)"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("error: the token budget of 40 ran out (54 tokens used)"),
        "{}",
        o.stderr
    );
    assert!(
        o.stdout.contains("Report A: revenue up.") && o.stdout.contains("Report B: costs down."),
        "the partial answer: {}",
        o.stdout
    );
    assert_eq!(server.remaining(), 1, "the synthesizer was never asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestration_spans_go_to_an_opentelemetry_collector_when_one_is_named() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("Report A: revenue up."));
    server.reply_when("ROLE-BETA", Reply::text("Report B: costs down."));
    server.reply_when("ROLE-SYNTH", Reply::text("Overall."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    // The scripted server stands in for the collector: it records what
    // is posted to /v1/traces (OTLP/HTTP, protobuf).
    c.env("OTEL_EXPORTER_OTLP_ENDPOINT", server.url());
    c.arg("--workspace")
        .arg(env.path().join("ws"))
        .arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env));
    c.args(["--no-review", "--json", "Compare reports A and B"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    let session = r["sessionId"].as_str().unwrap();
    let traces: Vec<Vec<u8>> = server
        .requests()
        .into_iter()
        .filter(|q| q.path == "/v1/traces")
        .map(|q| q.body.to_vec())
        .collect();
    assert!(!traces.is_empty(), "no traces were posted");
    let all = String::from_utf8_lossy(&traces.concat()).into_owned();
    for name in [
        "orchestrator.orchestrate",
        "orchestrator.plan",
        "orchestrator.synthesize",
        "orchestrator.session_id",
        "orchestrator.assignments_count",
        "orchestrator.tokens_consumed",
        session,
    ] {
        assert!(all.contains(name), "{name} is not in the exported spans");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_and_reviews_are_asked_for_as_json_where_the_provider_can() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply_when("alpha's answer", Reply::text(r#"{"approved": true}"#));
    server.reply_when("beta's answer", Reply::text(r#"{"approved": true}"#));
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("A."));
    server.reply_when("ROLE-BETA", Reply::text("B."));
    server.reply_when("ROLE-SYNTH", Reply::text("A and B."));
    let env = Env::new();
    let providers = env.path().join("json-providers.json");
    let doc = json!({"default": "scripted", "providers": [
        {"name": "scripted", "dialect": "openai", "endpoint": format!("{}/v1", server.url()), "model": "m", "jsonMode": true}
    ]});
    std::fs::write(&providers, doc.to_string()).unwrap();
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .arg("--workspace")
        .arg(env.path().join("ws"));
    c.arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env))
        .args(["--json", "Compare"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let bodies: Vec<String> = server
        .requests()
        .into_iter()
        .map(|q| String::from_utf8_lossy(&q.body).into_owned())
        .collect();
    let asks_json = |marker: &str| {
        let body = bodies.iter().find(|b| b.contains(marker)).unwrap();
        body.contains(r#""response_format":{"type":"json_object"}"#)
    };
    assert!(
        asks_json("ROLE-PLANNER") && asks_json("ROLE-REVIEWER"),
        "the plan and the reviews"
    );
    assert!(
        !asks_json("ROLE-ALPHA") && !asks_json("ROLE-SYNTH"),
        "not the work or the answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_searches_the_internet_only_when_allowed() {
    let env = Env::new();
    let file = env.path().join("web-team.json");
    let team = json!({"agents": [
        {"name": "solo", "specialisations": ["general"], "instructions": "ROLE-SOLO", "toolboxes": [{"name": "WebTool"}]}
    ]});
    std::fs::write(&file, team.to_string()).unwrap();
    for (internet, offered) in [(false, false), (true, true)] {
        let server = ScriptedServer::start().await.unwrap();
        server.reply_when(
            "You plan work",
            Reply::text(r#"[{"task": "Look it up", "specialisation": "general"}]"#),
        );
        server.reply_when("ROLE-SOLO", Reply::text("Found it."));
        let mut c = env.scripted(&server);
        c.arg("--workspace")
            .arg(env.path().join("ws"))
            .arg("orchestrate")
            .arg("--agents")
            .arg(&file);
        if internet {
            c.arg("--internet");
        }
        c.args(["--json", "Look it up"]);
        let o = run(c, None).await;
        assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
        let work = server
            .requests()
            .into_iter()
            .map(|q| String::from_utf8_lossy(&q.body).into_owned())
            .find(|b| b.contains("Look it up  ← yours"))
            .expect("the member's request");
        assert!(work.contains("navigate"), "the browser's other tools stay");
        assert_eq!(
            work.contains("web_search"),
            offered,
            "--internet {internet}"
        );
    }
}

/// `baton models catalog|pull|rm` against a loopback server serving the
/// embedded model's file as a catalog entry of the user's; the pulled
/// model is then the provider a first run picks, and answers.
#[tokio::test(flavor = "multi_thread")]
async fn models_are_listed_pulled_used_and_removed() {
    use baton_test_support::{
        FileServerOptions, embedded_catalog_entry, embedded_model, serve_file,
    };
    let env = Env::new();
    let data = bytes::Bytes::from(std::fs::read(embedded_model()).unwrap());
    let size = data.len();
    let server = serve_file("smol-test.gguf", data, FileServerOptions::default()).await;
    let config = env.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let entry = embedded_catalog_entry("smol-test", "Smol test", &server.url);
    std::fs::write(
        config.join("models-catalog.json"),
        json!({"models": [entry]}).to_string(),
    )
    .unwrap();
    // No model server is looked for (the usual ports may be in use here).
    std::fs::write(
        config.join("setup.json"),
        json!({"localServers": []}).to_string(),
    )
    .unwrap();
    let models = env.path().join("models");
    let baton = |args: &[&str]| {
        let mut c = env.cmd();
        c.env("BATON_MODELS_DIR", &models).args(args);
        c
    };

    let o = run(baton(&["models", "catalog", "--json"]), None).await;
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["hardware"]["ramBytes"].as_u64().unwrap() > 0, "{v}");
    let listed: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&"qwen2.5-3b") && listed.contains(&"smol-test"),
        "{listed:?}"
    );
    let o = run(baton(&["models", "catalog"]), None).await;
    assert!(
        o.stdout.contains("fits this computer") && o.stdout.contains("Qwen2.5 3B Instruct"),
        "{}",
        o.stdout
    );

    let o = run(baton(&["models", "pull", "nope"]), None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no model named `nope`") && o.stderr.contains("smol-test"),
        "{}",
        o.stderr
    );
    let o = run(baton(&["models", "pull", "smol-test"]), None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("matches the published one") && o.stdout.contains("provider `smol-test`"),
        "{}",
        o.stdout
    );
    assert_eq!(
        std::fs::metadata(models.join("smol-test.gguf"))
            .unwrap()
            .len(),
        size as u64
    );

    // No provider chosen: the downloaded model is picked, said on stderr.
    let o = run(
        baton(&[
            "-v",
            "ask",
            "--no-tools",
            "--json",
            "What is the capital of France?",
        ]),
        None,
    )
    .await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["provider"], "smol-test");
    assert!(
        o.stderr.contains("Using `smol-test`") && o.stderr.contains("largest model you downloaded"),
        "{}",
        o.stderr
    );

    let o = run(baton(&["models", "rm", "smol-test"]), None).await;
    assert!(o.stdout.contains("deleted Smol test"), "{}", o.stdout);
    assert!(!models.join("smol-test.gguf").exists());
    let user = std::fs::read_to_string(config.join("providers.json")).unwrap();
    assert!(!user.contains("smol-test"), "{user}");
}

/// A model server running on this computer (the scripted server speaking
/// Ollama's API) is found and used when no provider is chosen.
#[tokio::test(flavor = "multi_thread")]
async fn a_running_ollama_is_found_and_answers_without_any_setup() {
    let server = ScriptedServer::start().await.unwrap();
    server.serve_models(&["qwen2.5:3b"]);
    server.reply(Reply::text("Paris."));
    let env = Env::new();
    let config = env.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let settings = json!({"localServers": [{"kind": "ollama", "endpoint": server.url()}]});
    std::fs::write(config.join("setup.json"), settings.to_string()).unwrap();
    let mut c = env.cmd();
    c.args(["-v", "ask", "--no-tools", "Capital of France?"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.trim(), "Paris.");
    assert!(
        o.stderr
            .contains("Using `ollama-qwen2.5:3b`: ollama runs on this computer"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.args(["providers", "--json"]);
    let o = run(c, None).await;
    assert!(o.stdout.contains("ollama-qwen2.5:3b"), "{}", o.stdout);
}
