//! Repairing Office Open XML packages that Office opens but strict readers
//! refuse.
//!
//! Excel, Word and PowerPoint are lenient about the package (OPC) layout:
//! part names with backslashes (`xl\worksheets\sheet1.xml`) or a leading
//! `/`, a lower-case `[content_types].xml`, a main part away from its usual
//! place (`/workbook.xml`, `xl/book.xml`, found only through
//! `_rels/.rels`), relationship targets that climb out of the part's folder.
//! calamine, umya-spreadsheet and Baton's own readers look several parts up
//! by their usual names, so [`normalize_package`] re-packs such a package
//! into the standard layout before they see it.

use std::collections::{HashMap, HashSet};
use std::io::{Cursor, Read, Write};

use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::formats::xml::{self, Elem, Node};
use crate::zipped::resolve_target;

const CONTENT_TYPES: &str = "[Content_Types].xml";
const PACKAGE_RELS: &str = "_rels/.rels";
const RELS_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const TYPES_NS: &str = "http://schemas.openxmlformats.org/package/2006/content-types";
/// The most a relationships or content-types part may unpack to.
const MAX_XML_PART: u64 = 16 << 20;

/// Package-level parts readers open by a fixed name: (the relationship
/// type's last segment, the standard name).
const PACKAGE_FIXED: &[(&str, &str)] = &[
    ("core-properties", "docProps/core.xml"),
    ("extended-properties", "docProps/app.xml"),
];

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

/// Why a package could not be normalized.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// Not a zip archive, or a damaged one.
    #[error("the file is not a readable zip archive: {0}")]
    Zip(#[from] ZipError),
    /// A relationships or content-types part could not be unpacked.
    #[error("the part `{name}` cannot be read: {reason}")]
    Part {
        /// The part's name in the archive.
        name: String,
        /// What went wrong.
        reason: String,
    },
}

/// What an Office package's main part (the `officeDocument` target) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OfficeKind {
    /// An Excel workbook (`xl/workbook.xml`).
    Workbook,
    /// An Excel binary workbook (`xl/workbook.bin`).
    BinaryWorkbook,
    /// A Word document (`word/document.xml`).
    Document,
    /// A PowerPoint presentation (`ppt/presentation.xml`).
    Presentation,
}

impl OfficeKind {
    /// The kind a main part's content type names.
    fn from_content_type(content_type: &str) -> Option<Self> {
        let ct = content_type.trim().to_ascii_lowercase();
        if !(ct.ends_with(".main+xml") || ct.ends_with(".main")) {
            return None;
        }
        if ct.contains("spreadsheetml") || ct.contains("ms-excel") {
            Some(if ct.contains(".binary.") {
                Self::BinaryWorkbook
            } else {
                Self::Workbook
            })
        } else if ct.contains("wordprocessingml") || ct.contains("ms-word") {
            Some(Self::Document)
        } else if ct.contains("presentationml") || ct.contains("ms-powerpoint") {
            Some(Self::Presentation)
        } else {
            None
        }
    }

    /// The kind whose main part is at `name`, the standard place.
    fn from_standard_place(name: &str) -> Option<Self> {
        [
            Self::Workbook,
            Self::BinaryWorkbook,
            Self::Document,
            Self::Presentation,
        ]
        .into_iter()
        .find(|k| k.standard_part().eq_ignore_ascii_case(name))
    }

    /// Where readers look for the main part.
    fn standard_part(self) -> &'static str {
        match self {
            Self::Workbook => "xl/workbook.xml",
            Self::BinaryWorkbook => "xl/workbook.bin",
            Self::Document => "word/document.xml",
            Self::Presentation => "ppt/presentation.xml",
        }
    }

    /// Parts related to the main part that readers open by a fixed name
    /// (calamine and umya look for `xl/sharedStrings.xml` and
    /// `xl/styles.xml`, Baton's Word reader for `word/styles.xml`, …).
    fn fixed_parts(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::Workbook => &[
                ("sharedStrings", "xl/sharedStrings.xml"),
                ("styles", "xl/styles.xml"),
                ("theme", "xl/theme/theme1.xml"),
            ],
            Self::BinaryWorkbook => &[
                ("sharedStrings", "xl/sharedStrings.bin"),
                ("styles", "xl/styles.bin"),
                ("theme", "xl/theme/theme1.xml"),
            ],
            Self::Document => &[
                ("styles", "word/styles.xml"),
                ("numbering", "word/numbering.xml"),
                ("footnotes", "word/footnotes.xml"),
                ("endnotes", "word/endnotes.xml"),
            ],
            Self::Presentation => &[],
        }
    }

    /// Whether readers join the main part's relationship targets to its
    /// folder without resolving `..` (calamine does for worksheets).
    fn needs_plain_targets(self) -> bool {
        matches!(self, Self::Workbook | Self::BinaryWorkbook)
    }
}

/// Re-packs an Office Open XML package (XLSX, DOCX, PPTX and their macro
/// and template variants) into the standard layout, in memory.
///
/// Returns `Ok(None)` when `bytes` need no change, or are a zip without an
/// OPC package in it (no `[Content_Types].xml`, no `_rels/.rels`). That
/// check reads only the zip's central directory and three small XML parts
/// (`_rels/.rels`, `[Content_Types].xml` and the main part's relationships);
/// nothing is re-packed.
///
/// Otherwise returns the repaired package, in which:
/// - part names use `/`, have no leading `/`, and `[Content_Types].xml`
///   and `_rels/.rels` have their standard case;
/// - the main part (the `officeDocument` target in `_rels/.rels`) sits at
///   `xl/workbook.xml`, `word/document.xml` or `ppt/presentation.xml`
///   (`xl/workbook.bin` for XLSB), and the parts readers open by a fixed
///   name (shared strings, styles, theme; Word's styles, numbering,
///   footnotes, endnotes; `docProps/core.xml` and `docProps/app.xml`) sit
///   at theirs, each with its own `.rels` moved alongside; a part already
///   occupying a standard name is moved aside;
/// - every relationship target resolves to the part it named before, case
///   included; targets that had to change are written relative to the
///   source's folder when the part is inside it, else absolute (`/...`),
///   and a workbook's targets never contain `..`;
/// - content-type overrides name the parts where they now are.
///
/// Entries that are not rewritten are copied still compressed; rewritten
/// XML parts are deflated. Only relationships and content-types parts are
/// unpacked (each up to 16 MB), so a zip bomb costs no more than a normal
/// file.
pub fn normalize_package(bytes: &[u8]) -> Result<Option<Vec<u8>>, PackageError> {
    let mut archive = ZipArchive::new(Cursor::new(bytes))?;
    let mut package = Package::scan(&archive)?;
    if !package.is_opc() {
        return Ok(None);
    }
    let types = package.read_xml(&mut archive, CONTENT_TYPES)?;
    let package_rels = package.read_rels(&mut archive, PACKAGE_RELS)?;
    let main = package.main_part(&package_rels, types.as_ref());
    let mut dirty = package.dirty_targets(&package_rels, "", false);
    package.move_fixed_parts(&package_rels, "", PACKAGE_FIXED);
    if let Some((index, kind)) = main {
        let found = package.found[index].clone();
        let main_rels = package.read_rels(&mut archive, &rels_path(&found))?;
        dirty |= package.dirty_targets(&main_rels, &found, kind.needs_plain_targets());
        package.move_part(index, kind.standard_part());
        package.move_fixed_parts(&main_rels, &found, kind.fixed_parts());
    }
    if !dirty && !package.renamed() {
        return Ok(None);
    }
    let plain_source = main
        .filter(|(_, kind)| kind.needs_plain_targets())
        .map(|(index, _)| index);
    package.rewrite_all_rels(&mut archive, plain_source)?;
    if let Some(types) = types {
        package.rewrite_types(types);
    }
    package.write(&mut archive, bytes.len()).map(Some)
}

/// The main part's kind, found through `_rels/.rels` and the content
/// types, however the package's names are spelled; `None` for a zip that
/// is no Office package.
pub(crate) fn office_kind(archive: &mut Archive<'_>) -> Option<OfficeKind> {
    let package = Package::scan(archive).ok()?;
    let types = package.read_xml(archive, CONTENT_TYPES).ok()?;
    let rels = package.read_rels(archive, PACKAGE_RELS).ok()?;
    package
        .main_part(&rels, types.as_ref())
        .map(|(_, kind)| kind)
}

/// A zip entry name as a part name: `/` separators, no leading `/`, and the
/// standard case for `[Content_Types].xml` and `_rels/.rels`.
pub(crate) fn canonical_name(raw: &str) -> String {
    let name = raw.replace('\\', "/");
    let name = name.trim_start_matches('/');
    if name.eq_ignore_ascii_case(CONTENT_TYPES) {
        CONTENT_TYPES.to_string()
    } else if name.eq_ignore_ascii_case(PACKAGE_RELS) {
        PACKAGE_RELS.to_string()
    } else {
        name.to_string()
    }
}

/// One relationship as written in a `.rels` part.
struct Relationship {
    /// The type URI.
    kind: String,
    /// The target as written.
    target: String,
    /// `TargetMode="External"`: a URL, not a part.
    external: bool,
}

impl Relationship {
    /// Whether the type's last segment is `suffix` (`…/officeDocument`).
    fn is(&self, suffix: &str) -> bool {
        !self.external && self.kind.rsplit('/').next() == Some(suffix)
    }
}

fn relationships(root: &Elem) -> Vec<Relationship> {
    root.elems()
        .filter(|e| e.name == "Relationship")
        .filter_map(|r| {
            Some(Relationship {
                kind: r.attr("Type").unwrap_or_default().to_string(),
                target: r.attr("Target")?.to_string(),
                external: r
                    .attr("TargetMode")
                    .is_some_and(|m| m.eq_ignore_ascii_case("External")),
            })
        })
        .collect()
}

/// The zip's entries: the names they were found under and the names they
/// will be written under.
#[derive(Default)]
struct Package {
    /// Each entry's raw name.
    raw: Vec<String>,
    /// Each entry's name made canonical ([`canonical_name`]): the name
    /// relationships and content types were written against.
    found: Vec<String>,
    /// Each entry's name in the output; `None` drops an exact duplicate.
    names: Vec<Option<String>>,
    /// Lower-cased found name → entry (part names are case-insensitive).
    by_found: HashMap<String, usize>,
    /// Lower-cased output name → entry.
    by_name: HashMap<String, usize>,
    /// New contents of rewritten parts.
    contents: HashMap<usize, Vec<u8>>,
}

impl Package {
    /// Reads the central directory's names.
    fn scan(archive: &Archive<'_>) -> Result<Self, PackageError> {
        let mut package = Package::default();
        let mut seen = HashSet::new();
        for (index, raw) in archive.file_names().enumerate() {
            let raw = raw?.into_owned();
            let name = canonical_name(&raw);
            let key = name.to_ascii_lowercase();
            package.by_found.entry(key.clone()).or_insert(index);
            package.by_name.entry(key).or_insert(index);
            package.raw.push(raw);
            package.found.push(name.clone());
            package
                .names
                .push(seen.insert(name.clone()).then_some(name));
        }
        Ok(package)
    }

    fn is_opc(&self) -> bool {
        self.by_found
            .contains_key(&CONTENT_TYPES.to_ascii_lowercase())
            || self.by_found.contains_key(PACKAGE_RELS)
    }

    /// Whether any entry is written under another name or dropped.
    fn renamed(&self) -> bool {
        self.raw
            .iter()
            .zip(&self.names)
            .any(|(raw, name)| name.as_ref() != Some(raw))
    }

    /// The entry a found part name (any case) refers to.
    fn find(&self, name: &str) -> Option<usize> {
        self.by_found.get(&name.to_ascii_lowercase()).copied()
    }

    /// The entry's name in the output.
    fn output_name(&self, index: usize) -> &str {
        self.names[index].as_deref().unwrap_or(&self.found[index])
    }

    /// A relationships or content-types part, parsed; `None` when absent
    /// or not well-formed XML.
    fn read_xml(
        &self,
        archive: &mut Archive<'_>,
        name: &str,
    ) -> Result<Option<Elem>, PackageError> {
        match self.find(name) {
            Some(index) => self.read_xml_at(archive, index),
            None => Ok(None),
        }
    }

    /// The relationships in a `.rels` part (none when absent or unreadable
    /// XML).
    fn read_rels(
        &self,
        archive: &mut Archive<'_>,
        name: &str,
    ) -> Result<Vec<Relationship>, PackageError> {
        Ok(self
            .read_xml(archive, name)?
            .map(|root| relationships(&root))
            .unwrap_or_default())
    }

    /// Entry `index` parsed as XML, unpacking at most 16 MB.
    fn read_xml_at(
        &self,
        archive: &mut Archive<'_>,
        index: usize,
    ) -> Result<Option<Elem>, PackageError> {
        let failed = |reason: String| PackageError::Part {
            name: self.raw[index].clone(),
            reason,
        };
        let entry = archive.by_index(index).map_err(|e| failed(e.to_string()))?;
        let mut bytes = Vec::new();
        entry
            .take(MAX_XML_PART + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| failed(e.to_string()))?;
        if bytes.len() as u64 > MAX_XML_PART {
            return Err(failed("it unpacks to more than 16 MB".into()));
        }
        let text = String::from_utf8_lossy(&bytes);
        Ok(xml::parse(text.trim_start_matches('\u{feff}')).ok())
    }

    /// Whether any of `rels` (written by `source`, before any move) needs
    /// another target: a backslash, a case that differs from the part's,
    /// or `..` where `plain` targets are wanted.
    fn dirty_targets(&self, rels: &[Relationship], source: &str, plain: bool) -> bool {
        rels.iter()
            .filter(|r| !r.external)
            .any(|r| self.new_target(&r.target, source, source, plain).is_some())
    }

    /// The main part and its kind: the `officeDocument` target, typed by
    /// its content type or, failing that, by its standard place.
    fn main_part(
        &self,
        rels: &[Relationship],
        types: Option<&Elem>,
    ) -> Option<(usize, OfficeKind)> {
        let rel = rels.iter().find(|r| r.is("officeDocument"))?;
        let index = self.find(&resolve_target("", &rel.target.replace('\\', "/")))?;
        let name = &self.found[index];
        let kind = types
            .and_then(|t| content_type(t, name))
            .and_then(OfficeKind::from_content_type)
            .or_else(|| OfficeKind::from_standard_place(name))?;
        Some((index, kind))
    }

    /// Moves the targets of `rels` (written by `source`) whose type is in
    /// `fixed` to their standard names.
    fn move_fixed_parts(&mut self, rels: &[Relationship], source: &str, fixed: &[(&str, &str)]) {
        for (suffix, standard) in fixed {
            let Some(rel) = rels.iter().find(|r| r.is(suffix)) else {
                continue;
            };
            let target = resolve_target(source, &rel.target.replace('\\', "/"));
            if let Some(index) = self.find(&target) {
                self.move_part(index, standard);
            }
        }
    }

    /// Moves a part, and its `.rels` part, to `to`; a different part
    /// already there is moved aside first.
    fn move_part(&mut self, index: usize, to: &str) {
        if self.output_name(index) == to || self.names[index].is_none() {
            return;
        }
        if let Some(&other) = self.by_name.get(&to.to_ascii_lowercase())
            && other != index
        {
            let aside = self.free_name(to);
            self.move_part(other, &aside);
        }
        let rels = rels_path(self.output_name(index));
        if let Some(&rels_index) = self.by_name.get(&rels.to_ascii_lowercase()) {
            self.rename(rels_index, &rels_path(to));
        }
        self.rename(index, to);
    }

    /// Renames one entry; an entry already under that name is renamed aside.
    fn rename(&mut self, index: usize, to: &str) {
        let key = to.to_ascii_lowercase();
        if let Some(&other) = self.by_name.get(&key)
            && other != index
        {
            let aside = self.free_name(to);
            self.rename(other, &aside);
        }
        if let Some(old) = self.names[index].take() {
            let old_key = old.to_ascii_lowercase();
            if self.by_name.get(&old_key) == Some(&index) {
                self.by_name.remove(&old_key);
            }
        }
        self.by_name.insert(key, index);
        self.names[index] = Some(to.to_string());
    }

    /// `xl/workbook.xml` → `xl/workbook.displaced.xml` (or `…displaced2…`),
    /// a name no entry has.
    fn free_name(&self, name: &str) -> String {
        let file_start = name.rfind('/').map_or(0, |i| i + 1);
        let (stem, ext) = match name[file_start..].rfind('.') {
            Some(dot) if dot > 0 => name.split_at(file_start + dot),
            _ => (name, ""),
        };
        (1..)
            .map(|n| match n {
                1 => format!("{stem}.displaced{ext}"),
                n => format!("{stem}.displaced{n}{ext}"),
            })
            .find(|candidate| !self.by_name.contains_key(&candidate.to_ascii_lowercase()))
            .expect("some name is free")
    }
}

impl Package {
    /// Rewrites every `.rels` part so its targets resolve, from where its
    /// source part now is, to where their parts now are, and renames it to
    /// sit next to its source. `plain_source` is the entry whose targets
    /// must not contain `..` (a workbook).
    fn rewrite_all_rels(
        &mut self,
        archive: &mut Archive<'_>,
        plain_source: Option<usize>,
    ) -> Result<(), PackageError> {
        let rels_parts: Vec<(usize, String)> = (0..self.found.len())
            .filter(|&i| self.names[i].is_some())
            .filter_map(|i| Some((i, rels_source(&self.found[i])?)))
            .collect();
        for (index, source) in rels_parts {
            let source_index = self.find(&source);
            let new_source = match source_index {
                Some(s) => self.output_name(s).to_string(),
                None => source.clone(),
            };
            if source_index.is_some() && !self.output_name(index).eq(&rels_path(&new_source)) {
                self.rename(index, &rels_path(&new_source));
            }
            let Some(mut root) = self.read_xml_at(archive, index)? else {
                continue;
            };
            let plain = plain_source.is_some() && source_index == plain_source;
            if self.retarget(&mut root, &source, &new_source, plain) {
                self.contents.insert(index, write_flat(&root, RELS_NS));
            }
        }
        Ok(())
    }

    /// Rewrites the targets of one `.rels` tree that would no longer (or
    /// did never exactly) resolve; whether any changed.
    fn retarget(&self, root: &mut Elem, source: &str, new_source: &str, plain: bool) -> bool {
        let mut changed = false;
        for node in &mut root.children {
            let Node::Elem(rel) = node else {
                continue;
            };
            if rel.name != "Relationship"
                || rel
                    .attr("TargetMode")
                    .is_some_and(|m| m.eq_ignore_ascii_case("External"))
            {
                continue;
            }
            let Some(target) = rel.attr("Target") else {
                continue;
            };
            if let Some(new) = self.new_target(target, source, new_source, plain) {
                set_attr(rel, "Target", new);
                changed = true;
            }
        }
        changed
    }

    /// The target to write instead of `target`, if it must change.
    fn new_target(
        &self,
        target: &str,
        source: &str,
        new_source: &str,
        plain: bool,
    ) -> Option<String> {
        let cleaned = target.replace('\\', "/");
        let resolved = resolve_target(source, &cleaned);
        let part = match self.find(&resolved) {
            Some(i) => self.output_name(i).to_string(),
            None => resolved,
        };
        let keep = cleaned == target
            && resolve_target(new_source, target) == part
            && !(plain && has_dot_segments(target));
        (!keep).then(|| target_from(new_source, &part))
    }

    /// Points the content-type overrides at the parts' new names and adds
    /// overrides for moved parts whose type came from their extension.
    fn rewrite_types(&mut self, mut types: Elem) {
        let Some(index) = self.find(CONTENT_TYPES) else {
            return;
        };
        let mut changed = false;
        let mut overridden = HashSet::new();
        for node in &mut types.children {
            let Node::Elem(e) = node else {
                continue;
            };
            let Some(part_name) = e.attr("PartName").filter(|_| e.name == "Override") else {
                continue;
            };
            let cleaned = canonical_name(part_name);
            let new = match self.find(&cleaned) {
                Some(i) => {
                    overridden.insert(i);
                    format!("/{}", self.output_name(i))
                }
                None => format!("/{cleaned}"),
            };
            if new != part_name {
                set_attr(e, "PartName", new);
                changed = true;
            }
        }
        changed |= self.add_overrides(&mut types, &overridden);
        if changed {
            self.contents.insert(index, write_flat(&types, TYPES_NS));
        }
    }

    /// Overrides for parts moved to a name with another extension, typed
    /// by their old extension's default; whether any was added.
    fn add_overrides(&self, types: &mut Elem, overridden: &HashSet<usize>) -> bool {
        let defaults: HashMap<String, String> = types
            .elems()
            .filter(|e| e.name == "Default")
            .filter_map(|e| {
                Some((
                    e.attr("Extension")?.to_ascii_lowercase(),
                    e.attr("ContentType")?.to_string(),
                ))
            })
            .collect();
        let mut added = false;
        for (index, name) in self.names.iter().enumerate() {
            let Some(name) = name else {
                continue;
            };
            let (old, new) = (extension(&self.found[index]), extension(name));
            if overridden.contains(&index) || old == new {
                continue;
            }
            if let Some(content_type) = defaults.get(&old) {
                types.children.push(Node::Elem(Elem {
                    name: "Override".into(),
                    attrs: vec![
                        ("PartName".into(), format!("/{name}")),
                        ("ContentType".into(), content_type.clone()),
                    ],
                    children: Vec::new(),
                }));
                added = true;
            }
        }
        added
    }

    /// Writes the package: `[Content_Types].xml` first, rewritten parts
    /// deflated, the rest copied without unpacking.
    fn write(&self, archive: &mut Archive<'_>, capacity: usize) -> Result<Vec<u8>, PackageError> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::with_capacity(capacity + 1024)));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        let first = self.find(CONTENT_TYPES);
        let order = first
            .into_iter()
            .chain((0..self.names.len()).filter(|&i| Some(i) != first));
        for index in order {
            let Some(name) = &self.names[index] else {
                continue;
            };
            match self.contents.get(&index) {
                Some(content) => {
                    writer.start_file(name.as_str(), options)?;
                    writer.write_all(content).map_err(ZipError::from)?;
                }
                None => writer.raw_copy_file_rename(archive.by_index_raw(index)?, name)?,
            }
        }
        Ok(writer.finish()?.into_inner())
    }
}

/// The content type the package gives `part` (an override, else the
/// default for its extension).
fn content_type<'a>(types: &'a Elem, part: &str) -> Option<&'a str> {
    let overridden = types.elems().filter(|e| e.name == "Override").find(|e| {
        e.attr("PartName")
            .is_some_and(|p| canonical_name(p).eq_ignore_ascii_case(part))
    });
    let ext = extension(part);
    overridden
        .or_else(|| {
            types.elems().filter(|e| e.name == "Default").find(|e| {
                e.attr("Extension")
                    .is_some_and(|x| x.eq_ignore_ascii_case(&ext))
            })
        })
        .and_then(|e| e.attr("ContentType"))
}

/// The lower-cased extension of a part name (`""` when none).
fn extension(part: &str) -> String {
    let file = part.rsplit('/').next().unwrap_or(part);
    file.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`.
fn rels_path(part: &str) -> String {
    match part.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{part}.rels"),
    }
}

/// The part a `.rels` part describes (`""`: the package), or `None` for a
/// part that is no relationships part.
fn rels_source(rels: &str) -> Option<String> {
    let stem_len = rels.to_ascii_lowercase().strip_suffix(".rels")?.len();
    let (dir, file) = rels[..stem_len].rsplit_once('/')?;
    let parent = if dir.eq_ignore_ascii_case("_rels") {
        ""
    } else {
        let (parent, last) = dir.rsplit_once('/')?;
        if !last.eq_ignore_ascii_case("_rels") {
            return None;
        }
        parent
    };
    match (parent, file) {
        (_, "") if !parent.is_empty() => None,
        ("", file) => Some(file.to_string()),
        (parent, file) => Some(format!("{parent}/{file}")),
    }
}

/// How `source` names `part`: relative when the part is inside the
/// source's folder, else absolute.
fn target_from(source: &str, part: &str) -> String {
    let Some((dir, _)) = source.rsplit_once('/') else {
        return part.to_string();
    };
    match part
        .strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) => rest.to_string(),
        None => format!("/{part}"),
    }
}

fn has_dot_segments(target: &str) -> bool {
    target
        .split(['/', '\\'])
        .any(|segment| segment == ".." || segment == ".")
}

fn set_attr(elem: &mut Elem, name: &str, value: String) {
    match elem
        .attrs
        .iter_mut()
        .find(|(k, _)| k.rsplit(':').next() == Some(name))
    {
        Some((_, v)) => *v = value,
        None => elem.attrs.push((name.to_string(), value)),
    }
}

/// A root element with childless children (the shape of `.rels` and
/// content-types parts) as an XML document.
fn write_flat(root: &Elem, namespace: &str) -> Vec<u8> {
    fn tag(out: &mut String, elem: &Elem) {
        out.push('<');
        out.push_str(&elem.name);
        for (key, value) in &elem.attrs {
            out.push_str(&format!(
                " {key}=\"{}\"",
                quick_xml::escape::escape(value.as_str())
            ));
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\r\n");
    tag(&mut out, root);
    if !root.attrs.iter().any(|(k, _)| k == "xmlns") {
        out.push_str(&format!(" xmlns=\"{namespace}\""));
    }
    out.push('>');
    for child in root.elems() {
        tag(&mut out, child);
        out.push_str("/>");
    }
    out.push_str(&format!("</{}>", root.name));
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rels_parts_name_their_source() {
        assert_eq!(rels_path("xl/workbook.xml"), "xl/_rels/workbook.xml.rels");
        assert_eq!(rels_path("workbook.xml"), "_rels/workbook.xml.rels");
        assert_eq!(
            rels_source("xl/_rels/workbook.xml.rels").as_deref(),
            Some("xl/workbook.xml")
        );
        assert_eq!(rels_source("_rels/.rels").as_deref(), Some(""));
        assert_eq!(
            rels_source("_rels/book.xml.RELS").as_deref(),
            Some("book.xml")
        );
        assert_eq!(rels_source("xl/workbook.xml"), None);
        assert_eq!(rels_source("xl/other/a.rels"), None);
        assert_eq!(rels_source("xl/_rels/.rels"), None);
    }

    #[test]
    fn targets_are_relative_inside_the_folder_else_absolute() {
        assert_eq!(
            target_from("xl/workbook.xml", "xl/worksheets/sheet1.xml"),
            "worksheets/sheet1.xml"
        );
        assert_eq!(
            target_from("xl/workbook.xml", "sheets/sheet1.xml"),
            "/sheets/sheet1.xml"
        );
        assert_eq!(target_from("", "xl/workbook.xml"), "xl/workbook.xml");
        assert_eq!(target_from("book.xml", "a/b.xml"), "a/b.xml");
    }

    #[test]
    fn names_are_made_canonical() {
        assert_eq!(canonical_name("\\xl\\workbook.xml"), "xl/workbook.xml");
        assert_eq!(canonical_name("[content_types].xml"), CONTENT_TYPES);
        assert_eq!(canonical_name("/_RELS/.rels"), PACKAGE_RELS);
        assert_eq!(canonical_name("xl/Book.xml"), "xl/Book.xml");
    }

    #[test]
    fn main_part_kinds_follow_the_content_type() {
        let kind = OfficeKind::from_content_type;
        assert_eq!(
            kind("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"),
            Some(OfficeKind::Workbook)
        );
        assert_eq!(
            kind("application/vnd.ms-excel.sheet.binary.macroEnabled.main"),
            Some(OfficeKind::BinaryWorkbook)
        );
        assert_eq!(
            kind("application/vnd.ms-word.document.macroEnabled.main+xml"),
            Some(OfficeKind::Document)
        );
        assert_eq!(
            kind("application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml"),
            Some(OfficeKind::Presentation)
        );
        assert_eq!(
            kind("application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"),
            None
        );
    }

    #[test]
    fn free_names_keep_the_extension() {
        let mut archive = Vec::new();
        {
            let mut w = ZipWriter::new(Cursor::new(&mut archive));
            w.start_file("xl/workbook.displaced.xml", SimpleFileOptions::default())
                .unwrap();
            w.finish().unwrap();
        }
        let archive = ZipArchive::new(Cursor::new(archive.as_slice())).unwrap();
        let package = Package::scan(&archive).unwrap();
        assert_eq!(
            package.free_name("xl/workbook.xml"),
            "xl/workbook.displaced2.xml"
        );
        assert_eq!(package.free_name("xl/styles"), "xl/styles.displaced");
    }
}
