//! What several crates' tests share: a private Baton home with providers
//! on the scripted server ([`TestHome`]), where scripts/make-fixtures.sh
//! put the programs they drive (make test runs it first), the embedded
//! model and voice, a loopback file server, and real mail servers.

use std::path::PathBuf;

pub mod research_site;

/// The fixtures virtualenv (`BATON_FIXTURES_VENV`, else
/// `~/.cache/baton-fixtures-venv`): openpyxl, the OpenAI and MCP SDKs.
pub fn fixtures_venv() -> PathBuf {
    if let Some(v) = std::env::var_os("BATON_FIXTURES_VENV") {
        return PathBuf::from(v);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
    cache.join("baton-fixtures-venv")
}

/// The fixtures virtualenv's Python; panics with what to run when it is
/// missing.
pub fn venv_python() -> PathBuf {
    let py = fixtures_venv().join("bin/python");
    assert!(
        py.exists(),
        "{} is missing: run scripts/make-fixtures.sh --tools-only (make test does)",
        py.display()
    );
    py
}

mod file_server;
mod home;
pub mod mail_servers;
pub use file_server::{FileServer, FileServerOptions, serve_file};
pub use home::{SCRIPTED_KEY_ENV, TestHome, scripted_providers};

/// The embedded model's file name (SmolLM2-135M-Instruct, Q4_1).
pub const EMBEDDED_MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Its SHA-256 (scripts/fetch-model.sh checks the same).
pub const EMBEDDED_MODEL_SHA256: &str =
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";

/// The models folder `make setup` fills (`BATON_MODELS_DIR`, else
/// `~/.local/share/baton/models`).
pub fn models_dir() -> PathBuf {
    std::env::var_os("BATON_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".local/share/baton/models")
        })
}

/// The Piper voice and ONNX Runtime's library `make setup` fetches
/// (scripts/fetch-piper.sh); panics with what to run when missing.
pub fn piper_voice() -> (PathBuf, PathBuf) {
    let dir = models_dir();
    let voice = dir.join("piper/en_US-joe-medium.onnx");
    let runtime = dir.join("onnxruntime/libonnxruntime.so.1.32.0");
    assert!(
        voice.exists() && runtime.exists(),
        "the Piper voice or ONNX Runtime is missing in {}: run `make setup`",
        dir.display()
    );
    (voice, runtime)
}

/// The embedded model in the models folder ([`models_dir`]); panics with
/// what to run when missing.
pub fn embedded_model() -> PathBuf {
    let dir = models_dir();
    let path = dir.join(EMBEDDED_MODEL);
    assert!(
        path.exists(),
        "the embedded model is missing in {}: run `make setup`",
        dir.display()
    );
    path
}

/// A catalog entry (`models-catalog.json`) named `name` (shown as
/// `title`) for the embedded model's file, downloaded from `url` as
/// `<name>.gguf`.
pub fn embedded_catalog_entry(name: &str, title: &str, url: &str) -> serde_json::Value {
    let size = std::fs::metadata(embedded_model()).map_or(0, |m| m.len());
    serde_json::json!({"name": name, "title": title, "file": format!("{name}.gguf"),
        "url": url, "size": size, "sha256": EMBEDDED_MODEL_SHA256, "sha256Source": "scripts/fetch-model.sh",
        "licence": "Apache-2.0", "contextLength": 8192, "parameters": "135 M", "ramMb": 300, "tasks": ["chat"]})
}

/// Runs a whole-flow bench's `measure` on a two-thread runtime when the
/// binary was started with `--bench` (`cargo bench`, `make bench`); does
/// nothing otherwise (`cargo test` and nextest build and list benches).
pub fn run_bench<F: std::future::Future<Output = ()>>(measure: impl FnOnce() -> F) {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime for the bench")
        .block_on(measure());
}
