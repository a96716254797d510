//! Looks: the header row, number formats, column widths, frozen panes.

use umya_spreadsheet::structs::{Border, Coordinate, Pane, PaneStateValues, PaneValues, SheetView};
use umya_spreadsheet::{NumberingFormat, Worksheet};

use crate::SheetError;
use crate::addr::{Cell, Range};

/// The header row's fill (a light grey-blue that prints well).
const HEADER_FILL: &str = "FFD9E1F2";

/// Bold text, a fill and a thin bottom border on the filled cells of
/// `row`; the range styled.
pub fn format_header_row(ws: &mut Worksheet, row: u32) -> Result<Range, SheetError> {
    let last = ws.highest_column();
    let cols: Vec<u32> = (1..=last)
        .filter(|c| ws.cell((*c, row)).is_some())
        .collect();
    let (Some(&first), Some(&end)) = (cols.first(), cols.last()) else {
        return Err(SheetError::Invalid(format!(
            "row {row} is empty: put the column names in it first"
        )));
    };
    for col in first..=end {
        let style = ws.style_mut((col, row));
        style.font_mut().set_bold(true);
        style.set_background_color(HEADER_FILL);
        style
            .borders_mut()
            .bottom_mut()
            .set_border_style(Border::BORDER_THIN);
    }
    Ok(Range::new(Cell { col: first, row }, Cell { col: end, row }))
}

/// Gives every cell of `range` the number format `code` (`#,##0.00`,
/// `0%`, `yyyy-mm-dd`, `"$"#,##0`).
pub fn set_number_format(ws: &mut Worksheet, range: Range, code: &str) -> Result<(), SheetError> {
    if code.trim().is_empty() {
        return Err(SheetError::Invalid(
            "`format` is empty: give a number format like #,##0.00, 0%, or yyyy-mm-dd".into(),
        ));
    }
    if range.cells() > 1_000_000 {
        return Err(SheetError::Invalid(format!(
            "{range} is more than a million cells; format a smaller range"
        )));
    }
    let mut format = NumberingFormat::default();
    format.set_format_code(code);
    for row in range.start.row..=range.end.row {
        for col in range.start.col..=range.end.col {
            ws.style_mut((col, row)).set_number_format(format.clone());
        }
    }
    Ok(())
}

/// Sets `column`'s width in characters (Excel's unit, 0–255).
pub fn set_column_width(ws: &mut Worksheet, column: u32, width: f64) -> Result<(), SheetError> {
    if !(0.0..=255.0).contains(&width) {
        return Err(SheetError::Invalid(format!(
            "a column width is 0 to 255 characters, not {width}"
        )));
    }
    ws.column_dimension_by_number_mut(column)
        .set_width(width)
        .set_auto_width(false);
    Ok(())
}

/// Widens (or narrows) every used column to fit its content.
pub fn autofit_columns(ws: &mut Worksheet) -> u32 {
    let cols = ws.highest_column();
    for c in 1..=cols {
        ws.column_dimension_by_number_mut(c).set_auto_width(true);
    }
    ws.calculation_auto_width();
    cols
}

/// Freezes the rows above and the columns left of `at`; `A1` unfreezes.
pub fn freeze_panes(ws: &mut Worksheet, at: Cell) {
    let views = ws.sheet_views_mut().sheet_view_list_mut();
    if views.is_empty() {
        views.push(SheetView::default());
    }
    let old = &views[0];
    let mut view = SheetView::default();
    view.set_tab_selected(old.tab_selected())
        .set_workbook_view_id(old.workbook_view_id())
        .set_show_grid_lines(old.show_grid_lines())
        .set_zoom_scale(old.zoom_scale());
    if at != (Cell { col: 1, row: 1 }) {
        let mut pane = Pane::default();
        let mut top_left = Coordinate::default();
        top_left.set_coordinate(at.to_string());
        if at.col > 1 {
            pane.set_horizontal_split(f64::from(at.col - 1));
        }
        if at.row > 1 {
            pane.set_vertical_split(f64::from(at.row - 1));
        }
        let active = match (at.col > 1, at.row > 1) {
            (true, true) => PaneValues::BottomRight,
            (true, false) => PaneValues::TopRight,
            _ => PaneValues::BottomLeft,
        };
        pane.set_top_left_cell(top_left)
            .set_active_pane(active)
            .set_state(PaneStateValues::Frozen);
        view.set_pane(pane);
    }
    views[0] = view;
}
