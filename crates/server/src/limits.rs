//! Request limits: answers running at once (a semaphore whose permit lives
//! as long as the answer, streamed or not) and requests per minute per
//! key (a sliding window). Both answer 429 with `Retry-After`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::ApiError;

/// How much the server takes.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Answers running at once (0: no limit).
    pub max_concurrent: usize,
    /// Requests per minute per key (each key apart; this computer's
    /// together without keys; 0: no limit).
    pub per_minute: u32,
    /// The largest file `POST /v1/files` takes, in bytes.
    pub max_file_bytes: usize,
    /// How many bytes of files one key keeps at once.
    pub file_quota_bytes: u64,
    /// Days an uploaded file is kept (an upload may ask for less).
    pub file_days: u32,
}

/// Requests a minute per key unless `--per-minute` says otherwise: far
/// more than a person or a script at work sends, far fewer than a page
/// posting forms in a loop.
pub const DEFAULT_PER_MINUTE: u32 = 600;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_concurrent: 64,
            per_minute: DEFAULT_PER_MINUTE,
            max_file_bytes: 100 << 20,
            file_quota_bytes: 1 << 30,
            file_days: 30,
        }
    }
}

/// The limits' state.
pub(crate) struct Gate {
    limits: Limits,
    running: Arc<Semaphore>,
    recent: Mutex<HashMap<String, VecDeque<Instant>>>,
}

/// A 429 in OpenAI's shape with `Retry-After`.
pub(crate) struct TooMany {
    message: String,
    retry_after: u64,
}

impl IntoResponse for TooMany {
    fn into_response(self) -> Response {
        let mut res = ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            code: Some("rate_limit_exceeded"),
            kind: "rate_limit_error",
            ..ApiError::invalid(self.message, None)
        }
        .into_response();
        if let Ok(v) = HeaderValue::from_str(&self.retry_after.to_string()) {
            res.headers_mut().insert("retry-after", v);
        }
        res
    }
}

impl Gate {
    pub(crate) fn new(limits: Limits) -> Self {
        let permits = if limits.max_concurrent == 0 {
            Semaphore::MAX_PERMITS
        } else {
            limits.max_concurrent
        };
        Self {
            limits,
            running: Arc::new(Semaphore::new(permits)),
            recent: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `key` (a caller's owner); `Err` when it is
    /// one too many this minute.
    pub(crate) fn count(&self, key: &str) -> Result<(), TooMany> {
        let limit = self.limits.per_minute as usize;
        if limit == 0 {
            return Ok(());
        }
        let now = Instant::now();
        let window = Duration::from_secs(60);
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        let times = recent.entry(key.to_string()).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            times.pop_front();
        }
        if times.len() >= limit {
            let oldest = times.front().copied().unwrap_or(now);
            let wait = window.saturating_sub(now.duration_since(oldest));
            return Err(TooMany {
                message: format!(
                    "more than {limit} requests a minute with this key; try again shortly"
                ),
                retry_after: wait.as_secs().max(1),
            });
        }
        times.push_back(now);
        Ok(())
    }

    /// A place among the answers running at once, held until dropped.
    pub(crate) fn enter(&self) -> Result<OwnedSemaphorePermit, TooMany> {
        Arc::clone(&self.running)
            .try_acquire_owned()
            .map_err(|_| TooMany {
                message: format!(
                    "the server is answering {} requests already; try again shortly",
                    self.limits.max_concurrent
                ),
                retry_after: 1,
            })
    }
}
