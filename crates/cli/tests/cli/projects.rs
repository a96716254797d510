//! Projects: two projects with different folders, instructions and
//! memory; search and chats in one never see the other's files or
//! words; removing a project asks, and moves its chats to the trash.

use std::path::PathBuf;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

/// A project named `name` over `env/<folder>` holding `file` with `text`.
async fn project(env: &Env, name: &str, folder: &str, file: &str, text: &str) -> PathBuf {
    let dir = env.path().join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
    let mut c = env.cmd();
    c.args(["projects", "new", name, "--folder"])
        .arg(&dir)
        .args(["--instructions", &format!("You work for the {name} team.")]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with(&format!("Made the project {name} (p")),
        "{}",
        o.stdout
    );
    let mut c = env.cmd();
    c.args(["index", "--project", name]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    dir
}

/// The paths `baton search --project NAME QUERY` finds.
async fn found(env: &Env, name: &str, query: &str) -> Vec<String> {
    let mut c = env.cmd();
    c.args(["search", "--json", "--project", name, query]);
    let o = run(c, None).await;
    let hits: Vec<Value> = serde_json::from_str(o.stdout.trim()).unwrap_or_default();
    hits.iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

/// The system message and the whole text of the last request.
fn last_request(server: &ScriptedServer) -> (String, String) {
    let told = server.requests().last().unwrap().json();
    let system = told["messages"][0]["content"].to_string();
    (system, told.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn two_projects_keep_their_files_instructions_and_memory_apart() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    project(
        &env,
        "Alpha",
        "alpha",
        "berths.md",
        "# Berths\n\nThe zebra crane stands at berth 7.\n",
    )
    .await;
    project(
        &env,
        "Beta",
        "beta",
        "stock.md",
        "# Stock\n\nThe zebra forklift is in hall B.\n",
    )
    .await;
    assert_eq!(found(&env, "Alpha", "zebra").await, ["/berths.md"]);
    assert_eq!(found(&env, "Beta", "zebra").await, ["/stock.md"]);

    // The model searches in Alpha: only Alpha's file comes back, and the
    // request carries Alpha's instructions, not Beta's.
    server.reply(Reply::tool_call(
        "search_documents",
        json!({"query": "zebra"}),
    ));
    server.reply(Reply::text("At berth 7 [1]."));
    let mut c = env.scripted(&server);
    c.args(["ask", "--project", "Alpha", "Where is the zebra?"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (system, whole) = last_request(&server);
    assert!(system.contains("You work for the Alpha team."), "{system}");
    assert!(!whole.contains("Beta team"), "{whole}");
    assert!(
        whole.contains("berth 7") && whole.contains("/berths.md"),
        "{whole}"
    );
    assert!(
        !whole.contains("forklift") && !whole.contains("stock.md"),
        "{whole}"
    );

    // Alpha's memory is told in Alpha, not in Beta; the system message
    // stays the same (memory rides outside the cached prefix).
    let mut c = env.cmd();
    c.args([
        "memory",
        "--project",
        "Alpha",
        "add",
        "The Alpha crane driver is Ola",
    ]);
    assert_eq!(run(c, None).await.code, 0);
    for (name, told) in [("Alpha", true), ("Beta", false)] {
        server.reply(Reply::text("Noted."));
        let mut c = env.scripted(&server);
        c.args(["ask", "--project", name, "Who drives the crane?"]);
        assert_eq!(run(c, None).await.code, 0);
        let (system_now, whole) = last_request(&server);
        assert_eq!(
            whole.contains("crane driver is Ola"),
            told,
            "{name}: {whole}"
        );
        if told {
            assert!(whole.contains("in the project \\\"Alpha\\\""), "{whole}");
            assert_eq!(system_now, system, "the system message did not change");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_in_a_project_is_listed_exported_moved_and_trashed_with_it() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = project(&env, "Port", "port", "a.md", "# A\n\nquay\n").await;
    server.reply(Reply::text("Hello from the port."));
    let mut c = env.scripted(&server);
    c.args(["chat", "--project", "Port"]);
    let o = run(c, Some("hello\n/exit\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (system, _) = last_request(&server);
    assert!(system.contains("Port team"), "{system}");

    let mut c = env.cmd();
    c.args(["projects", "list"]);
    let o = run(c, None).await;
    assert!(
        o.stdout.contains("Port") && o.stdout.contains("(1 chats)"),
        "{}",
        o.stdout
    );

    // Exported by project: the one chat, with its project kept.
    let out = env.path().join("out");
    let mut c = env.cmd();
    c.args(["export", "--project", "Port", "--out"]).arg(&out);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with("Exported 1 conversation "),
        "{}",
        o.stdout
    );
    let exported = std::fs::read_to_string(out.join("baton-conversations.json")).unwrap();
    assert!(exported.contains("Hello from the port."), "{exported}");

    // Moved out and back in.
    let sessions = env.path().join("data/sessions");
    let id = saved_session(&env);
    let mut c = env.cmd();
    c.args(["projects", "move", &id, "--none"]);
    assert_eq!(run(c, None).await.code, 0);
    let mut c = env.cmd();
    c.args(["projects", "list"]);
    assert!(run(c, None).await.stdout.contains("(0 chats)"));
    let mut c = env.cmd();
    c.args(["projects", "move", &id, "port"]);
    assert_eq!(run(c, None).await.code, 0);

    // Removing asks first (no terminal here: nothing happens without --yes).
    let mut c = env.cmd();
    c.args(["projects", "rm", "Port"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("add --yes"), "{}", o.stderr);
    assert!(sessions.join(format!("{id}.json")).exists());
    let mut c = env.cmd();
    c.args(["projects", "rm", "Port", "--yes"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("1 chat moved to the trash"),
        "{}",
        o.stdout
    );
    assert!(!sessions.join(format!("{id}.json")).exists());
    assert!(sessions.join(".trash").join(format!("{id}.json")).exists());
    assert!(dir.join("a.md").exists(), "the folder and its files stay");

    let mut c = env.cmd();
    c.args(["chat", "--project", "Port"]);
    let o = run(c, Some("/exit\n")).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("there is no project named 'Port'"),
        "{}",
        o.stderr
    );
}
