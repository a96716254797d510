//! Reading an xlsx package (Open Packaging Conventions): its parts as
//! text, the attributes of elements, relationships, and where each sheet
//! lives. Shared by the streaming reader ([`crate::scan`]) and the cell
//! patcher ([`crate::patch`]).

use std::collections::HashMap;
use std::io::{Cursor, Read};

use quick_xml::events::{BytesStart, Event};

/// An xlsx package read from memory.
pub(crate) type Zip<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

/// The package in `bytes`.
pub(crate) fn open(bytes: &[u8]) -> Result<Zip<'_>, String> {
    zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a workbook package: {e}"))
}

/// A part as text, without the byte-order mark .NET's XML writers put
/// first (quick-xml skips it without counting it in its positions, so
/// offsets into text that kept it would land 3 bytes early; XML in UTF-8
/// needs no mark). A part in another encoding (UTF-16, or ISO-8859-1 as
/// its declaration says) is decoded, its declaration then saying UTF-8,
/// as it is written back.
pub(crate) fn read_text(zip: &mut Zip<'_>, name: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    zip.by_name(name)
        .map_err(|e| format!("{name}: {e}"))?
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    let s = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            decode(e.as_bytes()).ok_or_else(|| format!("{name}: an unknown text encoding"))?
        }
    };
    match s.strip_prefix('\u{feff}') {
        Some(rest) => Ok(rest.to_string()),
        None => Ok(s),
    }
}

/// XML that is not UTF-8, by its byte-order mark or declared encoding,
/// as text whose declaration says UTF-8.
fn decode(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
    let declared = head
        .split_once("encoding=")
        .and_then(|(_, rest)| {
            let q = rest.chars().next()?;
            rest[1..].split(q).next()
        })
        .unwrap_or("");
    let encoding = encoding_rs::Encoding::for_bom(bytes)
        .map(|(e, _)| e)
        .or_else(|| encoding_rs::Encoding::for_label(declared.as_bytes()))?;
    let (text, _, _) = encoding.decode(bytes);
    let text = text.into_owned();
    Some(match text.find("encoding=") {
        Some(at) if at < 200 => {
            let q = &text[at + 9..at + 10];
            let end = text[at + 10..].find(q).map_or(at + 10, |e| at + 10 + e + 1);
            format!("{}encoding=\"UTF-8\"{}", &text[..at], &text[end..])
        }
        _ => text,
    })
}

/// Where the first element named `local` (any prefix) starts in `xml`,
/// and its prefix with the colon (`x:`), or `""`.
pub(crate) fn find_open<'a>(xml: &'a str, local: &str) -> Option<(usize, &'a str)> {
    xml.match_indices('<').find_map(|(at, _)| {
        let rest = &xml[at + 1..];
        let name_end = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/')?;
        let name = &rest[..name_end];
        let (prefix, l) = match name.rfind(':') {
            Some(c) => (&rest[..=c], &name[c + 1..]),
            None => ("", name),
        };
        (l == local && !name.starts_with(['?', '!'])).then_some((at, prefix))
    })
}

/// The prefix with the colon of the document element of `xml` (`x:` for
/// `<x:worksheet>`), or `""`.
pub(crate) fn root_prefix(xml: &str) -> &str {
    xml.match_indices('<')
        .map(|(at, _)| &xml[at + 1..])
        .find(|rest| !rest.starts_with(['?', '!']))
        .and_then(|rest| {
            let end = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/')?;
            rest[..end].rfind(':').map(|c| &rest[..=c])
        })
        .unwrap_or("")
}

/// The attributes of every element named `local` (any prefix), keys
/// without their prefix, values unescaped.
pub(crate) fn elements(xml: &str, local: &str) -> Vec<HashMap<String, String>> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    while let Ok(ev) = reader.read_event() {
        match ev {
            Event::Start(e) | Event::Empty(e) if e.local_name().into_inner() == local => {
                out.push(attrs(&e))
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

/// An element's attributes, keys without their prefix, values unescaped.
pub(crate) fn attrs(e: &BytesStart<'_>) -> HashMap<String, String> {
    e.attributes()
        .flatten()
        .map(|a| {
            let key = a.key.as_ref().to_string();
            let key = key.rsplit(':').next().unwrap_or_default().to_string();
            (key, unescape(&a.value))
        })
        .collect()
}

/// Text with the five XML entities replaced.
pub(crate) fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Text escaped for an attribute or element.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Each sheet's name and part (`xl/worksheets/sheet1.xml`), in the
/// workbook's order.
pub(crate) fn sheet_parts(zip: &mut Zip<'_>) -> Result<Vec<(String, String)>, String> {
    let workbook = read_text(zip, "xl/workbook.xml")?;
    let targets: HashMap<String, String> = rels(zip, "xl/workbook.xml")
        .into_iter()
        .map(|r| (r.id, r.target))
        .collect();
    Ok(elements(&workbook, "sheet")
        .into_iter()
        .filter_map(|a| Some((a.get("name")?.clone(), targets.get(a.get("id")?)?.clone())))
        .collect())
}

/// The sheet tab selected when the workbook was saved (0 when unsaid).
pub(crate) fn active_tab(zip: &mut Zip<'_>) -> usize {
    let Ok(workbook) = read_text(zip, "xl/workbook.xml") else {
        return 0;
    };
    elements(&workbook, "workbookView")
        .first()
        .and_then(|a| a.get("activeTab")?.parse().ok())
        .unwrap_or(0)
}

/// One relationship of a part.
pub(crate) struct Rel {
    /// Its id (`rId3`).
    pub id: String,
    /// Its type, a URI.
    pub kind: String,
    /// The part it points to, resolved to a part name.
    pub target: String,
}

/// The relationships of `part` (none when it has no `.rels`).
pub(crate) fn rels(zip: &mut Zip<'_>, part: &str) -> Vec<Rel> {
    let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
    let Ok(text) = read_text(zip, &format!("{dir}/_rels/{file}.rels")) else {
        return Vec::new();
    };
    elements(&text, "Relationship")
        .into_iter()
        .filter(|a| a.get("TargetMode").is_none_or(|m| m != "External"))
        .filter_map(|mut a| {
            Some(Rel {
                id: a.remove("Id")?,
                kind: a.remove("Type").unwrap_or_default(),
                target: resolve(dir, &a.remove("Target")?),
            })
        })
        .collect()
}

/// How many charts each sheet's drawing links, by sheet name (what the
/// file has, whether or not the model could read them).
pub(crate) fn charts_per_sheet(original: &[u8]) -> HashMap<String, usize> {
    let Ok(mut zip) = open(original) else {
        return HashMap::new();
    };
    let Ok(parts) = sheet_parts(&mut zip) else {
        return HashMap::new();
    };
    let mut out = HashMap::new();
    for (name, part) in parts {
        let n: usize = linked(&mut zip, &part, "/drawing")
            .iter()
            .map(|d| linked(&mut zip, d, "/chart").len())
            .sum();
        out.insert(name, n);
    }
    out
}

/// The parts `part` links with a relationship type ending in `kind`.
pub(crate) fn linked(zip: &mut Zip<'_>, part: &str, kind: &str) -> Vec<String> {
    rels(zip, part)
        .into_iter()
        .filter(|r| r.kind.ends_with(kind))
        .map(|r| r.target)
        .collect()
}

/// A relationship target as a part name, from the folder `dir`.
pub(crate) fn resolve(dir: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return abs.to_string();
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for piece in target.split('/') {
        match piece {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The raw text of each `item` element directly inside `section`.
pub(crate) fn section_items(xml: &str, section: &str, item: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let (mut inside, mut depth, mut start) = (false, 0usize, 0usize);
    let mut out = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        let Ok(ev) = reader.read_event() else { break };
        let after = reader.buffer_position() as usize;
        match ev {
            Event::Start(e) if e.local_name().into_inner() == section => inside = true,
            Event::End(e) if e.local_name().into_inner() == section => break,
            Event::Empty(e) if inside && depth == 0 && e.local_name().into_inner() == item => {
                out.push(xml[before..after].to_string())
            }
            Event::Start(e) if inside && e.local_name().into_inner() == item => {
                if depth == 0 {
                    start = before;
                }
                depth += 1;
            }
            Event::End(e) if inside && e.local_name().into_inner() == item => {
                depth -= 1;
                if depth == 0 {
                    out.push(xml[start..after].to_string());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

/// One attribute of an element, unescaped.
pub(crate) fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().into_inner() == name)
        .map(|a| unescape(&a.value))
}

/// One attribute of the first element in `xml` (an element's raw text).
pub(crate) fn tag_attr(xml: &str, name: &str) -> Option<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) => return attr(&e, name),
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// A numeric attribute of an element, read without allocating.
pub(crate) fn num_attr(e: &BytesStart<'_>, name: &str) -> Option<u32> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().into_inner() == name)
        .and_then(|a| a.value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_encodings_become_utf8_with_a_declaration_that_says_so() {
        let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><t>S\xe9rie</t>";
        assert_eq!(
            decode(latin1).unwrap(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><t>S\u{e9}rie</t>"
        );
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("<t>\u{e9}</t>".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(&utf16).unwrap(), "<t>\u{e9}</t>");
    }

    #[test]
    fn elements_are_found_with_any_prefix() {
        let xml = "<?xml version=\"1.0\"?><x:styleSheet xmlns:x=\"m\"><x:cellXfsX/><x:cellXfs count=\"1\">";
        assert_eq!(find_open(xml, "cellXfs"), Some((60, "x:")));
        assert_eq!(find_open("<a><cellXfs/></a>", "cellXfs"), Some((3, "")));
        assert_eq!(find_open("<a/>", "cellXfs"), None);
        assert_eq!(root_prefix(xml), "x:");
        assert_eq!(root_prefix("<!-- c --><worksheet>"), "");
    }

    #[test]
    fn targets_resolve_from_their_folder() {
        assert_eq!(
            resolve("xl/worksheets", "../drawings/drawing1.xml"),
            "xl/drawings/drawing1.xml"
        );
        assert_eq!(
            resolve("xl/drawings", "/xl/charts/chart1.xml"),
            "xl/charts/chart1.xml"
        );
        assert_eq!(
            resolve("xl", "worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
    }
}
