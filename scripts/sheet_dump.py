#!/usr/bin/env python3
"""Prints one JSON object describing everything openpyxl sees in a workbook,
for before/after comparisons (e.g. a file saved by the spreadsheet toolbox
against the original). Keys are sorted and the output is stable for a given
file and openpyxl version.

Run with the fixture virtualenv's Python (scripts/make-fixtures.sh
--tools-only installs it):

    ~/.cache/baton-fixtures-venv/bin/python scripts/sheet_dump.py FILE.xlsx

Output:

    {
      "file": "rich.xlsx",
      "parts": [zip member names, sorted],
      "full_calc_on_load": bool,     # <calcPr fullCalcOnLoad> in the workbook part
      "defined_names": {name: {"value": "Sales!$B$14", "scope": null},
                        "Sheet!name": {"value": ..., "scope": "Sheet"}},  # sheet-scoped
                                     # (print areas are under the sheet's "print_area")
      "external_links": [target of each external link, e.g. "other.xlsx"],
      "sheet_names": [every sheet, chartsheets included, in workbook order],
      "chartsheets": [the names in sheet_names that are chartsheets],
      "sheets": {worksheet name: {
        "state": "visible" | "hidden" | "veryHidden",
        "dimensions": "A1:F16",
        "cells": {coord: value},     # non-empty cells; formulas as "=..." text,
                                     # dates as ISO strings, times as ISO, durations as "PT<n>S"
        "cached": {coord: value},    # formula cells only: the cached value (null if none)
        "number_formats": {coord: fmt},   # non-General only
        "fonts": {coord: {attr: value}},  # only the attributes set and different from
                                          # the workbook's default font (bold, italic,
                                          # underline, strike, color, name, size, vertAlign)
        "fills": {coord: {"pattern", "fg", "bg"}},  # pattern fills ("bg" unless solid),
                                          # or {"gradient", "degree", "stops"}
        "borders": {coord: {side: {"style": s, "color": c}}},  # non-empty sides only
        "alignments": {coord: {attr: value}},  # attributes other than their defaults
                                          # (general, bottom, no wrap, 0 indent/rotation)
        "merged": [ranges, sorted],
        "column_widths": {"A" | "G:AMJ": width},  # every <col> with a width
        "row_heights": {row: height},            # rows with an explicit height
        "freeze_panes": "A2" | null,
        "print_area": "'Sales'!$A$1:$Q$18" | null,
        "page_setup": {orientation, paperSize, scale, fitToWidth, fitToHeight, fitToPage},
                                     # only those set
        "autofilter": ref | null,
        "tables": [{"name", "display_name", "ref", "style", "header_rows",
                    "totals_rows", "columns"}],
        "charts": [{"types": ["BarChart"], "anchor": "H2", "title": "..."|null}],
        "images": [{"anchor": "D3"}],
        "data_validations": [{"type", "sqref", "formula1"}],
        "conditional_formatting": [{"range", "rules": [type, ...]}],
        "hyperlinks": {coord: {"target": url | null, "location": ref | null}},
        "comments": {coord: {"author", "text"}},
        "pivots": [{"name", "location"}]
      }}
    }

Counts are the lengths of these lists (charts, images, data_validations,
conditional_formatting, tables). Colors: "FF1F4E79" (ARGB), "theme:4+0.4",
"indexed:64" or "auto".
"""

from __future__ import annotations

import datetime as dt
import json
import posixpath
import sys
import warnings
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
OFFICE_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def jsonable(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return f"PT{v.total_seconds():g}S"
    text = getattr(v, "text", None)  # ArrayFormula and friends
    if isinstance(text, str):
        return text
    return str(v)


def color_str(c) -> str | None:
    if c is None:
        return None
    t = getattr(c, "type", None)
    if t == "rgb":
        return str(c.rgb)
    if t == "theme":
        s = f"theme:{c.theme}"
        if c.tint:
            s += f"{c.tint:+g}"
        return s
    if t == "indexed":
        return f"indexed:{c.indexed}"
    if t == "auto":
        return "auto"
    return str(c.value) if hasattr(c, "value") else None


FONT_ATTRS = ("b", "i", "u", "strike", "color", "name", "sz", "vertAlign")
FONT_KEYS = {"b": "bold", "i": "italic", "u": "underline", "sz": "size"}


def font_attr(font, a):
    v = getattr(font, a)
    if a == "color":
        return color_str(v)
    if a in ("b", "i", "strike"):
        return bool(v)
    return jsonable(v)


def font_diff(font, default) -> dict:
    out = {}
    for a in FONT_ATTRS:
        v, d = font_attr(font, a), font_attr(default, a)
        if v is not None and v != d:  # None: not set, the default applies
            out[FONT_KEYS.get(a, a)] = v
    return out


def fill_desc(fill) -> dict | None:
    kind = getattr(fill, "tagname", "")
    if kind == "gradientFill":
        return {"gradient": fill.type, "degree": jsonable(fill.degree),
                "stops": [[jsonable(s.position), color_str(s.color)] for s in fill.stop]}
    if not getattr(fill, "fill_type", None):
        return None
    out = {"pattern": fill.fill_type, "fg": color_str(fill.fgColor)}
    if fill.fill_type != "solid":  # a solid fill shows only its fgColor
        out["bg"] = color_str(fill.bgColor)
    return out


def border_desc(border) -> dict:
    out = {}
    for side in ("left", "right", "top", "bottom", "diagonal", "vertical", "horizontal"):
        s = getattr(border, side, None)
        if s is not None and s.style:
            out[side] = {"style": s.style, "color": color_str(s.color)}
    return out


# Values that mean the same as an attribute left out.
ALIGN_DEFAULTS = {"horizontal": ("general",), "vertical": ("bottom",), "wrap_text": (False,),
                  "shrink_to_fit": (False,), "indent": (0,), "text_rotation": (0,)}


def align_desc(al) -> dict:
    out = {}
    for a, defaults in ALIGN_DEFAULTS.items():
        v = getattr(al, a)
        if v is not None and v not in defaults:
            out[a] = jsonable(v)
    return out


def rich_text(t) -> str | None:
    """Plain text of a chart Title (rich text paragraphs or a cell reference)."""
    if t is None:
        return None
    tx = getattr(t, "tx", None)
    if tx is None:
        return None
    if tx.rich is not None:
        parts = []
        for p in tx.rich.p or []:
            parts.append("".join((r.t or "") for r in (p.r or [])))
        return "\n".join(parts)
    if tx.strRef is not None:
        return "=" + tx.strRef.f
    return None


def anchor_str(anchor) -> str | None:
    fr = getattr(anchor, "_from", None)
    if fr is None:
        return anchor if isinstance(anchor, str) else None
    from openpyxl.utils import get_column_letter
    return f"{get_column_letter(fr.col + 1)}{fr.row + 1}"


def chart_desc(ch) -> dict:
    types = [type(c).__name__ for c in getattr(ch, "_charts", [])] or [type(ch).__name__]
    return {"types": types, "anchor": anchor_str(ch.anchor), "title": rich_text(ch.title)}


def workbook_zip_info(path: Path) -> tuple[list[str], bool]:
    with zipfile.ZipFile(path) as z:
        names = sorted(z.namelist())
        wb_part = "xl/workbook.xml"
        try:
            rels = ET.fromstring(z.read("_rels/.rels"))
            for r in rels.findall(f"{{{REL_NS}}}Relationship"):
                if r.get("Type") == OFFICE_DOC:
                    wb_part = posixpath.normpath(r.get("Target").lstrip("/"))
        except KeyError:
            pass
        root = ET.fromstring(z.read(wb_part))
    calc = root.find(f"{{{MAIN_NS}}}calcPr")
    full = calc is not None and calc.get("fullCalcOnLoad") in ("1", "true")
    return names, full


def page_setup(ws) -> dict:
    ps = ws.page_setup
    out = {k: jsonable(getattr(ps, k)) for k in ("orientation", "paperSize", "scale", "fitToWidth",
                                                  "fitToHeight")
           if getattr(ps, k) is not None}
    pr = ws.sheet_properties.pageSetUpPr
    if pr is not None and pr.fitToPage:
        out["fitToPage"] = True
    return out


def dump_sheet(ws, ws_values, default_font) -> dict:
    from openpyxl.utils import get_column_letter

    cells, cached, fmts, fonts, fills, borders, aligns = {}, {}, {}, {}, {}, {}, {}
    for (row, col), c in sorted(ws._cells.items()):
        k = c.coordinate
        if c.value is not None:
            cells[k] = jsonable(c.value)
            if c.data_type == "f":
                cached[k] = jsonable(ws_values.cell(row=row, column=col).value)
        if not c.has_style:
            continue
        if c.number_format and c.number_format != "General":
            fmts[k] = c.number_format
        fd = font_diff(c.font, default_font)
        if fd:
            fonts[k] = fd
        fl = fill_desc(c.fill)
        if fl:
            fills[k] = fl
        bd = border_desc(c.border)
        if bd:
            borders[k] = bd
        al = align_desc(c.alignment)
        if al:
            aligns[k] = al

    widths = {}
    for key, d in ws.column_dimensions.items():
        if d.width:
            lo, hi = d.min or 0, d.max or 0
            name = key if not lo or lo == hi else f"{get_column_letter(lo)}:{get_column_letter(hi)}"
            widths[name] = jsonable(round(d.width, 4))
    heights = {str(r): jsonable(d.height) for r, d in ws.row_dimensions.items()
               if d.customHeight and d.height is not None}

    tables = []
    for t in ws.tables.values():
        tables.append({
            "name": t.name, "display_name": t.displayName, "ref": t.ref,
            "style": t.tableStyleInfo.name if t.tableStyleInfo is not None else None,
            "header_rows": t.headerRowCount if t.headerRowCount is not None else 1,
            "totals_rows": t.totalsRowCount or 0,
            "columns": [c.name for c in t.tableColumns],
        })
    tables.sort(key=lambda t: t["name"])

    dvs = [{"type": dv.type, "sqref": str(dv.sqref), "formula1": dv.formula1}
           for dv in ws.data_validations.dataValidation]
    cfs = [{"range": str(cf.sqref), "rules": [r.type for r in rules]}
           for cf, rules in ws.conditional_formatting._cf_rules.items()]
    links = {}
    comments = {}
    for c in ws._cells.values():
        if c.hyperlink is not None:
            links[c.coordinate] = {"target": c.hyperlink.target, "location": c.hyperlink.location}
        if c.comment is not None:
            comments[c.coordinate] = {"author": c.comment.author, "text": c.comment.text}
    pivots = [{"name": p.name, "location": p.location.ref} for p in getattr(ws, "_pivots", [])]

    return {
        "state": ws.sheet_state,
        "dimensions": ws.dimensions,
        "cells": cells,
        "cached": cached,
        "number_formats": fmts,
        "fonts": fonts,
        "fills": fills,
        "borders": borders,
        "alignments": aligns,
        "merged": sorted(str(r) for r in ws.merged_cells.ranges),
        "column_widths": widths,
        "row_heights": heights,
        "freeze_panes": ws.freeze_panes,
        "print_area": ws.print_area if ws.print_area else None,
        "page_setup": page_setup(ws),
        "autofilter": ws.auto_filter.ref or None,
        "tables": tables,
        "charts": [chart_desc(ch) for ch in ws._charts],
        "images": [{"anchor": anchor_str(im.anchor)} for im in ws._images],
        "data_validations": sorted(dvs, key=lambda d: (d["sqref"], d["type"] or "")),
        "conditional_formatting": sorted(cfs, key=lambda d: d["range"]),
        "hyperlinks": links,
        "comments": comments,
        "pivots": sorted(pivots, key=lambda p: p["name"]),
    }


def dump(path: Path) -> dict:
    import openpyxl

    path = Path(path)
    parts, full_calc = workbook_zip_info(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "unsupported extension" chatter
        wb = openpyxl.load_workbook(path)
        wb_values = openpyxl.load_workbook(path, data_only=True)
    default_font = wb._fonts[0]
    names = {}
    for n, d in wb.defined_names.items():
        names[n] = {"value": d.attr_text, "scope": None}
    sheets = {}
    for ws in wb.worksheets:
        for n, d in ws.defined_names.items():
            if n != "_xlnm.Print_Area":
                names[f"{ws.title}!{n}"] = {"value": d.attr_text, "scope": ws.title}
        sheets[ws.title] = dump_sheet(ws, wb_values[ws.title], default_font)
    ext = []
    for link in wb._external_links:
        rel = getattr(link, "file_link", None)
        ext.append(rel.Target if rel is not None else None)
    return {
        "file": path.name,
        "parts": parts,
        "full_calc_on_load": full_calc,
        "defined_names": names,
        "external_links": ext,
        "sheet_names": wb.sheetnames,
        "chartsheets": [cs.title for cs in wb.chartsheets],
        "sheets": sheets,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    json.dump(dump(Path(argv[1])), sys.stdout, sort_keys=True, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
