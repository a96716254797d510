//! Recall by meaning with the real embedding model (`make setup`): over the
//! budget, an entry worded unlike the question but about what it asks is
//! recalled, where words alone leave it out for newer entries.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_embed::{ModelFiles, SharedEmbedder};
use baton_memory::{MemoryContext, MemoryStore, MemoryVectors};

const PET: &str = "The user's dog is called Rex.";
const QUESTION: &str = "What is the name of my pet?";
const BUDGET: usize = 300;

/// A memory file with the dog, oldest, and `fillers` newer entries that
/// share no word with the question.
fn store(dir: &Path, fillers: usize) -> Arc<MemoryStore> {
    let mut memories = vec![serde_json::json!({
        "id": "m00000000", "text": PET, "source": "user", "created": 1_764_000_000u64,
    })];
    memories.extend((1..=fillers).map(|i| {
        serde_json::json!({
            "id": format!("m{i:08x}"),
            "text": format!("Meeting notes for week {i} are in the shared drive."),
            "source": "user",
            "created": 1_764_000_000 + i as u64,
        })
    }));
    let file = serde_json::json!({"version": 1, "memories": memories});
    std::fs::write(dir.join("memory.json"), file.to_string()).unwrap();
    Arc::new(MemoryStore::in_dir(dir))
}

fn vectors() -> Arc<MemoryVectors> {
    let files = ModelFiles::in_models_dir(&baton_test_support::models_dir());
    assert!(
        files.is_some(),
        "the embedding model is missing: run `make setup`"
    );
    MemoryVectors::new(SharedEmbedder::new(files))
}

#[test]
fn a_question_worded_otherwise_recalls_the_entry_it_is_about() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 30);
    let by_words = MemoryContext::new(Arc::clone(&store), BUDGET).recall(QUESTION);
    assert_ne!(by_words[0].text, PET, "by words the newest come first");
    let recalled = MemoryContext::new(store, BUDGET)
        .with_meaning(vectors())
        .recall(QUESTION);
    assert_eq!(recalled[0].text, PET, "{recalled:?}");
    let chars: usize = recalled.iter().map(|m| m.text.chars().count()).sum();
    assert!(chars <= BUDGET, "{chars} characters");
}

#[test]
fn a_large_memory_is_embedded_in_the_background_and_recall_waits_for_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 200);
    let by_words = MemoryContext::new(Arc::clone(&store), BUDGET).recall(QUESTION);
    let vectors = vectors();
    let context = MemoryContext::new(store, BUDGET).with_meaning(Arc::clone(&vectors));
    // The first recall goes by words and sets a thread embedding the 201.
    assert_eq!(context.recall(QUESTION), by_words);
    let started = Instant::now();
    while vectors.is_filling() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "still embedding"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let recalled = context.recall(QUESTION);
    assert_eq!(recalled[0].text, PET, "{recalled:?}");
}
