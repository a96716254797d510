//! Downloads against a loopback server serving a real GGUF file (the
//! embedded model's): throttled, cut off and resumed, stopped and resumed,
//! with a wrong hash, on a full disk (a small tmpfs), from no server.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use baton_models::{Catalog, CatalogEntry, Progress, PullError, PullOptions, Pulled, pull};
use baton_test_support::{
    EMBEDDED_MODEL_SHA256, FileServer, FileServerOptions, embedded_model, serve_file,
};
use bytes::Bytes;

const MB: u64 = 1 << 20;

fn model_bytes() -> Bytes {
    Bytes::from(std::fs::read(embedded_model()).unwrap())
}

/// The embedded model's bytes, served as `/smol.gguf` with `opts`.
async fn serve_model(opts: FileServerOptions) -> (Bytes, FileServer) {
    let data = model_bytes();
    let server = serve_file("smol.gguf", data.clone(), opts).await;
    (data, server)
}

fn entry(url: &str, size: u64) -> CatalogEntry {
    let mut e = Catalog::shipped().entries[0].clone();
    e.name = "smol".into();
    e.file = "smol.gguf".into();
    e.url = url.into();
    e.size = size;
    e.sha256 = Some(EMBEDDED_MODEL_SHA256.into());
    e
}

fn options(dir: &Path) -> PullOptions {
    let mut o = PullOptions::new(dir.to_path_buf());
    o.expected_sha256 = Some(EMBEDDED_MODEL_SHA256.into());
    o
}

/// The model served with `opts`, pulled into a fresh folder: the result
/// and the server (for what it saw).
async fn pull_served(opts: FileServerOptions) -> (Pulled, FileServer) {
    let (data, server) = serve_model(opts).await;
    let dir = tempfile::tempdir().unwrap();
    let done = pull(
        &entry(&server.url, data.len() as u64),
        &options(dir.path()),
        |_| {},
    )
    .await
    .unwrap();
    (done, server)
}

fn part(dir: &Path) -> PathBuf {
    dir.join("smol.gguf.part")
}

#[tokio::test]
async fn a_cut_connection_is_resumed_with_a_range_and_the_file_checked() {
    let (data, server) = serve_model(FileServerOptions {
        bytes_per_sec: Some(200 * MB),
        cut_first_after: Some(10 * MB),
        ..Default::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::<Progress>::new()));
    let sink = Arc::clone(&seen);
    let e = entry(&server.url, data.len() as u64);
    let done = pull(&e, &options(dir.path()), move |p| {
        sink.lock().unwrap().push(p)
    })
    .await
    .unwrap();
    assert_eq!(done.sha256, EMBEDDED_MODEL_SHA256);
    assert!(done.downloaded);
    assert_eq!(std::fs::read(dir.path().join("smol.gguf")).unwrap(), data);
    assert!(!part(dir.path()).exists(), "no part file is left");
    let ranges = server.ranges.lock().unwrap().clone();
    assert_eq!(ranges.len(), 2, "{ranges:?}");
    assert_eq!(ranges[0], None);
    let from: u64 = ranges[1].as_deref().unwrap()["bytes=".len()..]
        .trim_end_matches('-')
        .parse()
        .unwrap();
    assert!((9 * MB..=11 * MB).contains(&from), "resumed from {from}");
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 3, "progress is reported: {}", seen.len());
    assert_eq!(seen.last().unwrap().received, data.len() as u64);
    assert!(seen.windows(2).all(|w| w[0].received <= w[1].received));

    // Pulled again: nothing is fetched.
    let again = pull(&e, &options(dir.path()), |_| {}).await.unwrap();
    assert!(!again.downloaded);
    assert_eq!(server.ranges.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn stop_keeps_the_part_file_and_the_next_pull_resumes_it() {
    let (data, server) = serve_model(FileServerOptions {
        bytes_per_sec: Some(40 * MB),
        ..Default::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let e = entry(&server.url, data.len() as u64);
    let opts = options(dir.path());
    let stop = opts.cancel.clone();
    let err = pull(&e, &opts, move |p| {
        if p.received > 20 * MB {
            stop.cancel();
        }
    })
    .await
    .unwrap_err();
    assert!(matches!(err, PullError::Cancelled { .. }), "{err}");
    assert!(err.to_string().contains("run it again to resume"), "{err}");
    let kept = std::fs::metadata(part(dir.path())).unwrap().len();
    assert!(kept > 20 * MB, "kept {kept}");
    assert!(!dir.path().join("smol.gguf").exists());

    let done = pull(&e, &options(dir.path()), |_| {}).await.unwrap();
    assert_eq!(done.resumed_from, kept);
    assert_eq!(done.sha256, EMBEDDED_MODEL_SHA256);
    let ranges = server.ranges.lock().unwrap().clone();
    assert_eq!(
        ranges.last().unwrap().as_deref(),
        Some(format!("bytes={kept}-").as_str())
    );
}

#[tokio::test]
async fn a_server_without_ranges_starts_again_and_still_succeeds() {
    let (done, _server) = pull_served(FileServerOptions {
        cut_first_after: Some(5 * MB),
        no_ranges: true,
        ..Default::default()
    })
    .await;
    assert_eq!(done.sha256, EMBEDDED_MODEL_SHA256);
    assert_eq!(done.resumed_from, 0);
}

#[tokio::test]
async fn a_range_answered_from_elsewhere_starts_the_file_again() {
    let (done, server) = pull_served(FileServerOptions {
        cut_first_after: Some(10 * MB),
        misaligned_ranges: true,
        ..Default::default()
    })
    .await;
    assert_eq!(done.sha256, EMBEDDED_MODEL_SHA256);
    let ranges = server.ranges.lock().unwrap().clone();
    assert_eq!(
        ranges.len(),
        3,
        "cut, misaligned (refused), whole again: {ranges:?}"
    );
    assert_eq!(ranges[2], None);
}

#[tokio::test]
async fn a_wrong_hash_deletes_what_arrived_and_says_so() {
    let (data, server) = serve_model(FileServerOptions::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(dir.path());
    opts.expected_sha256 = Some("0".repeat(64));
    let err = pull(&entry(&server.url, data.len() as u64), &opts, |_| {})
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PullError::HashMismatch { .. }), "{text}");
    assert!(
        text.contains(EMBEDDED_MODEL_SHA256) && text.contains("nothing was installed"),
        "{text}"
    );
    assert!(!dir.path().join("smol.gguf").exists());
    assert!(!part(dir.path()).exists());
}

#[tokio::test]
async fn no_server_and_a_missing_file_fail_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(dir.path());
    opts.retries = 1;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/smol.gguf", closed.local_addr().unwrap());
    drop(closed);
    let err = pull(&entry(&url, 1000), &opts, |_| {}).await.unwrap_err();
    assert!(matches!(err, PullError::Network { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("run the same command again to resume"),
        "{err}"
    );

    let server = serve_file(
        "other.gguf",
        Bytes::from_static(b"x"),
        FileServerOptions::default(),
    )
    .await;
    let missing = server.url.replace("other.gguf", "smol.gguf");
    let err = pull(&entry(&missing, 1000), &opts, |_| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("answered 404"), "{err}");
}

/// A small tmpfs (mounting needs root, which `make test` has here and
/// on CI: without it this test fails, saying so).
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(mb: u64) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mb}m"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cannot mount a {mb} MB tmpfs (this test needs root)");
        Self(dir)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

#[tokio::test]
async fn a_full_disk_is_found_before_the_download_and_during_it() {
    let disk = Tmpfs::mount(12);
    let (data, server) = serve_model(FileServerOptions::default()).await;
    let err = pull(
        &entry(&server.url, data.len() as u64),
        &options(disk.0.path()),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(err, PullError::DiskFull { .. }), "{err}");
    assert!(err.to_string().contains("not enough disk space"), "{err}");
    assert!(
        server.ranges.lock().unwrap().is_empty(),
        "nothing was fetched"
    );

    // A catalog that understates the size: the disk fills up mid-way.
    let err = pull(&entry(&server.url, 8 * MB), &options(disk.0.path()), |_| {})
        .await
        .unwrap_err();
    assert!(matches!(err, PullError::DiskFull { .. }), "{err}");
}
