//! `baton config` and `baton providers`: settings set and shown, the
//! workspace overrides, corrupt and empty settings, provider readiness.

use baton_scripted_llm::ScriptedServer;
use serde_json::Value;

use crate::support::*;

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
