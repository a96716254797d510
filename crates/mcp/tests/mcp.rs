//! Baton as an MCP client of a real third-party server: the reference
//! "everything" server from npm (`@modelcontextprotocol/server-everything`,
//! installed by scripts/make-fixtures.sh --tools-only), over stdio.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_mcp::{McpHub, ServerDef};
use baton_tools::{Catalog, ToolContext, ToolError, Toolbox};
use serde_json::json;

/// The everything server's program, as npm installed it.
fn everything() -> String {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let bin = PathBuf::from(dir).join("tests/servers/node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "{} is missing: run scripts/make-fixtures.sh --tools-only (make test does)",
        bin.display()
    );
    bin.display().to_string()
}

fn server(def: serde_json::Value) -> ServerDef {
    serde_json::from_value(def).unwrap()
}

async fn toolbox(hub: &Arc<McpHub>, name: &str) -> Arc<dyn Toolbox> {
    hub.start()
        .await
        .into_iter()
        .find(|t| t.spec().name == name)
        .unwrap_or_else(|| panic!("{name} did not start: {:?}", hub.problems()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_mcp_server_s_tools_are_listed_filtered_and_called() {
    let servers = BTreeMap::from([
        (
            "everything".to_string(),
            server(json!({"command": everything(), "excludeTools": ["get-env"]})),
        ),
        (
            "broken".to_string(),
            server(json!({"command": "sh", "args": ["-c", "echo no such thing >&2; exit 3"]})),
        ),
        (
            "off".to_string(),
            server(json!({"command": everything(), "enabled": false})),
        ),
    ]);
    let hub = Arc::new(McpHub::new(servers, Duration::from_secs(2)));
    let everything = toolbox(&hub, "everything").await;
    let names: Vec<&str> = everything
        .spec()
        .methods
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert!(
        names.contains(&"echo") && names.contains(&"get-sum"),
        "{names:?}"
    );
    assert!(!names.contains(&"get-env"), "excluded: {names:?}");
    let sum = everything
        .spec()
        .methods
        .iter()
        .find(|m| m.name == "get-sum")
        .unwrap();
    assert_eq!(sum.params.len(), 2, "{sum:?}");
    assert!(
        sum.params
            .iter()
            .all(|p| p.required && !p.description.is_empty()),
        "{sum:?}"
    );

    // The server that cannot start is left out in words; the disabled one is not started.
    let problems = hub.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "broken");
    assert!(
        problems[0].1.contains("the MCP server `broken`"),
        "{problems:?}"
    );
    assert_eq!(hub.started().len(), 1);

    // Calls go through Baton's catalog like a built-in tool's.
    let catalog = Catalog::new().with(Arc::clone(&everything)).unwrap();
    let (tb, method) = catalog
        .resolve("get_sum")
        .or_else(|_| catalog.resolve("get-sum"))
        .unwrap();
    let out = tb
        .call(
            &method.name,
            json!({"a": 2, "b": 40}),
            ToolContext::default(),
        )
        .await;
    assert_eq!(out.unwrap(), json!("The sum of 2 and 40 is 42."));
    let out = everything
        .call("echo", json!({"message": "héllo"}), ToolContext::default())
        .await;
    assert_eq!(out.unwrap(), json!("Echo: héllo"));

    // A call past the timeout fails in words, and the server keeps serving.
    let started = Instant::now();
    let slow = everything
        .call(
            "trigger-long-running-operation",
            json!({"duration": 30, "steps": 3}),
            ToolContext::default(),
        )
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(&slow, ToolError::Failed(m) if m.contains("did not answer `trigger-long-running-operation` within 2 s")),
        "{slow:?}"
    );
    let out = everything
        .call(
            "echo",
            json!({"message": "still here"}),
            ToolContext::default(),
        )
        .await;
    assert_eq!(out.unwrap(), json!("Echo: still here"));
    hub.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_or_hangs_stays_isolated_and_is_started_again() {
    let dir = tempfile::tempdir().unwrap();
    let starts = dir.path().join("starts");
    let script = format!(
        "{}/tests/servers/misbehaving.mjs",
        std::env::var("CARGO_MANIFEST_DIR").unwrap()
    );
    let servers = BTreeMap::from([(
        "misbehaving".to_string(),
        server(json!({"command": "node", "args": [script, starts]})),
    )]);
    let hub = Arc::new(McpHub::new(servers, Duration::from_secs(2)));
    let tools = toolbox(&hub, "misbehaving").await;
    let ping = tools
        .spec()
        .methods
        .iter()
        .find(|m| m.name == "ping")
        .unwrap();
    // Its readOnlyHint is its own claim: it counts once the user trusts it.
    assert_eq!(ping.effect, baton_tools::Effect::External, "untrusted");
    let trust = |hub: &Arc<McpHub>| hub.statuses()[0].trust;
    assert_eq!(trust(&hub), baton_mcp::Trust::Untrusted);
    hub.set_trusted("misbehaving", true).await.unwrap();
    let tools = toolbox(&hub, "misbehaving").await;
    let effect_of = |tools: &Arc<dyn Toolbox>, name: &str| {
        let m = tools.spec().methods.iter().find(|m| m.name == name);
        m.unwrap().effect
    };
    assert_eq!(
        effect_of(&tools, "ping"),
        baton_tools::Effect::Read,
        "trusted"
    );
    assert_eq!(trust(&hub), baton_mcp::Trust::Trusted);
    let call = |method: &'static str| {
        let tools = Arc::clone(&tools);
        async move { tools.call(method, json!({}), ToolContext::default()).await }
    };
    assert_eq!(call("ping").await.unwrap(), json!("pong from start 1"));

    // It dies mid-call: a failure in words; the next call starts it again.
    let crashed = call("crash").await.unwrap_err();
    assert!(
        matches!(&crashed, ToolError::Failed(m) if m.contains("stopped while running `crash`")),
        "{crashed:?}"
    );
    assert_eq!(call("ping").await.unwrap(), json!("pong from start 2"));

    // It never answers: the timeout; it still answers other calls.
    let hung = call("hang").await.unwrap_err();
    assert!(
        matches!(&hung, ToolError::Failed(m) if m.contains("did not answer `hang` within 2 s")),
        "{hung:?}"
    );
    assert_eq!(call("ping").await.unwrap(), json!("pong from start 2"));

    // Stopped by the user: cancelled at once.
    let cancel = baton_tools::CancellationToken::new();
    let ctx = ToolContext::new(cancel.clone());
    let stop = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let stopped = tools.call("hang", json!({}), ctx).await.unwrap_err();
    assert_eq!(stopped, ToolError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(1));
    stop.await.unwrap();

    // It comes back with ping described anew: trusted no longer, it asks.
    std::fs::write(dir.path().join("starts.changed"), "").unwrap();
    assert!(call("crash").await.is_err());
    assert_eq!(call("ping").await.unwrap(), json!("pong from start 3"));
    let changed = toolbox(&hub, "misbehaving").await;
    assert_eq!(effect_of(&changed, "ping"), baton_tools::Effect::External);
    assert_eq!(trust(&hub), baton_mcp::Trust::Changed);
    hub.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_server_over_streamable_http_is_used_like_a_stdio_one() {
    use tokio::io::AsyncBufReadExt;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = tokio::process::Command::new(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let listening = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("listening on port") {
                return;
            }
        }
        panic!("the everything server stopped before listening");
    });
    listening
        .await
        .expect("the everything server did not listen");
    let servers = BTreeMap::from([(
        "remote".to_string(),
        server(json!({
            "url": format!("http://127.0.0.1:{port}/mcp"),
            "headers": {"Authorization": "Bearer not-checked", "X-Client": "baton-test"},
            "includeTools": ["echo"],
        })),
    )]);
    let hub = Arc::new(McpHub::new(servers, Duration::from_secs(5)));
    let remote = toolbox(&hub, "remote").await;
    assert_eq!(remote.spec().methods.len(), 1);
    let out = remote
        .call(
            "echo",
            json!({"message": "over HTTP"}),
            ToolContext::default(),
        )
        .await;
    assert_eq!(out.unwrap(), json!("Echo: over HTTP"));
    hub.close().await;
}
