//! OCR through a vision model: any provider entry that reads images.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use baton_convert::{OcrEngine, OcrError, OcrText};
use baton_llm::{ChatRequest, ContentPart, Message, Provider};
use tokio_util::sync::CancellationToken;

/// What the model is asked to do with each image.
const INSTRUCTION: &str = "Transcribe all text in this image exactly, in reading order, as Markdown. \
Keep headings, lists and tables (as Markdown tables). Do not describe the image, summarize or add anything.";

/// An [`OcrEngine`] that sends each image to a vision model and returns its
/// transcription.
///
/// Conversions run on plain threads, and the caller's runtime may be busy
/// waiting for them (a CLI's single-threaded runtime would then never drive
/// the request), so the engine keeps one small runtime of its own for its
/// calls.
pub struct ProviderOcr {
    provider: Arc<dyn Provider>,
    runtime: Option<tokio::runtime::Runtime>,
    timeout: Duration,
}

impl ProviderOcr {
    /// OCR through `provider`.
    pub fn new(provider: Arc<dyn Provider>) -> Result<Self, OcrError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("baton-ocr")
            .enable_all()
            .build()
            .map_err(|e| OcrError::Unavailable(format!("cannot start the OCR runtime: {e}")))?;
        Ok(Self {
            provider,
            runtime: Some(runtime),
            timeout: Duration::from_secs(120),
        })
    }
}

impl Drop for ProviderOcr {
    fn drop(&mut self) {
        // May be dropped inside an async context, where a blocking shutdown panics.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl OcrEngine for ProviderOcr {
    fn name(&self) -> &str {
        self.provider.name()
    }

    fn recognize(&self, image: &[u8]) -> Result<OcrText, OcrError> {
        let message = Message::User {
            content: vec![
                ContentPart::Text {
                    text: INSTRUCTION.to_string(),
                },
                ContentPart::Image {
                    mime_type: baton_convert::image_mime_type(image)
                        .unwrap_or("image/png")
                        .to_string(),
                    data: base64::engine::general_purpose::STANDARD.encode(image),
                },
            ],
        };
        let request = ChatRequest::new(vec![message]);
        let cancel = CancellationToken::new();
        let provider = Arc::clone(&self.provider);
        let timeout = self.timeout;
        let runtime = self
            .runtime
            .as_ref()
            .ok_or_else(|| OcrError::Unavailable("the OCR runtime is gone".into()))?;
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(OcrError::Unavailable(
                "vision OCR must be called from a conversion thread, not async code".into(),
            ));
        }
        let result = runtime.block_on(async move {
            tokio::time::timeout(timeout, provider.complete(request, cancel)).await
        });
        match result {
            Ok(Ok(c)) => Ok(OcrText {
                text: c.text.trim().to_string(),
                confidence: None,
            }),
            Ok(Err(e)) => Err(OcrError::Failed(format!(
                "{} could not read the image: {e}",
                self.provider.name()
            ))),
            Err(_) => Err(OcrError::Failed(format!(
                "{} did not answer within {} s",
                self.provider.name(),
                timeout.as_secs()
            ))),
        }
    }
}
