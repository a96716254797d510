#!/usr/bin/env python3
"""File→Markdown: Baton's converters against Microsoft markitdown on the
fixture corpus in tests/fixtures/docs (ground truth in truth.json).

Throughput: Baton is timed as the wall time of one `baton convert --json
FILE...` process over the whole corpus; markitdown in-process
(`MarkItDown().convert(path)` per file, import and initialisation excluded).
One untimed warm-up pass of each, then --runs timed passes alternating the
two; the medians are compared. The warm-up outputs are the ones scored.

Fidelity, computed the same way for both tools:
  * similarity: the Markdown is reduced to words (links and images to their
    text, backslash escapes undone, `#*|>` and backticks dropped, page-marker
    comment lines and table separator lines dropped), lower-cased, and
    non-alphanumerics stripped from each word's ends; the score is the longest
    common subsequence of truth words and output words divided by the number
    of truth words (in-order word recall). For `exact` fixtures it is 1 when
    the exact text (whitespace collapsed) is contained in the output.
  * tables: fraction of truth `cells` that are a cell of some Markdown table
    line (a line starting with `|`) of the output.
  * headings: fraction of truth `headings` contained in some line starting
    with `#`.
A failed conversion scores 0 everywhere. Images and scanned PDFs (needs_ocr)
are left out unless --ocr; then they are scored and timed separately.

Only the standard library and markitdown are used.
"""
from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FIXTURES = ROOT / "tests" / "fixtures" / "docs"

# ---------------------------------------------------------------- ground truth


def big_xlsx_text(fx: dict) -> str:
    """truth.json leaves big.xlsx's text out; rebuild it from the generator's rules."""
    header = fx["cells"][: fx["cols"]]
    categories = None
    try:  # read BIG_CATEGORIES from the generator without running it
        tree = ast.parse((ROOT / "scripts" / "make_fixtures.py").read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "BIG_CATEGORIES" for t in node.targets):
                categories = ast.literal_eval(node.value)
    except (OSError, SyntaxError, ValueError):
        pass
    if not categories:  # fall back to header, first and last row only
        return "\n".join("\t".join(r) for r in (header, fx["first_row"], fx["last_row"]))

    def num(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else str(v)

    rows = ["\t".join(header)]
    for i in range(1, fx["rows"]):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=i % 366)
        rows.append("\t".join([str(i), f"Item {i:05d}", categories[i % len(categories)], num(i * 1.25),
                               day.isoformat(), "TRUE" if i % 3 == 0 else "FALSE"]))
    return "\n".join(rows)


def load_corpus(fixtures: Path, ocr: bool) -> tuple[list[dict], list[dict]]:
    truth = json.loads((fixtures / "truth.json").read_text(encoding="utf-8"))
    main, ocr_set = [], []
    for fx in truth["fixtures"]:
        fx = dict(fx)
        if fx.get("text") is None and fx["file"] == "big.xlsx":
            fx["text"] = big_xlsx_text(fx)
        fx["path"] = str(fixtures / fx["file"])
        (ocr_set if fx.get("needs_ocr") else main).append(fx)
    return main, (ocr_set if ocr else [])


# ---------------------------------------------------------------- metrics

LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)")
ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
PAGE_MARKER = re.compile(r"^\s*<!--\s*page\s+\d+\s*-->\s*$", re.I)
TABLE_SEP = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
DROP = str.maketrans("", "", "#*|>`")
PIPE_SPLIT = re.compile(r"(?<!\\)\|")


def strip_ends(w: str) -> str:
    i, j = 0, len(w)
    while i < j and not w[i].isalnum():
        i += 1
    while j > i and not w[j - 1].isalnum():
        j -= 1
    return w[i:j]


def to_words(md: str) -> list[str]:
    words = []
    for line in md.splitlines():
        if PAGE_MARKER.match(line) or (TABLE_SEP.match(line) and "-" in line):
            continue
        line = ESCAPE.sub(r"\1", LINK.sub(r"\1", line)).translate(DROP)
        for w in line.lower().split():
            w = strip_ends(w)
            if w:
                words.append(w)
    return words


def lcs_len(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence (bit-parallel, Hyyrö 2004)."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, w in enumerate(b):
        masks[w] = masks.get(w, 0) | (1 << i)
    full = (1 << len(b)) - 1
    v = full
    for w in a:
        m = masks.get(w)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(b) - v.bit_count()


def collapse(s: str) -> str:
    return " ".join(s.split())


def clean_cell(s: str) -> str:
    s = ESCAPE.sub(r"\1", LINK.sub(r"\1", s.strip()))
    for mark in ("**", "__", "*", "_", "`"):
        if len(s) > 2 * len(mark) and s.startswith(mark) and s.endswith(mark):
            s = s[len(mark):-len(mark)]
    return collapse(s.replace("<br>", " "))


def table_cells(md: str) -> set[str]:
    cells = set()
    for line in md.splitlines():
        if line.lstrip().startswith("|") and not TABLE_SEP.match(line):
            cells.update(clean_cell(c) for c in PIPE_SPLIT.split(line.strip()))
    return cells


def heading_lines(md: str) -> list[str]:
    return [collapse(line.strip().lstrip("#").translate(DROP)).casefold()
            for line in md.splitlines() if line.lstrip().startswith("#")]


def score(fx: dict, md: str | None) -> dict:
    truth_words = to_words(fx["text"] or "")
    out: dict = {"sim": 0.0, "tables": 0.0 if fx["cells"] else None,
                 "headings": 0.0 if fx["headings"] else None, "leaks": []}
    if md is None:
        return out
    if fx.get("exact") and collapse(fx["text"]) in collapse(md):
        out["sim"] = 1.0
    elif truth_words:
        out["sim"] = lcs_len(truth_words, to_words(md)) / len(truth_words)
    else:
        out["sim"] = 1.0
    if fx["cells"]:
        have = table_cells(md)
        out["tables"] = sum(collapse(c) in have for c in fx["cells"]) / len(fx["cells"])
    if fx["headings"]:
        lines = heading_lines(md)
        out["headings"] = sum(any(collapse(h).casefold() in l for l in lines)
                              for h in fx["headings"]) / len(fx["headings"])
    out["leaks"] = [s for s in fx.get("must_not_contain", []) if s in md]
    return out


# ---------------------------------------------------------------- runners


def run_baton(baton: str, files: list[dict], timeout: float) -> tuple[float, list[dict]]:
    args = [baton, "convert", "--json", *(fx["path"] for fx in files)]
    t0 = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, timeout=timeout)
    elapsed = time.perf_counter() - t0
    try:
        results = json.loads(proc.stdout)
    except ValueError as e:
        sys.exit(f"baton convert --json: exit {proc.returncode}, stdout is not JSON ({e});"
                 f" stderr:\n{proc.stderr.decode(errors='replace')[-2000:]}")
    if not isinstance(results, list) or len(results) != len(files):
        sys.exit(f"baton convert --json: expected an array of {len(files)} objects, got "
                 f"{type(results).__name__} of {len(results) if isinstance(results, list) else '?'}")
    for fx, r in zip(files, results):
        if r.get("file") != fx["path"]:
            print(f"warning: baton result for {fx['path']} names {r.get('file')!r}", file=sys.stderr)
    return elapsed, results


def baton_outcome(r: dict) -> tuple[str | None, str | None]:
    if r.get("error") is not None or not isinstance(r.get("markdown"), str):
        return None, str(r.get("error") or "no markdown in result")
    return r["markdown"], None


def run_markitdown(md, files: list[dict]) -> tuple[float, list[tuple[str | None, str | None]], list[float]]:
    outcomes, per_file = [], []
    t0 = time.perf_counter()
    for fx in files:
        t1 = time.perf_counter()
        try:
            outcomes.append((md.convert(fx["path"]).text_content or "", None))
        except Exception as e:  # noqa: BLE001 - every failure is a result here
            outcomes.append((None, f"{type(e).__name__}: {' '.join(str(e).split())[:160]}"))
        per_file.append(time.perf_counter() - t1)
    return time.perf_counter() - t0, outcomes, per_file


def bench_set(baton: str, md, files: list[dict], runs: int, timeout: float) -> dict:
    """Warm-up pass (scored), then `runs` timed passes alternating the two tools."""
    _, b_results = run_baton(baton, files, timeout)
    _, m_outcomes, _ = run_markitdown(md, files)
    b_times, m_times, m_file_times = [], [], []
    for _ in range(runs):
        b_times.append(run_baton(baton, files, timeout)[0])
        t, _, per_file = run_markitdown(md, files)
        m_times.append(t)
        m_file_times.append(per_file)
    rows = []
    for i, fx in enumerate(files):
        b_md, b_err = baton_outcome(b_results[i])
        m_md, m_err = m_outcomes[i]
        rows.append({
            "file": fx["file"], "format": fx["format"], "needs_ocr": bool(fx.get("needs_ocr")),
            "baton": {**score(fx, b_md), "error": b_err, "chars": len(b_md or ""),
                      "warnings": b_results[i].get("warnings") or []},
            "markitdown": {**score(fx, m_md), "error": m_err, "chars": len(m_md or ""),
                           "median_s": statistics.median(t[i] for t in m_file_times)},
        })
    b_med, m_med = statistics.median(b_times), statistics.median(m_times)
    return {
        "files": len(files), "rows": rows,
        "baton": {"times_s": b_times, "median_s": b_med, "files_per_s": len(files) / b_med},
        "markitdown": {"times_s": m_times, "median_s": m_med, "files_per_s": len(files) / m_med},
        "ratio": m_med / b_med,
    }


# ---------------------------------------------------------------- report


def mean(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def summary(rows: list[dict]) -> dict:
    return {tool: {k: mean([r[tool][k] for r in rows]) for k in ("sim", "tables", "headings")}
            for tool in ("baton", "markitdown")}


def fmt(x, digits=3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def print_table(rows: list[dict]) -> None:
    w = max(len(r["file"]) for r in rows)
    print(f"{'file':<{w}}  {'baton sim':>9}  {'mkd sim':>9}  {'baton tbl':>9}  {'mkd tbl':>9}"
          f"  {'baton hdg':>9}  {'mkd hdg':>9}  notes")
    for r in rows:
        b, m = r["baton"], r["markitdown"]
        notes = []
        for tool, x in (("baton", b), ("markitdown", m)):
            if x["error"]:
                notes.append(f"{tool} failed")
            elif x["chars"] == 0:
                notes.append(f"{tool} empty")
            if x["leaks"]:
                notes.append(f"{tool} leaks {', '.join(map(repr, x['leaks']))}")
        def cell(x, k, d):
            if k != "sim" and x[k] is None:
                return "-"
            return "FAIL" if x["error"] else fmt(x[k], d)
        print(f"{r['file']:<{w}}  {cell(b, 'sim', 3):>9}  {cell(m, 'sim', 3):>9}  {cell(b, 'tables', 2):>9}"
              f"  {cell(m, 'tables', 2):>9}  {cell(b, 'headings', 2):>9}  {cell(m, 'headings', 2):>9}"
              f"  {'; '.join(notes)}")


def print_summary(res: dict, label: str = "") -> None:
    s = summary(res["rows"])
    b, m = s["baton"], s["markitdown"]
    print(f"convert throughput{label}: Baton {res['baton']['files_per_s']:.1f} files/s, markitdown "
          f"{res['markitdown']['files_per_s']:.1f} files/s -> ratio {res['ratio']:.1f}"
          + ("" if label else " (goal >= 20)"))
    print(f"convert fidelity (mean word recall){label}: Baton {fmt(b['sim'])}, markitdown {fmt(m['sim'])}")
    print(f"tables preserved{label}: Baton {fmt(b['tables'], 2)}, markitdown {fmt(m['tables'], 2)}")
    print(f"headings preserved{label}: Baton {fmt(b['headings'], 2)}, markitdown {fmt(m['headings'], 2)}")
    for tool, name in (("markitdown", "markitdown"), ("baton", "Baton")):
        failed = [f"{r['file']} ({r[tool]['error'][:60]})" for r in res["rows"] if r[tool]["error"]]
        empty = [r["file"] for r in res["rows"] if not r[tool]["error"] and r[tool]["chars"] == 0]
        lost = [f"{r['file']} {r[tool]['tables']:.2f}" for r in res["rows"]
                if not r[tool]["error"] and r[tool]["tables"] is not None and r[tool]["tables"] < 1]
        leaks = [r["file"] for r in res["rows"] if r[tool]["leaks"]]
        print(f"  {name} failed: {', '.join(failed) or 'none'}")
        if empty:
            print(f"  {name} empty output: {', '.join(empty)}")
        print(f"  {name} lost table cells (fraction kept): {', '.join(lost) or 'none'}")
        if leaks:
            print(f"  {name} output contains must_not_contain strings (raw markup/hidden text): {', '.join(leaks)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baton", required=True, help="path of the baton binary")
    ap.add_argument("--runs", type=int, default=5, help="timed passes per tool (median), default 5")
    ap.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="fixture folder with truth.json")
    ap.add_argument("--ocr", action="store_true", help="also score and time the image/scanned (needs_ocr) files")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed per baton process")
    ap.add_argument("--json", metavar="OUT", type=Path, help="write the raw numbers here")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")

    main_set, ocr_set = load_corpus(args.fixtures, args.ocr)
    t_start = time.perf_counter()
    t0 = time.perf_counter()
    from importlib.metadata import version
    from markitdown import MarkItDown
    md = MarkItDown()
    init_s = time.perf_counter() - t0
    mkd_version = version("markitdown")
    print(f"markitdown {mkd_version} (import + init {init_s:.2f} s, not timed); {args.runs} timed runs each,"
          f" medians; corpus {len(main_set)} files" + (f" + {len(ocr_set)} OCR files" if ocr_set else ""))

    res = bench_set(args.baton, md, main_set, args.runs, args.timeout)
    print()
    print_table(res["rows"])
    print()
    print_summary(res)
    out = {"markitdown_version": mkd_version, "markitdown_init_s": init_s, "runs": args.runs,
           "main": {**res, "summary": summary(res["rows"])}}

    if ocr_set:
        ocr = bench_set(args.baton, md, ocr_set, args.runs, args.timeout)
        print("\n== OCR files (images, scanned PDF; markitdown does no OCR without an LLM) ==")
        print_table(ocr["rows"])
        print()
        print_summary(ocr, " (OCR files)")
        both = summary(res["rows"] + ocr["rows"])
        b, m = both["baton"], both["markitdown"]
        print(f"convert fidelity (mean word recall) incl. OCR files: Baton {fmt(b['sim'])},"
              f" markitdown {fmt(m['sim'])}")
        out["ocr"] = {**ocr, "summary": summary(ocr["rows"])}
        out["all_summary"] = both
    out["total_wall_s"] = time.perf_counter() - t_start
    print(f"\n(benchmark wall time {out['total_wall_s']:.1f} s)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
