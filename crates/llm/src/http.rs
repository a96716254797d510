//! The HTTP client shared by the remote dialects: sending with retries,
//! mapping HTTP failures to [`LlmError`], streaming with cancellation and
//! idle timeouts.

use std::time::Duration;

use async_trait::async_trait;
use backon::{ExponentialBuilder, Retryable};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::cache;
use crate::config::{AZURE_ENDPOINT_HINT, Dialect, ProviderConfig};
use crate::dialect::{self, WireRequest};
use crate::error::LlmError;
use crate::provider::{EventStream, Provider};
use crate::request::ChatRequest;
use crate::wire::{self, WireError, excerpt};

/// Default seconds to wait for the first byte and between chunks.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// How transient failures (429, 5xx, timeouts, refused connections) are
/// retried before the reply starts streaming: exponential backoff with
/// jitter, or the provider's `Retry-After` when it sends one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: usize,
    /// First backoff delay.
    pub min_delay: Duration,
    /// Longest backoff delay.
    pub max_delay: Duration,
    /// A `Retry-After` longer than this is not waited for.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// A provider reached over HTTP (`openai`, `anthropic`, `ollama`,
/// `gemini`, `azure`).
pub struct HttpProvider {
    cfg: ProviderConfig,
    key: Option<String>,
    client: reqwest::Client,
    retry: RetryPolicy,
}

impl HttpProvider {
    /// A client for `cfg` with `key` (if the provider needs one). An
    /// `azure` entry without an endpoint is refused (its URL cannot be
    /// built).
    pub fn new(cfg: ProviderConfig, key: Option<String>) -> Result<Self, LlmError> {
        if cfg.dialect == Dialect::Azure && cfg.base_url().is_empty() {
            return Err(LlmError::Unsupported(format!(
                "provider `{}` (dialect `azure`) has no `endpoint` in providers.json; set it to {}",
                cfg.name,
                AZURE_ENDPOINT_HINT.trim_start_matches(": ")
            )));
        }
        let builder = client_builder(cfg.base_url()).connect_timeout(Duration::from_secs(10));
        let client = builder
            .build()
            .map_err(|e| LlmError::Unsupported(format!("cannot set up HTTP: {e}")))?;
        Ok(Self {
            cfg,
            key,
            client,
            retry: RetryPolicy::default(),
        })
    }

    /// Replaces the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.cfg.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1))
    }

    fn timeout_error(&self) -> LlmError {
        LlmError::Timeout {
            provider: self.cfg.name.clone(),
            secs: self.timeout().as_secs(),
        }
    }

    async fn send_once(
        &self,
        wire: &WireRequest,
        body: &[u8],
    ) -> Result<reqwest::Response, LlmError> {
        let mut rb = self
            .client
            .post(&wire.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        for (k, v) in &wire.headers {
            rb = rb.header(k.as_str(), v.as_str());
        }
        let resp = match tokio::time::timeout(self.timeout(), rb.send()).await {
            Err(_) => return Err(self.timeout_error()),
            Ok(Err(e)) if e.is_timeout() => return Err(self.timeout_error()),
            Ok(Err(e)) => {
                // The address is told apart, without its password.
                let detail = baton_stdx::error_chain(&e.without_url());
                return Err(LlmError::Connect {
                    provider: self.cfg.name.clone(),
                    endpoint: self.cfg.shown_url(),
                    refused: detail.contains("Connection refused"),
                    detail,
                });
            }
            Ok(Ok(r)) => r,
        };
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if resp.status().is_success() {
            if content_type.starts_with("text/html") {
                return Err(LlmError::Malformed {
                    provider: self.cfg.name.clone(),
                    detail: format!(
                        "an HTML page came back instead of a reply stream — check that the endpoint `{}` is the API base URL",
                        self.cfg.shown_url()
                    ),
                });
            }
            return Ok(resp);
        }
        let retry_after = retry_after(resp.headers());
        let text = tokio::time::timeout(self.timeout(), resp.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        Err(classify(
            &self.cfg.name,
            status,
            retry_after,
            &text,
            &content_type,
        ))
    }
}

#[async_trait]
impl Provider for HttpProvider {
    fn config(&self) -> &ProviderConfig {
        &self.cfg
    }

    async fn stream(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, LlmError> {
        let prepared = cache::prepare(self.cfg.cache_type, &request);
        let wire = dialect::build(&self.cfg, &prepared, &request, self.key.as_deref());
        let body = serde_json::to_vec(&wire.body).expect("request body serializes");
        tracing::debug!(provider = %self.cfg.name, url = %baton_stdx::without_userinfo(&wire.url), bytes = body.len(), "sending request");
        let policy = self.retry;
        let backoff = ExponentialBuilder::default()
            .with_min_delay(policy.min_delay)
            .with_max_delay(policy.max_delay)
            .with_max_times(policy.max_retries)
            .with_jitter();
        let send = (|| self.send_once(&wire, &body))
            .retry(backoff)
            .when(LlmError::is_transient)
            .adjust(|e: &LlmError, planned| match e.retry_after() {
                Some(asked) if asked > policy.max_retry_after => None,
                Some(asked) => Some(asked),
                None => planned,
            })
            .notify(|e: &LlmError, after| {
                tracing::warn!(provider = %self.cfg.name, "retrying in {after:?}: {e}");
            });
        let response = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled { provider: self.cfg.name.clone() }),
            r = send => r?,
        };

        let (tx, rx) = tokio::sync::mpsc::channel::<Result<crate::LlmEvent, LlmError>>(64);
        let idle = self.timeout();
        let timeout_error = self.timeout_error();
        let provider = self.cfg.name.clone();
        let dialect = self.cfg.dialect;
        let endpoint = self.cfg.shown_url();
        tokio::spawn(async move {
            let mut events = Box::pin(wire::decode(dialect, Box::pin(response.bytes_stream())));
            loop {
                let next = tokio::select! {
                    biased;
                    _ = cancel.cancelled() => {
                        let _ = tx.send(Err(LlmError::Cancelled { provider: provider.clone() })).await;
                        break;
                    }
                    _ = tx.closed() => break,
                    n = tokio::time::timeout(idle, events.next()) => n,
                };
                let item = match next {
                    Err(_) => Err(timeout_error.clone()),
                    Ok(None) => break,
                    Ok(Some(Ok(ev))) => Ok(ev),
                    Ok(Some(Err(e))) => Err(wire_error(&provider, &endpoint, e)),
                };
                let stop = item.is_err();
                if tx.send(item).await.is_err() || stop {
                    break;
                }
            }
            tracing::debug!(provider = %provider, endpoint = %endpoint, "stream closed");
        });
        let stream =
            futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|x| (x, rx)) });
        Ok(Box::pin(stream))
    }
}

/// A client builder for `base_url`. TLS is rustls with the `ring`
/// provider (no OpenSSL); plain-HTTP endpoints (local servers) skip loading
/// the system CA bundle, which would cost ≈ 35 ms of start-up.
pub(crate) fn client_builder(base_url: &str) -> reqwest::ClientBuilder {
    // Installing the process-wide default provider twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder =
        reqwest::Client::builder().user_agent(concat!("baton/", env!("CARGO_PKG_VERSION")));
    if base_url.starts_with("http://") {
        builder.tls_certs_only(std::iter::empty())
    } else {
        builder
    }
}

fn wire_error(provider: &str, endpoint: &str, e: WireError) -> LlmError {
    let provider = provider.to_string();
    match e {
        WireError::Transport(detail) => LlmError::Connect {
            provider,
            endpoint: endpoint.to_string(),
            detail,
            refused: false,
        },
        WireError::Provider(detail) => LlmError::Remote { provider, detail },
        WireError::Malformed(detail) => LlmError::Malformed { provider, detail },
        WireError::Truncated => LlmError::Malformed {
            provider,
            detail: WireError::Truncated.to_string(),
        },
    }
}

/// `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let get = |k: &str| headers.get(k).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return Some(Duration::from_secs_f64(secs.max(0.0)));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The provider's own words from an error body.
fn error_detail(body: &str, content_type: &str) -> String {
    let trimmed = body.trim_start();
    if content_type.starts_with("text/html")
        || trimmed.starts_with("<!")
        || trimmed.starts_with("<html")
    {
        let title = trimmed
            .find("<title>")
            .and_then(|s| {
                trimmed[s + 7..]
                    .find("</title>")
                    .map(|e| trimmed[s + 7..s + 7 + e].trim().to_string())
            })
            .filter(|t| !t.is_empty());
        return match title {
            Some(t) => format!(
                "an HTML page (\"{t}\") came back instead of a JSON error — check the endpoint URL"
            ),
            None => {
                "an HTML page came back instead of a JSON error — check the endpoint URL".into()
            }
        };
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let msg = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .and_then(|m| m.as_str());
        if let Some(m) = msg {
            return excerpt(m);
        }
    }
    if body.trim().is_empty() {
        "no details given".into()
    } else {
        excerpt(body)
    }
}

fn looks_like_overflow(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    [
        "context_length_exceeded",
        "maximum context length",
        "context window",
        "prompt is too long",
        "too many tokens",
        "input is too long",
        "exceeds the context",
    ]
    .iter()
    .any(|k| b.contains(k))
}

/// Maps an HTTP failure to the error users see.
pub(crate) fn classify(
    provider: &str,
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    content_type: &str,
) -> LlmError {
    let provider = provider.to_string();
    let detail = error_detail(body, content_type);
    match status {
        401 | 403 => LlmError::Auth {
            provider,
            status,
            detail,
        },
        429 => LlmError::RateLimited {
            provider,
            retry_after,
            detail,
        },
        400 | 413 | 422 if looks_like_overflow(body) => {
            LlmError::ContextOverflow { provider, detail }
        }
        404 => LlmError::BadRequest {
            provider,
            status,
            detail: format!("{detail} — check the endpoint URL and the model name"),
        },
        500..=599 => LlmError::Server {
            provider,
            status,
            detail,
        },
        _ => LlmError::BadRequest {
            provider,
            status,
            detail,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        let soon = std::time::SystemTime::now() + Duration::from_secs(30);
        h.insert(
            "retry-after",
            httpdate::fmt_http_date(soon).parse().unwrap(),
        );
        let d = retry_after(&h).unwrap();
        assert!(
            d > Duration::from_secs(27) && d <= Duration::from_secs(30),
            "{d:?}"
        );
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
        h.clear();
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn classification() {
        assert_eq!(classify("p", 401, None, "{}", "").code(), "auth");
        assert_eq!(classify("p", 429, None, "", "").code(), "rate_limit");
        assert_eq!(
            classify(
                "p",
                400,
                None,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#,
                ""
            )
            .code(),
            "context_overflow"
        );
        assert_eq!(classify("p", 529, None, "", "").code(), "server");
        let e = classify(
            "p",
            502,
            None,
            "<html><title>502 Bad Gateway</title></html>",
            "text/html",
        )
        .to_string();
        assert!(
            e.contains("HTML page") && e.contains("502 Bad Gateway"),
            "{e}"
        );
        let e = classify(
            "p",
            400,
            None,
            r#"{"error":{"message":"bad temperature"}}"#,
            "",
        )
        .to_string();
        assert!(e.contains("bad temperature"), "{e}");
    }
}
