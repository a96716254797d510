//! Limits and engines for a conversion.

use std::sync::Arc;
use std::time::Duration;

use crate::ocr::{OcrEngine, TesseractOcr};

/// How a conversion may run.
#[derive(Clone)]
pub struct ConvertOptions {
    /// Largest file read, in bytes (default 200 MB).
    pub max_bytes: u64,
    /// Most bytes an archive-based file (DOCX, XLSX, EPUB…) may unpack to
    /// (default 512 MB).
    pub max_unpacked_bytes: u64,
    /// Deadline for [`crate::convert_bounded`] (default 60 s).
    pub timeout: Duration,
    /// Rows kept per sheet or CSV table before truncating (default 1,000).
    pub max_table_rows: usize,
    /// The OCR engine for images and scanned pages (default: Tesseract);
    /// `None` leaves them out with a warning.
    pub ocr: Option<Arc<dyn OcrEngine>>,
}

impl std::fmt::Debug for ConvertOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConvertOptions")
            .field("max_bytes", &self.max_bytes)
            .field("max_unpacked_bytes", &self.max_unpacked_bytes)
            .field("timeout", &self.timeout)
            .field("max_table_rows", &self.max_table_rows)
            .field("ocr", &self.ocr.as_ref().map(|o| o.name()))
            .finish()
    }
}

impl Default for ConvertOptions {
    fn default() -> Self {
        Self {
            max_bytes: 200 << 20,
            max_unpacked_bytes: 512 << 20,
            timeout: Duration::from_secs(60),
            max_table_rows: 1000,
            ocr: Some(Arc::new(TesseractOcr::default())),
        }
    }
}

impl ConvertOptions {
    /// These options without OCR (images and scanned pages become warnings).
    pub fn without_ocr(mut self) -> Self {
        self.ocr = None;
        self
    }
}
