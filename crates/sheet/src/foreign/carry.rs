//! How the cells of an xls or ods workbook look, read beside calamine's
//! values (`biff`, `odf`) and written into the xlsx model, so that a
//! workbook saved as .xlsx keeps its number formats, fonts, fills,
//! borders, alignment, column widths and merged ranges.

use umya_spreadsheet::Worksheet;
use umya_spreadsheet::structs::{Border, Color, HorizontalAlignmentValues, Style};

use crate::addr::{Cell, Range};

/// A colour, red, green and blue.
pub(crate) type Rgb = [u8; 3];

/// A cell's font, where it differs from the workbook's default font.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Font {
    /// The typeface.
    pub name: Option<String>,
    /// The size in points.
    pub size: Option<f64>,
    /// Bold.
    pub bold: bool,
    /// Italic.
    pub italic: bool,
    /// `single` or `double`.
    pub underline: Option<&'static str>,
    /// Struck through.
    pub strike: bool,
    /// The text's colour (none: automatic).
    pub color: Option<Rgb>,
}

/// One side's line: an xlsx border style (`thin`, `medium`, `dashed`…).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    /// The style's xlsx name.
    pub style: &'static str,
    /// Its colour (none: automatic).
    pub color: Option<Rgb>,
}

/// The four sides' lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sides {
    pub left: Option<Line>,
    pub right: Option<Line>,
    pub top: Option<Line>,
    pub bottom: Option<Line>,
}

/// How text sits across the cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Align {
    Left,
    Center,
    Right,
    Justify,
    Fill,
    Distributed,
    CenterAcross,
}

/// Everything of a cell's look that is carried over.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CellLook {
    /// An Excel number format code (`#,##0.00`, `yyyy-mm-dd`).
    pub number_format: Option<String>,
    pub font: Font,
    /// A solid fill.
    pub fill: Option<Rgb>,
    pub borders: Sides,
    pub align: Option<Align>,
    /// Text wraps.
    pub wrap: bool,
}

impl CellLook {
    /// Whether it says nothing beyond the defaults.
    pub fn is_plain(&self) -> bool {
        *self == CellLook::default()
    }
}

/// One sheet's looks.
#[derive(Debug, Default)]
pub(crate) struct SheetLooks {
    /// The sheet's name.
    pub name: String,
    /// Cells that look other than the default.
    pub cells: Vec<(Cell, CellLook)>,
    /// Column (1-based) widths in characters, where set.
    pub widths: Vec<(u32, f64)>,
    /// The width of every other column.
    pub default_width: Option<f64>,
    /// Merged ranges.
    pub merges: Vec<Range>,
}

/// Writes `looks` into `ws`.
pub(crate) fn apply(ws: &mut Worksheet, looks: &SheetLooks) {
    for (at, look) in &looks.cells {
        style_cell(ws.style_mut(at.xy()), look);
    }
    if let Some(width) = looks.default_width {
        ws.sheet_format_properties_mut()
            .set_default_column_width(width.clamp(0.0, 255.0));
        // Columns between set ones would otherwise be written 8.38 wide.
        let last = looks.widths.iter().map(|w| w.0).max().unwrap_or(0);
        for col in 1..last {
            if !looks.widths.iter().any(|w| w.0 == col) {
                ws.column_dimension_by_number_mut(col)
                    .set_width(width.clamp(0.0, 255.0))
                    .set_auto_width(false);
            }
        }
    }
    for &(col, width) in &looks.widths {
        ws.column_dimension_by_number_mut(col)
            .set_width(width.clamp(0.0, 255.0))
            .set_auto_width(false);
    }
    for range in &looks.merges {
        ws.add_merge_cells(range.to_string());
    }
}

fn argb(rgb: Rgb) -> String {
    format!("FF{:02X}{:02X}{:02X}", rgb[0], rgb[1], rgb[2])
}

fn style_cell(style: &mut Style, look: &CellLook) {
    if let Some(code) = &look.number_format {
        style.number_format_mut().set_format_code(code.as_str());
    }
    if look.font != Font::default() {
        let f = &look.font;
        let font = style.font_mut();
        if let Some(name) = &f.name {
            font.set_name(name.as_str());
        }
        if let Some(size) = f.size {
            font.set_size(size);
        }
        font.set_bold(f.bold)
            .set_italic(f.italic)
            .set_strikethrough(f.strike);
        if let Some(u) = f.underline {
            font.set_underline(u);
        }
        if let Some(rgb) = f.color {
            font.color_mut().set_argb_str(argb(rgb));
        }
    }
    if let Some(rgb) = look.fill {
        style.set_background_color(argb(rgb));
    }
    let b = &look.borders;
    if *b != Sides::default() {
        let borders = style.borders_mut();
        draw(borders.left_mut(), &b.left);
        draw(borders.right_mut(), &b.right);
        draw(borders.top_mut(), &b.top);
        draw(borders.bottom_mut(), &b.bottom);
    }
    if look.align.is_some() || look.wrap {
        let alignment = style.alignment_mut();
        if let Some(align) = look.align {
            alignment.set_horizontal(match align {
                Align::Left => HorizontalAlignmentValues::Left,
                Align::Center => HorizontalAlignmentValues::Center,
                Align::Right => HorizontalAlignmentValues::Right,
                Align::Justify => HorizontalAlignmentValues::Justify,
                Align::Fill => HorizontalAlignmentValues::Fill,
                Align::Distributed => HorizontalAlignmentValues::Distributed,
                Align::CenterAcross => HorizontalAlignmentValues::CenterContinuous,
            });
        }
        alignment.set_wrap_text(look.wrap);
    }
}

fn draw(border: &mut Border, line: &Option<Line>) {
    if let Some(line) = line {
        border.set_border_style(line.style);
        if let Some(rgb) = line.color {
            let mut color = Color::default();
            color.set_argb_str(argb(rgb));
            border.set_color(color);
        }
    }
}
