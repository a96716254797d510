//! The workspace search index: where it lives, and keeping it fresh in the
//! background while front doors watch its activity.

use std::sync::Arc;
use std::time::Duration;

use baton_index::{IndexError, IndexOptions, WorkspaceIndex};
use sha2::{Digest, Sha256};

use crate::{Engine, EngineError};

/// What the background indexer is doing, reported as it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// Scanning the workspace.
    Scanning {
        /// Files looked at.
        done: usize,
        /// Files found.
        total: usize,
    },
    /// Up to date (and watching for changes).
    Idle {
        /// Documents in the index.
        documents: usize,
    },
    /// Another Baton process is updating the index; search still works.
    Busy,
    /// Indexing failed.
    Failed(String),
}

/// Called with every change of [`IndexState`] (scan progress is reported
/// at most every 100 ms).
pub type IndexListener = Arc<dyn Fn(IndexState) + Send + Sync>;

/// The search index of the workspace, kept in the data folder (one per
/// workspace folder).
pub(crate) fn open_index(engine: &Engine) -> Result<Arc<WorkspaceIndex>, EngineError> {
    std::fs::create_dir_all(&engine.workspace).map_err(|e| EngineError::Workspace {
        path: engine.workspace.clone(),
        reason: e.to_string(),
    })?;
    let root = engine
        .workspace
        .canonicalize()
        .unwrap_or_else(|_| engine.workspace.clone());
    let key = format!("{:x}", Sha256::digest(root.to_string_lossy().as_bytes()));
    let dir = engine.paths.data_dir.join("index").join(&key[..16]);
    // With `searchByMeaning` (the default) and the local embedding model
    // installed (`make setup`), chunks get vectors and search fuses words
    // with meaning. The model runs in the background indexer; `close()`
    // stops it before a short-lived process exits.
    let options = IndexOptions {
        embedding: Some(engine.embedder()),
        ..IndexOptions::default()
    };
    Ok(Arc::new(WorkspaceIndex::open(&root, &dir, options)?))
}

/// Brings the index up to date (or rebuilds it from scratch) on a
/// background thread, then watches the workspace for the rest of the
/// process; search answers from the index meanwhile. When another Baton
/// process is already indexing, that one keeps the index fresh.
pub fn refresh_in_background(index: &Arc<WorkspaceIndex>, rebuild: bool, listener: IndexListener) {
    let index = Arc::clone(index);
    let spawned = std::thread::Builder::new()
        .name("baton-index-sync".into())
        .spawn(move || {
            let last = std::sync::Mutex::new(std::time::Instant::now() - Duration::from_secs(1));
            let progress = |p: &baton_index::IndexProgress| {
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= Duration::from_millis(100) || p.done == p.total {
                    *last = std::time::Instant::now();
                    listener(IndexState::Scanning {
                        done: p.done,
                        total: p.total,
                    });
                }
            };
            listener(IndexState::Scanning { done: 0, total: 0 });
            let result = if rebuild {
                index.rebuild(&progress)
            } else {
                index.sync(&progress)
            };
            match result {
                Ok(stats) => tracing::info!(?stats, "workspace index up to date"),
                Err(IndexError::Busy) => {
                    tracing::info!("another Baton process is indexing the workspace");
                    listener(IndexState::Busy);
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "workspace indexing failed");
                    listener(IndexState::Failed(e.to_string()));
                    return;
                }
            }
            listener(IndexState::Idle {
                documents: index.document_count(),
            });
            if rebuild {
                // The watcher started with the first scan still runs.
                return;
            }
            let on_change = {
                let index = Arc::clone(&index);
                let listener = Arc::clone(&listener);
                move |n| {
                    tracing::info!(changed = n, "workspace index updated");
                    listener(IndexState::Idle {
                        documents: index.document_count(),
                    });
                }
            };
            match index.watch(Duration::from_millis(250), on_change) {
                // The watcher lives as long as this thread: the whole process.
                Ok(_watcher) => loop {
                    std::thread::park();
                },
                Err(e) => {
                    tracing::warn!(error = %e, "the workspace will not be watched for changes")
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start indexing");
    }
}
