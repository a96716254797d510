//! The print page: the document's HTML body in a page with a print style
//! sheet (A4, margins, tables and diagrams kept whole, page breaks), an
//! optional title page, and the script that draws Mermaid diagrams.

use crate::markdown::{Body, escape};

/// The print style sheet.
const CSS: &str = include_str!("print.css");

/// How the page gets its scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scripts {
    /// None: a page without diagrams, or one whose diagrams were drawn.
    None,
    /// `mermaid.min.js` and `render.js` beside the page (the printer's
    /// scratch folder).
    Beside,
}

/// A whole HTML document for `body`, titled `title`; with `title_page`, a
/// first page holding the title and `date`.
pub(crate) fn document(
    title: &str,
    title_page: Option<&str>,
    body: &Body,
    scripts: Scripts,
) -> String {
    let mut out = String::with_capacity(body.html.len() + CSS.len() + 512);
    out.push_str("<!doctype html>\n<html><head><meta charset=\"utf-8\">\n<title>");
    out.push_str(&escape(title));
    out.push_str("</title>\n<style>\n");
    out.push_str(CSS);
    out.push_str("</style>\n");
    if scripts == Scripts::Beside {
        out.push_str(
            "<script src=\"mermaid.min.js\"></script>\n<script src=\"render.js\"></script>\n",
        );
    }
    out.push_str("</head><body>\n");
    if let Some(date) = title_page {
        out.push_str(&format!(
            "<section class=\"title-page\"><h1 class=\"doc-title\">{}</h1><p class=\"doc-date\">{}</p></section>\n",
            escape(title),
            escape(date)
        ));
    }
    out.push_str(&body.html);
    out.push_str("</body></html>\n");
    out
}

/// The document's title: `title`, else its first heading, else `fallback`
/// (the file name).
pub(crate) fn title_of(title: Option<&str>, markdown: &str, fallback: &str) -> String {
    if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
        return t.trim().to_string();
    }
    markdown
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .unwrap_or_else(|| fallback.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_title_pages() {
        assert_eq!(title_of(None, "intro\n# Budget 2027\n", "x"), "Budget 2027");
        assert_eq!(title_of(Some(" Plan "), "# Other", "x"), "Plan");
        assert_eq!(title_of(None, "no heading", "report"), "report");
        let body = Body {
            html: "<p>hi</p>".into(),
            diagrams: 0,
        };
        let page = document("A & B", Some("1 December 2026"), &body, Scripts::None);
        assert!(page.contains("<title>A &amp; B</title>"));
        assert!(page.contains("class=\"title-page\"><h1 class=\"doc-title\">A &amp; B</h1>"));
        assert!(!page.contains("<script"));
        let drawn = document("t", None, &body, Scripts::Beside);
        assert!(
            drawn.contains("src=\"mermaid.min.js\"") && !drawn.contains("class=\"title-page\"")
        );
    }
}
