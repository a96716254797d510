//! Recall by meaning: each remembered text's vector from the local
//! embedding model (the one the workspace search uses), kept for the
//! process, and a question's likeness to every entry. Vectors are keyed by
//! the text, so an edited entry is embedded again and a text in both the
//! user's and a project's memory once.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use baton_embed::SharedEmbedder;

use crate::Memory;

/// Entries a recall embeds itself at most. More (the first recall over a
/// large memory) are embedded on a thread of their own, and until they
/// are, recall goes by words: a turn never waits seconds for it.
const INLINE: usize = 64;

/// The vectors of remembered texts, one set for the process.
pub struct MemoryVectors {
    embedder: Arc<SharedEmbedder>,
    vectors: Mutex<HashMap<String, Arc<[f32]>>>,
    /// Set while a thread embeds a large batch.
    filling: Arc<AtomicBool>,
}

impl std::fmt::Debug for MemoryVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryVectors")
            .field("embedder", &self.embedder)
            .field("texts", &self.lock().len())
            .finish()
    }
}

impl MemoryVectors {
    /// Vectors from `embedder` (none installed: recall goes by words).
    pub fn new(embedder: Arc<SharedEmbedder>) -> Arc<MemoryVectors> {
        Arc::new(MemoryVectors {
            embedder,
            vectors: Mutex::default(),
            filling: Arc::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<[f32]>>> {
        self.vectors.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Each entry's likeness to `question` (about 0 unrelated, 1 the same
    /// meaning), in the entries' order; none when there is no model, it
    /// fails, or many entries are still being embedded. Blocks: call it
    /// off the async runtime.
    pub fn likeness(self: &Arc<Self>, memories: &[Memory], question: &str) -> Option<Vec<f32>> {
        if !self.embedder.is_installed() {
            return None;
        }
        let missing = self.missing(memories);
        if missing.len() > INLINE {
            self.fill_in_background(missing);
            return None;
        }
        if !missing.is_empty() {
            self.fill(&missing)?;
        }
        let asked = self.embedder.embed(&[question])?.pop()?;
        let vectors = self.lock();
        memories
            .iter()
            .map(|m| {
                let v = vectors.get(&m.text)?;
                Some(baton_embed::similarity(&asked, v))
            })
            .collect()
    }

    /// The texts of `memories` with no vector yet, each once.
    fn missing(&self, memories: &[Memory]) -> Vec<String> {
        let vectors = self.lock();
        let mut seen = HashSet::new();
        memories
            .iter()
            .filter(|m| !vectors.contains_key(&m.text) && seen.insert(m.text.as_str()))
            .map(|m| m.text.clone())
            .collect()
    }

    /// Embeds `texts` and keeps their vectors; none when the model is
    /// missing or fails. Blocks.
    pub fn fill(&self, texts: &[String]) -> Option<()> {
        let embedded = self.embedder.embed(texts)?;
        let mut vectors = self.lock();
        for (text, v) in texts.iter().zip(embedded) {
            vectors.insert(text.clone(), v.into());
        }
        Some(())
    }

    /// Embeds `texts` on a thread of its own, unless one is at it.
    fn fill_in_background(self: &Arc<Self>, texts: Vec<String>) {
        if self.filling.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = Arc::clone(self);
        let started = std::thread::Builder::new()
            .name("memory-embed".into())
            .spawn(move || {
                let _done = ClearOnDrop(Arc::clone(&me.filling));
                let n = texts.len();
                match me.fill(&texts) {
                    Some(()) => tracing::info!(n, "memories embedded for recall by meaning"),
                    None => tracing::warn!(n, "memories not embedded: recall goes by words"),
                }
            });
        if let Err(e) = started {
            self.filling.store(false, Ordering::SeqCst);
            tracing::warn!(error = %e, "memories not embedded: recall goes by words");
        }
    }

    /// Whether a thread is embedding entries now.
    pub fn is_filling(&self) -> bool {
        self.filling.load(Ordering::SeqCst)
    }
}

/// Clears the flag when the filling thread ends, however it ends.
struct ClearOnDrop(Arc<AtomicBool>);

impl Drop for ClearOnDrop {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}
