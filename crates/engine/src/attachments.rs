//! Files attached to a message: read, converted (cached) and fitted into
//! the attachment budget.

use std::path::PathBuf;

use baton_docs::{AttachmentContext, FileAttachment};

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
}
