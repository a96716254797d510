//! What every area's tests share: [`Env`] (a private config, data and
//! home folder for one `baton` process), running a command to its end
//! ([`run`], [`run_for`], [`Out`]), sending Ctrl-C mid-request, the
//! sample workspace and the document fixtures.

pub(crate) mod audio;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use baton_scripted_llm::ScriptedServer;
use baton_test_support::{SCRIPTED_KEY_ENV, TestHome};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

/// A private home for one `baton` process (the shared [`TestHome`]).
pub(crate) struct Env {
    home: TestHome,
}

impl Env {
    pub(crate) fn new() -> Self {
        Self {
            home: TestHome::new(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.home.root()
    }

    /// A providers file whose `scripted` entry (OpenAI dialect, no key),
    /// `scripted-keyed` entry (declares a key variable) and
    /// `scripted-ollama` entry point at `server`.
    pub(crate) fn providers(&self, server: &ScriptedServer) -> PathBuf {
        self.home.write_providers(&server.url(), None)
    }

    /// `baton` on the scripted server's providers file.
    pub(crate) fn scripted(&self, server: &ScriptedServer) -> tokio::process::Command {
        let mut c = self.cmd();
        c.arg("--providers").arg(self.providers(server));
        c
    }

    pub(crate) fn cmd(&self) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_baton"));
        // HOME too, so the default workspace (~/Documents) is a temp folder.
        let paths = self.home.paths();
        c.env("HOME", self.home.home_dir())
            .env("BATON_CONFIG_DIR", paths.config_dir)
            .env("BATON_DATA_DIR", paths.data_dir)
            .env_remove("BATON_WORKSPACE")
            .env_remove("BATON_PROVIDERS")
            .env_remove(SCRIPTED_KEY_ENV)
            .env_remove("SCRIPTED_KEYED_API_KEY")
            .kill_on_drop(true)
            .stdin(Stdio::null());
        c
    }
}

/// A message's text without the per-call context the engine appends to
/// the last one (the time and the workspace, after "\n\nNow: ").
pub(crate) fn said(content: &Value) -> String {
    let text = content.as_str().unwrap_or_default();
    text.split_once("\n\nNow: ")
        .map_or(text, |(before, _)| before)
        .to_string()
}

pub(crate) struct Out {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `c` to its end (at most 30 s), feeding it `stdin`.
pub(crate) async fn run(c: tokio::process::Command, stdin: Option<&str>) -> Out {
    run_for(c, stdin, Duration::from_secs(30)).await
}

/// Runs `c` to its end (at most `limit`), feeding it `stdin`.
pub(crate) async fn run_for(
    mut c: tokio::process::Command,
    stdin: Option<&str>,
    limit: Duration,
) -> Out {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    if stdin.is_some() {
        c.stdin(Stdio::piped());
    }
    let mut child = c.spawn().unwrap();
    if let Some(text) = stdin {
        let mut s = child.stdin.take().unwrap();
        s.write_all(text.as_bytes()).await.unwrap();
        drop(s);
    }
    let o = tokio::time::timeout(limit, child.wait_with_output())
        .await
        .expect("the command ended in time")
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into(),
        stderr: String::from_utf8_lossy(&o.stderr).into(),
    }
}

/// Runs `c`, and `settle` after the scripted server got its first request
/// sends it Ctrl-C (SIGINT); its output and how long it took to end.
pub(crate) async fn interrupt_after_request(
    mut c: tokio::process::Command,
    server: &ScriptedServer,
    settle: Duration,
) -> (std::process::Output, Duration) {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let pid = child.id().unwrap();
    let t = Instant::now();
    while server.requests().is_empty() && t.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(settle).await;
    let t = Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let o = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("the command ended after Ctrl-C")
        .unwrap();
    (o, t.elapsed())
}

/// The id of the one conversation saved in `env` (the first found).
pub(crate) fn saved_session(env: &Env) -> String {
    std::fs::read_dir(env.path().join("data/sessions"))
        .unwrap()
        .flatten()
        .find_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".json")
                .map(String::from)
        })
        .expect("a saved conversation")
}

pub(crate) fn ws(env: &Env) -> PathBuf {
    let dir = env.path().join("ws");
    std::fs::create_dir_all(dir.join("reports")).unwrap();
    std::fs::write(dir.join("reports/q1.txt"), "Q1 revenue up 12%").unwrap();
    dir
}

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/docs")
        .join(name)
}
