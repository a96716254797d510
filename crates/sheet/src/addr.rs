//! A1-style addresses: cells (`B3`), ranges (`A1:C10`) and columns (`C`
//! or `3`), 1-based as in the spreadsheet.

use std::fmt;

use crate::SheetError;

/// Excel's last column (XFD) and row.
pub(crate) const MAX_COL: u32 = 16_384;
pub(crate) const MAX_ROW: u32 = 1_048_576;

/// One cell, 1-based column and row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    /// Column, 1 = A.
    pub col: u32,
    /// Row, 1 = the first.
    pub row: u32,
}

/// A rectangle of cells, corners included; `start` is the top left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// Top-left corner.
    pub start: Cell,
    /// Bottom-right corner.
    pub end: Cell,
}

/// `3` → `C`, `28` → `AB`.
pub fn column_name(mut col: u32) -> String {
    let mut out = Vec::new();
    while col > 0 {
        let rem = (col - 1) % 26;
        out.push(b'A' + rem as u8);
        col = (col - 1) / 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A column given as letters (`C`, `ab`) or a number (`3`).
pub fn parse_column(text: &str) -> Result<u32, SheetError> {
    let t = text.trim().trim_start_matches('$');
    let bad = || {
        SheetError::Invalid(format!(
            "`{text}` is not a column (a letter like C, or a number like 3)"
        ))
    };
    let col = if let Ok(n) = t.parse::<u32>() {
        n
    } else if !t.is_empty() && t.len() <= 3 && t.chars().all(|c| c.is_ascii_alphabetic()) {
        t.bytes().fold(0u32, |acc, b| {
            acc * 26 + u32::from(b.to_ascii_uppercase() - b'A' + 1)
        })
    } else {
        return Err(bad());
    };
    if col == 0 || col > MAX_COL {
        return Err(bad());
    }
    Ok(col)
}

impl Cell {
    /// Reads `B3` (also `$B$3`, any case).
    pub fn parse(text: &str) -> Result<Cell, SheetError> {
        let bad = || SheetError::Invalid(format!("`{text}` is not a cell (write it like B3)"));
        let t: String = text.trim().chars().filter(|c| *c != '$').collect();
        let split = t.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?;
        let (letters, digits) = t.split_at(split);
        if letters.is_empty() {
            return Err(bad());
        }
        let col = parse_column(letters).map_err(|_| bad())?;
        let row: u32 = digits.parse().map_err(|_| bad())?;
        if row == 0 || row > MAX_ROW {
            return Err(bad());
        }
        Ok(Cell { col, row })
    }

    /// The cell `dc` columns right and `dr` rows down.
    pub fn offset(self, dc: u32, dr: u32) -> Cell {
        Cell {
            col: self.col.saturating_add(dc).min(MAX_COL),
            row: self.row.saturating_add(dr).min(MAX_ROW),
        }
    }

    /// `(col, row)`, the order umya-spreadsheet takes.
    pub fn xy(self) -> (u32, u32) {
        (self.col, self.row)
    }

    /// `$B$3`, for references inside formulas and charts.
    pub fn absolute(self) -> String {
        format!("${}${}", column_name(self.col), self.row)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", column_name(self.col), self.row)
    }
}

impl Range {
    /// Reads `A1:C10` (corners in any order) or a single cell `B3`.
    pub fn parse(text: &str) -> Result<Range, SheetError> {
        let (a, b) = match text.split_once(':') {
            Some((a, b)) => (Cell::parse(a)?, Cell::parse(b)?),
            None => {
                let c = Cell::parse(text)?;
                (c, c)
            }
        };
        Ok(Range::new(a, b))
    }

    /// The range with corners `a` and `b`, whatever their order.
    pub fn new(a: Cell, b: Cell) -> Range {
        Range {
            start: Cell {
                col: a.col.min(b.col),
                row: a.row.min(b.row),
            },
            end: Cell {
                col: a.col.max(b.col),
                row: a.row.max(b.row),
            },
        }
    }

    /// Columns in the range.
    pub fn width(&self) -> u32 {
        self.end.col - self.start.col + 1
    }

    /// Rows in the range.
    pub fn height(&self) -> u32 {
        self.end.row - self.start.row + 1
    }

    /// Cells in the range.
    pub fn cells(&self) -> u64 {
        u64::from(self.width()) * u64::from(self.height())
    }

    /// Whether `c` is inside.
    pub fn contains(&self, c: Cell) -> bool {
        (self.start.col..=self.end.col).contains(&c.col)
            && (self.start.row..=self.end.row).contains(&c.row)
    }

    /// `Sheet!$A$1:$A$10`, quoted when the sheet name needs it.
    pub fn absolute_on(&self, sheet: &str) -> String {
        format!(
            "{}!{}:{}",
            quote_sheet(sheet),
            self.start.absolute(),
            self.end.absolute()
        )
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}:{}", self.start, self.end)
        }
    }
}

/// A sheet name as formulas write it: `Sales`, `'My sheet'`.
pub fn quote_sheet(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
    {
        name.to_string()
    } else {
        format!("'{}'", name.replace('\'', "''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_columns_and_ranges_round_trip() {
        for (n, s) in [
            (1, "A"),
            (26, "Z"),
            (27, "AA"),
            (52, "AZ"),
            (703, "AAA"),
            (16_384, "XFD"),
        ] {
            assert_eq!(column_name(n), s);
            assert_eq!(parse_column(s).unwrap(), n);
        }
        assert_eq!(parse_column("3").unwrap(), 3);
        assert_eq!(Cell::parse("$b$12").unwrap(), Cell { col: 2, row: 12 });
        let r = Range::parse("C10:A1").unwrap();
        assert_eq!(r.to_string(), "A1:C10");
        assert_eq!((r.width(), r.height(), r.cells()), (3, 10, 30));
        assert_eq!(r.absolute_on("My sheet"), "'My sheet'!$A$1:$C$10");
        assert_eq!(Range::parse("B2").unwrap().to_string(), "B2");
    }

    #[test]
    fn bad_addresses_say_how_to_write_them() {
        for bad in ["", "12", "B", "B0", "XFE1", "A1048577", "B-3", "1B"] {
            let e = Cell::parse(bad).unwrap_err().to_string();
            assert!(e.contains("write it like B3"), "{bad}: {e}");
        }
        assert!(parse_column("ABCD").is_err());
        assert!(parse_column("0").is_err());
    }
}
