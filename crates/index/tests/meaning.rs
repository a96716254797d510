//! Search by meaning with the real embedding model (`make setup`): a
//! question worded unlike the document finds it, vectors are kept with
//! their chunks, and only changed files are embedded again.

use std::path::Path;

use baton_embed::{ModelFiles, SharedEmbedder};
use baton_index::{IndexOptions, WorkspaceIndex};

fn options(embedding: bool) -> IndexOptions {
    let files = ModelFiles::in_models_dir(&baton_test_support::models_dir());
    assert!(
        files.is_some(),
        "the embedding model is missing: run `make setup`"
    );
    IndexOptions {
        convert: baton_convert::ConvertOptions::default().without_ocr(),
        embedding: embedding.then(|| SharedEmbedder::new(files)),
        ..IndexOptions::default()
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    write(
        ws.path(),
        "port-costs.md",
        "# Port costs, March\n\nPilotage fees for the port of Gdynia came to 14,200 euros. The tug company invoices separately.\n",
    );
    write(
        ws.path(),
        "review.md",
        "# Review\n\nWe did the review of what the team and the board did with the budget; the minutes of the meeting are with the secretary, and the next review is what we did plan for Thursday.\n",
    );
    write(
        ws.path(),
        "garden.md",
        "# Garden\n\nThe roses need pruning before the first frost, and the cat sleeps on the warm windowsill.\n",
    );
    write(
        ws.path(),
        "travel.md",
        "# Travel\n\nThe train to Berlin leaves at seven; we buy the seats when we board.\n",
    );
    ws
}

const QUESTION: &str = "what did we pay the harbour pilots";

#[test]
fn a_question_worded_unlike_the_document_finds_it_by_meaning() {
    let ws = workspace();
    let words_only = tempfile::tempdir().unwrap();
    let idx = WorkspaceIndex::open(ws.path(), words_only.path(), options(false)).unwrap();
    idx.sync(&|_| {}).unwrap();
    let by_words = idx.search(QUESTION, 4).unwrap();
    assert!(
        by_words.iter().all(|h| h.path != "/port-costs.md"),
        "no word of the question is in the document: {by_words:?}"
    );

    let hybrid = tempfile::tempdir().unwrap();
    let idx = WorkspaceIndex::open(ws.path(), hybrid.path(), options(true)).unwrap();
    idx.sync(&|_| {}).unwrap();
    let hits = idx.search(QUESTION, 4).unwrap();
    assert_eq!(hits[0].path, "/port-costs.md", "{hits:?}");
    assert!(hits[0].similarity.is_some_and(|s| s > 0.3), "{hits:?}");
    assert!(
        hits[0].snippet.contains("Pilotage fees"),
        "{}",
        hits[0].snippet
    );
    assert_eq!(idx.embedded_chunks(), 4);
}

#[test]
fn vectors_are_kept_with_their_chunks_and_only_changed_files_are_embedded_again() {
    let ws = workspace();
    let dir = tempfile::tempdir().unwrap();
    {
        let idx = WorkspaceIndex::open(ws.path(), dir.path(), options(true)).unwrap();
        idx.sync(&|_| {}).unwrap();
        assert_eq!(idx.embedded_chunks(), 4);
        idx.release_writer();
    }
    // Reopened: the vectors come from the index, nothing is read again.
    let idx = WorkspaceIndex::open(ws.path(), dir.path(), options(true)).unwrap();
    assert_eq!(idx.embedded_chunks(), 4);
    write(
        ws.path(),
        "garden.md",
        "# Harbour\n\nThe harbour master's pilots guide ships through the channel.\n",
    );
    std::fs::remove_file(ws.path().join("travel.md")).unwrap();
    let stats = idx.sync(&|_| {}).unwrap();
    assert_eq!(
        (stats.indexed, stats.unchanged, stats.removed),
        (1, 2, 1),
        "{stats:?}"
    );
    assert_eq!(idx.embedded_chunks(), 3);
    let hits = idx.search("who steers vessels", 3).unwrap();
    assert_eq!(
        hits[0].path, "/garden.md",
        "the changed file's new vector: {hits:?}"
    );
}

#[test]
fn turning_meaning_on_gives_an_indexed_workspace_its_vectors() {
    let ws = workspace();
    let dir = tempfile::tempdir().unwrap();
    {
        let idx = WorkspaceIndex::open(ws.path(), dir.path(), options(false)).unwrap();
        idx.sync(&|_| {}).unwrap();
        idx.release_writer();
    }
    let idx = WorkspaceIndex::open(ws.path(), dir.path(), options(true)).unwrap();
    assert_eq!(idx.embedded_chunks(), 0);
    let stats = idx.sync(&|_| {}).unwrap();
    assert_eq!(
        stats.indexed, 4,
        "every file is read again for its vectors: {stats:?}"
    );
    assert_eq!(idx.embedded_chunks(), 4);
    let again = idx.sync(&|_| {}).unwrap();
    assert_eq!((again.indexed, again.unchanged), (0, 4), "{again:?}");
    assert_eq!(idx.search(QUESTION, 1).unwrap()[0].path, "/port-costs.md");
}

#[test]
fn after_embedding_stops_new_files_are_indexed_by_words_and_embedded_by_the_next_process() {
    let ws = workspace();
    let dir = tempfile::tempdir().unwrap();
    {
        let idx = WorkspaceIndex::open(ws.path(), dir.path(), options(true)).unwrap();
        idx.sync(&|_| {}).unwrap();
        idx.stop_embedding();
        write(
            ws.path(),
            "late.md",
            "# Late\n\nThe ferry timetable changes in May.\n",
        );
        idx.sync(&|_| {}).unwrap();
        assert_eq!(idx.embedded_chunks(), 4, "no model run after the stop");
        assert_eq!(idx.search("ferry", 1).unwrap()[0].path, "/late.md");
        idx.release_writer();
    }
    let idx = WorkspaceIndex::open(ws.path(), dir.path(), options(true)).unwrap();
    let stats = idx.sync(&|_| {}).unwrap();
    assert_eq!(stats.indexed, 1, "{stats:?}");
    assert_eq!(idx.embedded_chunks(), 5);
}
