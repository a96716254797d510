#!/usr/bin/env python3
"""The document toolbox's figure for `make bench`, as a ratio measured in the
same run (these machines are noisy):

Markdown -> PDF of a 20-page report with 5 Mermaid diagrams (flowchart,
sequence, pie, gantt, timeline) and tables: `baton tools call
create_document` (a whole process: start-up, its headless Chromium,
Mermaid, printing) vs mermaid-cli (`mmdc -i report.md`, which draws the
diagrams with the same Chromium through Puppeteer and writes SVG
pictures) followed by pandoc (Debian) printing with WeasyPrint. Both
outputs are checked: page count and the diagram labels found in the PDF's
text (pdftotext).

    bench_docs.py --baton PATH/baton [--runs 3]

mermaid-cli is installed under ~/.cache/baton-bench/node (npm, Chromium not
downloaded: Debian's is used), WeasyPrint into the fixture virtualenv (run
this with that virtualenv's Python), pandoc and poppler-utils from Debian.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "baton-bench"
CHROMIUM = "/usr/bin/chromium"

DIAGRAMS = [
    ("flowchart LR\n  A[Order received] --> B{Paid?}\n  B -->|yes| C[Ship parcel]\n  B -->|no| D[Send reminder]", "Send reminder"),
    ("sequenceDiagram\n  Customer->>Shop: Order\n  Shop-->>Customer: Confirmation", "Confirmation"),
    ("pie title Costs\n  \"Rent\" : 40\n  \"Salaries\" : 60", "Salaries"),
    ("gantt\n  title Launch plan\n  dateFormat YYYY-MM-DD\n  section Build\n  Design :a1, 2026-01-05, 5d\n  Prototype :after a1, 10d", "Prototype"),
    ("timeline\n  title Company history\n  2024 : Founded\n  2025 : First customer", "Founded"),
]


def report() -> str:
    """About 20 pages: 20 sections of text and a table, 5 with a diagram."""
    words = "The quarter closed with steady orders across every region and the team kept costs under the plan. ".split()
    md = ["# Annual report\n"]
    for s in range(1, 21):
        md.append(f"## Section {s}\n")
        for p in range(3):
            md.append(" ".join(words[(s + p + i) % len(words)] for i in range(60)) + ".\n")
        md.append("| Month | Sales | Costs |\n|---|---:|---:|\n" + "".join(f"| M{m} | {s * 100 + m} | {s * 40 + m} |\n" for m in range(1, 9)))
        if s % 4 == 1:
            md.append(f"```mermaid\n{DIAGRAMS[s // 4][0]}\n```\n")
        md.append("<!-- pagebreak -->\n")
    return "\n".join(md)


def ensure_tools(venv_python: str) -> Path:
    if not shutil.which("pandoc") or not shutil.which("pdftotext"):
        subprocess.run(["apt-get", "install", "-y", "-q", "pandoc", "poppler-utils"], check=True, capture_output=True)
    try:
        import weasyprint  # noqa: F401
    except ImportError:
        subprocess.run([venv_python, "-m", "pip", "install", "-q", "weasyprint"], check=True)
    node = CACHE / "node"
    if not (node / "node_modules" / "@mermaid-js" / "mermaid-cli").exists():
        node.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1")
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(node), "@mermaid-js/mermaid-cli@11"], check=True, env=env)
    return node


def pdf_facts(pdf: Path) -> tuple[int, int]:
    """Pages, and how many diagram labels its text holds."""
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    pages = int(next(l.split()[-1] for l in info.splitlines() if l.startswith("Pages:")))
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout.split())
    return pages, sum(1 for _, label in DIAGRAMS if label in text)


def timed(cmd: list[str], **kw) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, **kw)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baton", required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    node = ensure_tools(sys.executable)
    work = Path(tempfile.mkdtemp(prefix="baton-bench-docs-"))
    ws = work / "ws"
    ws.mkdir()
    md = report()
    (work / "report.md").write_text(md, encoding="utf-8")
    call = json.dumps({"method": "create_document", "path": "/report.pdf", "content": md})
    env = dict(os.environ, HOME=str(work / "home"), BATON_DATA_DIR=str(work / "data"), BATON_CONFIG_DIR=str(work / "config"))
    (work / "puppeteer.json").write_text(json.dumps({"executablePath": CHROMIUM, "args": ["--no-sandbox"]}))
    (work / "mermaid.json").write_text(json.dumps({"htmlLabels": False, "flowchart": {"htmlLabels": False}}))
    mmdc = node / "node_modules" / ".bin" / "mmdc"
    bt, ot = [], []
    for _ in range(a.runs):
        bt.append(timed([a.baton, "--workspace", str(ws), "tools", "call", call], env=env))
        t = timed([str(mmdc), "-p", str(work / "puppeteer.json"), "-c", str(work / "mermaid.json"), "-i", str(work / "report.md"), "-o", str(work / "drawn.md"), "-e", "svg"], cwd=work)
        t += timed(["pandoc", str(work / "drawn.md"), "-o", str(work / "pandoc.pdf"), "--pdf-engine", str(Path(sys.executable).parent / "weasyprint")], cwd=work)
        ot.append(t)
    b, o = statistics.median(bt), statistics.median(ot)
    bp, bl = pdf_facts(ws / "report.pdf")
    op, ol = pdf_facts(work / "pandoc.pdf")
    print(f"Markdown -> PDF, {len(md) / 1e3:.0f} KB report with {len(DIAGRAMS)} diagrams: baton {b:.2f} s ({bp} pages, {bl}/{len(DIAGRAMS)} diagram labels as text) vs "
          f"mermaid-cli + pandoc/WeasyPrint {o:.2f} s ({op} pages, {ol}/{len(DIAGRAMS)}): {o / b:.1f}x; whole processes, medians of {a.runs}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
