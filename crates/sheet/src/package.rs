//! The xlsx package around the model: which parts a file has, which of
//! them Baton cannot write back, whether a save kept every kind of part,
//! and the recalculate-on-open flag.
//!
//! umya-spreadsheet reads and writes the whole workbook from its model; a
//! part it does not model is not written back. So the part list is read
//! on open (features known to be lost are named at once) and compared
//! with the written package before it replaces anything (whatever else is
//! missing is named then).

use std::collections::{BTreeMap, HashMap};
use std::io::{Cursor, Read, Write};

use quick_xml::events::Event;
use serde::Serialize;

use crate::opc;

/// Something a workbook has that Baton cannot write back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unkept {
    /// What it is, in words (`pivot tables`).
    pub feature: &'static str,
    /// The first package part that holds it.
    pub part: String,
}

/// Package folders (or files) umya-spreadsheet does not write back, and
/// what they are to the user.
/// (umya-spreadsheet writes pivot tables back, but with values Excel and
/// openpyxl reject.)
const UNKEPT: &[(&str, &str)] = &[
    ("xl/pivotTables/", "pivot tables"),
    ("xl/pivotCache/", "pivot tables"),
    ("xl/slicers/", "slicers"),
    ("xl/slicerCaches/", "slicers"),
    ("xl/timelines/", "timelines"),
    ("xl/timelineCaches/", "timelines"),
    ("xl/externalLinks/", "links to other workbooks"),
    ("xl/connections.xml", "data connections"),
    ("xl/queryTables/", "query tables"),
    ("xl/model/", "a data model (Power Pivot)"),
    ("customXml/", "custom XML data"),
    ("xl/ctrlProps/", "form controls"),
    ("xl/activeX/", "ActiveX controls"),
    ("xl/richData/", "pictures in cells or linked data types"),
    ("xl/namedSheetViews/", "named sheet views"),
    ("xl/webextensions/", "add-ins"),
];

/// The part names of a zip package.
pub fn part_names(bytes: &[u8]) -> Result<Vec<String>, String> {
    let zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("it is not a valid xlsx package ({e})"))?;
    zip.file_names()
        .map(|n| {
            n.map(|n| n.into_owned())
                .map_err(|e| format!("a part name is unreadable ({e})"))
        })
        .collect()
}

/// The features among `parts` that Baton cannot keep, one entry each.
pub fn unkept(parts: &[String]) -> Vec<Unkept> {
    let mut out: Vec<Unkept> = Vec::new();
    for p in parts {
        let Some((_, feature)) = UNKEPT.iter().find(|(prefix, _)| p.starts_with(prefix)) else {
            continue;
        };
        if !out.iter().any(|u| u.feature == *feature) {
            out.push(Unkept {
                feature,
                part: p.clone(),
            });
        }
    }
    out
}

/// The content type of every part of a package, from its
/// `[Content_Types].xml` (overrides by part name, defaults by extension).
pub fn content_types(bytes: &[u8]) -> Result<Vec<String>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let mut xml = String::new();
    zip.by_name("[Content_Types].xml")
        .map_err(|e| format!("[Content_Types].xml: {e}"))?
        .read_to_string(&mut xml)
        .map_err(|e| e.to_string())?;
    let (defaults, overrides) = parse_content_types(&xml);
    let names: Vec<String> = part_names(bytes)?;
    let empty = |zip: &mut zip::ZipArchive<Cursor<&[u8]>>, n: &str| {
        let mut text = String::new();
        zip.by_name(n)
            .ok()
            .and_then(|mut f| f.read_to_string(&mut text).ok());
        !text.contains("<property") && !text.contains(":property")
    };
    Ok(names
        .iter()
        .filter(|n| !n.ends_with('/'))
        .filter(|n| !(n.eq_ignore_ascii_case("docProps/custom.xml") && empty(&mut zip, n)))
        .filter_map(|n| {
            let ext = n
                .rsplit_once('.')
                .map(|(_, e)| e.to_ascii_lowercase())
                .unwrap_or_default();
            overrides
                .get(&format!("/{n}").to_ascii_lowercase())
                .or_else(|| defaults.get(&ext))
                .cloned()
        })
        .collect())
}

type TypeMaps = (HashMap<String, String>, HashMap<String, String>);

/// Defaults (extension → type) and overrides (part → type), lower-case keys.
fn parse_content_types(xml: &str) -> TypeMaps {
    let mut defaults = HashMap::new();
    let mut overrides = HashMap::new();
    let mut reader = quick_xml::Reader::from_str(xml);
    while let Ok(ev) = reader.read_event() {
        match ev {
            quick_xml::events::Event::Empty(e) | quick_xml::events::Event::Start(e) => {
                let attrs: Vec<(String, String)> = e
                    .attributes()
                    .flatten()
                    .map(|a| (a.key.as_ref().to_string(), a.value.to_string()))
                    .collect();
                let attr = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                let Some(ct) = attr("ContentType") else {
                    continue;
                };
                let local = e.local_name().into_inner().to_string();
                match local.as_str() {
                    "Default" => {
                        attr("Extension").map(|x| defaults.insert(x.to_ascii_lowercase(), ct))
                    }
                    "Override" => {
                        attr("PartName").map(|p| overrides.insert(p.to_ascii_lowercase(), ct))
                    }
                    _ => None,
                };
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    (defaults, overrides)
}

/// Content types a save may have fewer of: Excel rebuilds the
/// calculation chain, and the workbook is marked to recalculate on open;
/// printer settings are device data Excel writes again.
/// Relationship parts follow the parts they link.
const REBUILT: &[&str] = &["calcChain+xml", "printerSettings", "relationships+xml"];

/// What `before` (content types of the original's parts) had more of
/// than `after`, in words (`1 chart`).
pub fn lost_parts(before: &[String], after: &[String]) -> Vec<String> {
    let count = |v: &[String]| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for t in v {
            *m.entry(t.clone()).or_default() += 1;
        }
        m
    };
    let (b, a) = (count(before), count(after));
    b.iter()
        .filter(|(t, _)| !REBUILT.iter().any(|r| t.contains(r)))
        .filter_map(|(t, n)| {
            let left = a.get(t).copied().unwrap_or(0);
            (left < *n).then(|| format!("{} {}", n - left, type_words(t)))
        })
        .collect()
}

/// A content type as the user knows it.
fn type_words(t: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("drawingml.chart+", "chart(s)"),
        ("drawing+xml", "drawing layer(s) (pictures, charts, shapes)"),
        ("comments+", "comment part(s)"),
        ("threadedComment", "threaded comment part(s)"),
        ("vmlDrawing", "comment box or form control drawing(s)"),
        ("table+xml", "table(s)"),
        ("pivotTable", "pivot table(s)"),
        ("pivotCache", "pivot cache(s)"),
        ("externalLink", "link(s) to other workbooks"),
        ("image/", "picture(s)"),
        ("vbaProject", "macro project(s)"),
        ("slicer", "slicer part(s)"),
        ("customXml", "custom XML part(s)"),
        ("chartsheet", "chart sheet(s)"),
        ("oleObject", "embedded object(s)"),
        ("connections", "data connection part(s)"),
        ("queryTable", "query table(s)"),
    ];
    WORDS
        .iter()
        .find(|(k, _)| t.contains(k))
        .map_or_else(|| format!("part(s) of type {t}"), |(_, w)| w.to_string())
}

/// The package with `fullCalcOnLoad="1"` on the workbook's `calcPr`, so
/// Excel and LibreOffice compute the formulas Baton wrote (it stores no
/// results for them). Other parts are copied as they are, compressed.
pub fn mark_recalculate(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::with_capacity(bytes.len() + 64)));
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
        let name = entry.name().map_err(|e| e.to_string())?.into_owned();
        if name != "xl/workbook.xml" {
            out.raw_copy_file(entry).map_err(|e| e.to_string())?;
            continue;
        }
        let mut xml = String::new();
        entry.read_to_string(&mut xml).map_err(|e| e.to_string())?;
        drop(entry);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        out.start_file(name, options).map_err(|e| e.to_string())?;
        out.write_all(with_full_calc(&xml).as_bytes())
            .map_err(|e| e.to_string())?;
    }
    Ok(out.finish().map_err(|e| e.to_string())?.into_inner())
}

/// Elements that come after `calcPr` in a workbook part (ECMA-376's
/// order, which Excel holds files to).
const AFTER_CALC_PR: &[&str] = &[
    "oleSize",
    "customWorkbookViews",
    "pivotCaches",
    "smartTagPr",
    "smartTagTypes",
    "webPublishing",
    "fileRecoveryPr",
    "webPublishObjects",
    "extLst",
];

/// `<calcPr …/>` with `fullCalcOnLoad="1"` (added in its place, or set),
/// with the workbook's own namespace prefix.
pub fn with_full_calc(xml: &str) -> String {
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let Some((start, prefix)) = opc::find_open(xml, "calcPr") else {
        let p = opc::root_prefix(xml);
        return match calc_pr_spot(xml) {
            Some(at) => format!(
                "{}<{p}calcPr fullCalcOnLoad=\"1\"/>{}",
                &xml[..at],
                &xml[at..]
            ),
            None => xml.to_string(),
        };
    };
    let name_end = start + 1 + prefix.len() + "calcPr".len();
    let end = xml[start..].find('>').map_or(xml.len(), |e| start + e);
    let tag = &xml[start..end];
    if tag.contains("fullCalcOnLoad") {
        let fixed = tag
            .replace("fullCalcOnLoad=\"0\"", "fullCalcOnLoad=\"1\"")
            .replace("fullCalcOnLoad=\"false\"", "fullCalcOnLoad=\"1\"");
        return format!("{}{}{}", &xml[..start], fixed, &xml[end..]);
    }
    format!(
        "{} fullCalcOnLoad=\"1\"{}",
        &xml[..name_end],
        &xml[name_end..]
    )
}

/// Where a new `calcPr` goes: before the first top-level element that
/// must follow it, else before the workbook's end tag.
fn calc_pr_spot(xml: &str) -> Option<usize> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut depth = 0usize;
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e)
                if depth == 1 && AFTER_CALC_PR.contains(&e.local_name().into_inner()) =>
            {
                return Some(before);
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                if depth == 1 {
                    return Some(before);
                }
                depth = depth.saturating_sub(1);
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unkept_features_are_named_once() {
        let parts = names(&[
            "xl/workbook.xml",
            "xl/pivotTables/pivotTable1.xml",
            "xl/pivotCache/pivotCacheDefinition1.xml",
            "xl/externalLinks/externalLink1.xml",
        ]);
        let u = unkept(&parts);
        let features: Vec<_> = u.iter().map(|u| u.feature).collect();
        assert_eq!(features, ["pivot tables", "links to other workbooks"]);
        assert_eq!(u[0].part, "xl/pivotTables/pivotTable1.xml");
    }

    #[test]
    fn losses_are_counted_by_content_type() {
        let chart = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml";
        let calc = "application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml";
        let before = names(&[chart, chart, calc, "image/png"]);
        let after = names(&[chart, "image/png", "image/png"]);
        assert_eq!(lost_parts(&before, &after), ["1 chart(s)"]);
    }

    #[test]
    fn content_types_come_from_overrides_then_defaults() {
        let xml = r#"<Types xmlns="x"><Default Extension="xml" ContentType="application/xml"/><Default Extension="PNG" ContentType="image/png"/><Override PartName="/xl/charts/chart1.xml" ContentType="chart"/></Types>"#;
        let (d, o) = parse_content_types(xml);
        assert_eq!(d["png"], "image/png");
        assert_eq!(o["/xl/charts/chart1.xml"], "chart");
    }

    #[test]
    fn full_calc_is_added_or_set() {
        assert_eq!(
            with_full_calc("<workbook><calcPr calcId=\"1\"/></workbook>"),
            "<workbook><calcPr fullCalcOnLoad=\"1\" calcId=\"1\"/></workbook>"
        );
        assert_eq!(
            with_full_calc("<calcPr fullCalcOnLoad=\"0\"/>"),
            "<calcPr fullCalcOnLoad=\"1\"/>"
        );
        assert_eq!(
            with_full_calc("<workbook></workbook>"),
            "<workbook><calcPr fullCalcOnLoad=\"1\"/></workbook>"
        );
        // In its place (before extLst, not inside a view's own extLst),
        // with the workbook's prefix; a byte-order mark is dropped.
        let xml = "\u{feff}<x:workbook><x:bookViews><x:workbookView><x:extLst/></x:workbookView></x:bookViews><x:extLst/></x:workbook>";
        assert_eq!(
            with_full_calc(xml),
            "<x:workbook><x:bookViews><x:workbookView><x:extLst/></x:workbookView></x:bookViews><x:calcPr fullCalcOnLoad=\"1\"/><x:extLst/></x:workbook>"
        );
        assert_eq!(
            with_full_calc("<x:workbook><x:calcPr calcId=\"9\"/></x:workbook>"),
            "<x:workbook><x:calcPr fullCalcOnLoad=\"1\" calcId=\"9\"/></x:workbook>"
        );
    }
}
