//! `baton index` and `baton search`: indexing the workspace, a watching
//! process holding the index, and a second process meanwhile.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::*;

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
    // Its reader gone before it answers (`baton search --json … | head -c0`):
    // it ends quietly, without a panic.
    let mut c = env.cmd();
    c.arg("--workspace")
        .arg(&dir)
        .args(["search", "--json", "inventory table"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    drop(child.stdout.take());
    let closed = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert!(
        closed.status.success() && !stderr.contains("panicked"),
        "{:?}: {stderr}",
        closed.status
    );

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

/// `baton ask` with the workspace indexed: the model searches, the result
/// numbers each passage, the answer's citations are checked against them
/// (one to a passage never given is taken out and counted) and listed.
#[tokio::test(flavor = "multi_thread")]
async fn ask_lists_the_passages_the_answer_cites_and_drops_invented_ones() {
    use baton_scripted_llm::{Reply, ScriptedServer};
    use serde_json::json;
    let env = Env::new();
    let dir = ws(&env);
    std::fs::write(
        dir.join("harbour.md"),
        "# Harbour costs\n\nPilotage fees for March came to 4,200 EUR, paid to the harbour authority.\n",
    )
    .unwrap();
    std::fs::write(dir.join("garden.md"), "# Garden\n\nThe roses need water.\n").unwrap();
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).arg("index");
    assert_eq!(run(c, None).await.code, 0);

    let server = ScriptedServer::start().await.unwrap();
    let script = |server: &ScriptedServer| {
        server.reply(Reply::tool_call(
            "search_documents",
            json!({"query": "pilotage fees"}),
        ));
        server.reply(Reply::text(
            "The pilots were paid 4,200 EUR in March [1]. The tugs cost more [4].",
        ));
    };
    script(&server);
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--json", "What did we pay the pilots?"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(
        v["text"],
        "The pilots were paid 4,200 EUR in March [1]. The tugs cost more."
    );
    assert_eq!(v["droppedCitations"], 1, "{v}");
    let cited = &v["citations"][0];
    assert_eq!(cited["number"], 1);
    assert_eq!(cited["path"], "/harbour.md");
    assert!(
        cited["passage"].as_str().unwrap().contains("4,200 EUR"),
        "{cited}"
    );
    assert_eq!(v["citations"].as_array().unwrap().len(), 1);
    // The model read the number beside the passage.
    let requests = server.requests();
    let second = requests.last().unwrap().json();
    let tool = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        tool["content"].as_str().unwrap().contains("\"source\":1"),
        "{tool}"
    );

    script(&server);
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "What did we pay the pilots?"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("Sources:\n  [1] /harbour.md, Harbour costs"),
        "{}",
        o.stdout
    );
    assert!(
        o.stderr
            .contains("1 citation(s) to passages the model was never given"),
        "{}",
        o.stderr
    );
}
