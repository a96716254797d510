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
