//! Keeping the index fresh while the app runs.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

use crate::error::IndexError;
use crate::index::WorkspaceIndex;

/// A running watcher; dropping it stops watching.
pub struct IndexWatcher {
    _debouncer: Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
    _worker: std::thread::JoinHandle<()>,
}

impl std::fmt::Debug for IndexWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IndexWatcher")
    }
}

impl WorkspaceIndex {
    /// Watches the workspace: files created, changed, renamed or deleted
    /// are re-read (or removed) `debounce` after the last event on them.
    /// `on_change` is told how many documents changed after each batch.
    pub fn watch(
        self: &Arc<Self>,
        debounce: Duration,
        on_change: impl Fn(usize) + Send + 'static,
    ) -> Result<IndexWatcher, IndexError> {
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer =
            new_debouncer(debounce, tx).map_err(|e| IndexError::Watch(e.to_string()))?;
        debouncer
            .watcher()
            .watch(self.root(), RecursiveMode::Recursive)
            .map_err(|e| IndexError::Watch(e.to_string()))?;
        let index = Arc::clone(self);
        let worker = std::thread::Builder::new()
            .name("baton-index-watch".into())
            .spawn(move || {
                for batch in rx {
                    let paths: Vec<PathBuf> = match batch {
                        Ok(events) => {
                            let mut p: Vec<PathBuf> = events.into_iter().map(|e| e.path).collect();
                            p.sort();
                            p.dedup();
                            p
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "file watcher error; rescanning");
                            vec![index.root().to_path_buf()]
                        }
                    };
                    match index.refresh_paths(&paths) {
                        Ok(n) if n > 0 => on_change(n),
                        Ok(_) => {}
                        Err(e) => tracing::warn!(error = %e, "index update failed"),
                    }
                }
            })
            .map_err(|e| IndexError::Watch(e.to_string()))?;
        Ok(IndexWatcher {
            _debouncer: debouncer,
            _worker: worker,
        })
    }
}
