//! Reading entries of zip-based formats (DOCX, XLSX, PPTX, EPUB, ODF) with
//! the unpack limit enforced on declared and actual sizes.

use std::io::{Cursor, Read};

use zip::ZipArchive;
use zip::result::ZipError;

use crate::ConvertError;

/// An opened zip container, checked against the unpack limit.
pub(crate) struct Zipped<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    format: &'static str,
    limit: u64,
    packed: u64,
}

impl<'a> Zipped<'a> {
    /// Opens `bytes`; refuses archives whose entries declare more than
    /// `limit` bytes in all.
    pub(crate) fn open(
        bytes: &'a [u8],
        format: &'static str,
        limit: u64,
    ) -> Result<Self, ConvertError> {
        let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| corrupt(format, e))?;
        let mut declared: u64 = 0;
        for i in 0..archive.len() {
            let entry = archive.by_index_raw(i).map_err(|e| corrupt(format, e))?;
            declared = declared.saturating_add(entry.size());
        }
        // A bomb: far more unpacked than packed (office files stay well
        // under 100:1) and big enough to matter.
        let ratio_bomb = declared > 64 << 20 && declared / (bytes.len() as u64).max(1) > 100;
        if declared > limit || ratio_bomb {
            return Err(ConvertError::UnpackLimit {
                unpacked: declared,
                packed: bytes.len() as u64,
            });
        }
        Ok(Self {
            archive,
            format,
            limit,
            packed: bytes.len() as u64,
        })
    }

    /// Whether an entry exists.
    pub(crate) fn has(&mut self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// An entry's bytes, `None` when absent.
    pub(crate) fn bytes(&mut self, name: &str) -> Result<Option<Vec<u8>>, ConvertError> {
        let format = self.format;
        let limit = self.limit;
        let mut entry = match self.archive.by_name(name) {
            Ok(e) => e,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(ZipError::UnsupportedArchive(msg)) if msg.contains("assword") => {
                return Err(ConvertError::Encrypted { format });
            }
            Err(e) => return Err(corrupt(format, e)),
        };
        let mut out = Vec::with_capacity(entry.size().min(limit) as usize);
        entry
            .by_ref()
            .take(limit + 1)
            .read_to_end(&mut out)
            .map_err(|e| ConvertError::Corrupt {
                format,
                reason: format!("cannot unpack `{name}`: {e}"),
            })?;
        if out.len() as u64 > limit {
            return Err(ConvertError::UnpackLimit {
                unpacked: out.len() as u64,
                packed: self.packed,
            });
        }
        Ok(Some(out))
    }

    /// An entry as UTF-8 text (lossy), `None` when absent.
    pub(crate) fn text(&mut self, name: &str) -> Result<Option<String>, ConvertError> {
        Ok(self.bytes(name)?.map(|b| {
            String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        }))
    }

    /// An entry that must exist.
    pub(crate) fn required_text(&mut self, name: &str) -> Result<String, ConvertError> {
        self.text(name)?.ok_or_else(|| ConvertError::Corrupt {
            format: self.format,
            reason: format!("`{name}` is missing"),
        })
    }
}

/// One relationship of an Office part (`_rels/NAME.rels`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Relationship {
    pub(crate) id: String,
    /// The relationship type URI.
    pub(crate) kind: String,
    /// A part path inside the zip, or an external URL as written.
    pub(crate) target: String,
}

impl Zipped<'_> {
    /// The relationships of `part` (none when it has no `.rels` file).
    pub(crate) fn relationships(&mut self, part: &str) -> Result<Vec<Relationship>, ConvertError> {
        let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
        let Some(text) = self.text(&format!("{dir}/_rels/{file}.rels"))? else {
            return Ok(Vec::new());
        };
        let root = crate::formats::xml::parse(&text).map_err(|reason| ConvertError::Corrupt {
            format: self.format,
            reason,
        })?;
        Ok(root
            .elems()
            .filter(|e| e.name == "Relationship")
            .filter_map(|r| {
                let target = r.attr("Target")?;
                Some(Relationship {
                    id: r.attr("Id")?.to_string(),
                    kind: r.attr("Type").unwrap_or("").to_string(),
                    target: if r.attr("TargetMode") == Some("External") {
                        target.to_string()
                    } else {
                        resolve_target(part, target)
                    },
                })
            })
            .collect())
    }
}

fn corrupt(format: &'static str, e: ZipError) -> ConvertError {
    ConvertError::Corrupt {
        format,
        reason: e.to_string(),
    }
}

/// Joins a relationship target to the folder of the part that names it
/// (`word/document.xml` + `media/a.png` → `word/media/a.png`).
pub(crate) fn resolve_target(base_part: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return abs.to_string();
    }
    let mut parts: Vec<&str> = base_part.split('/').collect();
    parts.pop();
    for seg in target.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::resolve_target;

    #[test]
    fn targets_resolve_against_the_part_folder() {
        assert_eq!(
            resolve_target("word/document.xml", "media/a.png"),
            "word/media/a.png"
        );
        assert_eq!(
            resolve_target("ppt/slides/slide1.xml", "../notesSlides/n1.xml"),
            "ppt/notesSlides/n1.xml"
        );
        assert_eq!(
            resolve_target("x/y.xml", "/docProps/core.xml"),
            "docProps/core.xml"
        );
    }
}
