//! The harness: a server over a real socket with the scripted LLM behind
//! the engine, an HTTP client, a Redis of the test's own, small helpers.

use std::net::SocketAddr;
pub(crate) use std::sync::Arc;

pub(crate) use baton_config::BatonPaths;
pub(crate) use baton_engine::api::keys::{Door, KeyStore};
pub(crate) use baton_engine::{Engine, Overrides};
pub(crate) use baton_scripted_llm::{Reply, ScriptedServer};
pub(crate) use baton_test_support::{TestHome, venv_python};
pub(crate) use serde_json::{Value, json};

/// A server running in this test, on its own home.
pub(crate) struct Running {
    pub(crate) base: String,
    pub(crate) dir: TestHome,
    pub(crate) stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub(crate) task: tokio::task::JoinHandle<()>,
}

pub(crate) async fn start(llm: &ScriptedServer) -> Running {
    start_with(llm, no_indexing()).await
}

/// Options that serve this computer without a key (`--no-auth`): the
/// tests that make keys make them after start.
pub(crate) fn open() -> baton_server::ServeOptions {
    baton_server::ServeOptions {
        no_auth: true,
        ..Default::default()
    }
}

/// Options that leave the (empty) workspace index as it is.
pub(crate) fn no_indexing() -> baton_server::ServeOptions {
    baton_server::ServeOptions {
        skip_indexing: true,
        ..open()
    }
}

pub(crate) async fn start_with(
    llm: &ScriptedServer,
    options: baton_server::ServeOptions,
) -> Running {
    start_at(&llm.url(), options, |_| {}).await
}

/// A server whose provider is at `llm_url`, its workspace prepared by
/// `prepare` (given the workspace folder) before the engine loads.
pub(crate) async fn start_at(
    llm_url: &str,
    options: baton_server::ServeOptions,
    prepare: impl FnOnce(&std::path::Path),
) -> Running {
    let dir = TestHome::new();
    let providers = dir.write_providers(llm_url, None);
    dir.write_settings(json!({"diagnosticTools": true}));
    prepare(&dir.workspace());
    let overrides = Overrides {
        providers: Some(providers),
        ..Overrides::default()
    };
    let engine = Arc::new(Engine::load_with(dir.paths(), overrides).unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel::<SocketAddr>();
    let task = tokio::spawn(async move {
        baton_server::serve(
            engine,
            "127.0.0.1:0".parse().unwrap(),
            options,
            move |a, _| {
                let _ = bound_tx.send(a);
            },
            async {
                let _ = rx.await;
            },
        )
        .await
        .unwrap();
    });
    let addr = bound_rx.await.unwrap();
    Running {
        base: format!("http://{addr}"),
        dir,
        stop: Some(tx),
        task,
    }
}

/// POSTs `body` as JSON to `url` and reads the JSON answer.
pub(crate) async fn post_json(url: String, body: &Value) -> Value {
    let sent = client().post(url).json(body).send().await.unwrap();
    sent.json().await.unwrap()
}

/// GETs `url` and reads its JSON body.
pub(crate) async fn get_json(url: String) -> Value {
    client()
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

pub(crate) fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .tls_certs_only(std::iter::empty())
        .build()
        .unwrap()
}

/// A redis-server of the test's own (Debian's; no persistence), with a
/// password, as a shared one would have.
pub(crate) struct Redis {
    child: std::process::Child,
    pub(crate) port: u16,
}

/// The test Redis's password: it must never show in an answer.
pub(crate) const REDIS_PASSWORD: &str = "s3cret-redis-pass";

impl Redis {
    /// Its URL, password included.
    pub(crate) fn url(&self) -> String {
        format!("redis://:{REDIS_PASSWORD}@127.0.0.1:{}", self.port)
    }

    /// On a free port (another, should a process take it first).
    pub(crate) fn start_anywhere() -> Self {
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            if let Some(r) = Self::try_start(port) {
                return r;
            }
        }
        panic!("redis-server did not start");
    }

    pub(crate) fn start(port: u16) -> Self {
        Self::try_start(port).expect("redis-server starts again on its port")
    }

    /// `None` when it exits (its port was taken).
    pub(crate) fn try_start(port: u16) -> Option<Self> {
        let mut child = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--requirepass", REDIS_PASSWORD])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server is installed (scripts/setup.sh)");
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if child.try_wait().ok().flatten().is_some() {
                return None;
            }
            assert!(start.elapsed().as_secs() < 20, "redis-server did not start");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Some(Self { child, port })
    }

    pub(crate) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A multipart form with one file, `name`, holding `text`.
pub(crate) fn one_file(name: &str, text: &str) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new()
        .text("purpose", "assistants")
        .part(
            "file",
            reqwest::multipart::Part::bytes(text.as_bytes().to_vec()).file_name(name.to_string()),
        )
}

/// This process's resident memory now, in MB (Linux).
pub(crate) fn rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024
}
