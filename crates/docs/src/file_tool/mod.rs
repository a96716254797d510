//! `FileTool`: list, read, write, find, move and inspect files in the
//! workspace, through the [`Sandbox`] only.

use std::path::Path;
use std::time::UNIX_EPOCH;

use std::sync::Arc;

use baton_convert::ConvertOptions;
use baton_index::{SearchHit, WorkspaceIndex};
use baton_tools::{Place, Sandbox, SandboxError, Source, ToolContext, toolbox};

use crate::attachments::ConversionCache;
pub use documents::{DocumentOutline, DocumentSlice, OutlineEntry};

mod documents;
mod restore;
pub use restore::restore_in;
use serde::Serialize;

/// Most entries one listing or search returns.
const MAX_ENTRIES: usize = 1000;

/// Why a file operation failed, naming the path.
#[derive(Debug, thiserror::Error)]
pub enum FileToolError {
    /// A path the agent may not use.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// Nothing there.
    #[error("`{0}` does not exist")]
    NotFound(String),
    /// A folder where a file was expected.
    #[error("`{0}` is a folder, not a file")]
    IsDir(String),
    /// A file where a folder was expected.
    #[error("`{0}` is a file, not a folder")]
    NotDir(String),
    /// Not UTF-8 text.
    #[error("`{0}` is not a text file (it is not valid UTF-8)")]
    NotText(String),
    /// Target exists and overwriting was not asked for.
    #[error("`{0}` already exists; pass overwrite=true to replace it (it will be backed up first)")]
    Exists(String),
    /// A bad glob pattern.
    #[error("invalid pattern `{pattern}`: {reason}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        reason: String,
    },
    /// The document could not be converted.
    #[error("`{path}` cannot be read as a document: {reason}")]
    Convert {
        /// The agent path.
        path: String,
        /// Why.
        reason: String,
    },
    /// Search is unavailable or failed.
    #[error("{0}")]
    Search(String),
    /// The file has no backups to restore.
    #[error("`{0}` has no backups to restore")]
    NoBackups(String),
    /// The named backup is not one of the file's.
    #[error("`{backup}` is not a backup of `{path}`; list_backups gives its backups")]
    NotABackup {
        /// The named backup (agent path).
        backup: String,
        /// The file (agent path).
        path: String,
    },
    /// Any other I/O failure.
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The agent path.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// One entry of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileEntry {
    /// Agent path.
    pub path: String,
    /// `file` or `dir`.
    pub kind: &'static str,
    /// Size in bytes (files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// File details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// Agent path.
    pub path: String,
    /// `file` or `dir`.
    pub kind: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// Last modification, seconds since 1970.
    pub modified_unix: Option<u64>,
    /// Read-only.
    pub readonly: bool,
}

/// A slice of a text file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadResult {
    /// Agent path.
    pub path: String,
    /// The text.
    pub text: String,
    /// First character returned.
    pub offset: usize,
    /// Characters in the file.
    pub total_chars: usize,
    /// Whether more follows.
    pub truncated: bool,
}

/// A search hit with the number the answer cites it by.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitedHit {
    /// Cite this passage as `[source]` in the answer.
    pub source: u32,
    /// The hit.
    #[serde(flatten)]
    pub hit: SearchHit,
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteResult {
    /// Agent path written.
    pub path: String,
    /// Bytes written.
    pub bytes: usize,
    /// Where the previous version was saved, if there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
}

/// One backup of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BackupEntry {
    /// Agent path of the backup.
    pub path: String,
    /// Its number; higher is more recent.
    pub number: u32,
    /// Size in bytes.
    pub size: u64,
    /// When it was made, seconds since 1970.
    pub modified_unix: Option<u64>,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RestoreResult {
    /// Agent path restored.
    pub path: String,
    /// The backup put back (it is kept).
    pub restored_from: String,
    /// Where the replaced version was saved, when no backup held it yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_current: Option<String>,
}

/// Files in the user's workspace: list, read, write, find, move, inspect; read any document (PDF, Word, Excel, PowerPoint, e-mail…) as Markdown; search all documents.
#[toolbox]
pub struct FileTool {
    sandbox: Sandbox,
    documents: documents::Documents,
}

fn io<'a>(
    action: &'static str,
    path: &'a str,
) -> impl FnOnce(std::io::Error) -> FileToolError + 'a {
    move |source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            FileToolError::NotFound(path.to_string())
        } else {
            FileToolError::Io {
                action,
                path: path.to_string(),
                source,
            }
        }
    }
}

impl FileTool {
    /// A FileTool on `sandbox`.
    pub fn new(sandbox: Sandbox) -> Self {
        Self {
            sandbox,
            documents: documents::Documents::default(),
        }
    }

    /// Searches go to `index` (else `search_documents` says search is off).
    pub fn with_index(mut self, index: Arc<WorkspaceIndex>) -> Self {
        self.documents.index = Some(index);
        self
    }

    /// Conversions are shared with (and kept in) `cache`.
    pub fn with_cache(mut self, cache: Arc<ConversionCache>) -> Self {
        self.documents.cache = cache;
        self
    }

    /// Conversion limits and OCR for `read_document`.
    pub fn with_convert_options(mut self, options: ConvertOptions) -> Self {
        self.documents.options = options;
        self
    }

    fn agent(&self, host: &Path) -> String {
        self.sandbox
            .agent_path(host)
            .unwrap_or_else(|| host.display().to_string())
    }

    fn backup(&self, place: &Place, path: &str) -> Result<String, FileToolError> {
        let bak = baton_stdx::backup_file(place.io()).map_err(io("back up", path))?;
        Ok(self.agent(&place.shown(&bak)))
    }
}

#[toolbox]
impl FileTool {
    /// Lists a folder: each entry's path, kind (file or dir) and size.
    /// - path: the folder, e.g. `/reports`
    pub fn list_directory(
        &self,
        #[default("/")] path: String,
    ) -> Result<Vec<FileEntry>, FileToolError> {
        let host = self.sandbox.resolve(&path)?;
        let meta = std::fs::metadata(&host).map_err(io("read", &path))?;
        if !meta.is_dir() {
            return Err(FileToolError::NotDir(path));
        }
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&host).map_err(io("list", &path))? {
            let entry = entry.map_err(io("list", &path))?;
            let Ok(meta) = entry.metadata() else { continue };
            out.push(FileEntry {
                path: self.agent(&entry.path()),
                kind: if meta.is_dir() { "dir" } else { "file" },
                size: meta.is_file().then_some(meta.len()),
            });
        }
        out.sort_by(|a, b| (a.kind != "dir", &a.path).cmp(&(b.kind != "dir", &b.path)));
        out.truncate(MAX_ENTRIES);
        Ok(out)
    }

    /// Reads a text file, or a slice of it (offset and length in characters).
    /// - path: the file, e.g. `/notes/todo.md`
    /// - offset: first character to return
    /// - length: how many characters to return
    pub fn read_text_file(
        &self,
        path: String,
        #[default(0usize)] offset: usize,
        #[default(20_000usize)] length: usize,
    ) -> Result<ReadResult, FileToolError> {
        let place = self.sandbox.place(&path, false)?;
        let host = place.host();
        if host.is_dir() {
            return Err(FileToolError::IsDir(path));
        }
        let bytes = place.read(&self.sandbox).map_err(io("read", &path))?;
        let text = String::from_utf8(bytes).map_err(|_| FileToolError::NotText(path.clone()))?;
        let total_chars = text.chars().count();
        let slice: String = text.chars().skip(offset).take(length).collect();
        Ok(ReadResult {
            path: self.agent(host),
            truncated: offset + slice.chars().count() < total_chars,
            text: slice,
            offset,
            total_chars,
        })
    }

    /// Writes a text file atomically. An existing file is first backed up as `name.001.bak`, `name.002.bak`, …
    /// - path: the file to write, e.g. `/drafts/letter.md`
    /// - text: the full new content
    #[effect(write)]
    pub fn write_text_file(
        &self,
        path: String,
        text: String,
    ) -> Result<WriteResult, FileToolError> {
        let place = self.sandbox.place(&path, true)?;
        if place.io().is_dir() {
            return Err(FileToolError::IsDir(path));
        }
        let backup = if place.io().exists() {
            Some(self.backup(&place, &path)?)
        } else {
            None
        };
        baton_stdx::atomic_write(place.io(), text.as_bytes()).map_err(io("write", &path))?;
        Ok(WriteResult {
            path: self.agent(place.host()),
            bytes: text.len(),
            backup,
        })
    }

    /// Finds files whose path matches a glob pattern (`*.pdf`, `**/report*.xlsx`).
    /// - pattern: the glob; without a `/` it matches file names anywhere
    /// - path: the folder to search under
    pub fn find_files(
        &self,
        pattern: String,
        #[default("/")] path: String,
    ) -> Result<Vec<String>, FileToolError> {
        let host = self.sandbox.resolve(&path)?;
        if !host.is_dir() {
            return Err(FileToolError::NotDir(path));
        }
        let glob = globset::GlobBuilder::new(&pattern)
            .case_insensitive(true)
            .literal_separator(pattern.contains('/'))
            .build()
            .map_err(|e| FileToolError::Pattern {
                pattern: pattern.clone(),
                reason: e.kind().to_string(),
            })?
            .compile_matcher();
        let mut out = Vec::new();
        for entry in walkdir::WalkDir::new(&host)
            .follow_links(false)
            .into_iter()
            .filter_map(Result::ok)
        {
            if !entry.file_type().is_file() {
                continue;
            }
            let agent = self.agent(entry.path());
            let rel = agent.trim_start_matches('/');
            let hit = if pattern.contains('/') {
                glob.is_match(rel) || glob.is_match(&agent)
            } else {
                glob.is_match(entry.file_name().to_string_lossy().as_ref())
            };
            if hit {
                out.push(agent);
                if out.len() >= MAX_ENTRIES {
                    break;
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Moves or renames a file. An existing target is replaced only with overwrite=true, after a backup.
    /// - from: the file to move
    /// - to: its new path
    /// - overwrite: replace an existing target
    #[effect(write)]
    pub fn move_file(
        &self,
        from: String,
        to: String,
        #[default(false)] overwrite: bool,
    ) -> Result<WriteResult, FileToolError> {
        let src = self.sandbox.place(&from, false)?;
        let dst = self.sandbox.place(&to, true)?;
        let meta = std::fs::metadata(src.io()).map_err(io("read", &from))?;
        let mut backup = None;
        if dst.io().exists() {
            if !overwrite {
                return Err(FileToolError::Exists(to));
            }
            if dst.io().is_dir() {
                return Err(FileToolError::IsDir(to));
            }
            backup = Some(self.backup(&dst, &to)?);
        }
        std::fs::rename(src.io(), dst.io()).map_err(io("move", &from))?;
        Ok(WriteResult {
            path: self.agent(dst.host()),
            bytes: meta.len() as usize,
            backup,
        })
    }

    /// Lists a file's backups (made before each overwrite), oldest first: path, number, size and modification time.
    /// - path: the file, e.g. `/drafts/letter.md`
    pub fn list_backups(&self, path: String) -> Result<Vec<BackupEntry>, FileToolError> {
        let place = self.sandbox.place(&path, false)?;
        if place.io().is_dir() {
            return Err(FileToolError::IsDir(path));
        }
        let backups =
            baton_stdx::list_backups(place.io()).map_err(io("list the backups of", &path))?;
        Ok(backups
            .into_iter()
            .map(|b| BackupEntry {
                path: self.agent(&place.shown(&b.path)),
                number: b.number,
                size: b.size,
                modified_unix: b.modified_unix,
            })
            .collect())
    }

    /// Restores a file from a backup: the most recent one, or the one named. The current version is backed up first unless a backup already holds it.
    /// - path: the file to restore, e.g. `/drafts/letter.md`
    /// - backup: the backup to restore (its path or file name, e.g. `letter.md.002.bak`); the most recent when omitted
    #[effect(write)]
    pub fn restore(
        &self,
        path: String,
        backup: Option<String>,
    ) -> Result<RestoreResult, FileToolError> {
        restore_in(&self.sandbox, &path, backup.as_deref())
    }

    /// Gives a file's or folder's kind, size, modification time and whether it is read-only.
    /// - path: the file or folder
    pub fn get_file_info(&self, path: String) -> Result<FileInfo, FileToolError> {
        let host = self.sandbox.resolve(&path)?;
        let meta = std::fs::metadata(&host).map_err(io("read", &path))?;
        Ok(FileInfo {
            path: self.agent(&host),
            kind: if meta.is_dir() { "dir" } else { "file" },
            size: meta.len(),
            modified_unix: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs()),
            readonly: meta.permissions().readonly(),
        })
    }

    /// Searches all documents in the workspace (PDF, Word, Excel, e-mail, text…) by words and by meaning, and returns the best passage of each matching document, with where it is and its `source` number: when the answer uses a passage, cite it right after the claim as [source], e.g. "The fee was 40 EUR [2]." Supports "exact phrases", title:word, heading:word and format:pdf.
    /// - query: what to look for, e.g. `invoice 2024 "total due"` or a question
    /// - max_results: how many documents to return
    pub fn search_documents(
        &self,
        query: String,
        #[default(5usize)] max_results: usize,
        ctx: &ToolContext,
    ) -> Result<Vec<CitedHit>, FileToolError> {
        let hits = self.documents.search(&query, max_results)?;
        Ok(hits
            .into_iter()
            .map(|hit| CitedHit {
                source: ctx.cite(Source {
                    path: hit.path.clone(),
                    location: hit.location.clone(),
                    passage: hit.snippet.replace("**", ""),
                    offset: hit.offset,
                }),
                hit,
            })
            .collect())
    }

    /// Reads any document (PDF, DOCX, XLSX, PPTX, HTML, e-mail, image…) converted to Markdown, a page of characters at a time; continue with `next_offset`.
    /// - path: the document, e.g. `/reports/q3.pdf`
    /// - offset: first character to return (from `next_offset` or a search hit)
    /// - max_chars: how many characters to return
    pub fn read_document(
        &self,
        path: String,
        #[default(0usize)] offset: usize,
        #[default(8000usize)] max_chars: usize,
    ) -> Result<DocumentSlice, FileToolError> {
        let host = self.sandbox.resolve(&path)?;
        self.documents
            .read(&host, &self.agent(&host), offset, max_chars)
    }

    /// The outline of a document: its headings (and pages) with the character offset of each, to jump there with `read_document`.
    /// - path: the document, e.g. `/reports/q3.docx`
    pub fn get_document_outline(&self, path: String) -> Result<DocumentOutline, FileToolError> {
        let host = self.sandbox.resolve(&path)?;
        self.documents.outline(&host, &self.agent(&host))
    }
}
