//! Word documents: headings, paragraphs with bold/italic, nested lists,
//! tables, hyperlinks, footnotes, and headers/footers once.

use std::collections::HashMap;

use super::xml::{self, Elem};
use crate::markdown::{emphasize, table, tidy};
use crate::zipped::Zipped;
use crate::{Conversion, ConvertError, ConvertOptions, Format};

const FORMAT: &str = "Word document";

fn corrupt(reason: String) -> ConvertError {
    ConvertError::Corrupt {
        format: FORMAT,
        reason,
    }
}

/// What a paragraph style contributes.
#[derive(Default, Clone)]
struct Style {
    name: String,
    outline: Option<u8>,
    num: Option<(String, u8)>,
    based_on: Option<String>,
}

/// Everything the body refers to.
#[derive(Default)]
struct Parts {
    styles: HashMap<String, Style>,
    /// (numId, level) → ordered?
    ordered: HashMap<(String, u8), bool>,
    /// relationship id → target
    links: HashMap<String, String>,
    has_title_style: bool,
}

fn bool_prop(rpr: &Elem, name: &str) -> bool {
    rpr.child(name)
        .is_some_and(|e| !matches!(e.attr("val"), Some("0") | Some("false") | Some("none")))
}

fn load_styles(root: &Elem) -> HashMap<String, Style> {
    let mut map = HashMap::new();
    for s in root.elems().filter(|e| e.name == "style") {
        let Some(id) = s.attr("styleId") else {
            continue;
        };
        let ppr = s.child("pPr");
        let style = Style {
            name: s
                .child("name")
                .and_then(|n| n.attr("val"))
                .unwrap_or(id)
                .to_ascii_lowercase(),
            outline: ppr
                .and_then(|p| p.child("outlineLvl"))
                .and_then(|o| o.attr("val"))
                .and_then(|v| v.parse().ok()),
            num: ppr.and_then(|p| p.child("numPr")).and_then(num_pr),
            based_on: s
                .child("basedOn")
                .and_then(|b| b.attr("val"))
                .map(str::to_string),
        };
        map.insert(id.to_string(), style);
    }
    map
}

fn num_pr(num_pr: &Elem) -> Option<(String, u8)> {
    let id = num_pr.child("numId")?.attr("val")?.to_string();
    let level = num_pr
        .child("ilvl")
        .and_then(|l| l.attr("val"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    (id != "0").then_some((id, level))
}

fn load_numbering(root: &Elem) -> HashMap<(String, u8), bool> {
    let mut abstract_levels: HashMap<String, HashMap<u8, bool>> = HashMap::new();
    for a in root.elems().filter(|e| e.name == "abstractNum") {
        let Some(id) = a.attr("abstractNumId") else {
            continue;
        };
        let levels = a
            .elems()
            .filter(|e| e.name == "lvl")
            .filter_map(|l| {
                let level: u8 = l.attr("ilvl")?.parse().ok()?;
                let fmt = l
                    .child("numFmt")
                    .and_then(|f| f.attr("val"))
                    .unwrap_or("bullet");
                Some((level, !matches!(fmt, "bullet" | "none")))
            })
            .collect();
        abstract_levels.insert(id.to_string(), levels);
    }
    let mut out = HashMap::new();
    for n in root.elems().filter(|e| e.name == "num") {
        let (Some(num_id), Some(abs)) = (
            n.attr("numId"),
            n.child("abstractNumId").and_then(|a| a.attr("val")),
        ) else {
            continue;
        };
        if let Some(levels) = abstract_levels.get(abs) {
            for (level, ordered) in levels {
                out.insert((num_id.to_string(), *level), *ordered);
            }
        }
    }
    out
}

/// One run of text with its formatting.
#[derive(Clone, PartialEq)]
pub(crate) struct Span {
    pub(crate) text: String,
    pub(crate) bold: bool,
    pub(crate) italic: bool,
    pub(crate) link: Option<String>,
}

struct Walker<'a> {
    parts: &'a Parts,
    footnote_refs: Vec<String>,
}

impl Walker<'_> {
    fn runs(&mut self, parent: &Elem, link: Option<&str>, out: &mut Vec<Span>) {
        for child in parent.elems() {
            match child.name.as_str() {
                "r" => self.run(child, link, out),
                "hyperlink" => {
                    let target = child
                        .attr("r:id")
                        .and_then(|id| self.parts.links.get(id).cloned())
                        .or_else(|| child.attr("anchor").map(|a| format!("#{a}")));
                    self.runs(child, target.as_deref().or(link), out);
                }
                "ins" | "smartTag" | "fldSimple" | "customXml" | "sdt" | "sdtContent" => {
                    self.runs(child, link, out)
                }
                _ => {}
            }
        }
    }

    fn run(&mut self, run: &Elem, link: Option<&str>, out: &mut Vec<Span>) {
        let (bold, italic) = run
            .child("rPr")
            .map(|p| (bool_prop(p, "b"), bool_prop(p, "i")))
            .unwrap_or((false, false));
        let push = |text: String, out: &mut Vec<Span>| {
            out.push(Span {
                text,
                bold,
                italic,
                link: link.map(str::to_string),
            });
        };
        for c in run.elems() {
            match c.name.as_str() {
                "t" => push(c.text(), out),
                "tab" => push("\t".into(), out),
                "br" | "cr" => push("\n".into(), out),
                "noBreakHyphen" => push("-".into(), out),
                "footnoteReference" | "endnoteReference" => {
                    if let Some(id) = c.attr("id") {
                        let tag = if c.name == "endnoteReference" {
                            format!("e{id}")
                        } else {
                            id.to_string()
                        };
                        self.footnote_refs.push(tag.clone());
                        out.push(Span {
                            text: format!("[^{tag}]"),
                            bold: false,
                            italic: false,
                            link: None,
                        });
                    }
                }
                "drawing" | "pict" => {
                    if let Some(alt) = c
                        .find("docPr")
                        .and_then(|d| d.attr("descr"))
                        .filter(|d| !d.trim().is_empty())
                    {
                        push(format!("[image: {}]", alt.trim()), out);
                    }
                }
                _ => {}
            }
        }
    }

    fn paragraph_text(&mut self, p: &Elem) -> String {
        let mut spans = Vec::new();
        self.runs(p, None, &mut spans);
        render_spans(&spans)
    }

    fn style_chain(&self, id: &str) -> Vec<&Style> {
        let mut chain = Vec::new();
        let mut current = Some(id.to_string());
        while let Some(id) = current {
            match self.parts.styles.get(&id) {
                Some(s) if chain.len() < 10 => {
                    chain.push(s);
                    current = s.based_on.clone();
                }
                _ => break,
            }
        }
        chain
    }

    fn paragraph(&mut self, p: &Elem) -> Block {
        let text = self.paragraph_text(p);
        let ppr = p.child("pPr");
        let style_id = ppr
            .and_then(|p| p.child("pStyle"))
            .and_then(|s| s.attr("val"))
            .unwrap_or("");
        let chain = self.style_chain(style_id);
        let name = chain.first().map(|s| s.name.clone()).unwrap_or_default();
        let shift = u8::from(self.parts.has_title_style);
        let heading = if name == "title" {
            Some(1)
        } else if let Some(n) = name
            .strip_prefix("heading ")
            .and_then(|n| n.trim().parse::<u8>().ok())
        {
            Some(n + shift)
        } else {
            ppr.and_then(|p| p.child("outlineLvl"))
                .and_then(|o| o.attr("val"))
                .and_then(|v| v.parse::<u8>().ok())
                .or_else(|| chain.iter().find_map(|s| s.outline))
                .filter(|&l| l < 9)
                .map(|l| l + 1 + shift)
        };
        if let Some(level) = heading {
            return Block::Heading(level.clamp(1, 6), text.replace('\n', " "));
        }
        let num = ppr
            .and_then(|p| p.child("numPr"))
            .map(num_pr)
            .unwrap_or_else(|| chain.iter().find_map(|s| s.num.clone()));
        if let Some((id, level)) = num {
            let ordered = self
                .parts
                .ordered
                .get(&(id, level))
                .copied()
                .unwrap_or(false);
            return Block::Item {
                level,
                ordered,
                text,
            };
        }
        if let Some(rest) = name
            .strip_prefix("list bullet")
            .or_else(|| name.strip_prefix("list number"))
        {
            let level = rest
                .trim()
                .parse::<u8>()
                .map(|n| n.saturating_sub(1))
                .unwrap_or(0);
            return Block::Item {
                level,
                ordered: name.starts_with("list number"),
                text,
            };
        }
        Block::Para(text)
    }

    fn cell_text(&mut self, tc: &Elem) -> String {
        let mut parts = Vec::new();
        for c in tc.elems() {
            match c.name.as_str() {
                "p" => parts.push(self.paragraph_text(c)),
                "tbl" => parts.push(
                    self.table_rows(c)
                        .iter()
                        .map(|r| r.join(" "))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => {}
            }
        }
        parts
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn table_rows(&mut self, tbl: &Elem) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        for tr in tbl.elems().filter(|e| e.name == "tr") {
            let mut row = Vec::new();
            for tc in tr.elems().filter(|e| e.name == "tc" || e.name == "sdt") {
                let tc = if tc.name == "sdt" {
                    tc.find("tc").unwrap_or(tc)
                } else {
                    tc
                };
                let props = tc.child("tcPr");
                let continued = props
                    .and_then(|p| p.child("vMerge"))
                    .is_some_and(|v| v.attr("val").is_none_or(|v| v == "continue"));
                row.push(if continued {
                    String::new()
                } else {
                    self.cell_text(tc)
                });
                let span: usize = props
                    .and_then(|p| p.child("gridSpan"))
                    .and_then(|g| g.attr("val"))
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(1);
                for _ in 1..span.min(64) {
                    row.push(String::new());
                }
            }
            rows.push(row);
        }
        rows
    }

    fn blocks(&mut self, parent: &Elem, out: &mut Vec<Block>) {
        for child in parent.elems() {
            match child.name.as_str() {
                "p" => out.push(self.paragraph(child)),
                "tbl" => {
                    let rows = self.table_rows(child);
                    out.push(Block::Table(rows));
                }
                "sdt" | "sdtContent" | "customXml" | "ins" => self.blocks(child, out),
                _ => {}
            }
        }
    }
}

/// Spans to Markdown: adjacent spans with the same formatting merge.
pub(crate) fn render_spans(spans: &[Span]) -> String {
    let mut merged: Vec<Span> = Vec::new();
    for s in spans {
        match merged.last_mut() {
            Some(last) if last.bold == s.bold && last.italic == s.italic && last.link == s.link => {
                last.text.push_str(&s.text)
            }
            _ => merged.push(s.clone()),
        }
    }
    let mut out = String::new();
    for s in merged {
        let mut text = s.text.clone();
        if s.italic {
            text = emphasize(&text, "*");
        }
        if s.bold {
            text = emphasize(&text, "**");
        }
        if let Some(url) = &s.link
            && !text.trim().is_empty()
        {
            text = format!("[{}]({url})", text.trim());
        }
        out.push_str(&text);
    }
    out
}

enum Block {
    Heading(u8, String),
    Para(String),
    Item {
        level: u8,
        ordered: bool,
        text: String,
    },
    Table(Vec<Vec<String>>),
}

fn render(blocks: &[Block]) -> String {
    let mut md = String::new();
    let mut counters: Vec<usize> = Vec::new();
    let mut prev_item = false;
    for b in blocks {
        match b {
            Block::Item {
                level,
                ordered,
                text,
            } => {
                if !prev_item {
                    counters.clear();
                    if !md.is_empty() {
                        md.push('\n');
                    }
                }
                let level = *level as usize;
                counters.resize(level + 1, 0);
                counters[level] += 1;
                let indent = "  "
                    .repeat(level * if *ordered { 2 } else { 1 })
                    .to_string();
                let marker = if *ordered {
                    format!("{}.", counters[level])
                } else {
                    "-".into()
                };
                md.push_str(&format!("{indent}{marker} {}\n", text.trim()));
                prev_item = true;
                continue;
            }
            Block::Heading(level, text) if !text.trim().is_empty() => {
                md.push_str(&format!(
                    "\n{} {}\n\n",
                    "#".repeat(*level as usize),
                    text.trim()
                ));
            }
            Block::Para(text) if !text.trim().is_empty() => {
                if prev_item {
                    md.push('\n');
                }
                md.push_str(text.trim_end());
                md.push_str("\n\n");
            }
            Block::Table(rows) if !rows.is_empty() => {
                md.push('\n');
                md.push_str(&table(rows));
                md.push('\n');
            }
            _ => {}
        }
        prev_item = false;
    }
    md
}

fn notes(
    zip: &mut Zipped<'_>,
    part: &str,
    prefix: &str,
    parts: &Parts,
) -> Result<Vec<(String, String)>, ConvertError> {
    let Some(text) = zip.text(part)? else {
        return Ok(Vec::new());
    };
    let root = xml::parse(&text).map_err(corrupt)?;
    let mut out = Vec::new();
    let mut walker = Walker {
        parts,
        footnote_refs: Vec::new(),
    };
    for n in root.elems() {
        if n.attr("type").is_some_and(|t| t != "normal") {
            continue;
        }
        let Some(id) = n.attr("id") else { continue };
        let text: Vec<String> = n
            .elems()
            .filter(|p| p.name == "p")
            .map(|p| walker.paragraph_text(p))
            .filter(|t| !t.trim().is_empty())
            .collect();
        out.push((format!("{prefix}{id}"), text.join(" ").trim().to_string()));
    }
    Ok(out)
}

/// Text of a header or footer part, paragraphs joined.
fn part_text(zip: &mut Zipped<'_>, part: &str, parts: &Parts) -> Result<String, ConvertError> {
    let Some(text) = zip.text(part)? else {
        return Ok(String::new());
    };
    let root = xml::parse(&text).map_err(corrupt)?;
    let mut walker = Walker {
        parts,
        footnote_refs: Vec::new(),
    };
    let mut blocks = Vec::new();
    walker.blocks(&root, &mut blocks);
    Ok(blocks
        .iter()
        .map(|b| match b {
            Block::Para(t) | Block::Heading(_, t) | Block::Item { text: t, .. } => {
                t.trim().to_string()
            }
            Block::Table(rows) => rows
                .iter()
                .map(|r| r.join(" "))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" "))
}

pub(crate) fn core_title(zip: &mut Zipped<'_>) -> Option<String> {
    let text = zip.text("docProps/core.xml").ok()??;
    let root = xml::parse(&text).ok()?;
    let t = root.child("title")?.text();
    (!t.trim().is_empty()).then(|| t.trim().to_string())
}

pub(crate) fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Conversion, ConvertError> {
    let mut zip = Zipped::open(bytes, FORMAT, options.max_unpacked_bytes)?;
    let document = zip.required_text("word/document.xml")?;
    let root = xml::parse(&document).map_err(corrupt)?;
    let mut parts = Parts::default();
    if let Some(styles) = zip.text("word/styles.xml")?
        && let Ok(root) = xml::parse(&styles)
    {
        parts.styles = load_styles(&root);
    }
    if let Some(numbering) = zip.text("word/numbering.xml")?
        && let Ok(root) = xml::parse(&numbering)
    {
        parts.ordered = load_numbering(&root);
    }
    let rels = zip.relationships("word/document.xml")?;
    parts.links = rels
        .iter()
        .map(|r| (r.id.clone(), r.target.clone()))
        .collect();
    let body = root
        .child("body")
        .ok_or_else(|| corrupt("the document has no body".into()))?;
    let mut uses_title = Vec::new();
    body.find_all("pStyle", &mut uses_title);
    parts.has_title_style = uses_title.iter().any(|s| {
        s.attr("val")
            .and_then(|id| parts.styles.get(id))
            .is_some_and(|st| st.name == "title")
    });

    let mut walker = Walker {
        parts: &parts,
        footnote_refs: Vec::new(),
    };
    let mut blocks = Vec::new();
    walker.blocks(body, &mut blocks);
    let referenced = walker.footnote_refs.clone();
    let mut md = render(&blocks);

    // Headers and footers: each distinct text once, after the body.
    let mut peripheral: Vec<(String, String)> = Vec::new();
    let mut refs = Vec::new();
    body.find_all("headerReference", &mut refs);
    body.find_all("footerReference", &mut refs);
    for r in refs {
        let Some(target) = r
            .attr("r:id")
            .and_then(|id| rels.iter().find(|rel| rel.id == id))
            .map(|rel| rel.target.clone())
        else {
            continue;
        };
        let label = if r.name == "headerReference" {
            "Header"
        } else {
            "Footer"
        };
        let text = part_text(&mut zip, &target, &parts)?;
        if !text.is_empty() && !peripheral.iter().any(|(_, t)| *t == text) {
            peripheral.push((label.to_string(), text));
        }
    }
    let mut notes_list = notes(&mut zip, "word/footnotes.xml", "", &parts)?;
    notes_list.extend(notes(&mut zip, "word/endnotes.xml", "e", &parts)?);
    notes_list.retain(|(id, text)| referenced.contains(id) && !text.is_empty());
    if !notes_list.is_empty() {
        md.push('\n');
        for (id, text) in notes_list {
            md.push_str(&format!("[^{id}]: {text}\n"));
        }
    }
    if !peripheral.is_empty() {
        md.push_str("\n---\n\n");
        for (label, text) in peripheral {
            md.push_str(&format!("*{label}:* {text}\n\n"));
        }
    }
    let mut c = Conversion::new(Format::Docx, tidy(&md));
    c.title = core_title(&mut zip);
    Ok(c)
}
