//! OpenDocument text (LibreOffice Writer): headings, paragraphs, nested
//! lists, tables, links and footnotes.

use super::xml::{self, Elem, Node};
use crate::markdown::{table, tidy};
use crate::zipped::Zipped;
use crate::{Conversion, ConvertError, ConvertOptions, Format};

const FORMAT: &str = "OpenDocument text";

struct Walker {
    md: String,
    notes: Vec<(String, String)>,
    /// List styles whose first level is numbered.
    ordered: std::collections::HashSet<String>,
    /// Items so far in the current run of numbered lists.
    counter: usize,
}

impl Walker {
    fn inline(&mut self, e: &Elem, out: &mut String) {
        for n in &e.children {
            match n {
                Node::Text(t) => out.push_str(t),
                Node::Elem(c) => match c.name.as_str() {
                    "s" => {
                        let n: usize = c.attr("c").and_then(|v| v.parse().ok()).unwrap_or(1);
                        out.push_str(&" ".repeat(n.min(100)));
                    }
                    "tab" => out.push('\t'),
                    "line-break" => out.push('\n'),
                    "a" => {
                        let mut inner = String::new();
                        self.inline(c, &mut inner);
                        match c.attr("href") {
                            Some(h) if !inner.trim().is_empty() => {
                                out.push_str(&format!("[{}]({h})", inner.trim()))
                            }
                            _ => out.push_str(&inner),
                        }
                    }
                    "note" => {
                        let id = c
                            .child("note-citation")
                            .map(|n| n.text())
                            .unwrap_or_else(|| (self.notes.len() + 1).to_string());
                        let mut body = String::new();
                        if let Some(b) = c.child("note-body") {
                            for p in b.elems() {
                                self.inline(p, &mut body);
                                body.push(' ');
                            }
                        }
                        self.notes
                            .push((id.trim().to_string(), body.trim().to_string()));
                        out.push_str(&format!("[^{}]", id.trim()));
                    }
                    "annotation" | "bookmark" | "bookmark-start" | "bookmark-end"
                    | "soft-page-break" => {}
                    _ => self.inline(c, out),
                },
            }
        }
    }

    fn blocks(&mut self, parent: &Elem, list_depth: usize) {
        let children: Vec<&Elem> = parent.elems().collect();
        for (index, c) in children.iter().copied().enumerate() {
            if c.name != "list" && list_depth == 0 {
                self.counter = 0;
            }
            match c.name.as_str() {
                "h" => {
                    let level: usize = c
                        .attr("outline-level")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(1);
                    let mut t = String::new();
                    self.inline(c, &mut t);
                    if !t.trim().is_empty() {
                        self.md.push_str(&format!(
                            "\n{} {}\n\n",
                            "#".repeat(level.clamp(1, 6)),
                            t.trim()
                        ));
                    }
                }
                "p" if c.attr("style-name").is_some_and(|s| s == "Title") => {
                    let mut t = String::new();
                    self.inline(c, &mut t);
                    if !t.trim().is_empty() {
                        self.md.push_str(&format!("\n# {}\n\n", t.trim()));
                    }
                }
                "p" => {
                    let mut t = String::new();
                    self.inline(c, &mut t);
                    if !t.trim().is_empty() {
                        self.md.push_str(t.trim_end());
                        self.md.push_str("\n\n");
                    }
                }
                "list" => {
                    let ordered = c
                        .attr("style-name")
                        .is_some_and(|n| self.ordered.contains(n));
                    for item in c
                        .elems()
                        .filter(|i| i.name == "list-item" || i.name == "list-header")
                    {
                        let mut first = true;
                        for part in item.elems() {
                            match part.name.as_str() {
                                "p" | "h" => {
                                    let mut t = String::new();
                                    self.inline(part, &mut t);
                                    if !t.trim().is_empty() {
                                        let marker = match (first, ordered) {
                                            (true, true) => {
                                                self.counter += 1;
                                                format!("{}. ", self.counter)
                                            }
                                            (true, false) => "- ".to_string(),
                                            (false, _) => "  ".to_string(),
                                        };
                                        self.md.push_str(&format!(
                                            "{}{marker}{}\n",
                                            "  ".repeat(list_depth),
                                            t.trim()
                                        ));
                                        first = false;
                                    }
                                }
                                "list" => {
                                    let mut wrapper = Elem::default();
                                    wrapper.children.push(Node::Elem(part.clone()));
                                    self.blocks(&wrapper, list_depth + 1);
                                }
                                _ => {}
                            }
                        }
                    }
                    // LibreOffice writes one list per indentation run; keep
                    // consecutive lists together.
                    let next_is_list = children.get(index + 1).is_some_and(|n| n.name == "list");
                    if list_depth == 0 && !next_is_list {
                        self.md.push('\n');
                    }
                }
                "table" => {
                    let mut rows_el = Vec::new();
                    c.find_all("table-row", &mut rows_el);
                    let rows: Vec<Vec<String>> = rows_el
                        .iter()
                        .map(|r| {
                            r.elems()
                                .filter(|e| {
                                    e.name == "table-cell" || e.name == "covered-table-cell"
                                })
                                .map(|cell| {
                                    let mut t = String::new();
                                    for p in cell.elems() {
                                        self.inline(p, &mut t);
                                        t.push(' ');
                                    }
                                    t.trim().to_string()
                                })
                                .collect()
                        })
                        .collect();
                    self.md.push('\n');
                    self.md.push_str(&table(&rows));
                    self.md.push('\n');
                }
                "section" | "index-body" | "table-of-content" => self.blocks(c, list_depth),
                _ => {}
            }
        }
    }
}

pub(crate) fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Conversion, ConvertError> {
    let mut zip = Zipped::open(bytes, FORMAT, options.max_unpacked_bytes)?;
    if zip
        .text("META-INF/manifest.xml")?
        .is_some_and(|m| m.contains("encryption-data"))
    {
        return Err(ConvertError::Encrypted { format: FORMAT });
    }
    let content = zip.required_text("content.xml")?;
    let root = xml::parse(&content).map_err(|reason| ConvertError::Corrupt {
        format: FORMAT,
        reason,
    })?;
    let text = root
        .child("body")
        .and_then(|b| b.child("text"))
        .ok_or_else(|| ConvertError::Corrupt {
            format: FORMAT,
            reason: "the document has no text body".into(),
        })?;
    let mut ordered = std::collections::HashSet::new();
    let styles_xml = zip.text("styles.xml")?.and_then(|t| xml::parse(&t).ok());
    let mut list_styles = Vec::new();
    root.find_all("list-style", &mut list_styles);
    if let Some(styles) = &styles_xml {
        styles.find_all("list-style", &mut list_styles);
    }
    {
        for ls in list_styles {
            let first = ls.elems().find(|l| l.attr("level") == Some("1"));
            if let (Some(name), Some(first)) = (ls.attr("name"), first)
                && first.name == "list-level-style-number"
            {
                ordered.insert(name.to_string());
            }
        }
    }
    let mut w = Walker {
        md: String::new(),
        notes: Vec::new(),
        ordered,
        counter: 0,
    };
    w.blocks(text, 0);
    let mut md = w.md;
    if !w.notes.is_empty() {
        md.push('\n');
        for (id, body) in &w.notes {
            md.push_str(&format!("[^{id}]: {body}\n"));
        }
    }
    let title = zip
        .text("meta.xml")?
        .and_then(|m| xml::parse(&m).ok())
        .and_then(|m| m.find("title").map(|t| t.text().trim().to_string()))
        .filter(|t| !t.is_empty());
    let mut c = Conversion::new(Format::Odt, tidy(&md));
    c.title = title;
    Ok(c)
}
