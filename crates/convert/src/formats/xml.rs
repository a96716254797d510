//! A small element tree over quick-xml for the XML inside office files.
//!
//! Office XML is walked structurally (paragraph → run → text, table → row →
//! cell), which is far simpler on a tree than on a pull stream. The parts
//! are size-bounded before they get here.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};

/// An XML node: an element or a run of text.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// An element.
    Elem(Elem),
    /// Character data (entities resolved).
    Text(String),
}

/// An element with namespace prefixes stripped from its name and
/// attribute names.
#[derive(Debug, Clone, Default)]
pub(crate) struct Elem {
    pub(crate) name: String,
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) children: Vec<Node>,
}

impl Elem {
    /// An attribute: a name with a prefix (`r:id`) must match exactly, a
    /// bare name matches the local part (`val` finds `w:val`).
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        let exact = name.contains(':');
        self.attrs
            .iter()
            .find(|(k, _)| {
                if exact {
                    k == name
                } else {
                    k.rsplit(':').next() == Some(name)
                }
            })
            .map(|(_, v)| v.as_str())
    }

    /// Child elements.
    pub(crate) fn elems(&self) -> impl Iterator<Item = &Elem> {
        self.children.iter().filter_map(|n| match n {
            Node::Elem(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// The first child element called `name`.
    pub(crate) fn child(&self, name: &str) -> Option<&Elem> {
        self.elems().find(|e| e.name == name)
    }

    /// The first element called `name` at any depth (depth-first).
    pub(crate) fn find(&self, name: &str) -> Option<&Elem> {
        for e in self.elems() {
            if e.name == name {
                return Some(e);
            }
            if let Some(found) = e.find(name) {
                return Some(found);
            }
        }
        None
    }

    /// Every element called `name` at any depth, in document order, not
    /// descending into matches.
    pub(crate) fn find_all<'a>(&'a self, name: &str, out: &mut Vec<&'a Elem>) {
        for e in self.elems() {
            if e.name == name {
                out.push(e);
            } else {
                e.find_all(name, out);
            }
        }
    }

    /// All text below this element, concatenated.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out);
        out
    }

    fn collect_text(&self, out: &mut String) {
        for n in &self.children {
            match n {
                Node::Text(t) => out.push_str(t),
                Node::Elem(e) => e.collect_text(out),
            }
        }
    }
}

fn local(name: &[u8]) -> String {
    let s = String::from_utf8_lossy(name);
    match s.rfind(':') {
        Some(i) => s[i + 1..].to_string(),
        None => s.into_owned(),
    }
}

/// An element (without children yet) from its start tag.
fn element(e: &quick_xml::events::BytesStart<'_>) -> Elem {
    let attrs = e
        .attributes()
        .flatten()
        .map(|a| {
            let value = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.to_string());
            (
                String::from_utf8_lossy(a.key.as_ref().as_bytes()).into_owned(),
                value,
            )
        })
        .collect();
    Elem {
        name: local(e.name().as_ref().as_bytes()),
        attrs,
        children: Vec::new(),
    }
}

/// Pops the innermost open element into its parent.
fn close(stack: &mut Vec<Elem>) {
    let done = stack.pop().expect("an open element");
    stack
        .last_mut()
        .expect("root")
        .children
        .push(Node::Elem(done));
}

/// Parses a document into its root element.
pub(crate) fn parse(xml: &str) -> Result<Elem, String> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().trim_text(false);
    let mut stack: Vec<Elem> = vec![Elem::default()];
    fn push_text(stack: &mut [Elem], text: &str) {
        if text.is_empty() {
            return;
        }
        let top = stack.last_mut().expect("root stays on the stack");
        if let Some(Node::Text(prev)) = top.children.last_mut() {
            prev.push_str(text);
        } else {
            top.children.push(Node::Text(text.to_string()));
        }
    }
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("XML error at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Start(e) => stack.push(element(&e)),
            Event::Empty(e) => {
                let el = element(&e);
                stack
                    .last_mut()
                    .expect("root")
                    .children
                    .push(Node::Elem(el));
            }
            Event::End(_) if stack.len() > 1 => close(&mut stack),
            Event::Text(t) => push_text(&mut stack, &t.xml_content(XmlVersion::Implicit1_0)),
            Event::CData(t) => push_text(&mut stack, &t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    let mut buf = [0u8; 4];
                    push_text(&mut stack, c.encode_utf8(&mut buf));
                } else if let Some(s) = resolve_predefined_entity(&r) {
                    push_text(&mut stack, s);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    // Unclosed elements at the end: close them (lenient, like a browser).
    while stack.len() > 1 {
        close(&mut stack);
    }
    let root = stack.pop().expect("root");
    root.elems()
        .next()
        .cloned()
        .ok_or_else(|| "the XML has no root element".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_keeps_text_entities_and_local_names() {
        let root = parse(r#"<?xml version="1.0"?><w:doc xmlns:w="x"><w:p w:val="1">a &amp; b&#233;<w:br/>c</w:p></w:doc>"#).unwrap();
        assert_eq!(root.name, "doc");
        let p = root.child("p").unwrap();
        assert_eq!(p.attr("val"), Some("1"));
        assert_eq!(p.attr("w:val"), Some("1"));
        assert_eq!(p.attr("r:val"), None);
        assert_eq!(p.text(), "a & bé".to_string() + "c");
        assert!(p.child("br").is_some());
    }
}
