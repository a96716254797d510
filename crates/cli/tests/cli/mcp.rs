//! MCP both ways: servers from mcp.json and plugins joining Baton's tools
//! (`baton mcp servers|disable|add`), `baton mcp` serving the toolboxes
//! to the official Python SDK and the MCP Inspector, and MCP prompts in
//! chat.

use std::path::Path;
use std::time::Duration;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

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
    assert_eq!(servers[0]["trust"], "untrusted", "{servers}");
    let count = || {
        let mut c = env.cmd();
        c.env("BATON_WORKSPACE", dir).args([
            "tools",
            "call",
            r#"{"method": "count_words", "text": "a b c d"}"#,
        ]);
        run(c, None)
    };
    // Its readOnlyHint is the plugin's own word: untrusted, it asks.
    let o = count().await;
    assert_ne!(o.code, 0, "{}", o.stdout);
    assert!(o.stdout.contains("was not run"), "{}", o.stdout);
    let mut c = env.cmd();
    c.env("BATON_WORKSPACE", dir)
        .args(["mcp", "trust", "Words"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(env.path().join("config/mcp-trust.json").exists());
    let o = count().await;
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
        "http: a web page's request is refused (its Origin, or its name re-pointed here)",
        "key: refused without the key and with the HTTP API's, served with its own; a re-pointed name refused, the configured name and addresses answered",
        "acting: an action runs only once the user accepts it in the client",
        "acting: --allow-acting runs it without asking",
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
