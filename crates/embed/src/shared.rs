//! One embedding model for the whole process, loaded on first use: the
//! workspace indexes and the attachment passages share it (one copy in
//! memory, one load), and closing the process stops it cleanly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::{Embedder, ModelFiles};

/// Texts embedded in one run of the model: 16 keeps a scan's peak memory
/// low (32 long texts take hundreds of megabytes a run) at the same speed.
const BATCH: usize = 16;

/// The embedding model, loaded when first needed, shared by everything
/// that embeds; runs are serialized and stop when the process closes.
pub struct SharedEmbedder {
    files: Option<ModelFiles>,
    model: OnceLock<Option<Arc<Embedder>>>,
    /// Set when the process is closing: no model run starts after.
    stopped: AtomicBool,
    /// Held while the model loads or runs.
    running: Mutex<()>,
}

impl std::fmt::Debug for SharedEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedEmbedder")
            .field("installed", &self.files.is_some())
            .field("stopped", &self.stopped.load(Ordering::Relaxed))
            .finish()
    }
}

impl SharedEmbedder {
    /// The model in `files` (none: nothing is embedded), not loaded yet.
    pub fn new(files: Option<ModelFiles>) -> Arc<SharedEmbedder> {
        Arc::new(SharedEmbedder {
            files,
            model: OnceLock::new(),
            stopped: AtomicBool::new(false),
            running: Mutex::new(()),
        })
    }

    /// Whether a model is installed (it may still fail to load).
    pub fn is_installed(&self) -> bool {
        self.files.is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The model, loaded once; none when not installed or unloadable (said
    /// once in the log), or when the process is closing. Loading holds the
    /// run lock: a process must not exit while ONNX Runtime is creating
    /// its session on another thread.
    pub fn model(&self) -> Option<Arc<Embedder>> {
        if let Some(model) = self.model.get() {
            return model.clone();
        }
        let _running = self.lock();
        if self.stopped.load(Ordering::SeqCst) {
            return None;
        }
        self.model
            .get_or_init(|| {
                let files = self.files.as_ref()?;
                Embedder::load(files, 2)
                    .inspect_err(|e| tracing::warn!(error = %e, "search by meaning is off"))
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }

    /// Each text's vector, in batches; none if the model is missing,
    /// fails, or the process is closing. Blocks: call it off the async
    /// runtime.
    /// Texts of about the same length go in one batch (each batch is
    /// padded to its longest text: less padding, less time and memory);
    /// the vectors come back in the texts' order.
    pub fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Option<Vec<Vec<f32>>> {
        let model = self.model()?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].as_ref().len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let refs: Vec<&str> = batch.iter().map(|&i| texts[i].as_ref()).collect();
            let _running = self.lock();
            if self.stopped.load(Ordering::SeqCst) {
                return None;
            }
            match model.embed(&refs) {
                Ok(v) => batch.iter().zip(v).for_each(|(&i, v)| out[i] = v),
                Err(e) => {
                    tracing::warn!(error = %e, "texts not embedded");
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Waits for a model run (or load) in progress; none starts after.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        drop(self.lock());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_model_nothing_is_embedded_and_nothing_is_loaded() {
        let shared = SharedEmbedder::new(None);
        assert!(!shared.is_installed());
        assert!(shared.embed(&["a question"]).is_none());
        assert!(shared.model().is_none());
    }

    #[test]
    fn vectors_come_back_in_the_texts_order_whatever_their_lengths() {
        let files = ModelFiles::in_models_dir(&baton_test_support::models_dir());
        let shared = SharedEmbedder::new(files);
        let long =
            "The harbour authority charged pilotage fees for every ship that entered in March. "
                .repeat(4);
        let texts = [long.as_str(), "Pilots", "A cat sat on the mat."];
        let together = shared.embed(&texts).expect("the model (make setup)");
        for (i, t) in texts.iter().enumerate() {
            let alone = shared.embed(&[*t]).unwrap().pop().unwrap();
            let same = crate::similarity(&alone, &together[i]);
            assert!(same > 0.999, "text {i}: {same}");
        }
    }

    #[test]
    fn after_stop_no_model_loads() {
        let files = ModelFiles::in_models_dir(&baton_test_support::models_dir());
        let shared = SharedEmbedder::new(files);
        shared.stop();
        assert!(shared.model().is_none());
        assert!(shared.embed(&["a question"]).is_none());
    }
}
