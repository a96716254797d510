//! A private Baton home for one test: config, data, workspace and `HOME`
//! folders in a temp dir, a providers file whose entries point at a
//! scripted LLM server, and settings, the way the engine, the server and
//! the CLI's tests all start.

use std::path::{Path, PathBuf};

use baton_config::BatonPaths;
use serde_json::{Value, json};

/// The variable the `scripted-keyed` entry reads its key from.
pub const SCRIPTED_KEY_ENV: &str = "BATON_TEST_SCRIPTED_KEY";

/// Baton's folders in a temp dir (removed when dropped).
pub struct TestHome {
    dir: tempfile::TempDir,
}

impl Default for TestHome {
    fn default() -> Self {
        Self::new()
    }
}

impl TestHome {
    /// Empty folders in a new temp dir.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temp dir"),
        }
    }

    /// The temp dir everything is under.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Baton's folders under [`root`](Self::root) (`config/`, `data/`).
    pub fn paths(&self) -> BatonPaths {
        BatonPaths::under(self.root())
    }

    /// The workspace folder the settings name (`ws/`, made by
    /// [`write_settings`](Self::write_settings)).
    pub fn workspace(&self) -> PathBuf {
        self.root().join("ws")
    }

    /// The folder to give as `HOME` (`home/`), so that defaults under it
    /// (~/Documents) are private too.
    pub fn home_dir(&self) -> PathBuf {
        self.root().join("home")
    }

    /// The providers file at `root/providers.json` with the entries of
    /// [`scripted_providers`] on the server at `url`; returns its path.
    pub fn write_providers(&self, url: &str, context_window: Option<u64>) -> PathBuf {
        let file = self.root().join("providers.json");
        let doc = scripted_providers(url, context_window);
        std::fs::write(&file, doc.to_string()).expect("providers.json is written");
        file
    }

    /// The settings file with `settings` and the workspace (made now);
    /// returns its path.
    pub fn write_settings(&self, mut settings: Value) -> PathBuf {
        let paths = self.paths();
        std::fs::create_dir_all(&paths.config_dir).expect("the config folder is made");
        std::fs::create_dir_all(self.workspace()).expect("the workspace is made");
        settings["workspace"] = json!(self.workspace());
        let file = paths.settings_file();
        std::fs::write(&file, settings.to_string()).expect("the settings are written");
        file
    }
}

/// A providers document on the scripted server at `url`: `scripted`
/// (OpenAI dialect, no key, the default), `scripted-keyed` (its key in
/// [`SCRIPTED_KEY_ENV`]) and `scripted-ollama` (Ollama's dialect), all on
/// model `m`, with `context_window` when given.
pub fn scripted_providers(url: &str, context_window: Option<u64>) -> Value {
    let mut entries = vec![
        json!({"name": "scripted", "dialect": "openai", "endpoint": format!("{url}/v1"), "model": "m"}),
        json!({"name": "scripted-keyed", "dialect": "openai", "endpoint": format!("{url}/v1"),
               "model": "m", "apiKeyEnv": SCRIPTED_KEY_ENV}),
        json!({"name": "scripted-ollama", "dialect": "ollama", "endpoint": url, "model": "m"}),
    ];
    if let Some(window) = context_window {
        for e in &mut entries {
            e["contextWindow"] = json!(window);
        }
    }
    json!({"default": "scripted", "providers": entries})
}
