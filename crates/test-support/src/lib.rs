//! What several crates' tests share: where scripts/make-fixtures.sh put
//! the programs they drive (make test runs it first).

use std::path::PathBuf;

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
