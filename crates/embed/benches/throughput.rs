//! Embedding throughput: the passages of `BATON_EMBED_TEXTS` (one per
//! line; scripts/bench.sh writes them) embedded in batches of 32, after
//! one warm-up batch. Prints one JSON line: texts, seconds, per second.
//! `cargo bench -p baton-embed --bench throughput`.

use std::time::Instant;

use baton_embed::{Embedder, ModelFiles};

fn main() {
    // `cargo bench` passes --bench; run as a test (`--list` by nextest,
    // nothing by `cargo test --all-targets`) it measures nothing.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let path = std::env::var("BATON_EMBED_TEXTS").expect("BATON_EMBED_TEXTS names the passages");
    let text = std::fs::read_to_string(path).unwrap();
    let texts: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let files = ModelFiles::in_models_dir(&baton_test_support::models_dir())
        .expect("the embedding model: run `make setup`");
    let embedder = Embedder::load(&files, 2).unwrap();
    embedder.embed(&texts[..32.min(texts.len())]).unwrap();
    let start = Instant::now();
    for batch in texts.chunks(32) {
        embedder.embed(batch).unwrap();
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"runtime\": \"baton\", \"texts\": {}, \"seconds\": {seconds:.3}, \"per_second\": {:.1}}}",
        texts.len(),
        texts.len() as f64 / seconds
    );
}
