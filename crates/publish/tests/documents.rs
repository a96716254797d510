//! Documents written for real: PDFs printed by Debian's Chromium with
//! every Mermaid diagram kind drawn, read back by Baton's own PDF
//! converter; Word files read back by Baton's converter and by
//! LibreOffice; paths, backups and broken diagrams.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use baton_config::{BrowserMode, BrowserSettings};
use baton_convert::{ConvertOptions, convert};
use baton_publish::{DIAGRAMS, DocFormat, DocumentTool, Printer};
use baton_tools::{Sandbox, ToolContext};
use baton_web::BrowserHub;

const CHROMIUM: &str = "/usr/bin/chromium";

struct Fixture {
    dir: tempfile::TempDir,
    hub: Arc<BrowserHub>,
    tool: DocumentTool,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let settings = BrowserSettings {
            mode: Some(BrowserMode::Headless),
            path: Some(CHROMIUM.into()),
            ..Default::default()
        };
        let hub = Arc::new(BrowserHub::new(settings, dir.path().join("profile")));
        let printer = Arc::new(Printer::new(Arc::clone(&hub)));
        let tool = DocumentTool::new(Sandbox::new(&workspace).unwrap(), printer);
        Self { dir, hub, tool }
    }

    fn file(&self, path: &str) -> std::path::PathBuf {
        self.dir
            .path()
            .join("workspace")
            .join(path.trim_start_matches('/'))
    }

    fn text_of(&self, path: &str) -> String {
        let bytes = std::fs::read(self.file(path)).unwrap();
        convert(path, &bytes, &ConvertOptions::default())
            .unwrap()
            .markdown
    }
}

/// Every diagram kind under its own heading.
fn all_diagrams() -> String {
    let mut md = String::from("# Diagrams\n\nEvery kind Baton draws.\n\n");
    for d in DIAGRAMS {
        md.push_str(&format!(
            "## {}\n\n```mermaid\n{}\n```\n\n",
            d.kind, d.example
        ));
    }
    md
}

/// Text as the PDF converter gives it, with runs of white space made one.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_diagram_kind_is_drawn_into_the_pdf() {
    assert!(
        Printer::has_mermaid(),
        "Mermaid.js is bundled (ui/node_modules/mermaid)"
    );
    let f = Fixture::new();
    let ctx = ToolContext::default();
    let made = f
        .tool
        .create_document("/out/diagrams.pdf".into(), all_diagrams(), None, None, &ctx)
        .await
        .unwrap();
    assert_eq!(
        (made.format, made.diagrams),
        (DocFormat::Pdf, DIAGRAMS.len())
    );
    assert!(made.diagram_errors.is_empty(), "{:?}", made.diagram_errors);
    let text = flat(&f.text_of("/out/diagrams.pdf"));
    for d in DIAGRAMS {
        assert!(
            text.contains(d.label),
            "{}: `{}` not in the PDF's text: {text}",
            d.kind,
            d.label
        );
    }
    // The same page as HTML: each diagram an SVG with content, no scripts.
    f.tool
        .create_document(
            "/out/diagrams.html".into(),
            all_diagrams(),
            None,
            None,
            &ctx,
        )
        .await
        .unwrap();
    let html = std::fs::read_to_string(f.file("/out/diagrams.html")).unwrap();
    assert_eq!(
        html.matches("<figure class=\"diagram\"><svg").count(),
        DIAGRAMS.len(),
        "{html:.2000}"
    );
    assert!(!html.contains("<script"), "a saved page runs nothing");
    assert!(!html.contains("<pre class=\"mermaid\""));
    f.hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_diagram_shows_its_source_and_the_error() {
    let f = Fixture::new();
    let md = "# Plan\n\n```mermaid\nflowchart LR\n  A[Start] --> \n```\n\n```mermaid\npie title Fine\n  \"A\" : 1\n```\n";
    let made = f
        .tool
        .create_document(
            "/plan.pdf".into(),
            md.into(),
            None,
            None,
            &ToolContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(made.diagrams, 2);
    assert_eq!(made.diagram_errors.len(), 1, "{:?}", made.diagram_errors);
    assert!(
        made.diagram_errors[0].starts_with("diagram 1: "),
        "{:?}",
        made.diagram_errors
    );
    let text = flat(&f.text_of("/plan.pdf"));
    assert!(text.contains("This diagram could not be drawn"), "{text}");
    assert!(text.contains("A[Start] -->"), "the source is shown: {text}");
    assert!(text.contains("Fine"), "the other diagram is drawn: {text}");
    f.hub.shutdown().await;
}

/// A long report: 50 sections, each a page with a table.
fn long_report() -> String {
    let mut md = String::new();
    for s in 1..=50 {
        md.push_str(&format!("## Section {s}\n\nFigures for region {s}.\n\n| Month | Sales | Costs |\n|---|---:|---:|\n"));
        for m in ["Jan", "Feb", "Mar", "Apr", "May", "Jun"] {
            md.push_str(&format!("| {m} | {} | {} |\n", s * 100, s * 40));
        }
        md.push_str("\n<!-- pagebreak -->\n\n");
    }
    md
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifty_page_report_with_a_title_page() {
    let f = Fixture::new();
    let started = Instant::now();
    let made = f
        .tool
        .create_document(
            "/reports/year.pdf".into(),
            long_report(),
            None,
            Some("Annual report".into()),
            &ToolContext::default(),
        )
        .await
        .unwrap();
    eprintln!(
        "50-page PDF in {:?}, {} bytes",
        started.elapsed(),
        made.bytes
    );
    let bytes = std::fs::read(f.file("/reports/year.pdf")).unwrap();
    let pages = convert("year.pdf", &bytes, &ConvertOptions::default()).unwrap();
    assert!(
        pages.pages.unwrap_or(0) >= 51,
        "title page + 50: {:?}",
        pages.pages
    );
    let text = flat(&pages.markdown);
    assert!(
        text.contains("Annual report") && text.contains("Section 50"),
        "{text:.400}"
    );
    assert!(text.contains("5000"), "the last table is there");
    f.hub.shutdown().await;
}

/// A small PNG picture.
fn png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(40, 20, |x, _| image::Rgb([(x * 6) as u8, 80, 160]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

const LETTER: &str = "# Offer\n\nDear **Ada**, here is *our* offer ([terms](https://example.com/terms)).\n\n- Hardware\n  - Laptops\n  - Screens\n- Support\n\n1. Sign\n2. Return\n\n| Item | Price |\n|---|---|\n| Laptop | 1200 |\n| Screen | 300 |\n\n![logo](logo.png)\n\n<!-- pagebreak -->\n\n## Next steps\n\n```mermaid\nflowchart LR\n  A[Sign] --> B[Deliver]\n```\n\n> Valid for 30 days.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_word_document_reads_back_in_baton_and_in_libreoffice() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.file("/letters")).unwrap();
    std::fs::write(f.file("/letters/logo.png"), png()).unwrap();
    let made = f
        .tool
        .create_document(
            "/letters/offer.docx".into(),
            LETTER.into(),
            None,
            Some("Offer for Ada".into()),
            &ToolContext::default(),
        )
        .await
        .unwrap();
    assert_eq!((made.format, made.diagrams), (DocFormat::Docx, 1));
    assert!(made.diagram_errors.is_empty(), "{:?}", made.diagram_errors);
    let md = f.text_of("/letters/offer.docx");
    for want in [
        "# Offer",
        "**Ada**",
        "Laptops",
        "| Laptop | 1200 |",
        "## Next steps",
        "Valid for 30 days",
        "Offer for Ada",
    ] {
        assert!(md.contains(want), "`{want}` not in Baton's reading: {md}");
    }
    let zip = std::fs::read(f.file("/letters/offer.docx")).unwrap();
    let pictures = zip
        .windows(b"word/media/".len())
        .filter(|w| *w == b"word/media/")
        .count();
    assert!(
        pictures >= 2,
        "the logo and the diagram are pictures in the file"
    );
    let text = libreoffice_text(&f.file("/letters/offer.docx"));
    for want in ["Offer", "Laptops", "Laptop", "1200", "Next steps"] {
        assert!(
            text.contains(want),
            "`{want}` not in LibreOffice's reading: {text}"
        );
    }
    // python-docx finds the default paragraph style and addresses the
    // table's cells through its grid.
    let read = python_docx(&f.file("/letters/offer.docx"));
    assert_eq!(
        read,
        "default Normal | plain Normal | 2 columns | Item,Price;Laptop,1200;Screen,300"
    );
    f.hub.shutdown().await;
}

/// What python-docx (the fixtures' venv) reads of `file`: the default
/// paragraph style, a plain paragraph's style, the first table's columns
/// and cells.
fn python_docx(file: &Path) -> String {
    const READ: &str = r#"
import sys, docx
from docx.enum.style import WD_STYLE_TYPE
d = docx.Document(sys.argv[1])
default = d.styles.default(WD_STYLE_TYPE.PARAGRAPH)
plain = next(p for p in d.paragraphs if p.text.startswith("Dear"))
t = d.tables[0]
cells = ";".join(",".join(c.text for c in row.cells) for row in t.rows)
print(f"default {default.name if default else None} | plain {plain.style.name} | {len(t.columns)} columns | {cells}")
"#;
    let out = std::process::Command::new(baton_test_support::venv_python())
        .args(["-c", READ])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The document as LibreOffice reads it (converted to plain text).
fn libreoffice_text(file: &Path) -> String {
    let out = tempfile::tempdir().unwrap();
    let profile = format!(
        "-env:UserInstallation=file://{}/profile",
        out.path().display()
    );
    let status = std::process::Command::new("soffice")
        .args([
            profile.as_str(),
            "--headless",
            "--convert-to",
            "txt:Text",
            "--outdir",
        ])
        .arg(out.path())
        .arg(file)
        .output()
        .expect("LibreOffice (soffice) is installed by make test");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let name = file.file_stem().unwrap().to_string_lossy().to_string() + ".txt";
    std::fs::read_to_string(out.path().join(name)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_formats_and_backups() {
    let f = Fixture::new();
    let ctx = ToolContext::default();
    let escape = f
        .tool
        .create_document("/../x.md".into(), "hi".into(), None, None, &ctx)
        .await
        .unwrap_err();
    assert!(escape.to_string().contains("workspace"), "{escape}");
    let unknown = f
        .tool
        .create_document("/notes.txt".into(), "hi".into(), None, None, &ctx)
        .await
        .unwrap_err();
    assert!(
        unknown.to_string().contains(".docx, .pdf, .html or .md"),
        "{unknown}"
    );
    let first = f
        .tool
        .create_document(
            "/notes.txt".into(),
            "one".into(),
            Some(DocFormat::Md),
            None,
            &ctx,
        )
        .await
        .unwrap();
    assert!(first.backup.is_none());
    let second = f
        .tool
        .create_document(
            "/notes.txt".into(),
            "two".into(),
            Some(DocFormat::Md),
            None,
            &ctx,
        )
        .await
        .unwrap();
    let backup = second.backup.expect("the replaced file is backed up");
    assert_eq!(std::fs::read_to_string(f.file(&backup)).unwrap(), "one");
    assert_eq!(
        std::fs::read_to_string(f.file("/notes.txt")).unwrap(),
        "two"
    );
    // A page without diagrams needs no browser.
    f.tool
        .create_document(
            "/plain.html".into(),
            "# Hi\n\n<b>raw</b>".into(),
            None,
            None,
            &ctx,
        )
        .await
        .unwrap();
    let html = std::fs::read_to_string(f.file("/plain.html")).unwrap();
    assert!(
        html.contains("<h1>Hi</h1>") && html.contains("&lt;b&gt;raw"),
        "{html}"
    );
}
