//! `baton agents` and `--agent`: the shipped and user agents, a broken
//! agents file named, catalogs filtered per agent, and an agent's
//! instructions and tools in `ask`.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

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
            "agent `nobody`: no such agent; agents: assistant, researcher, document-preparer, planner, reviewer, synthesizer, clerk"
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
