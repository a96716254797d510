//! The diagnostics toolbox, offered only when `BATON_DIAGNOSTIC_TOOLS=1`:
//! a deliberately slow call and a real external action, so that Stop and
//! the confirmation of external actions can be checked end to end through
//! every front door (the CLI and desktop tests use it).

use std::time::Duration;

use baton_tools::toolbox;
use serde::Serialize;

/// The environment variable that turns the toolbox on.
pub const DIAGNOSTIC_TOOLS_ENV: &str = "BATON_DIAGNOSTIC_TOOLS";

/// Whether the diagnostics toolbox is on.
pub fn diagnostics_enabled() -> bool {
    std::env::var(DIAGNOSTIC_TOOLS_ENV).is_ok_and(|v| v == "1")
}

/// Diagnostics: a slow blocking call and an HTTP post, for testing Stop and confirmations.
#[toolbox]
#[derive(Debug, Default)]
pub struct Diagnostics {}

/// What `post_note` got back.
#[derive(Debug, Serialize)]
pub struct Posted {
    /// The HTTP status.
    pub status: u16,
}

#[toolbox]
impl Diagnostics {
    /// Blocks for the given time without looking at cancellation (like a long library call), then says so.
    /// - seconds: how long to block (at most 120)
    pub fn block_for(&self, seconds: f64) -> Result<String, String> {
        let seconds = seconds.clamp(0.0, 120.0);
        std::thread::sleep(Duration::from_secs_f64(seconds));
        Ok(format!("blocked for {seconds} s"))
    }

    /// Posts a note to a URL (sends it off this machine).
    /// - url: where to post, e.g. `http://127.0.0.1:8080/_sink/notes`
    /// - text: the note
    #[effect(external)]
    pub async fn post_note(&self, url: String, text: String) -> Result<Posted, String> {
        // Installing the process-wide TLS provider twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| e.to_string())?;
        let response = client
            .post(&url)
            .body(text)
            .send()
            .await
            .map_err(|e| format!("the note could not be posted to {url}: {e}"))?;
        Ok(Posted {
            status: response.status().as_u16(),
        })
    }
}
