//! Text from images: the [`OcrEngine`] trait and the local Tesseract engine.

use std::sync::Mutex;

use tesseract::Tesseract;

/// Why OCR failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OcrError {
    /// The engine is not installed or cannot start.
    #[error("OCR is not available: {0}")]
    Unavailable(String),
    /// The image could not be read.
    #[error("the image could not be read for OCR: {0}")]
    BadImage(String),
    /// Recognition failed.
    #[error("OCR failed: {0}")]
    Failed(String),
}

/// Text recognised in an image.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrText {
    /// The text, lines separated by `\n`.
    pub text: String,
    /// Mean confidence 0–100, when the engine reports one.
    pub confidence: Option<i32>,
}

/// Something that reads text from an image (PNG, JPEG, TIFF, WebP…).
pub trait OcrEngine: Send + Sync {
    /// A short name for messages: `tesseract`, `glm-ocr`.
    fn name(&self) -> &str;
    /// Recognises the text in `image` (encoded image bytes).
    fn recognize(&self, image: &[u8]) -> Result<OcrText, OcrError>;
}

/// Tesseract through its C API (Debian `tesseract-ocr`), English by default.
///
/// One engine instance is kept and reused; calls are serialised because a
/// Tesseract handle is not thread-safe.
pub struct TesseractOcr {
    language: String,
    engine: Mutex<Option<Tesseract>>,
}

impl Default for TesseractOcr {
    fn default() -> Self {
        Self::new("eng")
    }
}

impl TesseractOcr {
    /// An engine for `language` (Tesseract codes, `eng`, `deu`, `eng+fra`).
    pub fn new(language: &str) -> Self {
        Self {
            language: language.to_string(),
            engine: Mutex::new(None),
        }
    }

    fn start(&self) -> Result<Tesseract, OcrError> {
        Tesseract::new(None, Some(&self.language)).map_err(|e| {
            OcrError::Unavailable(format!(
                "Tesseract could not load the `{}` language ({e}); install the Debian packages tesseract-ocr and tesseract-ocr-{}",
                self.language, self.language
            ))
        })
    }
}

impl OcrEngine for TesseractOcr {
    fn name(&self) -> &str {
        "tesseract"
    }

    fn recognize(&self, image: &[u8]) -> Result<OcrText, OcrError> {
        let mut slot = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        let engine = match slot.take() {
            Some(e) => e,
            None => self.start()?,
        };
        let engine = engine
            .set_image_from_mem(image)
            .map_err(|e| OcrError::BadImage(e.to_string()))?;
        let mut engine = engine.set_source_resolution(300);
        let text = engine
            .get_text()
            .map_err(|e| OcrError::Failed(e.to_string()))?;
        let confidence = engine.mean_text_conf();
        *slot = Some(engine);
        Ok(OcrText {
            text: text.trim().to_string(),
            confidence: Some(confidence),
        })
    }
}
