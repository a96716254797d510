//! Plugins in the Tools folder while Baton runs: one written with the
//! official Python MCP SDK (PyPI `mcp`) is picked up after the quiet
//! period, called, changed and removed; one that cannot start is told in
//! words and keeps nothing else from working.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_mcp::{McpHub, ServerState, Source};
use baton_tools::{ToolContext, Toolbox};
use serde_json::json;

use baton_test_support::venv_python;

fn servers_dir() -> PathBuf {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    PathBuf::from(dir).join("tests/servers")
}

/// Drops a plugin folder with `plugin.json` into `tools`.
fn add_plugin(tools: &Path, folder: &str, plugin: serde_json::Value) {
    let dir = tools.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let text = serde_json::to_string_pretty(&plugin).unwrap();
    std::fs::write(dir.join("plugin.json"), text).unwrap();
}

/// The toolboxes offered once `pred` holds for them (the watcher reloads
/// in the background), within `limit`.
async fn offered_when(
    hub: &Arc<McpHub>,
    limit: Duration,
    pred: impl Fn(&[Arc<dyn Toolbox>]) -> bool,
) -> Vec<Arc<dyn Toolbox>> {
    let started = Instant::now();
    loop {
        let boxes = hub.start().await;
        if pred(&boxes) {
            return boxes;
        }
        assert!(
            started.elapsed() < limit,
            "not within {limit:?}: {:?}",
            hub.statuses()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn named<'a>(boxes: &'a [Arc<dyn Toolbox>], name: &str) -> Option<&'a Arc<dyn Toolbox>> {
    boxes.iter().find(|b| b.spec().name == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_dropped_in_while_baton_runs_is_picked_up_changed_and_removed() {
    let home = tempfile::tempdir().unwrap();
    let (config, tools) = (home.path().join("config"), home.path().join("Tools"));
    std::fs::create_dir_all(&config).unwrap();
    let hub = Arc::new(McpHub::open(
        config.clone(),
        tools.clone(),
        Duration::from_secs(5),
    ));
    hub.watch(Duration::from_millis(500)).unwrap();
    assert!(hub.start().await.is_empty(), "no plugins yet");

    let script = servers_dir().join("word_tools.py");
    let plugin = json!({
        "description": "Counts and reverses words.",
        "command": venv_python(), "args": [script],
    });
    add_plugin(&tools, "Words", plugin.clone());
    add_plugin(&tools, "Broken", json!({"command": "./missing.sh"}));
    let dropped = Instant::now();
    let boxes = offered_when(&hub, Duration::from_secs(30), |b| {
        named(b, "Words").is_some()
    })
    .await;
    let picked_up = dropped.elapsed();
    assert!(picked_up >= Duration::from_millis(500), "{picked_up:?}");
    let words = named(&boxes, "Words").unwrap();
    assert_eq!(words.spec().summary, "Counts and reverses words.");
    let count = words
        .spec()
        .methods
        .iter()
        .find(|m| m.name == "count_words");
    // Untrusted, its readOnlyHint does not count; trusted, it does (and
    // the trust is kept beside mcp.json).
    assert_eq!(count.unwrap().effect, baton_tools::Effect::External);
    hub.set_trusted("Words", true).await.unwrap();
    assert!(config.join(baton_mcp::TRUST_FILE).exists());
    let boxes = hub.start().await;
    let words = named(&boxes, "Words").unwrap();
    let count = words
        .spec()
        .methods
        .iter()
        .find(|m| m.name == "count_words");
    assert_eq!(count.unwrap().effect, baton_tools::Effect::Read);
    let out = words
        .call(
            "count_words",
            json!({"text": "one two three"}),
            ToolContext::default(),
        )
        .await;
    assert_eq!(out.unwrap(), json!("3"));

    // The plugin that cannot start is told in words; it holds up nothing.
    let statuses = hub.statuses();
    let broken = statuses.iter().find(|s| s.name == "Broken").unwrap();
    assert_eq!(broken.state, ServerState::Failed, "{broken:?}");
    let why = broken.problem.as_deref().unwrap();
    assert!(
        why.contains("the MCP server `Broken`") && why.contains("missing.sh"),
        "{why}"
    );
    let words_status = statuses.iter().find(|s| s.name == "Words").unwrap();
    assert_eq!(words_status.state, ServerState::Running);
    assert_eq!(words_status.tools, ["count_words", "reverse_words"]);
    assert_eq!(
        words_status.source,
        Source::Plugin {
            dir: tools.join("Words")
        }
    );

    // Changed: only the tools it now allows; removed: gone.
    let mut narrowed = plugin;
    narrowed["excludeTools"] = json!(["reverse_words"]);
    add_plugin(&tools, "Words", narrowed);
    let boxes = offered_when(&hub, Duration::from_secs(30), |b| {
        named(b, "Words").is_some_and(|w| w.spec().methods.len() == 1)
    })
    .await;
    assert_eq!(
        named(&boxes, "Words").unwrap().spec().methods[0].name,
        "count_words"
    );
    let generation = hub.generation();
    std::fs::remove_dir_all(tools.join("Words")).unwrap();
    offered_when(&hub, Duration::from_secs(30), |b| {
        named(b, "Words").is_none()
    })
    .await;
    assert!(hub.generation() > generation);
    assert!(hub.statuses().iter().all(|s| s.name != "Words"));
    hub.close().await;
}
