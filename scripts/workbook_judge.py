"""Judges saved workbooks against their originals with openpyxl, an
independent reader, in one process (crates/sheet/tests/corpus.rs).

stdin: one JSON object per line:
  {"before": PATH, "after": PATH, "sheet": NAME, "cell": "ZZ5000", "value": "Baton"}
  {"before": PATH, "after": PATH, "sheet": NAME,
   "shift": {"axis": "rows"|"columns", "at": N, "count": N, "delete": BOOL}}
  (with "width": {"col": "B", "width": 30}, "freeze": "B3" or "header": ROW:
  that too)
stdout: one JSON object per line, in order:
  {"after": PATH, "readable_before": bool, "problem": null | TEXT}
A problem is: the saved file does not open, a package part is missing or
new (the calculation chain aside), a cell other than the edited one
changed, or the edited cell does not hold the value; after a shift, a
value (formulas aside: their text moves) not where the shift puts it.
"""

import json
import sys
import warnings
import zipfile

import openpyxl

warnings.simplefilter("ignore")


def load(path):
    return openpyxl.load_workbook(path, keep_vba=path.endswith(".xlsm"), keep_links=True)


def cells(book):
    out = {}
    for ws in book.worksheets:
        for (row, col), c in ws._cells.items():
            if c.value is not None:
                out[(ws.title, row, col)] = c.value
    return out


def parts(path):
    with zipfile.ZipFile(path) as z:
        return {n for n in z.namelist() if n.lower() != "xl/calcchain.xml"}


def judge(job):
    try:
        before = load(job["before"])
    except Exception:  # noqa: BLE001 - an unreadable original is not judged
        return {"after": job["after"], "readable_before": False, "problem": None}
    try:
        after = load(job["after"])
    except Exception as e:  # noqa: BLE001
        return {"after": job["after"], "readable_before": True, "problem": f"does not open: {e}"}
    lost = parts(job["before"]) - parts(job["after"])
    new = parts(job["after"]) - parts(job["before"])
    problem = None
    if lost or new:
        problem = f"parts lost {sorted(lost)} new {sorted(new)}"
    elif "cell" in job:
        problem = compare(before, after, job)
    elif "shift" in job:
        problem = compare_shifted(before, after, job)
    if problem is None and "width" in job:
        ws = after[job["sheet"]]
        got = ws.column_dimensions[job["width"]["col"]].width
        if abs((got or 0) - job["width"]["width"]) > 1e-6:
            problem = f"column {job['width']['col']} is {got} wide"
    if problem is None and "header" in job:
        ws = after[job["sheet"]]
        plain = [c.coordinate for c in ws[job["header"]] if c.value is not None and not c.font.b]
        if plain:
            problem = f"header cells not bold: {plain[:5]}"
    if problem is None and "freeze" in job:
        got = after[job["sheet"]].freeze_panes
        if got != job["freeze"]:
            problem = f"panes frozen at {got}"
    return {"after": job["after"], "readable_before": True, "problem": problem}


def compare(before, after, job):
    col, row = openpyxl.utils.cell.coordinate_from_string(job["cell"])
    edited = (job["sheet"], row, openpyxl.utils.cell.column_index_from_string(col))
    b, a = cells(before), cells(after)
    if a.get(edited) != job["value"]:
        return f"the edited cell holds {a.get(edited)!r}"
    for key, v in b.items():
        if key != edited and a.get(key) != v:
            return f"cell {key} was {v!r}, is {a.get(key)!r}"
    for key in a:
        if key != edited and key not in b:
            return f"cell {key} appeared"
    return None


def moved(key, job):
    """Where a cell of the shifted sheet goes, or None when deleted."""
    sheet, row, col = key
    if sheet != job["sheet"]:
        return key
    sh = job["shift"]
    i = row if sh["axis"] == "rows" else col
    if i >= sh["at"]:
        if sh["delete"] and i < sh["at"] + sh["count"]:
            return None
        i += -sh["count"] if sh["delete"] else sh["count"]
    return (sheet, i, col) if sh["axis"] == "rows" else (sheet, row, i)


def compare_shifted(before, after, job):
    b, a = cells(before), cells(after)
    formula = lambda v: isinstance(v, str) and v.startswith("=")  # noqa: E731
    for key, v in b.items():
        to = moved(key, job)
        if to is None or formula(v):
            continue
        if a.get(to) != v:
            return f"cell {key} was {v!r}; at {to} is {a.get(to)!r}"
    return None


for line in sys.stdin:
    if line.strip():
        print(json.dumps(judge(json.loads(line))), flush=True)
