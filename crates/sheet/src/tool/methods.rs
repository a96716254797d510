//! The tools themselves: thin steps over the modules that do the work.

use super::*;

#[toolbox]
impl SpreadsheetTool {
    /// Opens a workbook (xlsx, xlsm; xls and ods read-only; csv as one sheet) and lists its sheets. Other methods open it themselves; this tells what it has and what Baton cannot keep.
    /// - path: the workbook, e.g. `/budget.xlsx`
    pub fn open(&self, path: String) -> Result<Opened, SheetError> {
        self.with(&path, opened)
    }

    /// Creates a new workbook with one empty sheet and saves it. An existing file is only replaced with force=true (it is backed up first).
    /// - path: the new workbook, e.g. `/reports/sales.xlsx` (or .csv)
    /// - sheet: the first sheet's name
    /// - force: replace an existing file
    #[effect(write)]
    pub fn create(
        &self,
        path: String,
        #[default("Sheet1")] sheet: String,
        #[default(false)] force: bool,
    ) -> Result<Saved, SheetError> {
        let (host, agent) = self.resolve(&path)?;
        let format = Format::of(&host).filter(|f| f.writable()).ok_or_else(|| {
            SheetError::Invalid(format!(
                "`{agent}`: Baton creates .xlsx, .xlsm or .csv workbooks"
            ))
        })?;
        if host.exists() && !force {
            return Err(SheetError::Exists(agent));
        }
        edit::check_sheet_name(&sheet)?;
        let mut open = OpenBook::create(format, &sheet)?;
        let place = self.sandbox.place(&path, true)?;
        let target = Target {
            place: &place,
            agent: &agent,
            format,
            over_original: false,
            force: true,
        };
        let saved = save::save(&mut open, &target)?;
        open.dirty = false;
        open.stamp = Stamp::of(&host);
        self.books().insert(host, open);
        Ok(self.saved(saved))
    }

    /// Closes a workbook held in memory. Unsaved changes are kept unless force=true discards them.
    /// - path: the workbook
    /// - force: discard unsaved changes
    pub fn close(&self, path: String, #[default(false)] force: bool) -> Result<Closed, SheetError> {
        let (host, agent) = self.resolve(&path)?;
        let mut books = self.books();
        let dirty = books.get(&host).is_some_and(|b| b.dirty);
        if dirty && !force {
            return Err(SheetError::Unsaved(agent));
        }
        books.remove(&host);
        Ok(Closed {
            path: agent,
            discarded_changes: dirty,
        })
    }

    /// The names of a workbook's sheets, in order.
    /// - path: the workbook
    pub fn get_sheet_names(&self, path: String) -> Result<Vec<String>, SheetError> {
        self.with(&path, |open, _| Ok(open.sheet_names()))
    }

    /// Describes a sheet compactly, however big: used range, header row, column types, a few sample rows, formula count, merged ranges, tables, charts, number formats, frozen panes. Read this before editing.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    pub fn describe_worksheet(
        &self,
        path: String,
        sheet: Option<String>,
    ) -> Result<Description, SheetError> {
        self.with(&path, |open, agent| {
            let i = sheet_index(open, agent, sheet.as_deref())?;
            if let (Some(sheets), Some(original), true) = (
                open.package_sheets(),
                &open.original,
                open.pending.is_empty(),
            ) {
                let (name, part) = &sheets[i];
                let d = describe_stored(original, name, part, agent)?;
                let end = Cell {
                    col: d.columns,
                    row: d.rows,
                };
                let used = (d.rows > 0).then(|| Range::new(Cell { col: 1, row: 1 }, end));
                open.used.insert(d.sheet.clone(), used);
                return Ok(d);
            }
            open.book()?;
            let ws = read_sheet(open, i)?;
            let mut d = describe(ws);
            if let Some(original) = &open.original {
                let in_file = crate::opc::charts_per_sheet(original)
                    .get(ws.name())
                    .copied()
                    .unwrap_or(0);
                d.unreadable_charts = in_file.saturating_sub(d.charts.len());
            }
            Ok(d)
        })
    }

    /// Reads one cell: its value (a formula's last result; dates as ISO text), type, formula and number format.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - cell: the cell, e.g. `B3`
    pub fn get_cell_value(
        &self,
        path: String,
        sheet: Option<String>,
        cell: String,
    ) -> Result<CellInfo, SheetError> {
        let at = Cell::parse(&cell)?;
        self.with(&path, |open, agent| {
            let i = sheet_index(open, agent, sheet.as_deref())?;
            let ws = sheet_ref(open, i)?;
            let number_format = ws
                .cell(at.xy())
                .and_then(|c| c.style().number_format())
                .map(|f| f.format_code().to_string())
                .filter(|f| f != "General");
            let value = values::read_value(ws, at);
            let date = number_format.as_deref().is_some_and(values::is_date_format);
            Ok(CellInfo {
                sheet: ws.name().to_string(),
                cell: at.to_string(),
                kind: values::type_word(&value, date),
                value,
                formula: values::read_formula(ws, at),
                number_format,
            })
        })
    }

    /// Reads a range as rows of values (a formula's last result, or the formula when the file stores none); at most 10,000 cells.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - range: the range, e.g. `A1:D20`
    pub fn get_range_values(
        &self,
        path: String,
        sheet: Option<String>,
        range: String,
    ) -> Result<RangeValues, SheetError> {
        let r = Range::parse(&range)?;
        self.with(&path, |open, agent| {
            let i = sheet_index(open, agent, sheet.as_deref())?;
            let ws = sheet_ref(open, i)?;
            let (values, truncated) = edit::range_values(ws, r);
            Ok(RangeValues {
                sheet: ws.name().to_string(),
                range: r.to_string(),
                values,
                truncated,
            })
        })
    }

    /// Sets one cell. Numbers stay numbers, true/false booleans, `=…` a formula, an ISO date (2026-12-01) a date; `type` forces one. null empties the cell. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - cell: the cell, e.g. `E2`
    /// - value: the value: a number, text, true/false, a date, `=SUM(B2:B13)`, or null
    /// - type: number, text, bool, date or formula (default: read from the value)
    #[effect(write)]
    pub fn set_cell_value(
        &self,
        path: String,
        sheet: Option<String>,
        cell: String,
        value: Value,
        r#type: Option<ValueType>,
    ) -> Result<Edited, SheetError> {
        let at = Cell::parse(&cell)?;
        self.edit_cells(&path, sheet.as_deref(), at, &[vec![value]], r#type)
    }

    /// Sets a block of cells from rows of values, starting at the range's top-left cell (same rules as set_cell_value). Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - range: where the block goes: its top-left cell (`B2`) or the whole range (`B2:D5`)
    /// - values: rows of values, e.g. [["Month", "Total"], ["Jan", 120]]
    /// - type: one type for every value (default: each read from its value)
    #[effect(write)]
    pub fn set_range_values(
        &self,
        path: String,
        sheet: Option<String>,
        range: String,
        values: Vec<Vec<Value>>,
        r#type: Option<ValueType>,
    ) -> Result<Edited, SheetError> {
        let r = Range::parse(&range)?;
        let rows = values.len() as u32;
        let cols = values.iter().map(Vec::len).max().unwrap_or(0) as u32;
        if r.cells() > 1 && (rows > r.height() || cols > r.width()) {
            return Err(SheetError::Invalid(format!(
                "{rows} rows of up to {cols} values do not fit in {r}; give its top-left cell to write them all"
            )));
        }
        self.edit_cells(&path, sheet.as_deref(), r.start, &values, r#type)
    }

    /// Inserts empty rows before a row; formulas, merged ranges and tables below move down. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - row: the row number the new rows take (the old row moves down)
    /// - count: how many rows
    #[effect(write)]
    pub fn insert_rows(
        &self,
        path: String,
        sheet: Option<String>,
        row: u32,
        #[default(1u32)] count: u32,
    ) -> Result<Edited, SheetError> {
        check_count(row, count)?;
        let to = Shift::new(Axis::Rows, row, count, false);
        let (path, sheet) = self.shift(&path, sheet.as_deref(), to, |ws| {
            ws.insert_new_row(row, count)
        })?;
        Ok(noted(
            path,
            sheet,
            format!("inserted {count} row(s) at row {row}"),
        ))
    }

    /// Deletes rows; the rows below move up. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - row: the first row to delete
    /// - count: how many rows
    #[effect(write)]
    pub fn delete_rows(
        &self,
        path: String,
        sheet: Option<String>,
        row: u32,
        #[default(1u32)] count: u32,
    ) -> Result<Edited, SheetError> {
        check_count(row, count)?;
        let to = Shift::new(Axis::Rows, row, count, true);
        let (path, sheet) =
            self.shift(&path, sheet.as_deref(), to, |ws| ws.remove_row(row, count))?;
        Ok(noted(
            path,
            sheet,
            format!("deleted {count} row(s) from row {row}"),
        ))
    }

    /// Inserts empty columns before a column; what is right of it moves right. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - column: the column the new columns take, a letter (`C`) or number (`3`)
    /// - count: how many columns
    #[effect(write)]
    pub fn insert_columns(
        &self,
        path: String,
        sheet: Option<String>,
        column: String,
        #[default(1u32)] count: u32,
    ) -> Result<Edited, SheetError> {
        let col = parse_column(&column)?;
        check_count(col, count)?;
        let to = Shift::new(Axis::Columns, col, count, false);
        let (path, sheet) = self.shift(&path, sheet.as_deref(), to, |ws| {
            ws.insert_new_column_by_index(col, count)
        })?;
        Ok(noted(
            path,
            sheet,
            format!(
                "inserted {count} column(s) at column {}",
                crate::column_name(col)
            ),
        ))
    }

    /// Deletes columns; what is right of them moves left. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - column: the first column to delete, a letter or number
    /// - count: how many columns
    #[effect(write)]
    pub fn delete_columns(
        &self,
        path: String,
        sheet: Option<String>,
        column: String,
        #[default(1u32)] count: u32,
    ) -> Result<Edited, SheetError> {
        let col = parse_column(&column)?;
        check_count(col, count)?;
        let to = Shift::new(Axis::Columns, col, count, true);
        let (path, sheet) = self.shift(&path, sheet.as_deref(), to, |ws| {
            ws.remove_column_by_index(col, count)
        })?;
        Ok(noted(
            path,
            sheet,
            format!(
                "deleted {count} column(s) from column {}",
                crate::column_name(col)
            ),
        ))
    }

    /// Adds an empty sheet at the end. Saved only by save.
    /// - path: the workbook
    /// - name: the new sheet's name
    #[effect(write)]
    pub fn add_sheet(&self, path: String, name: String) -> Result<Edited, SheetError> {
        self.edit_book(&path, format!("added sheet `{name}`"), |open, _| {
            edit::add_sheet(open.book()?, &name)?;
            Ok(name.clone())
        })
    }

    /// Renames a sheet. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet to rename
    /// - name: its new name
    #[effect(write)]
    pub fn rename_sheet(
        &self,
        path: String,
        sheet: String,
        name: String,
    ) -> Result<Edited, SheetError> {
        self.edit_book(
            &path,
            format!("renamed sheet `{sheet}` to `{name}`"),
            |open, agent| {
                let i = sheet_index(open, agent, Some(&sheet))?;
                edit::rename_sheet(open.book()?, i, &name)?;
                Ok(name.clone())
            },
        )
    }

    /// Deletes a sheet (a workbook keeps at least one). Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet to delete
    #[effect(write)]
    pub fn delete_sheet(&self, path: String, sheet: String) -> Result<Edited, SheetError> {
        self.edit_book(&path, format!("deleted sheet `{sheet}`"), |open, agent| {
            let i = sheet_index(open, agent, Some(&sheet))?;
            edit::delete_sheet(open.book()?, i)?;
            Ok(sheet.clone())
        })
    }

    /// Copies a sheet (values, formulas, styles, tables renamed) to a new sheet at the end. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet to copy
    /// - name: the copy's name
    #[effect(write)]
    pub fn copy_sheet(
        &self,
        path: String,
        sheet: String,
        name: String,
    ) -> Result<Edited, SheetError> {
        self.edit_book(
            &path,
            format!("copied sheet `{sheet}` to `{name}`"),
            |open, agent| {
                let i = sheet_index(open, agent, Some(&sheet))?;
                edit::copy_sheet(open.book()?, i, &name)?;
                Ok(name.clone())
            },
        )
    }

    /// Makes a row look like a header: bold, a light fill and a bottom border on its filled cells. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - row: the header row
    #[effect(write)]
    pub fn format_header_row(
        &self,
        path: String,
        sheet: Option<String>,
        #[default(1u32)] row: u32,
    ) -> Result<Edited, SheetError> {
        let (path, sheet, (range, preview)) = self.in_place(&path, sheet.as_deref(), |ws| {
            let range = style::format_header_row(ws, row)?;
            let look = Look::Header {
                sheet: ws.name().to_string(),
                row,
                first: range.start.col,
                last: range.end.col,
            };
            Ok(((range, edit::preview(ws, range)), vec![Op::Look(look)]))
        })?;
        Ok(Edited {
            path,
            sheet,
            changed: range.to_string(),
            preview,
            saved: false,
        })
    }

    /// Sets the number format of a range: `#,##0.00`, `0%`, `0.0%`, `yyyy-mm-dd`, `"$"#,##0.00`, `[h]:mm`…. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - range: the cells, e.g. `C2:C13`
    /// - format: the Excel number format
    #[effect(write)]
    pub fn set_number_format(
        &self,
        path: String,
        sheet: Option<String>,
        range: String,
        format: String,
    ) -> Result<Edited, SheetError> {
        let r = Range::parse(&range)?;
        self.edit_range(&path, sheet.as_deref(), Change::Cells(r), |ws| {
            style::set_number_format(ws, r, &format).map(|()| r)
        })
    }

    /// Sets a column's width in characters. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - column: the column, a letter or number
    /// - width: the width in characters (Excel's default is 8.43)
    #[effect(write)]
    pub fn set_column_width(
        &self,
        path: String,
        sheet: Option<String>,
        column: String,
        width: f64,
    ) -> Result<Edited, SheetError> {
        let col = parse_column(&column)?;
        let (path, sheet, ()) = self.in_place(&path, sheet.as_deref(), |ws| {
            style::set_column_width(ws, col, width)?;
            let sheet = ws.name().to_string();
            Ok(((), vec![Op::Look(Look::Width { sheet, col, width })]))
        })?;
        Ok(noted(
            path,
            sheet,
            format!(
                "column {} is {width} characters wide",
                crate::column_name(col)
            ),
        ))
    }

    /// Fits every used column's width to its content. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    #[effect(write)]
    pub fn autofit_columns(
        &self,
        path: String,
        sheet: Option<String>,
    ) -> Result<Edited, SheetError> {
        let (path, sheet, n) = self.in_place(&path, sheet.as_deref(), |ws| {
            let n = style::autofit_columns(ws);
            let name = ws.name().to_string();
            let widths = (1..=n)
                .map(|col| {
                    let width = ws
                        .column_dimension_by_number(col)
                        .map_or(8.43, |c| c.width());
                    Op::Look(Look::Width {
                        sheet: name.clone(),
                        col,
                        width,
                    })
                })
                .collect();
            Ok((n, widths))
        })?;
        Ok(noted(
            path,
            sheet,
            format!("fitted {n} column(s) to their content"),
        ))
    }

    /// Freezes the rows above and the columns left of a cell, so they stay visible while scrolling (`A2` freezes the header row; `A1` unfreezes). Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - cell: the first cell that scrolls
    #[effect(write)]
    pub fn freeze_panes(
        &self,
        path: String,
        sheet: Option<String>,
        cell: String,
    ) -> Result<Edited, SheetError> {
        let at = Cell::parse(&cell)?;
        let (path, sheet, ()) = self.in_place(&path, sheet.as_deref(), |ws| {
            style::freeze_panes(ws, at);
            let sheet = ws.name().to_string();
            Ok(((), vec![Op::Look(Look::Freeze { sheet, at })]))
        })?;
        Ok(noted(path, sheet, format!("panes frozen at {at}")))
    }

    /// Formats a range as a table (header row first, banded rows, filter buttons). Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - range: the table's range with its header row, e.g. `A1:F13`
    /// - name: the table's name (letters, digits, _; unique in the workbook)
    /// - style: an Excel table style, e.g. TableStyleMedium2, TableStyleLight9
    #[effect(write)]
    pub fn add_table(
        &self,
        path: String,
        sheet: Option<String>,
        range: String,
        name: String,
        #[default("TableStyleMedium2")] style: String,
    ) -> Result<Edited, SheetError> {
        let r = Range::parse(&range)?;
        self.with(&path, |open, agent| {
            let i = sheet_index(open, agent, sheet.as_deref())?;
            objects::add_table(open.book()?, i, r, &name, &style)?;
            open.dirty = true;
            open.structural = true;
            Ok(Edited {
                path: agent.to_string(),
                sheet: ws_name(open.book()?, i),
                changed: format!("table `{name}` over {r}"),
                preview: Vec::new(),
                saved: false,
            })
        })
    }

    /// Adds a chart of a range whose first row names the series and first column holds the labels (x values for scatter); each other column is a series. Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet with the data (the chart goes there too)
    /// - type: column, bar, line, pie, scatter or area
    /// - range: the data with its header row and label column, e.g. `A1:C13`
    /// - anchor: the cell for the chart's top-left corner
    /// - size: columns x rows the chart covers
    /// - title: the chart's title
    #[effect(write)]
    #[allow(clippy::too_many_arguments)]
    pub fn add_chart(
        &self,
        path: String,
        sheet: Option<String>,
        r#type: ChartKind,
        range: String,
        #[default("H2")] anchor: String,
        #[default("8x15")] size: String,
        title: Option<String>,
    ) -> Result<Edited, SheetError> {
        let r = Range::parse(&range)?;
        let at = Placement::parse(&anchor, &size)?;
        let (path, sheet, ()) = self.edit(&path, sheet.as_deref(), |ws| {
            objects::add_chart(ws, r#type, r, &at, title.as_deref())
        })?;
        Ok(noted(
            path,
            sheet,
            format!("{:?} chart of {r} at {}", r#type, at.anchor).to_lowercase(),
        ))
    }

    /// Sorts the rows of a range by one column (whole rows move: values, formulas, styles). Saved only by save.
    /// - path: the workbook
    /// - sheet: the sheet (default: the active one)
    /// - range: the rows to sort, e.g. `A1:F13`
    /// - column: the column to sort by, a letter or number
    /// - descending: largest (or Z) first
    /// - header: the range's first row is a header and stays on top
    #[effect(write)]
    #[allow(clippy::too_many_arguments)]
    pub fn sort_range(
        &self,
        path: String,
        sheet: Option<String>,
        range: String,
        column: String,
        #[default(false)] descending: bool,
        #[default(true)] header: bool,
    ) -> Result<Edited, SheetError> {
        let r = Range::parse(&range)?;
        let col = parse_column(&column)?;
        self.edit_range(&path, sheet.as_deref(), Change::Structure, |ws| {
            edit::sort_range(ws, r, col, descending, header).map(|()| r)
        })
    }

    /// Finds cells: a number finds equal values; text finds values (or formulas) containing it, any case. At most 200 cells.
    /// - path: the workbook
    /// - value: what to look for
    /// - sheet: only this sheet (default: every sheet)
    pub fn find(
        &self,
        path: String,
        value: Value,
        sheet: Option<String>,
    ) -> Result<Vec<edit::Found>, SheetError> {
        self.with(&path, |open, agent| {
            let only = match sheet.as_deref() {
                Some(s) => Some(sheet_index(open, agent, Some(s))?),
                None => None,
            };
            let book = open.book()?;
            let sheets: Vec<&Worksheet> = match only {
                Some(i) => vec![
                    book.sheet(i)
                        .map_err(|e| SheetError::Invalid(e.to_string()))?,
                ],
                None => book.sheet_collection_no_check().iter().collect(),
            };
            Ok(edit::find(&sheets, &value))
        })
    }

    /// Saves the workbook over its file, after backing the file up (`name.xlsx.001.bak`, …). Refused when the file has features Baton cannot keep or another program changed it, unless force=true.
    /// - path: the workbook
    /// - force: save even so
    #[effect(write)]
    pub fn save(&self, path: String, #[default(false)] force: bool) -> Result<Saved, SheetError> {
        let (host, _) = self.resolve(&path)?;
        let place = self.sandbox.place(&path, false)?;
        let s = self.with(&path, |open, agent| {
            if !open.format.writable() {
                return Err(SheetError::ReadOnly(agent.to_string()));
            }
            let target = Target {
                place: &place,
                agent,
                format: open.format,
                over_original: true,
                force,
            };
            let saved = save::save(open, &target)?;
            open.dirty = false;
            open.stamp = Stamp::of(&host);
            Ok(saved)
        })?;
        Ok(self.saved(s))
    }

    /// Saves the workbook as a new file (.xlsx, .xlsm or .csv), which then is the open workbook; the original file is left as it was. An existing target is replaced only with force=true (backed up first).
    /// - path: the workbook
    /// - new_path: the file to write, e.g. `/budget-2027.xlsx`
    /// - force: replace an existing file
    #[effect(write)]
    pub fn save_as(
        &self,
        path: String,
        new_path: String,
        #[default(false)] force: bool,
    ) -> Result<Saved, SheetError> {
        let (host, _) = self.resolve(&path)?;
        let (to, to_agent) = self.resolve(&new_path)?;
        let format = Format::of(&to).filter(|f| f.writable()).ok_or_else(|| {
            SheetError::Invalid(format!(
                "`{to_agent}`: Baton saves .xlsx, .xlsm or .csv workbooks"
            ))
        })?;
        if to.exists() && !force && to != host {
            return Err(SheetError::Exists(to_agent));
        }
        let place = self.sandbox.place(&new_path, true)?;
        let saved = self.with(&path, |open, _| {
            let target = Target {
                place: &place,
                agent: &to_agent,
                format,
                over_original: to == host,
                force,
            };
            save::save(open, &target)
        })?;
        let mut books = self.books();
        if let Some(open) = books.remove(&host) {
            books.insert(to, open);
        }
        drop(books);
        Ok(self.saved(saved))
    }
}

/// An edit answered with what changed, without a preview.
fn noted(path: String, sheet: String, changed: String) -> Edited {
    Edited {
        path,
        sheet,
        changed,
        preview: Vec::new(),
        saved: false,
    }
}

fn check_count(at: u32, count: u32) -> Result<(), SheetError> {
    if at == 0 || count == 0 || count > 100_000 {
        return Err(SheetError::Invalid(format!(
            "row or column {at} and count {count}: both start at 1, and count is at most 100,000"
        )));
    }
    Ok(())
}

/// describe_worksheet of a sheet as stored in the package, streamed.
fn describe_stored(
    original: &[u8],
    name: &str,
    part: &str,
    agent: &str,
) -> Result<Description, SheetError> {
    let read_err = |reason: String| SheetError::Read {
        path: agent.to_string(),
        reason,
    };
    let mut zip = crate::opc::open(original).map_err(read_err)?;
    crate::describe::describe_part(&mut zip, name, part).map_err(read_err)
}
