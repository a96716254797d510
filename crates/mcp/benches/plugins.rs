//! Plugin figures (`make bench`), each against a baseline in the same run:
//! - a tool call through a stdio plugin (written with the official Python
//!   MCP SDK) against the same tool in an in-process toolbox, both
//!   dispatched through Baton's catalog (validation included);
//! - start-up with 10 plugins in the Tools folder against none: reading
//!   the folder (what opening Baton pays) and starting them all (what the
//!   first turn with tools pays; plugins start in parallel).
//!
//! `cargo bench -p baton-mcp --bench plugins` (needs scripts/make-fixtures.sh
//! --tools-only for the Python SDK).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_mcp::McpHub;
use baton_tools::{Catalog, ToolOutcome, toolbox};
use serde_json::json;

/// The in-process twin of the plugin's `count_words`.
#[toolbox]
pub struct Words;

#[toolbox]
impl Words {
    /// Counts the words of a text.
    /// - text: the text
    pub fn count_words(&self, text: String) -> Result<usize, String> {
        Ok(text.split_whitespace().count())
    }
}

const CALLS: usize = 300;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The median time of one `count_words` call through `catalog`.
async fn per_call(catalog: &Catalog) -> Duration {
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let text = format!("call number {i} of the bench");
        let started = Instant::now();
        let record = catalog.dispatch("count_words", json!({"text": text})).await;
        times.push(started.elapsed());
        assert!(
            matches!(record.outcome, ToolOutcome::Ok(_)),
            "{:?}",
            record.outcome
        );
    }
    median(times)
}

/// A Tools folder with `n` copies of the word-tools plugin.
fn tools_folder(root: &Path, n: usize) -> PathBuf {
    let tools = root.join(format!("tools-{n}"));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/word_tools.py");
    let python = baton_test_support::venv_python();
    for i in 0..n {
        let dir = tools.join(format!("Words{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let def = json!({"command": python, "args": [script], "excludeTools": ["reverse_words"]});
        std::fs::write(dir.join("plugin.json"), def.to_string()).unwrap();
    }
    std::fs::create_dir_all(&tools).unwrap();
    tools
}

/// Opening (reading the folder) and starting every plugin of `tools`.
async fn start_up(root: &Path, tools: &Path) -> (Duration, Duration) {
    let started = Instant::now();
    let hub = Arc::new(McpHub::open(
        root.join("config"),
        tools.to_path_buf(),
        Duration::from_secs(30),
    ));
    let opened = started.elapsed();
    let boxes = hub.start().await;
    let all = started.elapsed();
    assert_eq!(boxes.len(), hub.names().len(), "{:?}", hub.problems());
    hub.close().await;
    (opened, all)
}

async fn round_trip(root: &Path) {
    let in_process = Catalog::new().with(Arc::new(Words)).unwrap();
    let hub = Arc::new(McpHub::open(
        root.join("config"),
        tools_folder(root, 1),
        Duration::from_secs(30),
    ));
    let plugin = Catalog::new().with(hub.start().await.remove(0)).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        a.push(per_call(&in_process).await);
        b.push(per_call(&plugin).await);
    }
    let (a, b) = (median(a), median(b));
    println!(
        "tool call, median of {CALLS} × 3: in-process toolbox {:.3} ms, stdio plugin (Python SDK) {:.3} ms: the plugin costs {:.2} ms more ({:.0}×)",
        ms(a),
        ms(b),
        ms(b) - ms(a),
        b.as_secs_f64() / a.as_secs_f64()
    );
    hub.close().await;
}

async fn start_up_figures(root: &Path) {
    let (none, ten) = (tools_folder(root, 0), tools_folder(root, 10));
    let (mut open0, mut open10, mut all0, mut all10) = (vec![], vec![], vec![], vec![]);
    for _ in 0..3 {
        let (o, a) = start_up(root, &none).await;
        open0.push(o);
        all0.push(a);
        let (o, a) = start_up(root, &ten).await;
        open10.push(o);
        all10.push(a);
    }
    let (open0, open10, all0, all10) = (median(open0), median(open10), median(all0), median(all10));
    println!(
        "start-up, median of 3: reading the Tools folder {:.2} ms with 10 plugins vs {:.2} ms with none (+{:.2} ms); the first turn with tools starts them: {:.0} ms with 10 vs {:.2} ms with none",
        ms(open10),
        ms(open0),
        ms(open10) - ms(open0),
        ms(all10),
        ms(all0)
    );
}

fn main() {
    // `cargo bench` passes --bench; run as a test (`--list` by nextest,
    // or bare by cargo test) there is nothing to test.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        round_trip(root.path()).await;
        start_up_figures(root.path()).await;
    });
}
