//! Text-to-speech over an OpenAI-compatible `POST {endpoint}/audio/speech`
//! (OpenAI, and the local servers that copy it): text in, a WAV file out.

use std::time::Duration;

use crate::http::{classify, client_builder};
use crate::{LlmError, ProviderConfig};

/// The voice used when the entry names none.
pub const DEFAULT_VOICE: &str = "alloy";

/// A speech endpoint from a provider entry (`model` is the speech model,
/// `voice` the voice).
#[derive(Clone)]
pub struct SpeechClient {
    client: reqwest::Client,
    url: String,
    provider: String,
    model: String,
    voice: String,
    key: Option<String>,
    headers: Vec<(String, String)>,
}

impl SpeechClient {
    /// A client for `cfg`'s endpoint, with its key (if it needs one).
    pub fn new(cfg: &ProviderConfig, key: Option<String>) -> Result<Self, LlmError> {
        let base = cfg.base_url();
        if base.is_empty() {
            return Err(LlmError::Unsupported(format!(
                "{} has no endpoint, so it cannot speak",
                cfg.name
            )));
        }
        let timeout = Duration::from_secs(cfg.timeout_secs.unwrap_or(30));
        let client = client_builder(base)
            .connect_timeout(Duration::from_secs(10))
            .timeout(timeout)
            .build()
            .map_err(|e| LlmError::Unsupported(format!("cannot make an HTTP client: {e}")))?;
        Ok(Self {
            client,
            url: format!("{base}/audio/speech"),
            provider: cfg.name.clone(),
            model: cfg.model.clone().unwrap_or_else(|| "tts-1".into()),
            voice: cfg.voice.clone().unwrap_or_else(|| DEFAULT_VOICE.into()),
            key,
            headers: cfg
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        })
    }

    /// The same endpoint with another voice.
    pub fn with_voice(mut self, voice: &str) -> Self {
        self.voice = voice.to_string();
        self
    }

    /// The voice.
    pub fn voice(&self) -> &str {
        &self.voice
    }

    /// Speaks `text`: the endpoint's WAV file.
    pub async fn synthesize(&self, text: &str) -> Result<Vec<u8>, LlmError> {
        let body = serde_json::json!({
            "model": self.model,
            "input": text,
            "voice": self.voice,
            "response_format": "wav",
        });
        let mut req = self.client.post(&self.url).json(&body);
        if let Some(k) = &self.key {
            req = req.bearer_auth(k);
        }
        for (k, v) in &self.headers {
            req = req.header(k, v);
        }
        let provider = self.provider.clone();
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                LlmError::Timeout {
                    provider: provider.clone(),
                    secs: 30,
                }
            } else {
                LlmError::Connect {
                    provider: provider.clone(),
                    endpoint: baton_stdx::without_userinfo(&self.url),
                    refused: e.is_connect(),
                    detail: e.without_url().to_string(),
                }
            }
        })?;
        let status = resp.status().as_u16();
        if status != 200 {
            let content_type = resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let body = resp.text().await.unwrap_or_default();
            return Err(classify(&provider, status, None, &body, &content_type));
        }
        let bytes = resp.bytes().await.map_err(|e| LlmError::Malformed {
            provider: provider.clone(),
            detail: format!("the audio was cut off: {e}"),
        })?;
        if bytes.len() < 44 || &bytes[..4] != b"RIFF" {
            return Err(LlmError::Malformed {
                provider,
                detail: "the answer is not a WAV file".into(),
            });
        }
        Ok(bytes.to_vec())
    }
}
