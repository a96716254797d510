//! Memory recall per model call: what `MemoryContext::render` costs with
//! 10,000 memories against 10 (the same questions, one process), after a
//! first call that reads the file; by words, and with the embedding model
//! (`make setup`) by words and meaning (the question embedded each call,
//! the memories once, timed apart). Prints human lines and one JSON line.
//! `cargo bench -p baton-memory --bench recall`.

use std::sync::Arc;
use std::time::Instant;

use baton_memory::{MemoryContext, MemoryStore, MemoryVectors, RECALL_CHARS};

/// Words the memories and questions are made of.
const WORDS: &[&str] = &[
    "invoice",
    "folder",
    "metric",
    "units",
    "harbour",
    "pilot",
    "meeting",
    "tuesday",
    "coffee",
    "tea",
    "bank",
    "report",
    "quarter",
    "budget",
    "lisbon",
    "train",
    "doctor",
    "garden",
    "python",
    "spreadsheet",
    "printer",
    "sister",
    "birthday",
    "project",
    "deadline",
    "office",
    "bicycle",
];

fn memory_file(dir: &std::path::Path, n: usize) -> Arc<MemoryStore> {
    let memories: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let w = |k: usize| WORDS[(i * 7 + k * 13) % WORDS.len()];
            serde_json::json!({
                "id": format!("m{i:08x}"),
                "text": format!("The user's {} {} is near the {} ({i}).", w(0), w(1), w(2)),
                "source": "user",
                "created": 1_764_000_000 + i as u64,
            })
        })
        .collect();
    let file = serde_json::json!({"version": 1, "memories": memories});
    std::fs::write(dir.join("memory.json"), file.to_string()).unwrap();
    Arc::new(MemoryStore::in_dir(dir))
}

/// Milliseconds per recall: (p50, p95) over 200 questions.
fn time(context: MemoryContext) -> (f64, f64) {
    assert!(context.render("warm up: read the file").is_some());
    let mut ms: Vec<f64> = (0..200)
        .map(|i| {
            let q = format!(
                "Where is my {} {}?",
                WORDS[i % WORDS.len()],
                WORDS[(i * 5) % WORDS.len()]
            );
            let t = Instant::now();
            std::hint::black_box(context.render(&q));
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (ms[100], ms[190])
}

/// Recall by words and meaning over `store`, its texts embedded first:
/// (seconds to embed them, p50, p95); none without the model.
fn time_by_meaning(store: Arc<MemoryStore>) -> Option<(f64, f64, f64)> {
    let files = baton_embed::ModelFiles::in_models_dir(&baton_test_support::models_dir())?;
    let vectors = MemoryVectors::new(baton_embed::SharedEmbedder::new(Some(files)));
    let texts: Vec<String> = store.list().ok()?.into_iter().map(|m| m.text).collect();
    let t = Instant::now();
    vectors.fill(&texts)?;
    let embedded = t.elapsed().as_secs_f64();
    let (p50, p95) = time(MemoryContext::new(store, RECALL_CHARS).with_meaning(vectors));
    Some((embedded, p50, p95))
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (small, large) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let context = |store| MemoryContext::new(store, RECALL_CHARS);
    let (s50, s95) = time(context(memory_file(small.path(), 10)));
    let large = memory_file(large.path(), 10_000);
    let (l50, l95) = time(context(Arc::clone(&large)));
    println!("memory recall, 10 memories: p50 {s50:.2} ms, p95 {s95:.2} ms");
    println!(
        "memory recall, 10,000 memories: p50 {l50:.2} ms, p95 {l95:.2} ms (goal < 20 ms a turn; {:.0}x the 10-memory time)",
        l95 / s95.max(1e-6)
    );
    let Some((embedded, m50, m95)) = time_by_meaning(large) else {
        println!("memory recall by meaning: no embedding model (make setup)");
        println!(
            "{{\"recall_10_p95_ms\": {s95:.3}, \"recall_10000_p50_ms\": {l50:.3}, \"recall_10000_p95_ms\": {l95:.3}}}"
        );
        return;
    };
    println!(
        "memory recall by words and meaning, 10,000 memories: p50 {m50:.2} ms, p95 {m95:.2} ms (goal < 20 ms; {:.1}x by words alone); embedding the 10,000 once: {embedded:.1} s",
        m95 / l95.max(1e-6)
    );
    println!(
        "{{\"recall_10_p95_ms\": {s95:.3}, \"recall_10000_p50_ms\": {l50:.3}, \"recall_10000_p95_ms\": {l95:.3}, \"recall_meaning_10000_p95_ms\": {m95:.3}, \"embed_10000_s\": {embedded:.2}}}"
    );
}
