//! Files attached to a message: read, kept by content hash in the data
//! folder (so a reloaded conversation still has them), converted (cached)
//! and rendered into the attachment budget each time a request is built.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use baton_agent::FileRenderer;
use baton_convert::ConvertOptions;
use baton_docs::{AttachmentContext, ConversionCache, FileAttachment};
use baton_llm::FileRef;

use crate::{Engine, EngineError};

/// Reads attachment files, failing with the path named.
pub fn read_attachments(paths: &[PathBuf]) -> Result<Vec<FileAttachment>, EngineError> {
    paths
        .iter()
        .map(|p| {
            FileAttachment::from_path(p).map_err(|source| EngineError::Attachment {
                path: p.clone(),
                source,
            })
        })
        .collect()
}

/// The original bytes of attached files, one file per content hash.
#[derive(Debug, Clone)]
pub struct AttachmentStore {
    dir: PathBuf,
}

impl AttachmentStore {
    /// A store in `dir` (created on first save).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    fn path(&self, hash: &str) -> Option<PathBuf> {
        let ok = hash.len() == 64 && hash.chars().all(|c| c.is_ascii_hexdigit());
        ok.then(|| self.dir.join(hash))
    }

    /// Keeps `file`'s bytes (atomically; once per content).
    pub fn save(&self, file: &FileAttachment) -> std::io::Result<()> {
        let Some(path) = self.path(file.hash()) else {
            return Err(std::io::Error::other("not a SHA-256 hash"));
        };
        if path.is_file() {
            return Ok(());
        }
        baton_config::atomic_write_private(&path, &file.bytes)
    }

    /// The stored file `f` refers to, if it is still there.
    pub fn load(&self, f: &FileRef) -> Option<FileAttachment> {
        let bytes = std::fs::read(self.path(&f.hash)?).ok()?;
        Some(FileAttachment::new(f.name.clone(), bytes))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Renders stored file references the way a live message is built: the
/// same bytes, conversions and budget give the same text every time.
pub(crate) struct StoredFiles {
    pub(crate) store: AttachmentStore,
    pub(crate) cache: Arc<ConversionCache>,
    pub(crate) options: ConvertOptions,
    pub(crate) budget: usize,
}

impl FileRenderer for StoredFiles {
    fn render(&self, files: &[FileRef]) -> String {
        let mut loaded = Vec::new();
        let mut missing = String::new();
        for f in files {
            match self.store.load(f) {
                Some(a) => loaded.push(a),
                None => missing.push_str(&format!(
                    "<attachment name=\"{}\" status=\"missing\">\nThe stored copy of this file is gone; it cannot be shown again.\n</attachment>\n\n",
                    f.name.replace('"', "&quot;")
                )),
            }
        }
        let context = AttachmentContext::build(&loaded, &self.cache, &self.options, self.budget);
        let mut text = context.text;
        text.push_str(&missing);
        text.trim_end().to_string()
    }
}

impl Engine {
    /// Converts attachments (in parallel, cached) into the budgeted
    /// context block; each item says whether it was cut or not read.
    pub fn attachment_context(&self, files: &[FileAttachment]) -> AttachmentContext {
        AttachmentContext::build(
            files,
            &self.conversion_cache(),
            &self.convert_options(),
            self.settings.attachment_context_chars,
        )
    }

    /// Keeps attached files (their bytes in the [`attachment_store`](Self::attachment_store),
    /// their conversions in the cache) and refers to them, as a user
    /// message's [`FileRef`]s; with what the user should hear about files
    /// that were cut, not read or not kept. Blocking: converts.
    pub fn keep_files(&self, files: &[FileAttachment]) -> (Vec<FileRef>, Vec<String>) {
        let store = self.attachment_store();
        let context = self.attachment_context(files);
        let mut notes = Vec::new();
        let refs = files
            .iter()
            .zip(&context.items)
            .map(|(f, item)| {
                if let Err(e) = store.save(f) {
                    notes.push(format!("{} could not be kept for later turns: {e}", f.name));
                }
                notes.extend(crate::conversation::attachment_note(item));
                FileRef {
                    name: f.name.clone(),
                    hash: f.hash().to_string(),
                    format: item.format.clone().unwrap_or_else(|| "unreadable".into()),
                    size: item.size,
                }
            })
            .collect();
        (refs, notes)
    }

    /// Where attached files are kept.
    pub fn attachment_store(&self) -> AttachmentStore {
        AttachmentStore::new(self.paths.data_dir.join("attachments"))
    }

    /// The renderer agents use for stored file references.
    pub(crate) fn file_renderer(&self) -> Arc<dyn FileRenderer> {
        Arc::new(StoredFiles {
            store: self.attachment_store(),
            cache: self.conversion_cache(),
            options: self.convert_options(),
            budget: self.settings.attachment_context_chars,
        })
    }
}
