//! Office packages that bend the OPC rules the way Excel and Word tolerate
//! (backslashes, a lower-case `[content_types].xml`, the main part moved,
//! worksheets outside `xl/`), built from the fixtures: each must convert to
//! the same Markdown as the fixture, and repair to a consistent package.

use std::collections::HashMap;
use std::io::{Cursor, Read, Write};
use std::path::PathBuf;

use baton_convert::{ConvertOptions, Format, convert, normalize_package};
use quick_xml::events::Event;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

fn read(name: &str) -> Vec<u8> {
    let path =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/docs")
            .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A package as named entries, to bend and re-pack.
struct Pkg(Vec<(String, Vec<u8>)>);

impl Pkg {
    fn unpack(bytes: &[u8]) -> Self {
        let mut archive = ZipArchive::new(Cursor::new(bytes)).expect("a zip");
        let entries = (0..archive.len())
            .map(|i| {
                let mut entry = archive.by_index(i).unwrap();
                let mut data = Vec::new();
                entry.read_to_end(&mut data).unwrap();
                (entry.name().unwrap().to_string(), data)
            })
            .collect();
        Pkg(entries)
    }

    fn pack(&self) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        for (name, data) in &self.0 {
            writer.start_file(name.as_str(), options).unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn names(&self) -> Vec<&str> {
        self.0.iter().map(|(n, _)| n.as_str()).collect()
    }

    fn text(&self, name: &str) -> String {
        let (_, data) = self
            .0
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no `{name}` in {:?}", self.names()));
        String::from_utf8(data.clone()).unwrap()
    }

    fn rename_all(&mut self, f: impl Fn(&str) -> String) {
        for (name, _) in &mut self.0 {
            *name = f(name);
        }
    }

    fn rename(&mut self, from: &str, to: &str) {
        let entry = self.0.iter_mut().find(|(n, _)| n == from);
        entry.unwrap_or_else(|| panic!("no `{from}`")).0 = to.to_string();
    }

    /// Replaces text in a part; `from` must occur unless `optional`.
    fn edit(&mut self, name: &str, from: &str, to: &str, optional: bool) {
        let text = self.text(name);
        assert!(optional || text.contains(from), "`{from}` not in {name}");
        let edited = text.replace(from, to).into_bytes();
        self.0.iter_mut().find(|(n, _)| n == name).unwrap().1 = edited;
    }
}

const CT: &str = "[Content_Types].xml";

fn backslashes(p: &mut Pkg) {
    p.rename_all(|n| n.replace('/', "\\"));
}

fn lower_case_content_types(p: &mut Pkg) {
    p.rename(CT, "[content_types].xml");
}

fn leading_slashes_and_mixed_case(p: &mut Pkg) {
    p.rename("xl/worksheets/sheet1.xml", "XL/Worksheets/Sheet1.xml");
    p.rename("_rels/.rels", "_RELS/.rels");
    p.rename_all(|n| format!("/{n}"));
}

/// The workbook at `xl/book.xml`, as Excel-tolerant producers write it.
fn workbook_renamed(p: &mut Pkg) {
    p.edit("_rels/.rels", "xl/workbook.xml", "xl/book.xml", false);
    p.edit(CT, "/xl/workbook.xml", "/xl/book.xml", false);
    p.rename("xl/workbook.xml", "xl/book.xml");
    p.rename("xl/_rels/workbook.xml.rels", "xl/_rels/book.xml.rels");
}

/// Everything of `xl/` at the package root: `/workbook.xml`,
/// `/sharedStrings.xml`, `/worksheets/…`.
fn workbook_at_the_root(p: &mut Pkg) {
    p.edit(
        "_rels/.rels",
        "Target=\"xl/workbook.xml\"",
        "Target=\"workbook.xml\"",
        false,
    );
    p.edit(CT, "\"/xl/", "\"/", false);
    p.edit("xl/_rels/workbook.xml.rels", "\"/xl/", "\"/", true);
    p.rename_all(|n| n.strip_prefix("xl/").unwrap_or(n).to_string());
}

/// Worksheets in `/sheets/`, named from the workbook as `../sheets/…`.
fn worksheets_elsewhere(p: &mut Pkg) {
    let rels = "xl/_rels/workbook.xml.rels";
    p.edit(
        rels,
        "Target=\"/xl/worksheets/",
        "Target=\"../sheets/",
        true,
    );
    p.edit(rels, "Target=\"worksheets/", "Target=\"../sheets/", true);
    assert!(p.text(rels).contains("../sheets/"));
    p.edit(CT, "\"/xl/worksheets/", "\"/sheets/", false);
    p.rename_all(|n| match n.strip_prefix("xl/worksheets/") {
        Some(rest) => format!("sheets/{rest}"),
        None => n.to_string(),
    });
}

/// The workbook at `xl/book.xml` and a stale one left at `xl/workbook.xml`:
/// the relationship decides, the stale one is moved aside.
fn stale_workbook_in_the_way(p: &mut Pkg) {
    workbook_renamed(p);
    let stale = r#"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Stale" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    p.0.push(("xl/workbook.xml".into(), stale.as_bytes().to_vec()));
}

fn everything_at_once(p: &mut Pkg) {
    workbook_renamed(p);
    lower_case_content_types(p);
    backslashes(p);
    p.rename_all(|n| format!("\\{n}"));
}

type Bend = fn(&mut Pkg);

const WORKBOOK_BENDS: &[(&str, Bend)] = &[
    ("backslashes", backslashes),
    ("lower-case content types", lower_case_content_types),
    (
        "leading slashes, mixed case",
        leading_slashes_and_mixed_case,
    ),
    ("workbook at xl/book.xml", workbook_renamed),
    ("workbook at the root", workbook_at_the_root),
    ("worksheets outside xl/", worksheets_elsewhere),
    ("stale workbook in the way", stale_workbook_in_the_way),
    ("everything at once", everything_at_once),
];

fn bent(fixture: &str, bend: Bend) -> Vec<u8> {
    let mut p = Pkg::unpack(&read(fixture));
    bend(&mut p);
    p.pack()
}

/// `dir/of/part` + `target` → the part it names.
fn resolve(source: &str, target: &str) -> String {
    if let Some(absolute) = target.strip_prefix('/') {
        return absolute.to_string();
    }
    let mut parts: Vec<&str> = source.split('/').collect();
    parts.pop();
    for segment in target.split('/') {
        match segment {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The attributes of every `element` in `xml`.
fn elements(xml: &str, element: &str) -> Vec<HashMap<String, String>> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == element => {
                out.push(
                    e.attributes()
                        .map(|a| {
                            let a = a.unwrap();
                            (a.key.as_ref().to_string(), a.value.to_string())
                        })
                        .collect(),
                );
            }
            Event::Eof => return out,
            _ => {}
        }
    }
}

/// A repaired package as strict readers want it: standard names, every
/// internal target and content-type override naming an entry exactly.
fn assert_standard(bytes: &[u8], main: &str, what: &str) {
    let p = Pkg::unpack(bytes);
    let names = p.names();
    for name in [CT, "_rels/.rels", main] {
        assert!(names.contains(&name), "{what}: no `{name}` in {names:?}");
    }
    assert!(
        names
            .iter()
            .all(|n| !n.contains('\\') && !n.starts_with('/')),
        "{what}: {names:?}"
    );
    let main_rels = elements(&p.text("_rels/.rels"), "Relationship");
    let office = main_rels
        .iter()
        .find(|r| r["Type"].ends_with("/officeDocument"))
        .expect("an officeDocument relationship");
    assert_eq!(resolve("", &office["Target"]), main, "{what}");
    for name in names.iter().filter(|n| n.ends_with(".rels")) {
        let (dir, file) = name.rsplit_once("_rels/").unwrap();
        let source = format!("{dir}{}", file.trim_end_matches(".rels"));
        for rel in elements(&p.text(name), "Relationship") {
            if rel.get("TargetMode").is_some_and(|m| m == "External") {
                continue;
            }
            let part = resolve(&source, &rel["Target"]);
            assert!(
                names.contains(&part.as_str()),
                "{what}: {name} names `{part}`, missing"
            );
        }
    }
    for o in elements(&p.text(CT), "Override") {
        let part = o["PartName"].trim_start_matches('/');
        assert!(
            names.contains(&part),
            "{what}: override for missing `{part}`"
        );
    }
    assert_eq!(
        normalize_package(bytes).unwrap(),
        None,
        "{what}: a repaired package needs no more repair"
    );
}

fn markdown(name: &str, bytes: &[u8], format: Format) -> String {
    let c =
        convert(name, bytes, &ConvertOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(c.format, format, "{name}");
    assert!(
        c.warnings.iter().all(|w| !w.contains("could not be read")),
        "{name}: {:?}",
        c.warnings
    );
    c.markdown
}

#[test]
fn bent_workbooks_convert_like_the_originals() {
    for fixture in ["budget.xlsx", "budget_lo.xlsx"] {
        let expected = markdown(fixture, &read(fixture), Format::Xlsx);
        for (what, bend) in WORKBOOK_BENDS {
            let messy = bent(fixture, *bend);
            let what = format!("{fixture}, {what}");
            assert_eq!(
                markdown("messy.xlsx", &messy, Format::Xlsx),
                expected,
                "{what}"
            );
            let repaired = normalize_package(&messy)
                .unwrap()
                .unwrap_or_else(|| panic!("{what}: not repaired"));
            assert_standard(&repaired, "xl/workbook.xml", &what);
        }
    }
}

#[test]
fn a_root_workbook_gets_its_shared_strings_and_styles_back_in_xl() {
    let repaired = normalize_package(&bent("budget_lo.xlsx", workbook_at_the_root))
        .unwrap()
        .unwrap();
    let p = Pkg::unpack(&repaired);
    for part in ["xl/workbook.xml", "xl/sharedStrings.xml", "xl/styles.xml"] {
        assert!(p.names().contains(&part), "{part} in {:?}", p.names());
    }
    let rels = p.text("xl/_rels/workbook.xml.rels");
    assert!(rels.contains("Target=\"/worksheets/sheet1.xml\""), "{rels}");
    assert!(rels.contains("Target=\"sharedStrings.xml\""), "{rels}");
    assert!(p.text(CT).contains("PartName=\"/xl/workbook.xml\""));
}

#[test]
fn worksheets_outside_xl_are_named_without_dot_dot() {
    let repaired = normalize_package(&bent("budget.xlsx", worksheets_elsewhere))
        .unwrap()
        .unwrap();
    let rels = Pkg::unpack(&repaired).text("xl/_rels/workbook.xml.rels");
    assert!(rels.contains("Target=\"/sheets/sheet1.xml\""), "{rels}");
    assert!(!rels.contains(".."), "{rels}");
}

/// The Word document at `word/main.xml`, everything else bent too.
fn document_renamed(p: &mut Pkg) {
    p.edit("_rels/.rels", "word/document.xml", "word/main.xml", false);
    p.edit(CT, "/word/document.xml", "/word/main.xml", false);
    p.rename("word/document.xml", "word/main.xml");
    p.rename("word/_rels/document.xml.rels", "word/_rels/main.xml.rels");
    lower_case_content_types(p);
    backslashes(p);
}

/// Everything of `word/` at the package root.
fn document_at_the_root(p: &mut Pkg) {
    p.edit(
        "_rels/.rels",
        "Target=\"word/document.xml\"",
        "Target=\"document.xml\"",
        false,
    );
    p.edit(CT, "\"/word/", "\"/", false);
    p.edit(
        "word/_rels/document.xml.rels",
        "../customXml/",
        "customXml/",
        false,
    );
    p.rename_all(|n| n.strip_prefix("word/").unwrap_or(n).to_string());
}

#[test]
fn bent_documents_and_decks_convert_like_the_originals() {
    let cases: &[(&str, &str, Format, Bend)] = &[
        (
            "report.docx",
            "word/document.xml",
            Format::Docx,
            document_renamed,
        ),
        (
            "report.docx",
            "word/document.xml",
            Format::Docx,
            document_at_the_root,
        ),
        ("deck.pptx", "ppt/presentation.xml", Format::Pptx, |p| {
            backslashes(p);
            p.rename_all(|n| format!("/{n}"));
        }),
    ];
    for (i, (fixture, main, format, bend)) in cases.iter().enumerate() {
        let expected = markdown(fixture, &read(fixture), *format);
        let messy = bent(fixture, *bend);
        let what = format!("{fixture}, case {i}");
        assert_eq!(markdown("messy", &messy, *format), expected, "{what}");
        let repaired = normalize_package(&messy).unwrap().expect("repaired");
        assert_standard(&repaired, main, &what);
    }
}

#[test]
fn standard_packages_take_the_fast_path() {
    for fixture in [
        "budget.xlsx",
        "budget_lo.xlsx",
        "big.xlsx",
        "report.docx",
        "deck.pptx",
        "book.epub",
        "report.odt",
    ] {
        assert_eq!(
            normalize_package(&read(fixture)).unwrap(),
            None,
            "{fixture}"
        );
    }
    assert!(normalize_package(b"not a zip").is_err());
}

#[test]
fn a_stale_part_at_the_standard_name_is_moved_aside() {
    let repaired = normalize_package(&bent("budget.xlsx", stale_workbook_in_the_way))
        .unwrap()
        .unwrap();
    let p = Pkg::unpack(&repaired);
    assert!(p.text("xl/workbook.xml").contains("Summary"));
    assert!(p.text("xl/workbook.displaced.xml").contains("Stale"));
    assert!(p.text(CT).contains("PartName=\"/xl/workbook.xml\""));
}
