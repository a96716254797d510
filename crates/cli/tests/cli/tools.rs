//! The agent loop with the built-in toolboxes (CLI and API modes) and
//! `baton tools`: the catalog in every rendering and `tools call`.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

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
    // FileTool's eleven, SpreadsheetTool's twenty-eight, WebTool's nineteen, DocumentTool's two, MemoryTool's one,
    // ScheduleTool's three, ResearchTool's one, and delegation to the subagents (its own, and the shipped researcher).
    let names: Vec<&str> = req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 78, "native tools in API mode: {names:?}");
    assert!(names.contains(&"schedule_task"), "{names:?}");
    assert!(names.contains(&"deep_research"), "{names:?}");
    assert!(names.contains(&"describe_worksheet"), "{names:?}");
    assert!(names.contains(&"remember"), "{names:?}");
    assert!(
        names.ends_with(&["launch_subagent", "provide_subagent_input"]),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn in_cli_mode_an_agent_delegates_on_its_command_line() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    // The `scripted` entry's small context window: CLI mode, replies in JSON.
    server.reply(Reply::text(
        r#"{"method": "cli", "command": "Subagents launch researcher Read /reports/q1.txt and give the figure"}"#,
    ));
    server.reply(Reply::text(r#"{"answer": "Q1 revenue is up 12%."}"#));
    server.reply(Reply::text(
        r#"{"answer": "The researcher found that Q1 revenue is up 12%."}"#,
    ));
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--json", "Ask the researcher for the Q1 figure"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["text"], "The researcher found that Q1 revenue is up 12%.");
    assert_eq!(v["toolCalls"][0]["name"], "launch_subagent", "{v}");
    assert_eq!(v["toolCalls"][0]["arguments"]["agent"], "researcher");
    let asked = server.requests();
    let system = |i: usize| {
        asked[i].json()["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // The parent's command list offers delegation; the researcher got the
    // task, with its own instructions and no further delegation to itself.
    assert!(
        system(0).contains("- Subagents {launch|answer}")
            && system(0).contains("Subagents launch AGENT TASK"),
        "{}",
        system(0)
    );
    let sub = asked[1].json();
    let task = sub["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(
        task.contains("Read /reports/q1.txt and give the figure"),
        "{task}"
    );
    assert!(
        system(1).contains("Search and read the workspace to answer."),
        "{}",
        system(1)
    );
    // A line that names no known sub-agent is an error the model reads.
    server.reply(Reply::text(
        r#"{"method": "cli", "command": "Subagents launch"}"#,
    ));
    server.reply(Reply::text(r#"{"answer": "I could not delegate."}"#));
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--json", "Delegate"]);
    let o = run(c, None).await;
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let error = v["toolCalls"][0]["outcome"]["err"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(error.contains("Subagents launch AGENT TASK"), "{v}");
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
