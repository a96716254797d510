//! Pages drawn by a headless Chromium of Baton's own (never a tab in the
//! user's browser): the print page is written with Mermaid.js into a
//! scratch folder, opened, its diagrams drawn, then printed to PDF, read
//! back as static HTML, or photographed diagram by diagram for DOCX.

use std::sync::Arc;
use std::time::Duration;

use baton_web::BrowserHub;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, PrintToPdfParams};
use serde::{Deserialize, Serialize};

use crate::PublishError;
use crate::markdown::escape;

/// Mermaid.js from the npm package, copied in by `build.rs` (empty when
/// the package was missing at build time).
const MERMAID_JS: &str = include_str!(concat!(env!("OUT_DIR"), "/mermaid.min.js"));
/// Draws the page's diagrams (see `render.js`).
const RENDER_JS: &str = include_str!("render.js");
/// How long a page may take to open and draw.
const LIMIT: Duration = Duration::from_secs(60);
/// Pixels per CSS pixel of diagram pictures (sharp when printed).
const PICTURE_SCALE: f64 = 2.0;

/// A diagram that could not be drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Its place among the document's diagrams (0 for the first).
    pub index: usize,
    /// Mermaid's message.
    pub error: String,
}

/// How the diagrams of a page were drawn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Drawn {
    /// Diagrams in the page.
    pub total: usize,
    /// Those shown as their source with the error instead.
    pub failures: Vec<Failure>,
}

/// A diagram drawn as a picture: PNG bytes and its size in CSS pixels.
pub(crate) struct Picture {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Draws and prints pages in a headless browser.
pub struct Printer {
    hub: Arc<BrowserHub>,
}

/// An open page and the scratch folder it was loaded from.
struct Open {
    page: Page,
    _dir: tempfile::TempDir,
    drawn: Drawn,
}

impl Printer {
    /// A printer on `hub` (a headless hub: documents never open in the
    /// user's browser).
    pub fn new(hub: Arc<BrowserHub>) -> Self {
        Self { hub }
    }

    /// Whether this build carries Mermaid.js.
    pub fn has_mermaid() -> bool {
        !MERMAID_JS.is_empty()
    }

    /// The page `html` (written with [`Scripts::Beside`](crate::page::Scripts))
    /// as a PDF, and how its diagrams were drawn.
    pub async fn pdf(&self, html: &str) -> Result<(Vec<u8>, Drawn), PublishError> {
        let open = self.open(html).await?;
        let params = PrintToPdfParams {
            print_background: Some(true),
            prefer_css_page_size: Some(true),
            ..Default::default()
        };
        let pdf = open.page.pdf(params).await.map_err(cdp);
        let _ = open.page.clone().close().await;
        Ok((pdf?, open.drawn))
    }

    /// `markdown` as a PDF document titled `title` (pictures left out:
    /// nothing is fetched), for exports.
    pub async fn markdown_pdf(&self, title: &str, markdown: &str) -> Result<Vec<u8>, PublishError> {
        let body = crate::markdown::to_html(markdown, &|_| None);
        let html = crate::page::document(title, None, &body, crate::page::Scripts::Beside);
        Ok(self.pdf(&html).await?.0)
    }

    /// The page `html` with its diagrams drawn as static HTML (inline SVG,
    /// no scripts).
    pub async fn drawn_html(&self, html: &str) -> Result<(String, Drawn), PublishError> {
        let open = self.open(html).await?;
        let out = eval::<String>(
            &open.page,
            "(() => { document.querySelectorAll('script').forEach((s) => s.remove()); return '<!doctype html>\\n' + document.documentElement.outerHTML; })()",
        )
        .await;
        let _ = open.page.clone().close().await;
        Ok((out?, open.drawn))
    }

    /// Each Mermaid source drawn as a picture, or the error that kept it
    /// from being drawn.
    pub(crate) async fn pictures(
        &self,
        sources: &[String],
    ) -> Result<Vec<Result<Picture, String>>, PublishError> {
        let mut body = String::new();
        for (i, s) in sources.iter().enumerate() {
            body.push_str(&format!(
                "<div class=\"slot\" id=\"slot-{i}\"><pre class=\"mermaid\">{}</pre></div>\n",
                escape(s)
            ));
        }
        let html = format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><style>body{{margin:0;width:680px;background:#fff}} .slot{{display:inline-block;padding:4px}}</style><script src=\"mermaid.min.js\"></script><script src=\"render.js\"></script></head><body>{body}</body></html>"
        );
        let open = self.open(&html).await?;
        let mut out = Vec::with_capacity(sources.len());
        for i in 0..sources.len() {
            let failed = open.drawn.failures.iter().find(|f| f.index == i);
            out.push(match failed {
                Some(f) => Err(f.error.clone()),
                None => picture(&open.page, i).await,
            });
        }
        let _ = open.page.clone().close().await;
        Ok(out)
    }

    /// Writes `html` with the scripts into a scratch folder, opens it in a
    /// new tab and draws its diagrams.
    async fn open(&self, html: &str) -> Result<Open, PublishError> {
        let dir =
            tempfile::tempdir().map_err(|e| PublishError::Io(format!("scratch folder: {e}")))?;
        for (name, text) in [
            ("page.html", html),
            ("mermaid.min.js", MERMAID_JS),
            ("render.js", RENDER_JS),
        ] {
            std::fs::write(dir.path().join(name), text)
                .map_err(|e| PublishError::Io(format!("scratch folder: {e}")))?;
        }
        let (browser, _) = self.hub.browser().await.map_err(PublishError::Browser)?;
        let page = browser.new_page("about:blank").await.map_err(cdp)?;
        let url = format!("file://{}", dir.path().join("page.html").display());
        let drawn = tokio::time::timeout(LIMIT, async {
            page.execute(SetDeviceMetricsOverrideParams::new(
                800,
                1000,
                PICTURE_SCALE,
                false,
            ))
            .await
            .map_err(cdp)?;
            page.goto(url).await.map_err(cdp)?;
            eval::<Drawn>(&page, "window.__batonRender()").await
        })
        .await;
        match drawn {
            Ok(Ok(drawn)) => Ok(Open {
                page,
                _dir: dir,
                drawn,
            }),
            Ok(Err(e)) => {
                let _ = page.close().await;
                Err(e)
            }
            Err(_) => {
                let _ = page.close().await;
                Err(PublishError::Browser(baton_web::WebError::Page(format!(
                    "the document's page did not finish drawing in {} s",
                    LIMIT.as_secs()
                ))))
            }
        }
    }
}

/// The drawn diagram in slot `i` as a picture.
async fn picture(page: &Page, i: usize) -> Result<Picture, String> {
    let el = page
        .find_element(format!("#slot-{i} figure.diagram svg"))
        .await
        .map_err(|e| format!("the drawn diagram is missing: {e}"))?;
    let png = el
        .screenshot(CaptureScreenshotFormat::Png)
        .await
        .map_err(|e| format!("the diagram could not be photographed: {e}"))?;
    let (w, h) = image::ImageReader::new(std::io::Cursor::new(&png))
        .with_guessed_format()
        .ok()
        .and_then(|r| r.into_dimensions().ok())
        .ok_or("the diagram's picture is unreadable")?;
    Ok(Picture {
        png,
        width: (w as f64 / PICTURE_SCALE).round() as u32,
        height: (h as f64 / PICTURE_SCALE).round() as u32,
    })
}

/// Evaluates `expr` (awaiting a promise) and reads its value as `T`.
async fn eval<T: serde::de::DeserializeOwned>(page: &Page, expr: &str) -> Result<T, PublishError> {
    page.evaluate(expr)
        .await
        .map_err(cdp)?
        .into_value()
        .map_err(|e| {
            PublishError::Browser(baton_web::WebError::Page(format!(
                "the page answered unexpectedly: {e}"
            )))
        })
}

fn cdp(e: chromiumoxide::error::CdpError) -> PublishError {
    PublishError::Browser(baton_web::WebError::Page(e.to_string()))
}
