//! Markdown as the print page's HTML body (pulldown-cmark): tables, task
//! lists and strikethrough; ```mermaid fences become diagrams to draw;
//! `<!-- pagebreak -->` starts a new page; any other raw HTML in the
//! Markdown is shown as text (the page runs Mermaid's script, so the
//! model's HTML must not run).

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

/// The Markdown features documents understand.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Whether a raw HTML snippet is the page-break marker.
pub(crate) fn is_page_break(html: &str) -> bool {
    let t = html.trim();
    t.starts_with("<!--")
        && t.trim_start_matches("<!--").trim_end_matches("-->").trim() == "pagebreak"
}

/// The language of a fenced block (`mermaid` for diagrams).
pub(crate) fn fence_language<'a>(kind: &'a CodeBlockKind<'_>) -> Option<&'a str> {
    match kind {
        CodeBlockKind::Fenced(info) => info.split_whitespace().next(),
        CodeBlockKind::Indented => None,
    }
}

/// What [`to_html`] made.
#[derive(Debug, Default)]
pub(crate) struct Body {
    /// The HTML body.
    pub html: String,
    /// Mermaid diagrams in it (`<pre class="mermaid">`).
    pub diagrams: usize,
}

/// `markdown` as an HTML body; `picture` gives the address a picture's
/// URL is shown from (`None`: as written).
pub(crate) fn to_html(markdown: &str, picture: &dyn Fn(&str) -> Option<String>) -> Body {
    let mut diagrams = 0;
    let mut mermaid: Option<String> = None;
    let mut dropped_picture = false;
    let mut events: Vec<Event> = Vec::new();
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::CodeBlock(ref kind)) if fence_language(kind) == Some("mermaid") => {
                mermaid = Some(String::new());
            }
            Event::Text(t) if mermaid.is_some() => mermaid.get_or_insert_default().push_str(&t),
            Event::End(TagEnd::CodeBlock) if mermaid.is_some() => {
                let source = mermaid.take().unwrap_or_default();
                diagrams += 1;
                events.push(Event::Html(CowStr::from(format!(
                    "<pre class=\"mermaid\">{}</pre>\n",
                    escape(&source)
                ))));
            }
            Event::Html(t) | Event::InlineHtml(t) if is_page_break(&t) => {
                events.push(Event::Html("<div class=\"page-break\"></div>\n".into()));
            }
            Event::Html(t) | Event::InlineHtml(t) => events.push(Event::Text(t)),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => match picture(&dest_url) {
                Some(inlined) => events.push(Event::Start(Tag::Image {
                    link_type,
                    dest_url: CowStr::from(inlined),
                    title,
                    id,
                })),
                // A picture that is not in the workspace is not fetched when
                // the page is printed (its address could carry data off the
                // computer): its description stands in its place.
                None => {
                    dropped_picture = true;
                    events.push(Event::Text("[picture not included: ".into()));
                }
            },
            Event::End(TagEnd::Image) if dropped_picture => {
                dropped_picture = false;
                events.push(Event::Text("]".into()));
            }
            other => events.push(other),
        }
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    Body { html, diagrams }
}

/// `text` safe inside HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagrams_page_breaks_and_raw_html() {
        let md = "# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```mermaid\nflowchart LR\n  A --> B\n```\n\n<!-- pagebreak -->\n\n<script>alert(1)</script>\n\n- [x] done\n";
        let body = to_html(md, &|_| None);
        assert_eq!(body.diagrams, 1);
        assert!(body.html.contains("<h1>Plan</h1>"), "{}", body.html);
        assert!(body.html.contains("<table>"), "{}", body.html);
        assert!(
            body.html
                .contains("<pre class=\"mermaid\">flowchart LR\n  A --&gt; B\n</pre>"),
            "{}",
            body.html
        );
        assert!(body.html.contains("<div class=\"page-break\"></div>"));
        assert!(!body.html.contains("<script>"), "{}", body.html);
        assert!(body.html.contains("&lt;script&gt;"), "{}", body.html);
        assert!(body.html.contains("checkbox"), "{}", body.html);
        let pictured = to_html("![chart](/c.png)", &|u| Some(format!("data:{u}")));
        assert!(
            pictured.html.contains("src=\"data:/c.png\""),
            "{}",
            pictured.html
        );
    }

    #[test]
    fn a_picture_from_outside_the_workspace_is_never_fetched() {
        for url in [
            "https://collector.example/p.png?d=the+summary",
            "file:///etc/passwd",
            "//collector.example/p.png",
        ] {
            let body = to_html(&format!("Intro ![the chart]({url}) end"), &|_| None);
            assert!(!body.html.contains("<img"), "{url}: {}", body.html);
            assert!(
                !body.html.contains("collector.example/p.png?"),
                "{}",
                body.html
            );
            assert!(
                body.html.contains("[picture not included: the chart]"),
                "{}",
                body.html
            );
        }
    }
}
