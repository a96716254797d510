//! PowerPoint: slide by slide, the title, the text (bullets keep their
//! level), tables, picture descriptions and the speaker notes.

use super::docx::{Span, render_spans};
use super::xml::{self, Elem};
use crate::markdown::{table, tidy};
use crate::zipped::Zipped;
use crate::{Conversion, ConvertError, ConvertOptions, Format};

const FORMAT: &str = "PowerPoint presentation";

fn corrupt(reason: String) -> ConvertError {
    ConvertError::Corrupt {
        format: FORMAT,
        reason,
    }
}

/// A paragraph's text with bold/italic.
fn paragraph(p: &Elem) -> String {
    let mut spans = Vec::new();
    for c in p.elems() {
        match c.name.as_str() {
            "r" | "fld" => {
                let props = c.child("rPr");
                let on = |n: &str| {
                    props
                        .and_then(|p| p.attr(n))
                        .is_some_and(|v| v == "1" || v == "true")
                };
                spans.push(Span {
                    text: c.child("t").map(Elem::text).unwrap_or_default(),
                    bold: on("b"),
                    italic: on("i"),
                    link: None,
                });
            }
            "br" => spans.push(Span {
                text: "\n".into(),
                bold: false,
                italic: false,
                link: None,
            }),
            _ => {}
        }
    }
    render_spans(&spans)
}

fn placeholder(sp: &Elem) -> Option<(String, bool)> {
    let ph = sp.find("nvPr")?.child("ph")?;
    Some((
        ph.attr("type").unwrap_or("body").to_string(),
        ph.attr("idx").is_some(),
    ))
}

struct Slide {
    title: Option<String>,
    body: String,
}

fn shapes(tree: &Elem, slide: &mut Slide) {
    for shape in tree.elems() {
        match shape.name.as_str() {
            "sp" => {
                let Some(tx) = shape.child("txBody") else {
                    continue;
                };
                let kind = placeholder(shape);
                let paragraphs: Vec<(u8, String)> = tx
                    .elems()
                    .filter(|e| e.name == "p")
                    .map(|p| {
                        let level = p
                            .child("pPr")
                            .and_then(|pp| pp.attr("lvl"))
                            .and_then(|l| l.parse().ok())
                            .unwrap_or(0);
                        (level, paragraph(p))
                    })
                    .filter(|(_, t)| !t.trim().is_empty())
                    .collect();
                match kind.as_ref().map(|(k, _)| k.as_str()) {
                    Some("title") | Some("ctrTitle") if slide.title.is_none() => {
                        let t: Vec<String> = paragraphs
                            .into_iter()
                            .map(|(_, t)| t.trim().to_string())
                            .collect();
                        slide.title = Some(t.join(" "));
                    }
                    Some("body") | Some("obj") => {
                        for (level, text) in paragraphs {
                            slide.body.push_str(&format!(
                                "{}- {}\n",
                                "  ".repeat(level as usize),
                                text.trim()
                            ));
                        }
                        slide.body.push('\n');
                    }
                    Some("sldNum") | Some("dt") | Some("ftr") => {}
                    _ => {
                        for (_, text) in paragraphs {
                            slide.body.push_str(text.trim());
                            slide.body.push_str("\n\n");
                        }
                    }
                }
            }
            "graphicFrame" => {
                if let Some(tbl) = shape.find("tbl") {
                    let rows: Vec<Vec<String>> = tbl
                        .elems()
                        .filter(|e| e.name == "tr")
                        .map(|tr| {
                            tr.elems()
                                .filter(|e| e.name == "tc")
                                .map(|tc| {
                                    let mut ps = Vec::new();
                                    tc.find_all("p", &mut ps);
                                    ps.iter()
                                        .map(|p| paragraph(p))
                                        .filter(|t| !t.trim().is_empty())
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                })
                                .collect()
                        })
                        .collect();
                    slide.body.push_str(&table(&rows));
                    slide.body.push('\n');
                }
            }
            "pic" => {
                if let Some(alt) = shape
                    .find("cNvPr")
                    .and_then(|c| c.attr("descr"))
                    .filter(|d| !d.trim().is_empty())
                {
                    slide.body.push_str(&format!("[image: {}]\n\n", alt.trim()));
                }
            }
            "grpSp" => shapes(shape, slide),
            _ => {}
        }
    }
}

fn notes_text(zip: &mut Zipped<'_>, part: &str) -> Result<String, ConvertError> {
    let Some(text) = zip.text(part)? else {
        return Ok(String::new());
    };
    let root = xml::parse(&text).map_err(corrupt)?;
    let mut out = Vec::new();
    let mut sps = Vec::new();
    root.find_all("sp", &mut sps);
    for sp in sps {
        if placeholder(sp).is_some_and(|(k, _)| k == "body")
            && let Some(tx) = sp.child("txBody")
        {
            out.extend(
                tx.elems()
                    .filter(|e| e.name == "p")
                    .map(paragraph)
                    .filter(|t| !t.trim().is_empty()),
            );
        }
    }
    Ok(out.join("\n"))
}

pub(crate) fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Conversion, ConvertError> {
    let mut zip = Zipped::open(bytes, FORMAT, options.max_unpacked_bytes)?;
    let presentation = xml::parse(&zip.required_text("ppt/presentation.xml")?).map_err(corrupt)?;
    let pres_rels = zip.relationships("ppt/presentation.xml")?;
    let mut slide_parts = Vec::new();
    if let Some(list) = presentation.child("sldIdLst") {
        for s in list.elems() {
            if let Some(rel) = s
                .attr("r:id")
                .and_then(|id| pres_rels.iter().find(|r| r.id == id))
            {
                slide_parts.push(rel.target.clone());
            }
        }
    }
    let mut md = String::new();
    for (i, part) in slide_parts.iter().enumerate() {
        let Some(text) = zip.text(part)? else {
            continue;
        };
        let root = xml::parse(&text).map_err(corrupt)?;
        let mut slide = Slide {
            title: None,
            body: String::new(),
        };
        if let Some(tree) = root.find("spTree") {
            shapes(tree, &mut slide);
        }
        match &slide.title {
            Some(t) if !t.is_empty() => md.push_str(&format!("## Slide {}: {t}\n\n", i + 1)),
            _ => md.push_str(&format!("## Slide {}\n\n", i + 1)),
        }
        md.push_str(&slide.body);
        let slide_rels = zip.relationships(part)?;
        if let Some(rel) = slide_rels.iter().find(|r| r.kind.ends_with("/notesSlide")) {
            let notes = notes_text(&mut zip, &rel.target)?;
            if !notes.trim().is_empty() {
                md.push_str(&format!(
                    "> **Notes:** {}\n\n",
                    notes.trim().replace('\n', "\n> ")
                ));
            }
        }
    }
    let mut c = Conversion::new(Format::Pptx, tidy(&md));
    c.pages = Some(slide_parts.len());
    c.title = super::docx::core_title(&mut zip);
    Ok(c)
}
