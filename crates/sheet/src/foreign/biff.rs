//! The looks of an .xls workbook (BIFF8, Excel 97–2003): the cell
//! formats (XF) with their fonts, number formats, fills, borders and
//! alignment, the palette, column widths and merged ranges.
//!
//! Written here: calamine reads an xls file's values and merged ranges
//! but not its formats (its `worksheet_style` is xlsx-only in 0.38), and
//! no maintained crate reads BIFF formats. The compound file is opened
//! by the `cfb` crate; this walks its `Workbook` stream's records, as
//! laid out in [MS-XLS] 2.4.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use super::carry::{Align, CellLook, Font, Line, Rgb, SheetLooks, Sides};
use crate::addr::{Cell, Range};

const BOF: u16 = 0x0809;
const EOF: u16 = 0x000A;
const FILEPASS: u16 = 0x002F;
const FONT: u16 = 0x0031;
const FORMAT: u16 = 0x041E;
const XF: u16 = 0x00E0;
const PALETTE: u16 = 0x0092;
const BOUNDSHEET: u16 = 0x0085;
const COLINFO: u16 = 0x007D;
const DEFCOLWIDTH: u16 = 0x0055;
const MERGECELLS: u16 = 0x00E5;
const MULRK: u16 = 0x00BD;
const MULBLANK: u16 = 0x00BE;
/// Records that start with row, column and XF index.
const CELLS: [u16; 8] = [
    0x0201, 0x0203, 0x027E, 0x00FD, 0x0204, 0x0205, 0x0006, 0x00D6,
];

/// Each worksheet's looks, in workbook order.
pub(crate) fn read(bytes: &[u8]) -> Result<Vec<SheetLooks>, String> {
    let stream = workbook_stream(bytes)?;
    let globals = Globals::read(&stream)?;
    let looks: Vec<CellLook> = globals.xfs.iter().map(|xf| globals.look(xf)).collect();
    globals
        .sheets
        .iter()
        .map(|(name, offset)| read_sheet(&stream, *offset, name, &looks))
        .collect()
}

fn workbook_stream(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let name = ["/Workbook", "/Book"]
        .into_iter()
        .find(|n| file.is_stream(n))
        .ok_or("no Workbook stream")?;
    let mut out = Vec::new();
    file.open_stream(name)
        .and_then(|mut s| s.read_to_end(&mut out))
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// The records from `at` on: (type, body).
fn records(stream: &[u8], at: usize) -> impl Iterator<Item = (u16, &[u8])> {
    let mut pos = at;
    std::iter::from_fn(move || {
        let head = stream.get(pos..pos + 4)?;
        let kind = u16::from_le_bytes([head[0], head[1]]);
        let len = usize::from(u16::from_le_bytes([head[2], head[3]]));
        let body = stream.get(pos + 4..pos + 4 + len)?;
        pos += 4 + len;
        Some((kind, body))
    })
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// A string of `chars` characters at `at` after its flags byte: one byte
/// each (Latin-1) or two (UTF-16).
fn chars_at(b: &[u8], at: usize, chars: usize) -> String {
    let wide = b.get(at).is_some_and(|f| f & 1 == 1);
    let text = &b[(at + 1).min(b.len())..];
    if wide {
        let units: Vec<u16> = text
            .chunks_exact(2)
            .take(chars)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        text.iter().take(chars).map(|&c| char::from(c)).collect()
    }
}

/// The workbook-wide records.
#[derive(Default)]
struct Globals {
    fonts: Vec<RawFont>,
    formats: HashMap<u16, String>,
    xfs: Vec<[u8; 20]>,
    palette: Vec<Rgb>,
    /// Worksheets: name and the offset of their BOF.
    sheets: Vec<(String, usize)>,
}

struct RawFont {
    font: Font,
    color: u16,
}

impl Globals {
    fn read(stream: &[u8]) -> Result<Globals, String> {
        let mut g = Globals {
            palette: DEFAULT_PALETTE[8..].to_vec(),
            ..Globals::default()
        };
        let mut first = true;
        for (kind, body) in records(stream, 0) {
            if first && (kind != BOF || u16_at(body, 0) != 0x0600) {
                return Err("not a BIFF8 (Excel 97 or later) workbook".into());
            }
            first = false;
            match kind {
                FILEPASS => return Err("the workbook is encrypted".into()),
                FONT => g.fonts.push(read_font(body)),
                FORMAT => {
                    let chars = usize::from(u16_at(body, 2));
                    g.formats.insert(u16_at(body, 0), chars_at(body, 4, chars));
                }
                XF if body.len() >= 20 => g.xfs.push(body[..20].try_into().unwrap_or([0; 20])),
                PALETTE => {
                    let n = usize::from(u16_at(body, 0)).min(56);
                    for (i, c) in body
                        .get(2..)
                        .unwrap_or_default()
                        .chunks_exact(4)
                        .take(n)
                        .enumerate()
                    {
                        g.palette[i] = [c[0], c[1], c[2]];
                    }
                }
                BOUNDSHEET if body.get(5) == Some(&0) => {
                    let chars = usize::from(body.get(6).copied().unwrap_or(0));
                    g.sheets
                        .push((chars_at(body, 7, chars), u32_at(body, 0) as usize));
                }
                EOF => break,
                _ => {}
            }
        }
        Ok(g)
    }

    /// A colour index: 0–7 fixed, 8–63 the palette, others automatic.
    fn color(&self, icv: u16) -> Option<Rgb> {
        match icv {
            0..=7 => Some(DEFAULT_PALETTE[usize::from(icv)]),
            8..=63 => self.palette.get(usize::from(icv) - 8).copied(),
            _ => None,
        }
    }

    /// Font `ifnt` (index 4 is never written), as it differs from font 0.
    fn font(&self, ifnt: u16) -> Font {
        let index = usize::from(if ifnt >= 4 { ifnt - 1 } else { ifnt });
        let (Some(raw), Some(base)) = (self.fonts.get(index), self.fonts.first()) else {
            return Font::default();
        };
        let mut font = raw.font.clone();
        if font.name == base.font.name {
            font.name = None;
        }
        if font.size == base.font.size {
            font.size = None;
        }
        font.color = self.color(raw.color).filter(|c| *c != [0, 0, 0]);
        font
    }

    fn number_format(&self, ifmt: u16) -> Option<String> {
        match self.formats.get(&ifmt) {
            Some(code) if code != "General" => Some(code.clone()),
            Some(_) => None,
            None => crate::values::builtin_format(u32::from(ifmt))
                .filter(|c| *c != "General")
                .map(str::to_string),
        }
    }

    fn look(&self, xf: &[u8; 20]) -> CellLook {
        let fill = (xf[17] >> 2 == 1)
            .then(|| self.color(u16_at(xf, 18) & 0x7F))
            .flatten();
        let borders = u16_at(xf, 10);
        let colors = u16_at(xf, 12);
        let more = u32_at(xf, 14);
        let line = |dg: u16, icv: u16| {
            line_style(dg).map(|style| Line {
                style,
                color: self.color(icv).filter(|c| *c != [0, 0, 0]),
            })
        };
        CellLook {
            number_format: self.number_format(u16_at(xf, 2)),
            font: self.font(u16_at(xf, 0)),
            fill,
            borders: Sides {
                left: line(borders & 0xF, colors & 0x7F),
                right: line((borders >> 4) & 0xF, (colors >> 7) & 0x7F),
                top: line((borders >> 8) & 0xF, (more & 0x7F) as u16),
                bottom: line(borders >> 12, ((more >> 7) & 0x7F) as u16),
            },
            align: match xf[6] & 0x7 {
                1 => Some(Align::Left),
                2 => Some(Align::Center),
                3 => Some(Align::Right),
                4 => Some(Align::Fill),
                5 => Some(Align::Justify),
                6 => Some(Align::CenterAcross),
                7 => Some(Align::Distributed),
                _ => None,
            },
            wrap: xf[6] & 0x8 != 0,
        }
    }
}

fn read_font(body: &[u8]) -> RawFont {
    let flags = u16_at(body, 2);
    let chars = usize::from(body.get(14).copied().unwrap_or(0));
    RawFont {
        font: Font {
            name: Some(chars_at(body, 15, chars)),
            size: Some(f64::from(u16_at(body, 0)) / 20.0),
            bold: u16_at(body, 6) >= 700,
            italic: flags & 0x2 != 0,
            strike: flags & 0x8 != 0,
            underline: match body.get(10) {
                Some(1 | 0x21) => Some("single"),
                Some(2 | 0x22) => Some("double"),
                _ => None,
            },
            color: None,
        },
        color: u16_at(body, 4),
    }
}

/// A BIFF border line (`dg`) as its xlsx style name.
fn line_style(dg: u16) -> Option<&'static str> {
    const NAMES: [&str; 13] = [
        "thin",
        "medium",
        "dashed",
        "dotted",
        "thick",
        "double",
        "hair",
        "mediumDashed",
        "dashDot",
        "mediumDashDot",
        "dashDotDot",
        "mediumDashDotDot",
        "slantDashDot",
    ];
    NAMES.get(usize::from(dg).checked_sub(1)?).copied()
}

/// One worksheet's substream: its cells' looks, widths and merges.
fn read_sheet(
    stream: &[u8],
    offset: usize,
    name: &str,
    looks: &[CellLook],
) -> Result<SheetLooks, String> {
    let mut sheet = SheetLooks {
        name: name.to_string(),
        ..SheetLooks::default()
    };
    let mut put = |row: u16, col: u16, ixfe: u16| {
        let look = looks.get(usize::from(ixfe)).filter(|l| !l.is_plain());
        if let Some(look) = look.filter(|_| u32::from(col) < crate::addr::MAX_COL) {
            let at = Cell {
                col: u32::from(col) + 1,
                row: u32::from(row) + 1,
            };
            sheet.cells.push((at, look.clone()));
        }
    };
    let mut widths = Vec::new();
    let mut merges = Vec::new();
    for (kind, body) in records(stream, offset).skip(1) {
        match kind {
            EOF | BOF => break,
            k if CELLS.contains(&k) => put(u16_at(body, 0), u16_at(body, 2), u16_at(body, 4)),
            MULRK | MULBLANK => {
                let step = if kind == MULRK { 6 } else { 2 };
                let (row, first) = (u16_at(body, 0), u16_at(body, 2));
                let cells = body.len().saturating_sub(6) / step;
                for i in 0..cells {
                    put(
                        row,
                        first.saturating_add(i as u16),
                        u16_at(body, 4 + i * step),
                    );
                }
            }
            DEFCOLWIDTH => {
                // Characters without the 5 pixels of padding Excel adds.
                let chars = f64::from(u16_at(body, 0));
                sheet.default_width = Some(((chars * 7.0 + 5.0) / 7.0 * 256.0).trunc() / 256.0);
            }
            COLINFO => {
                let (first, last) = (u16_at(body, 0), u16_at(body, 2).min(255));
                if last == 255 && last.saturating_sub(first) > 16 {
                    continue; // the width of every column not named
                }
                let width = f64::from(u16_at(body, 4)) / 256.0;
                widths.extend((first..=last).map(|c| (u32::from(c) + 1, width)));
            }
            MERGECELLS => {
                let n = usize::from(u16_at(body, 0));
                for r in body.get(2..).unwrap_or_default().chunks_exact(8).take(n) {
                    let corner = |row: usize, col: usize| Cell {
                        row: u32::from(u16_at(r, row)) + 1,
                        col: u32::from(u16_at(r, col)) + 1,
                    };
                    merges.push(Range::new(corner(0, 4), corner(2, 6)));
                }
            }
            _ => {}
        }
    }
    sheet.widths = widths;
    sheet.merges = merges;
    Ok(sheet)
}

/// Colours 0–7 and the default palette of colours 8–63.
const DEFAULT_PALETTE: [Rgb; 64] = {
    const fn hex(v: u32) -> Rgb {
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    }
    let table: [u32; 64] = [
        0x000000, 0xFFFFFF, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0xFF00FF, 0x00FFFF, //
        0x000000, 0xFFFFFF, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0xFF00FF, 0x00FFFF, //
        0x800000, 0x008000, 0x000080, 0x808000, 0x800080, 0x008080, 0xC0C0C0, 0x808080, //
        0x9999FF, 0x993366, 0xFFFFCC, 0xCCFFFF, 0x660066, 0xFF8080, 0x0066CC, 0xCCCCFF, //
        0x000080, 0xFF00FF, 0xFFFF00, 0x00FFFF, 0x800080, 0x800000, 0x008080, 0x0000FF, //
        0x00CCFF, 0xCCFFFF, 0xCCFFCC, 0xFFFF99, 0x99CCFF, 0xFF99CC, 0xCC99FF, 0xFFCC99, //
        0x3366FF, 0x33CCCC, 0x99CC00, 0xFFCC00, 0xFF9900, 0xFF6600, 0x666699, 0x969696, //
        0x003366, 0x339966, 0x003300, 0x333300, 0x993300, 0x993366, 0x333399, 0x333333, //
    ];
    let mut out = [[0u8; 3]; 64];
    let mut i = 0;
    while i < 64 {
        out[i] = hex(table[i]);
        i += 1;
    }
    out
};

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/sheets/rich.xls"
        );
        std::fs::read(path).unwrap()
    }

    /// Reads a (possibly damaged) Workbook stream the way `read` does.
    fn looks_of(stream: &[u8]) -> Result<Vec<SheetLooks>, String> {
        let globals = Globals::read(stream)?;
        let looks: Vec<CellLook> = globals.xfs.iter().map(|xf| globals.look(xf)).collect();
        globals
            .sheets
            .iter()
            .map(|(name, offset)| read_sheet(stream, *offset, name, &looks))
            .collect()
    }

    #[test]
    fn the_header_cells_of_a_libreoffice_xls_are_bold_filled_and_underlined() {
        let sheets = read(&fixture()).unwrap();
        assert_eq!(sheets.len(), 2);
        let a1 = &sheets[0]
            .cells
            .iter()
            .find(|(c, _)| c.xy() == (1, 1))
            .unwrap()
            .1;
        assert!(a1.font.bold);
        assert_eq!(a1.fill, Some([0xDD, 0xEB, 0xF7]));
        assert_eq!(a1.borders.bottom.as_ref().map(|l| l.style), Some("medium"));
    }

    #[test]
    fn damaged_streams_give_no_panic() {
        let stream = workbook_stream(&fixture()).unwrap();
        for cut in (0..stream.len()).step_by(97) {
            let _ = looks_of(&stream[..cut]);
        }
        let mut seed = 7u32;
        for _ in 0..300 {
            let mut damaged = stream.clone();
            for _ in 0..8 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let i = seed as usize % damaged.len();
                damaged[i] = (seed >> 16) as u8;
            }
            let _ = looks_of(&damaged);
        }
        assert!(read(b"not a compound file").is_err());
    }
}
