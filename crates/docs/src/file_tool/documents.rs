//! FileTool's document side: converted reading, outlines, search.

use std::path::Path;
use std::sync::Arc;

use baton_convert::{Conversion, ConvertOptions};
use baton_index::{SearchHit, WorkspaceIndex};
use serde::Serialize;

use super::FileToolError;
use crate::attachments::{ConversionCache, FileAttachment};

/// What `read_document` and `get_document_outline` need.
#[derive(Default)]
pub(crate) struct Documents {
    pub(crate) index: Option<Arc<WorkspaceIndex>>,
    pub(crate) cache: Arc<ConversionCache>,
    pub(crate) options: ConvertOptions,
}

/// A slice of a converted document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentSlice {
    /// Agent path.
    pub path: String,
    /// Format label.
    pub format: String,
    /// Title, when the document has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Pages, slides or sheets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<usize>,
    /// The Markdown.
    pub text: String,
    /// First character returned.
    pub offset: usize,
    /// Characters in the whole conversion.
    pub total_chars: usize,
    /// Where to continue, when more follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Converter warnings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One heading or page start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutlineEntry {
    /// 1–6 for headings, 0 for a page start.
    pub level: u8,
    /// Heading text, or `page N`.
    pub text: String,
    /// Character offset in the converted document.
    pub offset: usize,
}

/// A document's outline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentOutline {
    /// Agent path.
    pub path: String,
    /// Format label.
    pub format: String,
    /// Title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Characters in the conversion.
    pub total_chars: usize,
    /// Headings and pages in order.
    pub entries: Vec<OutlineEntry>,
}

impl std::fmt::Debug for Documents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Documents")
            .field("indexed", &self.index.is_some())
            .finish()
    }
}

impl Documents {
    fn conversion(&self, host: &Path, agent: &str) -> Result<Arc<Conversion>, FileToolError> {
        if host.is_dir() {
            return Err(FileToolError::IsDir(agent.to_string()));
        }
        let attachment = FileAttachment::from_path(host).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                FileToolError::NotFound(agent.to_string())
            } else {
                FileToolError::Io {
                    action: "read",
                    path: agent.to_string(),
                    source,
                }
            }
        })?;
        self.cache
            .attachment(&attachment, &self.options)
            .map_err(|e| FileToolError::Convert {
                path: agent.to_string(),
                reason: e.to_string(),
            })
    }

    pub(crate) fn read(
        &self,
        host: &Path,
        agent: &str,
        offset: usize,
        max_chars: usize,
    ) -> Result<DocumentSlice, FileToolError> {
        let c = self.conversion(host, agent)?;
        let total_chars = c.markdown.chars().count();
        let max_chars = max_chars.clamp(1, 50_000);
        let text: String = c.markdown.chars().skip(offset).take(max_chars).collect();
        let end = offset + text.chars().count();
        Ok(DocumentSlice {
            path: agent.to_string(),
            format: c.format.label().to_string(),
            title: c.title.clone(),
            pages: c.pages,
            text,
            offset,
            total_chars,
            next_offset: (end < total_chars).then_some(end),
            warnings: c.warnings.clone(),
        })
    }

    pub(crate) fn outline(
        &self,
        host: &Path,
        agent: &str,
    ) -> Result<DocumentOutline, FileToolError> {
        let c = self.conversion(host, agent)?;
        let mut entries = Vec::new();
        let mut offset = 0usize;
        let mut fenced = false;
        for line in c.markdown.split('\n') {
            let t = line.trim_start();
            if t.starts_with("```") {
                fenced = !fenced;
            }
            if !fenced {
                let hashes = t.chars().take_while(|&ch| ch == '#').count();
                if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
                    entries.push(OutlineEntry {
                        level: hashes as u8,
                        text: t[hashes..].trim().to_string(),
                        offset,
                    });
                } else if let Some(page) = t
                    .strip_prefix("<!-- page ")
                    .and_then(|r| r.strip_suffix(" -->"))
                {
                    entries.push(OutlineEntry {
                        level: 0,
                        text: format!("page {page}"),
                        offset,
                    });
                }
            }
            offset += line.chars().count() + 1;
        }
        Ok(DocumentOutline {
            path: agent.to_string(),
            format: c.format.label().to_string(),
            title: c.title.clone(),
            total_chars: c.markdown.chars().count(),
            entries,
        })
    }

    pub(crate) fn search(
        &self,
        query: &str,
        max_results: usize,
    ) -> Result<Vec<SearchHit>, FileToolError> {
        let Some(index) = &self.index else {
            return Err(FileToolError::Search(
                "document search is not available: the workspace has not been indexed (run `baton index`)".into(),
            ));
        };
        index
            .search(query, max_results.clamp(1, 50))
            .map_err(|e| FileToolError::Search(e.to_string()))
    }
}
