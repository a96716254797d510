//! `DocumentTool`: documents written from Markdown into the workspace.

use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use baton_tools::{Sandbox, ToolContext, toolbox};
use serde::{Deserialize, Serialize};

use crate::PublishError;
use crate::diagrams::{DIAGRAMS, Diagram};
use crate::markdown;
use crate::page::{self, Scripts};
use crate::printer::{Drawn, Printer};

/// The formats documents are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DocFormat {
    /// A Word document.
    Docx,
    /// A PDF, printed by a headless browser.
    Pdf,
    /// A web page (diagrams drawn in, no scripts).
    Html,
    /// The Markdown as given.
    Md,
}

impl DocFormat {
    /// The format a file name's extension names.
    pub fn of_path(path: &str) -> Option<Self> {
        let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "docx" => Self::Docx,
            "pdf" => Self::Pdf,
            "html" | "htm" => Self::Html,
            "md" | "markdown" => Self::Md,
            _ => return None,
        })
    }
}

/// What create_document made.
#[derive(Debug, Serialize)]
pub struct Created {
    /// The document, as a workspace path.
    pub path: String,
    /// Its format.
    pub format: DocFormat,
    /// Its size in bytes.
    pub bytes: usize,
    /// Mermaid diagrams in it.
    pub diagrams: usize,
    /// Diagrams shown as their source because they could not be drawn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagram_errors: Vec<String>,
    /// The backup of the file it replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
}

/// Writes documents from Markdown into the workspace: Word (docx), PDF, web pages (html) or Markdown, with tables, pictures and Mermaid diagrams.
#[toolbox]
pub struct DocumentTool {
    sandbox: Sandbox,
    printer: Arc<Printer>,
}

impl DocumentTool {
    /// A document toolbox writing into `sandbox`, printing and drawing
    /// with `printer`.
    pub fn new(sandbox: Sandbox, printer: Arc<Printer>) -> Self {
        Self { sandbox, printer }
    }

    /// The document's bytes in `format`, and how its diagrams were drawn.
    async fn render(
        &self,
        format: DocFormat,
        content: &str,
        title: &str,
        title_page: Option<&str>,
        folder: &Path,
    ) -> Result<(Vec<u8>, Drawn), PublishError> {
        match format {
            DocFormat::Md => Ok((content.as_bytes().to_vec(), Drawn::default())),
            DocFormat::Html => {
                let body = markdown::to_html(content, &|_| None);
                let plain = page::document(title, title_page, &body, Scripts::None);
                if body.diagrams == 0 {
                    return Ok((plain.into_bytes(), Drawn::default()));
                }
                let html = page::document(title, title_page, &body, Scripts::Beside);
                let (drawn_html, drawn) = self.printer.drawn_html(&html).await?;
                Ok((drawn_html.into_bytes(), drawn))
            }
            DocFormat::Pdf => {
                let body = markdown::to_html(content, &|url| self.inline_picture(url, folder));
                let html = page::document(title, title_page, &body, Scripts::Beside);
                self.printer.pdf(&html).await
            }
            DocFormat::Docx => self.docx(content, title, title_page, folder).await,
        }
    }

    async fn docx(
        &self,
        content: &str,
        title: &str,
        title_page: Option<&str>,
        folder: &Path,
    ) -> Result<(Vec<u8>, Drawn), PublishError> {
        let sources = crate::docx::mermaid_sources(content);
        let diagrams = if sources.is_empty() {
            Vec::new()
        } else {
            self.printer.pictures(&sources).await?
        };
        let drawn = Drawn {
            total: sources.len(),
            failures: diagrams
                .iter()
                .enumerate()
                .filter_map(|(index, d)| {
                    let error = d.as_ref().err()?.clone();
                    Some(crate::printer::Failure { index, error })
                })
                .collect(),
        };
        let (content, title) = (content.to_string(), title.to_string());
        let title_page = title_page.map(str::to_string);
        let (sandbox, folder) = (self.sandbox.clone(), folder.to_path_buf());
        let bytes = tokio::task::spawn_blocking(move || {
            let image = |url: &str| read_picture(&sandbox, &folder, url);
            let assets = crate::docx::Assets {
                diagrams,
                image: &image,
            };
            crate::docx::write(
                &content,
                title_page.as_deref().map(|d| (title.as_str(), d)),
                assets,
            )
        })
        .await
        .map_err(|e| PublishError::Io(format!("the Word file could not be written: {e}")))??;
        Ok((bytes, drawn))
    }

    /// A picture the Markdown names, inlined as a `data:` URL for the print
    /// page (which is loaded from a scratch folder).
    fn inline_picture(&self, url: &str, folder: &Path) -> Option<String> {
        let bytes = read_picture(&self.sandbox, folder, url).ok()?;
        let mime = match image::guess_format(&bytes).ok()? {
            image::ImageFormat::Png => "image/png",
            image::ImageFormat::Jpeg => "image/jpeg",
            image::ImageFormat::Gif => "image/gif",
            image::ImageFormat::WebP => "image/webp",
            image::ImageFormat::Bmp => "image/bmp",
            _ => return None,
        };
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        Some(format!("data:{mime};base64,{data}"))
    }

    /// Writes `bytes` to the workspace path `path`, backing up the file
    /// it replaces; the written path and the backup.
    fn save(&self, path: &str, bytes: &[u8]) -> Result<(String, Option<String>), PublishError> {
        let place = self
            .sandbox
            .place(path, true)
            .map_err(|e| PublishError::Path(e.to_string()))?;
        let agent = self
            .sandbox
            .agent_path(place.host())
            .unwrap_or_else(|| path.to_string());
        let backup = baton_stdx::replace_with_backup(place.io(), bytes)
            .map_err(|e| PublishError::Io(format!("{agent}: {e}")))?
            .and_then(|b| self.sandbox.agent_path(&place.shown(&b)));
        Ok((agent, backup))
    }
}

/// The bytes of a picture a document names: a workspace path, absolute
/// (`/charts/a.png`) or relative to the document's folder.
fn read_picture(sandbox: &Sandbox, folder: &Path, url: &str) -> Result<Vec<u8>, String> {
    if url.starts_with("http://") || url.starts_with("https://") || url.starts_with("data:") {
        return Err(
            "pictures from the web are not downloaded; save it into the workspace first".into(),
        );
    }
    let agent = if url.starts_with('/') {
        url.to_string()
    } else {
        sandbox
            .agent_path(&folder.join(url))
            .ok_or("the picture is outside the workspace")?
    };
    let place = sandbox.place(&agent, false).map_err(|e| e.to_string())?;
    place.read(sandbox).map_err(|e| format!("{url}: {e}"))
}

#[toolbox]
impl DocumentTool {
    /// Writes a document from Markdown into the workspace: headings, **bold**/*italic*, links, nested lists, tables, pictures (workspace paths), `<!-- pagebreak -->`, and Mermaid diagrams in ```mermaid blocks (see diagram_types). A file it replaces is backed up first.
    /// - path: where to write it, e.g. `/reports/q3.pdf`; its extension picks the format unless `format` is given
    /// - content: the whole document in Markdown
    /// - format: `docx`, `pdf`, `html` or `md`
    /// - title: a title page with this title and today's date
    #[effect(write)]
    pub async fn create_document(
        &self,
        path: String,
        content: String,
        format: Option<DocFormat>,
        title: Option<String>,
        ctx: &ToolContext,
    ) -> Result<Created, PublishError> {
        let format = format.or_else(|| DocFormat::of_path(&path)).ok_or_else(|| {
            PublishError::Format(format!(
                "`{path}` has no document extension: end it in .docx, .pdf, .html or .md, or give `format`"
            ))
        })?;
        let host = self
            .sandbox
            .resolve(&path)
            .map_err(|e| PublishError::Path(e.to_string()))?;
        let folder = host.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = host
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("document");
        let doc_title = page::title_of(title.as_deref(), &content, stem);
        let date = title
            .as_ref()
            .map(|_| chrono::Local::now().format("%-d %B %Y").to_string());
        let rendered = tokio::select! {
            r = self.render(format, &content, &doc_title, date.as_deref(), &folder) => r?,
            _ = ctx.cancel_token().cancelled() => return Err(PublishError::Cancelled),
        };
        let (bytes, drawn) = rendered;
        let (path, backup) = self.save(&path, &bytes)?;
        Ok(Created {
            path,
            format,
            bytes: bytes.len(),
            diagrams: drawn.total,
            diagram_errors: drawn
                .failures
                .iter()
                .map(|f| format!("diagram {}: {}", f.index + 1, f.error))
                .collect(),
            backup,
        })
    }

    /// The kinds of Mermaid diagram a document can hold, each with what it shows and a small example to start from.
    pub fn diagram_types(&self) -> Result<Vec<Diagram>, PublishError> {
        Ok(DIAGRAMS.to_vec())
    }
}
