//! FileTool through the catalog, as the agent uses it.

use std::sync::Arc;

use baton_docs::FileTool;
use baton_tools::{Catalog, Sandbox, ToolOutcome};
use serde_json::{Value, json};

fn setup() -> (tempfile::TempDir, Catalog) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("reports/2026")).unwrap();
    std::fs::write(
        dir.path().join("reports/q1.txt"),
        "Quarter one: revenue up 12%.",
    )
    .unwrap();
    std::fs::write(dir.path().join("reports/2026/plan.md"), "# Plan\nGrow.").unwrap();
    std::fs::write(
        dir.path().join("photo.png"),
        [0x89, b'P', b'N', b'G', 0xff, 0xfe],
    )
    .unwrap();
    let tool = FileTool::new(Sandbox::new(dir.path()).unwrap());
    let catalog = Catalog::new().with(Arc::new(tool)).unwrap();
    (dir, catalog)
}

async fn ok(c: &Catalog, method: &str, args: Value) -> Value {
    match c.dispatch(method, args.clone()).await.outcome {
        ToolOutcome::Ok(v) => v,
        ToolOutcome::Err(e) => panic!("{method}({args}) failed: {e}"),
    }
}

async fn err(c: &Catalog, method: &str, args: Value) -> String {
    match c.dispatch(method, args.clone()).await.outcome {
        ToolOutcome::Ok(v) => panic!("{method}({args}) should fail, got {v}"),
        ToolOutcome::Err(e) => e,
    }
}

#[tokio::test]
async fn catalog_lists_the_six_methods_with_docs() {
    let (_d, c) = setup();
    assert_eq!(
        c.method_names(),
        [
            "list_directory",
            "read_text_file",
            "write_text_file",
            "find_files",
            "move_file",
            "get_file_info"
        ]
    );
    let md = c.markdown();
    assert!(md.contains("- **FileTool**: Files in the user's workspace"));
    assert!(
        md.contains("- `path` (string, default \"/\"): the folder, e.g. `/reports`"),
        "{md}"
    );
    assert!(
        md.contains("- `length` (integer, default 20000): how many characters to return"),
        "{md}"
    );
}

#[tokio::test]
async fn list_read_find_info() {
    let (_d, c) = setup();
    let list = ok(&c, "list_directory", json!({"path": "/reports"})).await;
    assert_eq!(
        list,
        json!([
            {"path": "/reports/2026", "kind": "dir"},
            {"path": "/reports/q1.txt", "kind": "file", "size": 28}
        ])
    );
    let root = ok(&c, "list_directory", json!({})).await;
    assert_eq!(root.as_array().unwrap().len(), 2);
    let r = ok(
        &c,
        "read_text_file",
        json!({"path": "/reports/q1.txt", "offset": 13, "length": 7}),
    )
    .await;
    assert_eq!(
        r,
        json!({"path": "/reports/q1.txt", "text": "revenue", "offset": 13, "total_chars": 28, "truncated": true})
    );
    let found = ok(&c, "find_files", json!({"pattern": "*.MD"})).await;
    assert_eq!(found, json!(["/reports/2026/plan.md"]));
    let found = ok(&c, "find_files", json!({"pattern": "reports/*.txt"})).await;
    assert_eq!(found, json!(["/reports/q1.txt"]));
    let info = ok(&c, "get_file_info", json!({"path": "/reports/2026"})).await;
    assert_eq!(info["kind"], "dir");
    assert!(info["modified_unix"].as_u64().unwrap() > 1_700_000_000);
}

#[tokio::test]
async fn writes_are_atomic_and_back_up_what_they_replace() {
    let (d, c) = setup();
    let w = ok(
        &c,
        "write_text_file",
        json!({"path": "/drafts/new.md", "text": "v1"}),
    )
    .await;
    assert_eq!(w, json!({"path": "/drafts/new.md", "bytes": 2}));
    let w = ok(
        &c,
        "write_text_file",
        json!({"path": "/drafts/new.md", "text": "v2"}),
    )
    .await;
    assert_eq!(w["backup"], "/drafts/new.md.001.bak");
    let w = ok(
        &c,
        "write_text_file",
        json!({"path": "/drafts/new.md", "text": "v3"}),
    )
    .await;
    assert_eq!(w["backup"], "/drafts/new.md.002.bak");
    let p = d.path().join("drafts");
    assert_eq!(std::fs::read_to_string(p.join("new.md")).unwrap(), "v3");
    assert_eq!(
        std::fs::read_to_string(p.join("new.md.001.bak")).unwrap(),
        "v1"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("new.md.002.bak")).unwrap(),
        "v2"
    );
    let mut names: Vec<_> = std::fs::read_dir(&p)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["new.md", "new.md.001.bak", "new.md.002.bak"],
        "no temp files left"
    );
}

#[tokio::test]
async fn move_refuses_to_overwrite_unless_asked_and_backs_up() {
    let (d, c) = setup();
    std::fs::write(d.path().join("a.txt"), "A").unwrap();
    std::fs::write(d.path().join("b.txt"), "B").unwrap();
    let e = err(&c, "move_file", json!({"from": "/a.txt", "to": "/b.txt"})).await;
    assert!(
        e.contains("`/b.txt` already exists; pass overwrite=true"),
        "{e}"
    );
    let m = ok(
        &c,
        "move_file",
        json!({"from": "/a.txt", "to": "/b.txt", "overwrite": "true"}),
    )
    .await;
    assert_eq!(m["backup"], "/b.txt.001.bak");
    assert_eq!(
        std::fs::read_to_string(d.path().join("b.txt")).unwrap(),
        "A"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("b.txt.001.bak")).unwrap(),
        "B"
    );
    let m = ok(
        &c,
        "move_file",
        json!({"from": "/b.txt", "to": "/archive/2026/b.txt"}),
    )
    .await;
    assert_eq!(m["path"], "/archive/2026/b.txt");
}

#[tokio::test]
async fn failures_are_clear_results() {
    let (_d, c) = setup();
    assert_eq!(
        err(&c, "read_text_file", json!({"path": "/nope.txt"})).await,
        "`/nope.txt` does not exist"
    );
    assert_eq!(
        err(&c, "read_text_file", json!({"path": "/photo.png"})).await,
        "`/photo.png` is not a text file (it is not valid UTF-8)"
    );
    assert_eq!(
        err(&c, "read_text_file", json!({"path": "/reports"})).await,
        "`/reports` is a folder, not a file"
    );
    assert!(
        err(&c, "read_text_file", json!({"path": "/../etc/passwd"}))
            .await
            .contains("climbs above the workspace root")
    );
    assert!(
        err(
            &c,
            "write_text_file",
            json!({"path": "C:\\evil.txt", "text": "x"})
        )
        .await
        .contains("not a workspace path")
    );
    assert!(
        err(&c, "list_directory", json!({"path": "/reports/q1.txt"}))
            .await
            .contains("is a file, not a folder")
    );
    assert!(
        err(&c, "find_files", json!({"pattern": "a[b"}))
            .await
            .contains("invalid pattern `a[b`")
    );
    assert!(
        err(&c, "read_text_file", json!({}))
            .await
            .contains("missing required parameter `path`")
    );
}
