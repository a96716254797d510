//! Provider errors, each naming the provider and saying what to do.

use std::time::Duration;

/// A failed model call.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum LlmError {
    /// No key in the environment or keychain.
    #[error("no API key for {provider}: run `baton secret set {provider}` or set {env}{note}")]
    MissingKey {
        /// Provider entry name.
        provider: String,
        /// The environment variable to set.
        env: String,
        /// Extra words (e.g. why the keychain could not be read).
        note: String,
    },
    /// The key was refused.
    #[error(
        "{provider} refused the API key (HTTP {status}): {detail} — check it with `baton secret set {provider}` or its environment variable"
    )]
    Auth {
        /// Provider entry name.
        provider: String,
        /// HTTP status.
        status: u16,
        /// The provider's words.
        detail: String,
    },
    /// Too many requests.
    #[error("{provider} is rate-limiting requests (HTTP 429{}): {detail} — wait a moment and try again", retry_after.map(|d| format!(", retry after {} s", d.as_secs_f32().ceil())).unwrap_or_default())]
    RateLimited {
        /// Provider entry name.
        provider: String,
        /// What `Retry-After` asked for.
        retry_after: Option<Duration>,
        /// The provider's words.
        detail: String,
    },
    /// No answer in time.
    #[error(
        "{provider} did not answer within {secs} s — it may be overloaded or unreachable; try again, or raise `timeoutSecs` for it in providers.json"
    )]
    Timeout {
        /// Provider entry name.
        provider: String,
        /// The limit.
        secs: u64,
    },
    /// The prompt is longer than the model's context window.
    #[error(
        "the conversation is too long for {provider}'s context window: {detail} — run /session compact or start a new chat"
    )]
    ContextOverflow {
        /// Provider entry name.
        provider: String,
        /// The provider's words.
        detail: String,
    },
    /// A 5xx answer.
    #[error("{provider} had a server error (HTTP {status}): {detail} — try again later")]
    Server {
        /// Provider entry name.
        provider: String,
        /// HTTP status.
        status: u16,
        /// The provider's words.
        detail: String,
    },
    /// A 4xx answer other than auth, rate limit and overflow.
    #[error("{provider} rejected the request (HTTP {status}): {detail}")]
    BadRequest {
        /// Provider entry name.
        provider: String,
        /// HTTP status.
        status: u16,
        /// The provider's words.
        detail: String,
    },
    /// The reply could not be understood.
    #[error("{provider} sent a reply Baton could not read: {detail}")]
    Malformed {
        /// Provider entry name.
        provider: String,
        /// What was wrong.
        detail: String,
    },
    /// The provider reported an error in the middle of its reply.
    #[error("{provider} reported an error during its reply: {detail}")]
    Remote {
        /// Provider entry name.
        provider: String,
        /// The provider's words.
        detail: String,
    },
    /// The server could not be reached.
    #[error(
        "cannot reach {provider} at {endpoint}: {detail} — is the server running and the endpoint right?"
    )]
    Connect {
        /// Provider entry name.
        provider: String,
        /// The URL tried.
        endpoint: String,
        /// The transport error.
        detail: String,
        /// Nothing listens there (not retried: a stopped server rarely
        /// starts within a backoff delay).
        refused: bool,
    },
    /// The caller cancelled.
    #[error("the request to {provider} was cancelled")]
    Cancelled {
        /// Provider entry name.
        provider: String,
    },
    /// The embedded local model failed (missing file, load error, …).
    #[error("{0}")]
    Local(String),
    /// The entry cannot be used by this build or configuration.
    #[error("{0}")]
    Unsupported(String),
}

impl LlmError {
    /// Worth retrying: rate limits, timeouts, 5xx, connection failures.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Timeout { .. }
                | LlmError::Server { .. }
                | LlmError::Connect { refused: false, .. }
        )
    }

    /// The delay the provider asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A short machine-readable code (`auth`, `rate_limit`, …) for front
    /// doors that show structured errors.
    pub fn code(&self) -> &'static str {
        match self {
            LlmError::MissingKey { .. } => "missing_key",
            LlmError::Auth { .. } => "auth",
            LlmError::RateLimited { .. } => "rate_limit",
            LlmError::Timeout { .. } => "timeout",
            LlmError::ContextOverflow { .. } => "context_overflow",
            LlmError::Server { .. } => "server",
            LlmError::BadRequest { .. } => "bad_request",
            LlmError::Malformed { .. } => "malformed_response",
            LlmError::Connect { .. } => "connect",
            LlmError::Remote { .. } => "remote",
            LlmError::Cancelled { .. } => "cancelled",
            LlmError::Unsupported(_) => "unsupported",
            LlmError::Local(_) => "local_model",
        }
    }
}
