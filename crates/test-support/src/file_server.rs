//! A loopback HTTP server for one file, the way a model host serves it:
//! `Content-Length`, byte ranges (`206` with `Content-Range`), and for
//! tests a throttle and a connection cut after some bytes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;

/// How the file is served.
#[derive(Debug, Clone, Default)]
pub struct FileServerOptions {
    /// At most this many bytes per second.
    pub bytes_per_sec: Option<u64>,
    /// The first response breaks off after this many bytes.
    pub cut_first_after: Option<u64>,
    /// Ignore `Range` (answer 200 with the whole file).
    pub no_ranges: bool,
    /// Answer a range with a 206 from half-way to where it was asked
    /// (a broken server or cache).
    pub misaligned_ranges: bool,
}

/// A running server.
pub struct FileServer {
    /// The file's address.
    pub url: String,
    /// The `Range` header of each request so far (`None`: no range).
    pub ranges: Arc<Mutex<Vec<Option<String>>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Shared {
    data: Bytes,
    opts: FileServerOptions,
    ranges: Arc<Mutex<Vec<Option<String>>>>,
}

/// Serves `data` as `/<name>` on a free loopback port.
pub async fn serve_file(name: &str, data: Bytes, opts: FileServerOptions) -> FileServer {
    let ranges = Arc::new(Mutex::new(Vec::new()));
    let shared = Arc::new(Shared {
        data,
        opts,
        ranges: Arc::clone(&ranges),
    });
    let app = axum::Router::new()
        .route(&format!("/{name}"), axum::routing::get(serve))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/{name}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    FileServer { url, ranges, task }
}

async fn serve(State(s): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let first = {
        let mut seen = s.ranges.lock().unwrap();
        seen.push(range.clone());
        seen.len() == 1
    };
    let total = s.data.len() as u64;
    let start = range.filter(|_| !s.opts.no_ranges).and_then(|r| {
        r.strip_prefix("bytes=")?
            .strip_suffix('-')?
            .parse::<u64>()
            .ok()
    });
    if start.is_some_and(|from| from >= total) {
        return Response::builder()
            .status(StatusCode::RANGE_NOT_SATISFIABLE)
            .header(header::CONTENT_RANGE, format!("bytes */{total}"))
            .body(Body::empty())
            .unwrap();
    }
    let start = start.map(|from| {
        if s.opts.misaligned_ranges {
            from / 2
        } else {
            from
        }
    });
    let from = start.unwrap_or(0);
    let cut = s.opts.cut_first_after.filter(|_| first);
    let body = body_stream(s.data.slice(from as usize..), s.opts.bytes_per_sec, cut);
    let builder = Response::builder()
        .header(header::CONTENT_LENGTH, total - from)
        .header(header::ACCEPT_RANGES, "bytes");
    let builder = match start {
        Some(from) => builder.status(StatusCode::PARTIAL_CONTENT).header(
            header::CONTENT_RANGE,
            format!("bytes {from}-{}/{total}", total - 1),
        ),
        None => builder.status(StatusCode::OK),
    };
    builder.body(Body::from_stream(body)).unwrap()
}

/// The bytes in 256 KiB chunks, paced to `rate`, breaking off after `cut`.
fn body_stream(
    data: Bytes,
    rate: Option<u64>,
    cut: Option<u64>,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> {
    const CHUNK: usize = 256 * 1024;
    let started = Instant::now();
    futures::stream::unfold(0usize, move |sent| {
        let data = data.clone();
        async move {
            if sent >= data.len() {
                return None;
            }
            if cut.is_some_and(|c| sent as u64 >= c) {
                return Some((Err(std::io::Error::other("connection cut")), data.len()));
            }
            if let Some(rate) = rate {
                let due = Duration::from_secs_f64(sent as f64 / rate as f64);
                tokio::time::sleep(due.saturating_sub(started.elapsed())).await;
            }
            let end = (sent + CHUNK).min(data.len());
            Some((Ok(data.slice(sent..end)), end))
        }
    })
}
