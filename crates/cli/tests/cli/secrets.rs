//! API keys: from the environment, in the real keychain (the Secret
//! Service `make test` starts), and no plain-text fallback without one.

use std::path::{Path, PathBuf};

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::Value;

use crate::support::*;

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
async fn an_entry_that_declares_no_key_still_sends_the_one_found_for_it() {
    // A seed-style entry (the original system's key names, no apiKeyEnv):
    // its key from the original system's variable.
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    server.reply(Reply::text("ok"));
    let env = Env::new();
    let file = env.path().join("seed-providers.json");
    let endpoint = format!("{}/v1", server.url());
    std::fs::write(
        &file,
        serde_json::json!({"default": "deepseek", "providers": [
            {"name": "deepseek", "Type": "OpenAI", "Endpoint": endpoint, "ModelName": "m"},
            {"name": "team-proxy", "dialect": "openai", "endpoint": endpoint, "model": "m"}
        ]})
        .to_string(),
    )
    .unwrap();
    let mut c = env.cmd();
    c.env("DeepSeekApiKey", "sk-seed-variable")
        .arg("--providers")
        .arg(&file)
        .args(["ask", "-p", "deepseek", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-seed-variable")
    );
    // Its key in the keychain (the test's own Secret Service).
    let mut set = env.cmd();
    set.args(["secret", "set", "team-proxy"]);
    let o = run(set, Some("sk-in-the-keychain\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&file)
        .args(["ask", "-p", "team-proxy", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some("Bearer sk-in-the-keychain")
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
    // Stored in the Secret Service under service "baton", in the
    // providers' namespace.
    let lookup = std::process::Command::new("secret-tool")
        .args([
            "lookup",
            "service",
            "baton",
            "username",
            "provider:scripted-keyed",
        ])
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
        vec!["scripted-keyed (provider:scripted-keyed)"],
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
    assert_eq!(v["secrets"]["scripted-keyed"], "sk-…n-42 (keychain)");

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
