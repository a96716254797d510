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
async fn catalog_lists_the_eleven_methods_with_docs() {
    let (_d, c) = setup();
    assert_eq!(
        c.method_names(),
        [
            "list_directory",
            "read_text_file",
            "write_text_file",
            "find_files",
            "move_file",
            "list_backups",
            "restore",
            "get_file_info",
            "search_documents",
            "read_document",
            "get_document_outline"
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

#[tokio::test]
async fn backups_are_listed_and_restored_without_losing_the_current_version() {
    let (d, c) = setup();
    let none = ok(&c, "list_backups", json!({"path": "/notes.md"})).await;
    assert_eq!(none, json!([]));
    for text in ["v1", "v2", "v3"] {
        ok(
            &c,
            "write_text_file",
            json!({"path": "/notes.md", "text": text}),
        )
        .await;
    }
    let list = ok(&c, "list_backups", json!({"path": "/notes.md"})).await;
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["path"], "/notes.md.001.bak");
    assert_eq!(list[0]["number"], 1);
    assert_eq!(list[1]["size"], 2);
    assert!(list[1]["modified_unix"].as_u64().unwrap() > 1_700_000_000);

    // The most recent backup (v2); v3 is saved first since no backup holds it.
    let r = ok(&c, "restore", json!({"path": "/notes.md"})).await;
    assert_eq!(
        r,
        json!({"path": "/notes.md", "restored_from": "/notes.md.002.bak", "saved_current": "/notes.md.003.bak"})
    );
    let read = |name: &str| std::fs::read_to_string(d.path().join(name)).unwrap();
    assert_eq!(
        (read("notes.md"), read("notes.md.003.bak")),
        ("v2".into(), "v3".into())
    );

    // A named backup, by file name or path; v2 is already backed up.
    let r = ok(
        &c,
        "restore",
        json!({"path": "/notes.md", "backup": "notes.md.001.bak"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"path": "/notes.md", "restored_from": "/notes.md.001.bak"})
    );
    assert_eq!(read("notes.md"), "v1");
    let r = ok(
        &c,
        "restore",
        json!({"path": "/notes.md", "backup": "/notes.md.003.bak"}),
    )
    .await;
    assert_eq!(r["restored_from"], "/notes.md.003.bak");
    assert_eq!(read("notes.md"), "v3");
    assert_eq!(
        ok(&c, "list_backups", json!({"path": "/notes.md"}))
            .await
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn restore_failures_are_clear_results() {
    let (_d, c) = setup();
    assert_eq!(
        err(&c, "restore", json!({"path": "/reports/q1.txt"})).await,
        "`/reports/q1.txt` has no backups to restore"
    );
    ok(
        &c,
        "write_text_file",
        json!({"path": "/reports/q1.txt", "text": "new"}),
    )
    .await;
    assert_eq!(
        err(
            &c,
            "restore",
            json!({"path": "/reports/q1.txt", "backup": "/reports/2026/plan.md"})
        )
        .await,
        "`/reports/2026/plan.md` is not a backup of `/reports/q1.txt`; list_backups gives its backups"
    );
    assert_eq!(
        err(&c, "list_backups", json!({"path": "/reports"})).await,
        "`/reports` is a folder, not a file"
    );
    assert!(
        err(
            &c,
            "restore",
            json!({"path": "/reports/q1.txt", "backup": "/../q1.txt.001.bak"})
        )
        .await
        .contains("climbs above the workspace root")
    );
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(
        &std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("../../tests/fixtures/docs")
    .join(name)
}

fn document_setup() -> (tempfile::TempDir, tempfile::TempDir, Catalog) {
    let ws = tempfile::tempdir().unwrap();
    for f in ["report.docx", "layout.pdf", "encrypted.pdf"] {
        std::fs::copy(fixture(f), ws.path().join(f)).unwrap();
    }
    let index_dir = tempfile::tempdir().unwrap();
    let options = baton_index::IndexOptions::default();
    let index =
        Arc::new(baton_index::WorkspaceIndex::open(ws.path(), index_dir.path(), options).unwrap());
    index.sync(&|_| {}).unwrap();
    let tool = FileTool::new(Sandbox::new(ws.path()).unwrap()).with_index(index);
    let catalog = Catalog::new().with(Arc::new(tool)).unwrap();
    (ws, index_dir, catalog)
}

#[tokio::test]
async fn documents_are_read_as_markdown_in_pages_with_an_outline() {
    let (_ws, _ix, c) = document_setup();
    let first = ok(
        &c,
        "read_document",
        json!({"path": "/report.docx", "max_chars": 200}),
    )
    .await;
    assert_eq!(first["format"], "Word document");
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .starts_with("# Baton Quarterly Report")
    );
    let next = first["next_offset"].as_u64().unwrap();
    assert_eq!(next, 200);
    let second = ok(
        &c,
        "read_document",
        json!({"path": "/report.docx", "offset": next}),
    )
    .await;
    assert!(
        second["text"].as_str().unwrap().contains("| North | 120 |"),
        "{second}"
    );
    assert!(second.get("next_offset").is_none());

    let outline = ok(&c, "get_document_outline", json!({"path": "/layout.pdf"})).await;
    let entries = outline["entries"].as_array().unwrap();
    let texts: Vec<&str> = entries
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "page 1",
            "Layout Test Document",
            "page 2",
            "Two Column Section"
        ]
    );
    // An outline offset lands on its heading.
    let at = entries[3]["offset"].as_u64().unwrap();
    let jump = ok(
        &c,
        "read_document",
        json!({"path": "/layout.pdf", "offset": at, "max_chars": 30}),
    )
    .await;
    assert_eq!(jump["text"], "# Two Column Section\n\nLEFT-1: ");

    let e = err(&c, "read_document", json!({"path": "/encrypted.pdf"})).await;
    assert!(e.contains("password protected"), "{e}");
    let e = err(&c, "read_document", json!({"path": "/../etc/passwd"})).await;
    assert!(e.contains("climbs above the workspace root"), "{e}");
}

#[tokio::test]
async fn search_documents_finds_passages_with_locations() {
    let (_ws, _ix, c) = document_setup();
    let hits = ok(
        &c,
        "search_documents",
        json!({"query": "\"ruled table\" OR inventory", "max_results": 3}),
    )
    .await;
    let first = &hits[0];
    assert_eq!(first["path"], "/layout.pdf", "{hits}");
    assert!(
        first["location"].as_str().unwrap().starts_with("page 1"),
        "{first}"
    );
    let e = err(&c, "search_documents", json!({"query": "  "})).await;
    assert!(e.contains("empty"), "{e}");
    // Without an index, the model is told why.
    let (_d, plain) = setup();
    let e = err(&plain, "search_documents", json!({"query": "x"})).await;
    assert!(e.contains("not been indexed"), "{e}");
}

#[test]
fn attachments_fit_the_budget_and_failures_are_visible() {
    use baton_docs::{AttachmentContext, ConversionCache, FileAttachment};
    let files: Vec<FileAttachment> = ["report.docx", "big.xlsx", "data.csv", "encrypted.pdf"]
        .iter()
        .map(|f| FileAttachment::from_path(&fixture(f)).unwrap())
        .collect();
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = ConversionCache::on_disk(cache_dir.path());
    let options = baton_convert::ConvertOptions::default();
    let ctx = AttachmentContext::build(&files, &cache, &options, 6000, None);
    // Short files whole, the big one cut with a note, the locked one explained.
    let by_name = |n: &str| ctx.items.iter().find(|i| i.name == n).unwrap();
    assert_eq!(
        by_name("data.csv").included_chars,
        by_name("data.csv").chars
    );
    let big = by_name("big.xlsx");
    assert!(big.included_chars < big.chars);
    assert!(
        ctx.text.contains(&format!(
            "[… truncated: {} of {} characters shown",
            big.included_chars, big.chars
        )),
        "{}",
        ctx.text
    );
    assert!(
        by_name("encrypted.pdf")
            .error
            .as_ref()
            .unwrap()
            .contains("password")
    );
    assert!(
        ctx.text.contains(
            "<attachment name=\"encrypted.pdf\" size=\"1.9 KB\" status=\"not converted\">"
        ),
        "{}",
        ctx.text
    );
    let used: usize = ctx.items.iter().map(|i| i.included_chars).sum();
    assert!(used <= 6000 && used > 5000, "budget use {used}");
    assert!(
        ctx.text
            .contains("<attachment name=\"report.docx\" format=\"Word document\"")
    );
    let prompt = ctx.prompt("Summarize");
    assert!(prompt.ends_with("</attachment>\n\nSummarize"));
    // Cached on disk by content hash: a second build reads the cache.
    let cached = std::fs::read_dir(cache_dir.path()).unwrap().count();
    assert_eq!(
        cached, 3,
        "three conversions saved (failures are not cached)"
    );
    let again = AttachmentContext::build(
        &files,
        &ConversionCache::on_disk(cache_dir.path()),
        &options,
        6000,
        None,
    );
    assert_eq!(again.text, ctx.text);
}

#[test]
fn the_disk_cache_stays_within_its_limit_dropping_the_oldest() {
    use baton_docs::{ConversionCache, FileAttachment};
    let dir = tempfile::tempdir().unwrap();
    let cache = ConversionCache::on_disk(dir.path()).with_disk_limit(3000);
    let options = baton_convert::ConvertOptions::default().without_ocr();
    for i in 0..6 {
        let text = format!("note {i}: {}\n", "words ".repeat(150));
        cache
            .attachment(
                &FileAttachment::new(format!("n{i}.txt"), text.into_bytes()),
                &options,
            )
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let total: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total <= 3000, "{total} bytes on disk");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let newest = format!(
        "{:x}.json",
        <sha2::Sha256 as sha2::Digest>::digest(
            format!("note 5: {}\n", "words ".repeat(150)).as_bytes()
        )
    );
    assert!(names.contains(&newest), "the newest stays: {names:?}");
}
