//! `make bench` figures for retrieval quality: nDCG@10 and recall@10 of
//! search by words (BM25), by meaning (vectors) and both fused (hybrid) on
//! the paraphrase set in `tests/fixtures/paraphrase`: the 79 topics of the
//! Python Language and Library Reference (pydoc's topic texts, PSF
//! License) and 50 questions written in other words than the passages that
//! answer them, each with the topics that do.
//!
//! Then the same search at scale: DOCS documents (10,000 unless given) of
//! three sentences drawn from those texts, indexed with vectors: the time,
//! the index's size on disk, the process's peak memory, the query latency
//! (p50/p95, the question's embedding included) against the same queries
//! by words alone, and a rescan after ten files changed (only they are
//! embedded again).
//!
//! Usage: `baton-search-quality FIXTURE_DIR MODELS_DIR [DOCS]`. Prints
//! human lines and, last, one JSON line.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use baton_embed::{ModelFiles, SharedEmbedder};
use baton_index::{IndexOptions, SearchMode, WorkspaceIndex};
use serde::Deserialize;

#[derive(Deserialize)]
struct Query {
    query: String,
    relevant: Vec<String>,
}

#[derive(Deserialize)]
struct Topics {
    source: String,
    topics: HashMap<String, String>,
}

/// nDCG@k with binary relevance: each relevant document found at rank r
/// adds 1/log2(r+1), over the best possible ordering.
fn ndcg(ranked: &[String], relevant: &[String], k: usize) -> f64 {
    let gain = |r: usize| 1.0 / ((r + 2) as f64).log2();
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .filter(|(_, d)| relevant.contains(d))
        .map(|(r, _)| gain(r))
        .sum();
    let ideal: f64 = (0..relevant.len().min(k)).map(gain).sum();
    dcg / ideal
}

fn recall(ranked: &[String], relevant: &[String], k: usize) -> f64 {
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| relevant.contains(d))
        .count();
    found as f64 / relevant.len() as f64
}

fn main() {
    let mut args = std::env::args().skip(1);
    let fixtures = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "tests/fixtures/paraphrase".into()),
    );
    let models = PathBuf::from(
        args.next()
            .expect("usage: baton-search-quality FIXTURES MODELS_DIR [DOCS]"),
    );
    let docs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let read = |name: &str| std::fs::read_to_string(fixtures.join(name)).expect(name);
    let topics: Topics = serde_json::from_str(&read("topics.json")).expect("topics.json");
    let queries: Vec<Query> = serde_json::from_str(&read("queries.json")).expect("queries.json");
    let work = tempfile::tempdir().expect("temp dir");
    let ws = work.path().join("ws");
    std::fs::create_dir_all(&ws).expect("ws");
    for (name, text) in &topics.topics {
        let title = text.trim().lines().next().unwrap_or(name);
        std::fs::write(
            ws.join(format!("{name}.md")),
            format!("# {title}\n\n{text}"),
        )
        .expect("write");
    }
    let index = WorkspaceIndex::open(&ws, &work.path().join("index"), embedding_options(&models))
        .expect("open");
    let t = Instant::now();
    let stats = index.sync(&|_| {}).expect("sync");
    println!(
        "paraphrase set: {} documents ({}), {} chunks embedded in {:.1} s; {} questions",
        topics.topics.len(),
        topics.source,
        stats.chunks,
        t.elapsed().as_secs_f64(),
        queries.len()
    );
    let mut json = serde_json::Map::new();
    for (label, mode) in [
        ("bm25", SearchMode::Words),
        ("vectors", SearchMode::Meaning),
        ("hybrid", SearchMode::Hybrid),
    ] {
        let (mut n, mut r) = (0.0, 0.0);
        for q in &queries {
            let hits = index.search_by(&q.query, 10, mode).expect("search");
            let ranked: Vec<String> = hits
                .iter()
                .map(|h| {
                    h.path
                        .trim_start_matches('/')
                        .trim_end_matches(".md")
                        .to_string()
                })
                .collect();
            n += ndcg(&ranked, &q.relevant, 10);
            r += recall(&ranked, &q.relevant, 10);
        }
        let (n, r) = (n / queries.len() as f64, r / queries.len() as f64);
        println!("{label:>8}: nDCG@10 {n:.3}, recall@10 {r:.3}");
        json.insert(format!("{label}_ndcg10"), n.into());
        json.insert(format!("{label}_recall10"), r.into());
    }
    if docs > 0 {
        scale(&topics, &queries, &models, docs, &mut json);
    }
    let gain =
        json["hybrid_ndcg10"].as_f64().unwrap_or(0.0) - json["bm25_ndcg10"].as_f64().unwrap_or(0.0);
    println!(
        "hybrid - bm25 nDCG@10: {gain:+.3} (goal >= +0.10); no reranker: none is shipped by a registry package"
    );
    json.insert("hybrid_gain_ndcg10".into(), gain.into());
    println!("{}", serde_json::Value::Object(json));
}

fn embedding_options(models: &std::path::Path) -> IndexOptions {
    IndexOptions {
        convert: baton_convert::ConvertOptions::default().without_ocr(),
        embedding: Some(SharedEmbedder::new(Some(
            ModelFiles::in_models_dir(models).expect("the embedding model (make setup)"),
        ))),
        ..IndexOptions::default()
    }
}

/// The texts' sentences (long enough to say something).
fn sentences(topics: &Topics) -> Vec<String> {
    let mut names: Vec<&String> = topics.topics.keys().collect();
    names.sort();
    names
        .into_iter()
        .flat_map(|n| topics.topics[n].split(". "))
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| s.len() > 40 && s.len() < 300)
        .collect()
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn dir_mb(dir: &std::path::Path) -> f64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum::<u64>() as f64
        / 1e6
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Latencies in ms of every query (ten rounds), sorted.
fn latencies(index: &WorkspaceIndex, queries: &[Query], mode: SearchMode) -> Vec<f64> {
    let mut out = Vec::new();
    for _ in 0..10 {
        for q in queries {
            let t = Instant::now();
            index.search_by(&q.query, 10, mode).expect("search");
            out.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

fn scale(
    topics: &Topics,
    queries: &[Query],
    models: &std::path::Path,
    docs: usize,
    json: &mut serde_json::Map<String, serde_json::Value>,
) {
    let pool = sentences(topics);
    let mut rng = fastrand::Rng::with_seed(11);
    let work = tempfile::tempdir().expect("temp dir");
    let ws = work.path().join("ws");
    for i in 0..docs {
        let folder = ws.join(format!("f{:03}", i / 100));
        std::fs::create_dir_all(&folder).expect("folder");
        let text: Vec<&str> = (0..3)
            .map(|_| pool[rng.usize(..pool.len())].as_str())
            .collect();
        std::fs::write(
            folder.join(format!("doc{i:05}.md")),
            format!("# Note {i}\n\n{}.\n", text.join(". ")),
        )
        .expect("write");
    }
    let index_dir = work.path().join("index");
    let index = WorkspaceIndex::open(&ws, &index_dir, embedding_options(models)).expect("open");
    let t = Instant::now();
    let stats = index.sync(&|_| {}).expect("sync");
    let secs = t.elapsed().as_secs_f64();
    let disk = dir_mb(&index_dir);
    println!(
        "scale: {docs} documents, {} chunks indexed with vectors in {secs:.0} s ({:.1} chunks/s); index {disk:.1} MB on disk; peak memory {:.0} MB",
        stats.chunks,
        stats.chunks as f64 / secs,
        peak_rss_mb()
    );
    let words = latencies(&index, queries, SearchMode::Words);
    let hybrid = latencies(&index, queries, SearchMode::Hybrid);
    let (p50, p95) = (percentile(&hybrid, 0.5), percentile(&hybrid, 0.95));
    let (w50, w95) = (percentile(&words, 0.5), percentile(&words, 0.95));
    println!(
        "scale: hybrid query p50 {p50:.1} ms, p95 {p95:.1} ms (goal p95 < 150 ms, the question's embedding included); by words alone p50 {w50:.1} ms, p95 {w95:.1} ms ({:.1}x)",
        p95 / w95
    );
    for (i, sentence) in pool.iter().take(10).enumerate() {
        let path = ws.join("f000").join(format!("doc{i:05}.md"));
        std::fs::write(&path, format!("# Changed {i}\n\n{sentence}.\n")).expect("write");
    }
    let t = Instant::now();
    let again = index.sync(&|_| {}).expect("rescan");
    println!(
        "scale: after 10 files changed, the rescan embedded {} files ({} unchanged) in {:.2} s",
        again.indexed,
        again.unchanged,
        t.elapsed().as_secs_f64()
    );
    for (k, v) in [
        ("scale_docs", docs as f64),
        ("scale_chunks", stats.chunks as f64),
        ("scale_index_secs", secs),
        ("scale_disk_mb", disk),
        ("scale_peak_rss_mb", peak_rss_mb()),
        ("scale_hybrid_p50_ms", p50),
        ("scale_hybrid_p95_ms", p95),
        ("scale_words_p95_ms", w95),
        ("scale_rescan_embedded", again.indexed as f64),
    ] {
        json.insert(k.into(), v.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndcg_and_recall_of_known_rankings() {
        let r = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(ndcg(&r(&["a", "b"]), &r(&["a"]), 10), 1.0);
        assert!((ndcg(&r(&["b", "a"]), &r(&["a"]), 10) - 1.0 / 3f64.log2()).abs() < 1e-9);
        assert_eq!(ndcg(&r(&["b"]), &r(&["a"]), 10), 0.0);
        assert_eq!(recall(&r(&["a", "c"]), &r(&["a", "b"]), 10), 0.5);
    }
}
