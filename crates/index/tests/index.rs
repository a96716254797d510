//! The workspace index on real folders: incremental scans, the watcher,
//! two writers, search syntax.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_index::{IndexError, IndexOptions, WorkspaceIndex};

fn fixtures() -> std::path::PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/docs")
}

fn options() -> IndexOptions {
    IndexOptions {
        convert: baton_convert::ConvertOptions::default().without_ocr(),
        ..IndexOptions::default()
    }
}

fn workspace() -> (tempfile::TempDir, tempfile::TempDir) {
    let ws = tempfile::tempdir().unwrap();
    for f in [
        "report.docx",
        "layout.pdf",
        "budget_lo.xlsx",
        "deck.pptx",
        "mail.eml",
        "corrupt.docx",
    ] {
        std::fs::copy(fixtures().join(f), ws.path().join(f)).unwrap();
    }
    std::fs::create_dir(ws.path().join("notes")).unwrap();
    std::fs::write(
        ws.path().join("notes/todo.md"),
        "# Todo\n\nBuy a zebra crossing sign.\n",
    )
    .unwrap();
    std::fs::create_dir(ws.path().join(".git")).unwrap();
    std::fs::write(
        ws.path().join(".git/secret.md"),
        "zebra in a hidden folder\n",
    )
    .unwrap();
    (ws, tempfile::tempdir().unwrap())
}

fn quiet(_: &baton_index::IndexProgress) {}

#[test]
fn scan_search_and_rescan_only_what_changed() {
    let (ws, dir) = workspace();
    let index = WorkspaceIndex::open(ws.path(), dir.path(), options()).unwrap();
    let stats = index.sync(&quiet).unwrap();
    assert_eq!(stats.files, 7, "{stats:?}");
    assert_eq!(stats.indexed, 6, "{stats:?}");
    assert_eq!(stats.skipped, 1, "corrupt.docx: {stats:?}");
    assert_eq!(index.skipped()[0].0, "/corrupt.docx");
    assert!(
        index.skipped()[0].1.contains("damaged"),
        "{:?}",
        index.skipped()
    );

    // Words, stemmed: "releases" finds "release".
    let hits = index.search("three major release", 5).unwrap();
    assert_eq!(hits[0].path, "/report.docx", "{hits:?}");
    assert!(hits[0].snippet.contains("**major**"), "{}", hits[0].snippet);
    assert_eq!(hits[0].format, "docx");
    // A phrase, and a location for the hit.
    let hits = index.search("\"Two Column Section\"", 5).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].path, "/layout.pdf");
    assert!(
        hits[0].location.starts_with("page 2"),
        "{}",
        hits[0].location
    );
    // Field queries.
    assert_eq!(
        index.search("format:xlsx", 5).unwrap()[0].path,
        "/budget_lo.xlsx"
    );
    assert_eq!(
        index.search("heading:roadmap", 5).unwrap()[0].path,
        "/deck.pptx"
    );
    // Hidden folders are not indexed.
    let zebra = index.search("zebra", 5).unwrap();
    assert_eq!(
        zebra.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
        ["/notes/todo.md"]
    );

    // Unchanged folder: nothing re-read.
    let again = index.sync(&quiet).unwrap();
    assert_eq!(
        (again.indexed, again.unchanged, again.removed),
        (0, 7, 0),
        "{again:?}"
    );

    // One edit, one delete: only those.
    std::thread::sleep(Duration::from_millis(1100)); // mtime has second resolution
    std::fs::write(
        ws.path().join("notes/todo.md"),
        "# Todo\n\nFeed the okapi.\n",
    )
    .unwrap();
    std::fs::remove_file(ws.path().join("mail.eml")).unwrap();
    let third = index.sync(&quiet).unwrap();
    assert_eq!((third.indexed, third.removed), (1, 1), "{third:?}");
    assert!(index.search("zebra", 5).unwrap().is_empty());
    assert_eq!(index.search("okapi", 5).unwrap()[0].path, "/notes/todo.md");
    assert!(
        index
            .search("café budget", 5)
            .unwrap()
            .iter()
            .all(|h| h.path != "/mail.eml")
    );
}

#[test]
fn the_index_survives_reopening() {
    let (ws, dir) = workspace();
    {
        let index = WorkspaceIndex::open(ws.path(), dir.path(), options()).unwrap();
        index.sync(&quiet).unwrap();
        index.release_writer();
    }
    let index = WorkspaceIndex::open(ws.path(), dir.path(), options()).unwrap();
    assert_eq!(index.search("okapi OR zebra", 5).unwrap().len(), 1);
    let stats = index.sync(&quiet).unwrap();
    assert_eq!(stats.indexed, 0, "manifest kept: {stats:?}");
}

#[test]
fn a_second_writer_is_told_the_index_is_busy_and_can_still_search() {
    let (ws, dir) = workspace();
    let first = WorkspaceIndex::open(ws.path(), dir.path(), options()).unwrap();
    first.sync(&quiet).unwrap();
    let second = WorkspaceIndex::open(ws.path(), dir.path(), options()).unwrap();
    let err = second.sync(&quiet).unwrap_err();
    assert!(matches!(err, IndexError::Busy), "{err:?}");
    assert!(err.to_string().contains("busy"), "{err}");
    assert_eq!(second.search("zebra", 5).unwrap()[0].path, "/notes/todo.md");
    first.release_writer();
    second.sync(&quiet).unwrap();
}

#[test]
fn the_watcher_indexes_saves_renames_and_deletes() {
    let (ws, dir) = workspace();
    let index = Arc::new(WorkspaceIndex::open(ws.path(), dir.path(), options()).unwrap());
    index.sync(&quiet).unwrap();
    let _watcher = index.watch(Duration::from_millis(150), |_| {}).unwrap();

    let wait_for = |query: &str, want: Option<&str>| -> Duration {
        let start = Instant::now();
        loop {
            let hits = index.search(query, 5).unwrap();
            let found = hits.first().map(|h| h.path.as_str());
            if found == want {
                return start.elapsed();
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{query}: still {hits:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // Saved → searchable.
    std::fs::write(ws.path().join("new.md"), "# New\n\nThe aardvark report.\n").unwrap();
    let took = wait_for("aardvark", Some("/new.md"));
    eprintln!("save → searchable: {} ms", took.as_millis());
    // Renamed.
    std::fs::rename(ws.path().join("new.md"), ws.path().join("renamed.md")).unwrap();
    wait_for("aardvark", Some("/renamed.md"));
    // A folder moved in, then deleted.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("deep.txt"), "quokka sightings\n").unwrap();
    std::fs::rename(outside.path(), ws.path().join("moved")).unwrap_or_else(|_| {
        std::fs::create_dir(ws.path().join("moved")).unwrap();
        std::fs::write(ws.path().join("moved/deep.txt"), "quokka sightings\n").unwrap();
    });
    wait_for("quokka", Some("/moved/deep.txt"));
    std::fs::remove_dir_all(ws.path().join("moved")).unwrap();
    wait_for("quokka", None);
}
