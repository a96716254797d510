//! Files attached to a message: read, kept by content hash in the data
//! folder (so a reloaded conversation still has them), converted (cached)
//! and rendered into the attachment budget each time a request is built.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use baton_agent::FileRenderer;
use baton_convert::ConvertOptions;
use baton_docs::{AttachmentContext, ConversionCache, FileAttachment, Focus};
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
        baton_stdx::atomic_write_private(&path, &file.bytes)
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
    pub(crate) finder: Arc<baton_index::PassageFinder>,
}

impl FileRenderer for StoredFiles {
    fn render(&self, files: &[FileRef], question: &str) -> String {
        let mut loaded = Vec::new();
        let mut missing = String::new();
        for f in files {
            match self.store.load(f) {
                Some(a) => loaded.push(a),
                None => missing.push_str(&format!(
                    "<attachment name=\"{}\" status=\"missing\">\nThe stored copy of this file is gone; it cannot be shown again.\n</attachment>\n\n",
                    baton_stdx::escape_attribute(&f.name)
                )),
            }
        }
        let focus = Focus {
            question,
            finder: &self.finder,
        };
        let context = AttachmentContext::build(
            &loaded,
            &self.cache,
            &self.options,
            self.budget,
            Some(focus),
        );
        let mut text = context.text;
        text.push_str(&missing);
        text.trim_end().to_string()
    }
}

/// Converts attachments (in parallel, cached) into the budgeted context
/// block (a file too long for its share gives the passages that bear on
/// `question`); each item says whether it was cut or not read.
pub(crate) fn attachment_context(
    engine: &Engine,
    files: &[FileAttachment],
    question: &str,
) -> AttachmentContext {
    let tools = engine.tools();
    let finder = tools.passage_finder();
    AttachmentContext::build(
        files,
        &tools.conversion_cache(),
        &tools.convert_options(),
        engine.settings.attachment_context_chars,
        Some(Focus {
            question,
            finder: &finder,
        }),
    )
}

/// Where `engine` keeps attached files.
pub(crate) fn attachment_store(engine: &Engine) -> AttachmentStore {
    AttachmentStore::new(engine.paths.data_dir.join("attachments"))
}

/// The renderer agents use for stored file references.
pub(crate) fn file_renderer(engine: &Engine) -> Arc<dyn FileRenderer> {
    let tools = engine.tools();
    Arc::new(StoredFiles {
        store: attachment_store(engine),
        cache: tools.conversion_cache(),
        options: tools.convert_options(),
        budget: engine.settings.attachment_context_chars,
        finder: tools.passage_finder(),
    })
}
