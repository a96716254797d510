//! HTML to Markdown with `htmd`, leaving out what a reader does not see:
//! scripts, styles, hidden elements and inline (base64) images.

use std::sync::OnceLock;

use htmd::element_handler::{HandlerResult, Handlers};
use htmd::{Element, HtmlToMarkdown};

use crate::markdown::tidy;
use crate::{Conversion, Format};

/// Tags whose hidden instances are dropped (htmd dispatches handlers by tag).
const CONTAINERS: &[&str] = &[
    "div",
    "span",
    "p",
    "section",
    "article",
    "aside",
    "nav",
    "header",
    "footer",
    "main",
    "a",
    "ul",
    "ol",
    "li",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "tfoot",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "b",
    "i",
    "em",
    "strong",
    "figure",
    "figcaption",
    "blockquote",
    "pre",
    "code",
    "label",
    "dl",
    "dt",
    "dd",
    "small",
    "sup",
    "sub",
    "font",
    "center",
    "details",
    "summary",
    "form",
    "u",
    "mark",
    "abbr",
    "time",
    "address",
    "caption",
];

fn is_hidden(element: &Element) -> bool {
    element.attrs.iter().any(|a| {
        let name: &str = &a.name.local;
        let value: &str = &a.value;
        match name {
            "hidden" => true,
            "aria-hidden" => value.eq_ignore_ascii_case("true"),
            "style" => {
                let v: String = value
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase();
                v.contains("display:none") || v.contains("visibility:hidden")
            }
            _ => false,
        }
    })
}

fn converter() -> &'static HtmlToMarkdown {
    static CONVERTER: OnceLock<HtmlToMarkdown> = OnceLock::new();
    CONVERTER.get_or_init(|| {
        HtmlToMarkdown::builder()
            .skip_tags(vec![
                "script", "style", "head", "noscript", "template", "iframe", "svg", "canvas",
                "object", "embed", "button", "input", "select", "textarea",
            ])
            .add_handler(
                CONTAINERS.to_vec(),
                |handlers: &dyn Handlers, element: Element| -> Option<HandlerResult> {
                    if is_hidden(&element) {
                        return Some("".into());
                    }
                    handlers.fallback(element)
                },
            )
            .add_handler(
                vec!["img"],
                |handlers: &dyn Handlers, element: Element| -> Option<HandlerResult> {
                    let src = element
                        .attrs
                        .iter()
                        .find(|a| &*a.name.local == "src")
                        .map(|a| a.value.to_string())
                        .unwrap_or_default();
                    if is_hidden(&element) || src.starts_with("data:") {
                        let alt = element
                            .attrs
                            .iter()
                            .find(|a| &*a.name.local == "alt")
                            .map(|a| a.value.trim().to_string())
                            .unwrap_or_default();
                        return Some(if alt.is_empty() || is_hidden(&element) {
                            "".into()
                        } else {
                            format!("[image: {alt}]").into()
                        });
                    }
                    handlers.fallback(element)
                },
            )
            .build()
    })
}

/// The text of the first `<title>`.
fn title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = lower[start..].find('>')? + start + 1;
    let end = lower[open_end..].find("</title")? + open_end;
    let t = html[open_end..end].trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Converts an HTML document or fragment.
pub(crate) fn to_markdown(html: &str) -> String {
    match converter().convert(html) {
        Ok(md) => tidy(&md),
        Err(e) => {
            tracing::warn!(error = %e, "htmd failed; falling back to tag stripping");
            tidy(&strip_tags(html))
        }
    }
}

/// Text with tags removed (last resort when the HTML cannot be parsed).
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

pub(crate) fn convert(html: &str) -> Conversion {
    let mut c = Conversion::new(Format::Html, to_markdown(html));
    c.title = title(html);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_scripts_styles_and_inline_images_are_dropped() {
        let html = r#"<html><head><title>T</title><style>p{font-family:x}</style></head><body>
            <h1>Head</h1><p>Seen <b>bold</b></p><div hidden>SECRET1</div>
            <p style="display: none">SECRET2</p><script>alert(1)</script>
            <img src="data:image/png;base64,AAAA" alt="logo"><img src="a.png" alt="pic"></body></html>"#;
        let c = convert(html);
        assert_eq!(c.title.as_deref(), Some("T"));
        for bad in ["SECRET1", "SECRET2", "alert", "font-family", "base64"] {
            assert!(!c.markdown.contains(bad), "{bad} in {}", c.markdown);
        }
        assert!(c.markdown.contains("# Head"), "{}", c.markdown);
        assert!(c.markdown.contains("**bold**"), "{}", c.markdown);
        assert!(c.markdown.contains("[image: logo]"), "{}", c.markdown);
        assert!(c.markdown.contains("![pic](a.png)"), "{}", c.markdown);
    }
}
