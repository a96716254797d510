#!/usr/bin/env python3
"""Writes a large one-sheet workbook for benches and tests, generated on the
fly instead of committed:

    make_big_sheet.py OUT.xlsx ROWS

Run it with the fixture virtualenv's Python (scripts/make-fixtures.sh
--tools-only installs it):

    ~/.cache/baton-fixtures-venv/bin/python scripts/make_big_sheet.py /tmp/big.xlsx 100000

Sheet "Data": a header row, then ROWS rows of 6 columns: ID (int), Name
(text "Item 00001"), Category (one of 4 strings), Amount (float, i * 1.25),
Date (real date cell, yyyy-mm-dd), Active (bool). Row i is the same as
row i of tests/fixtures/docs/big.xlsx (scripts/make_fixtures.py big_row).
openpyxl write-only mode, so memory stays flat; like every write-only
workbook it has no <dimension> element. The bytes are reproducible for a
given openpyxl version: zip entry times and document dates are pinned.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
import zipfile
from pathlib import Path

HEADER = ["ID", "Name", "Category", "Amount", "Date", "Active"]
CATEGORIES = ["Hardware", "Software", "Services", "Travel"]
FIXED_DT = dt.datetime(2024, 1, 2, 3, 4, 5)
FIXED_ZIP_TIME = (2024, 1, 2, 3, 4, 6)


def row(i: int) -> list:
    return [
        i,
        f"Item {i:05d}",
        CATEGORIES[i % len(CATEGORIES)],
        i * 1.25,
        dt.datetime(2024, 1, 1) + dt.timedelta(days=i % 366),
        i % 3 == 0,
    ]


class _PinnedTime:
    """Stands in for the time module inside zipfile while saving, so every
    entry gets the same timestamp (zipfile stamps entries with localtime)."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def localtime(secs=None):
        return time.struct_time((*FIXED_ZIP_TIME, 0, 1, -1))


def write_big_sheet(path: Path, rows: int) -> None:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Data")
    ws.append(HEADER)
    date_cell = WriteOnlyCell(ws)
    date_cell.number_format = "yyyy-mm-dd"
    for i in range(1, rows + 1):
        r = row(i)
        date_cell.value = r[4]
        r[4] = date_cell
        ws.append(r)
    wb.properties.creator = "Baton Fixtures"
    wb.properties.created = FIXED_DT
    wb.properties.modified = FIXED_DT
    # ExcelWriter directly: Workbook.save would stamp `modified` with now.
    from openpyxl.writer.excel import ExcelWriter

    real_time = zipfile.time
    zipfile.time = _PinnedTime()
    try:
        archive = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, allowZip64=True)
        ExcelWriter(wb, archive).save()
    finally:
        zipfile.time = real_time


def main(argv: list[str]) -> int:
    if len(argv) != 3 or not argv[2].isdigit():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    write_big_sheet(Path(argv[1]), int(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
