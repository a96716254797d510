#!/usr/bin/env python3
"""Builds the document fixture corpus in tests/fixtures/docs/ and the
spreadsheet toolbox fixtures in tests/fixtures/sheets/.

Every fixture is made by a real producer (python-docx, openpyxl, python-pptx,
ReportLab, Pillow, EbookLib, Python's email package, LibreOffice) from source
strings defined in this file, and truth.json is written from the SAME
strings, never by extracting text back out of the files. The sheet fixtures
are checked through scripts/sheet_dump.py against the same constants.

Run through scripts/make-fixtures.sh, which installs the producers. Usage:

    make_fixtures.py [--out DIR] [--sheets-out DIR] [--only docs|sheets] [--verify-only]

The script rewrites every fixture on each run (idempotent). Outputs of the
Python producers are byte-for-byte reproducible; LibreOffice outputs have
their timestamps pinned but may still differ in a few bytes between runs
(LibreOffice writes per-session rsids and PDF object order it chooses).
"""

from __future__ import annotations

import argparse
import base64
import csv
import datetime as dt
import email
import email.policy
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from email.message import EmailMessage
from email.utils import format_datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "docs"
DEFAULT_SHEETS_OUT = ROOT / "tests" / "fixtures" / "sheets"

FIXED_DT = dt.datetime(2024, 1, 2, 3, 4, 5)
FIXED_ZIP_TIME = (2024, 1, 2, 3, 4, 6)  # even seconds: DOS time has 2 s steps
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_REGULAR = FONT_DIR / "DejaVuSans.ttf"
FONT_BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"
SOFFICE_TIMEOUT_S = 180

# --------------------------------------------------------------------------
# Source text. truth.json is derived from these constants only.
# --------------------------------------------------------------------------

REPORT_TITLE = "Baton Quarterly Report"
REPORT_HEADER = "Baton Quarterly Header"
REPORT_FOOTER = "Page footer text"
REPORT_FOOTNOTE = "Figures are unaudited and rounded to the nearest thousand."
REPORT_LINK_TEXT = "project website"
REPORT_LINK_URL = "https://example.com/baton/report"
REPORT_TABLE = [
    ["Region", "Q1", "Q2", "Q3"],
    ["North", "120", "135", "150"],
    ["South", "98", "101", "117"],
]
# (kind, payload). Kinds: title, h1, h2, runs, footnote_p, bullet (level),
# number, table, link_p, p.
REPORT_BLOCKS = [
    ("title", REPORT_TITLE),
    ("h1", "Executive Summary"),
    ("runs", [
        ("This quarter the team shipped ", None),
        ("three major releases", "bold"),
        (" and closed the ", None),
        ("long-standing", "italic"),
        (" reliability backlog.", None),
    ]),
    ("footnote_p", "Revenue grew by 12 percent compared with the previous quarter."),
    ("h2", "Highlights"),
    ("bullet", ("Faster start-up on all platforms", 0)),
    ("bullet", ("Cold start under one second", 1)),
    ("bullet", ("Warm start under 200 ms", 1)),
    ("bullet", ("New document converters", 0)),
    ("bullet", ("Better handling of accented names such as Zoë and Ångström", 0)),
    ("h2", "Next Steps"),
    ("number", "Finish the converter test corpus"),
    ("number", "Publish the release notes"),
    ("number", "Plan the next quarter"),
    ("h1", "Financials"),
    ("p", "The table below lists revenue by region in thousands of euros (€)."),
    ("table", REPORT_TABLE),
    ("link_p", ("More details are on the ", REPORT_LINK_TEXT, ".")),
    ("p", "End of report."),
]

LAYOUT_P1 = [
    ("h1", "Layout Test Document"),
    ("p", "This PDF was generated with ReportLab to test text extraction from a born-digital file."),
    ("p", "The first page contains a bulleted list and a ruled table."),
    ("bullets", ["Alpha bullet item", "Beta bullet item", "Gamma bullet item"]),
    ("h2", "Inventory Table"),
    ("table", [
        ["Part", "Count", "Location"],
        ["Bolt", "250", "Shelf A"],
        ["Nut", "400", "Shelf B"],
        ["Washer", "1000", "Shelf C"],
        ["Bracket", "35", "Shelf D"],
    ]),
]
LAYOUT_P2_HEADING = "Two Column Section"
LAYOUT_LEFT = [
    "LEFT-1: The left column begins here and describes the first half of the "
    "story, which a reader finishes before moving to the right column.",
    "LEFT-2: A careful converter keeps these sentences together instead of "
    "interleaving them line by line with the text beside them.",
    "LEFT-3: This is the last paragraph of the left column.",
]
LAYOUT_RIGHT = [
    "RIGHT-1: The right column continues the story only after the left column "
    "has ended, so its lines must come later in the output.",
    "RIGHT-2: Naive extraction that reads straight across the page mixes "
    "these words with the left column.",
    "RIGHT-3: This is the last paragraph of the right column.",
]

SCANNED_LINES = [
    "SCANNED LETTER",
    "Dear customer,",
    "This page was rendered as an image and has no text layer.",
    "Reference number: SCN-4471",
    "Please reply before 31 March 2024.",
    "Kind regards,",
    "Baton Fixtures Team",
]

INVOICE_LINES = [
    "INVOICE 2024-117",
    "Date: 2024-03-15",
    "Bill to: Example GmbH",
    "Item: Consulting services",
    "Total due: 1,234.56 EUR",
    "Thank you for your business",
]

BUDGET_HEADER = ["Item", "Quantity", "Unit price", "Total", "Ordered"]
# Prices are exact binary fractions so every product prints the same in any
# producer (49, 2699.25, 455; sum 3203.25).
BUDGET_ROWS = [
    ("Notebooks", 4, 12.25, dt.datetime(2024, 1, 15)),
    ("Monitors", 3, 899.75, dt.datetime(2024, 2, 3)),
    ("Cables", 10, 45.5, dt.datetime(2024, 3, 28)),
]
BUDGET_NOTES = [
    "Remarks",
    "Prices are in EUR and exclude VAT.",
    "Monitors were ordered in bulk.",
    "Review the budget again in April.",
]
BIG_HEADER = ["ID", "Name", "Category", "Amount", "Date", "Active"]
BIG_ROWS = 5000
BIG_CATEGORIES = ["Hardware", "Software", "Services", "Travel"]

DECK_SLIDES = [
    ("Baton Product Update",
     [("Quarterly progress overview", 0), ("Three releases shipped", 1),
      ("Start-up time halved", 1), ("Customer feedback is positive", 0)],
     "Welcome everyone and introduce the agenda for the update."),
    ("Roadmap",
     [("Document converters", 0), ("PDF, Office and e-mail", 1),
      ("Offline speech input", 0), ("Plugin marketplace", 0)],
     "Stress that the roadmap dates are still tentative."),
    ("Questions",
     [("Ask anything about the release", 0), ("Contact the team on the forum", 0)],
     "Leave ten minutes for questions at the end."),
]

HTML_TITLE = "Baton Fixture Page"
HTML_H1 = "Fixture Page Heading"
HTML_INTRO = "This page tests HTML to Markdown conversion with inline formatting and a documentation link."
HTML_LIST_HEADING = "Shopping List"
HTML_LIST = ["Apples", "Bread", "Whole wheat", "Coffee"]
HTML_TABLE_HEADING = "Price Table"
HTML_TABLE = [
    ["Product", "Price", "Stock"],
    ["Apples", "2.50", "40"],
    ["Bread", "3.10", "12"],
    ["Coffee", "8.99", "7"],
]
HTML_IMG_ALT = "Red square logo"
HTML_OUTRO = "Footer paragraph after the image."

EPUB_TITLE = "The Fixture Book"
EPUB_CHAPTERS = [
    ("Chapter One: The Beginning", [
        "It was a quiet morning when the first document arrived.",
        "Nobody knew yet that it would need to become Markdown.",
    ]),
    ("Chapter Two: The Journey", [
        "The converter read every page in order and kept the headings.",
        "By evening the whole book was plain text, and the tests passed.",
    ]),
]

MAIL_FROM = "Alice Example <alice@example.com>"
MAIL_TO = "Bob Example <bob@example.org>"
MAIL_SUBJECT = "Quarterly report draft – café budget"
MAIL_DATE = dt.datetime(2024, 3, 15, 10, 30, 0, tzinfo=dt.timezone.utc)
MAIL_BODY_LINES = [
    "Hi Bob,",
    "",
    "Please find the draft notes attached.",
    "The budget review is scheduled for Thursday.",
    "",
    "Best,",
    "Alice",
]

CSV_HEADER = ["id", "name", "city", "amount", "note"]
CSV_ROWS = [
    ["1", "Alice", "Berlin", "1234.56", 'Likes "quotes"'],
    ["2", "Bob", "Paris, France", "99.5", "plain"],
    ["3", "Zoë", "München", "0.75", "multi word note"],
]

NOTES_TXT = (
    "Meeting notes, 15 March 2024\n"
    "\n"
    "Attendees: Alice, Bob, Carol\n"
    "Decisions:\n"
    "- Ship the converter corpus this week.\n"
    "- Review the budget in April.\n"
    "Open question: do we support encrypted PDFs?\n"
)

README_MD = """# Fixture Readme

This file is a small Markdown document used as a pass-through fixture.

## Usage

1. Install the tools.
2. Run the converter.
3. Compare with `truth.json`.

## Options

| Option | Meaning |
| ------ | ------- |
| `--out` | Output folder |
| `--verify-only` | Check existing files |

```sh
scripts/make-fixtures.sh
```

- Keep it **simple**.
- Keep it *deterministic*.
"""

CONFIG_OBJ = {
    "name": "baton-fixture",
    "version": 3,
    "features": {"ocr": True, "max_pages": 200},
    "providers": ["local", "remote"],
    "timeout_s": 30.5,
}

CONFIG_YAML = """# Baton fixture configuration
name: baton-fixture
version: 3
features:
  ocr: true
  max_pages: 200
providers:
  - local
  - remote
timeout_s: 30.5
"""

LAYOUT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<layout name="main" version="2">
  <!-- A small hand-written layout description -->
  <panel id="sidebar" width="240">
    <item label="Conversations"/>
    <item label="Documents"/>
  </panel>
  <panel id="content">
    <text>Welcome to Baton</text>
  </panel>
</layout>
"""

MAIN_RS = """//! Tiny example program used as a source-code fixture.

use std::collections::BTreeMap;

/// Counts words in `text`, case-insensitively.
fn word_counts(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

fn main() {
    let counts = word_counts("the quick brown fox jumps over the lazy dog");
    for (word, n) in &counts {
        println!("{word}: {n}");
    }
}
"""

# Spreadsheet toolbox fixtures (tests/fixtures/sheets/).
SALES_HEADER = ["Month", "Units", "Price", "Share", "Date", "Revenue"]
SALES_MONTHS = ["January", "February", "March", "April", "May", "June", "July",
                "August", "September", "October", "November", "December"]
SALES_UNITS = [120, 135, 150, 98, 101, 117, 160, 142, 128, 110, 175, 190]
# Exact binary fractions, so every product and sum prints the same anywhere.
SALES_PRICES = [12.5, 12.75, 13.0, 13.25, 12.5, 12.0, 11.75, 12.25, 12.5, 13.5, 14.0, 14.25]
SALES_NOTE = "Prices are in US dollars; revenue is units times price."
SALES_CHART_TITLE = "Units by month"
SALES_TABLE = "SalesTable"
NOTES_TITLE = "Notes for the sales sheet"
NOTES_LINES = [
    "The sales figures are samples made for tests.",
    "Figures for 2024 are provisional.",  # italic, filled
]
NOTES_LINK = ("Baton website", "https://example.com/baton/sheets")
NOTES_COMMENT = ("Checked by the fixtures script.", "Baton Fixtures")
PIVOT_REGIONS = ["North", "South", "East", "West"]
PIVOT_PRODUCTS = ["Bolts", "Nuts", "Washers"]
EXTERNAL_TARGET = "other.xlsx"
EXTERNAL_VALUE = 42

ENCRYPTED_USER_PASSWORD = "baton-user"
ENCRYPTED_OWNER_PASSWORD = "baton-owner"
ENCRYPTED_TEXT = "This document is encrypted with a user password."
ZIPBOMB_SIZE = 200 * 1024 * 1024

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def pkg_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


_CORE_DATE_RES = [
    (re.compile(rb"(<dcterms:created[^>]*>)[^<]*(</dcterms:created>)"), b"2024-01-02T03:04:05Z"),
    (re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)"), b"2024-01-02T03:04:05Z"),
    (re.compile(rb"(<cp:lastPrinted[^>]*>)[^<]*(</cp:lastPrinted>)"), b"2024-01-02T03:04:05Z"),
    (re.compile(rb"(<meta:creation-date>)[^<]*(</meta:creation-date>)"), b"2024-01-02T03:04:05"),
    (re.compile(rb"(<meta:print-date>)[^<]*(</meta:print-date>)"), b"2024-01-02T03:04:05"),
    (re.compile(rb"(<dc:date>)[^<]*(</dc:date>)"), b"2024-01-02T03:04:05"),
    (re.compile(rb"(<meta:editing-duration>)[^<]*(</meta:editing-duration>)"), b"PT0S"),
]
_CORE_MEMBERS = {"docProps/core.xml", "meta.xml"}
_ODF_RSID_RE = re.compile(rb'(config:name="Rsid(?:Root)?" config:type="int">)\d+')
_ODF_LIST_ID_RE = re.compile(rb'((?:xml:id|text:continue-list)=")(list\d+)(")')


_CHART_AX_ID_RE = re.compile(rb'(<c:(?:axId|crossAx) val=")(\d+)(")')


def _normalize_odf_member(name: str, data: bytes) -> bytes:
    """LibreOffice draws list xml:ids, the session rsid and chart axis ids at
    random: number them by first appearance instead."""
    if name.startswith("xl/charts/chart") and name.endswith(".xml"):
        axes: dict[bytes, bytes] = {}

        def renumber_axis(m: re.Match) -> bytes:
            new = axes.setdefault(m.group(2), b"%d" % (10000 + len(axes)))
            return m.group(1) + new + m.group(3)

        return _CHART_AX_ID_RE.sub(renumber_axis, data)
    if name == "settings.xml":
        return _ODF_RSID_RE.sub(rb"\g<1>1", data)
    if name in ("content.xml", "styles.xml"):
        ids: dict[bytes, bytes] = {}

        def renumber(m: re.Match) -> bytes:
            new = ids.setdefault(m.group(2), b"list%d" % (len(ids) + 1))
            return m.group(1) + new + m.group(3)

        return _ODF_LIST_ID_RE.sub(renumber, data)
    return data


def normalize_zip(path: Path) -> None:
    """Rewrites a zip container with fixed entry times and pinned document
    dates (docProps/core.xml, ODF meta.xml), keeping entry order and each
    entry's compression (so ODF/EPUB 'mimetype' stays first and stored)."""
    with zipfile.ZipFile(path) as src:
        entries = [(info, src.read(info.filename)) for info in src.infolist()]
    tmp = path.with_suffix(path.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w") as dst:
        for info, data in entries:
            if info.filename in _CORE_MEMBERS:
                for rx, value in _CORE_DATE_RES:
                    data = rx.sub(lambda m, v=value: m.group(1) + v + m.group(2), data)
            data = _normalize_odf_member(info.filename, data)
            zi = zipfile.ZipInfo(info.filename, FIXED_ZIP_TIME)
            zi.compress_type = info.compress_type
            zi.external_attr = info.external_attr
            zi.create_system = 3
            dst.writestr(zi, data, compresslevel=9 if info.compress_type == zipfile.ZIP_DEFLATED else None)
    tmp.replace(path)


def normalize_pdf_dates(path: Path) -> None:
    """Pins /CreationDate, /ModDate and /ID in a PDF written by another tool,
    replacing bytes with bytes of the same length so xref offsets hold."""
    data = path.read_bytes()

    def fix_date(m: re.Match) -> bytes:
        s = m.group(2)
        fixed = b"D:20240102030405"
        return m.group(1) + (fixed + s[len(fixed):] if len(s) >= len(fixed) else s) + m.group(3)

    data = re.sub(rb"(/(?:CreationDate|ModDate)\s*\()([^)]*)(\))", fix_date, data)
    ident = hashlib.sha256(path.name.encode()).hexdigest().upper().encode()

    def fix_id(m: re.Match) -> bytes:
        h = m.group(2)
        return m.group(1) + (ident * 4)[: len(h)] + m.group(3)

    data = re.sub(rb"(/ID\s*\[\s*<)([0-9A-Fa-f]+)(>)", fix_id, data)
    data = re.sub(rb"(>\s*<)([0-9A-Fa-f]+)(>\s*\])", fix_id, data)
    data = re.sub(rb"(/DocChecksum\s*/)([0-9A-Fa-f]+)()", fix_id, data)
    for tag in (rb"xmp:CreateDate", rb"xmp:ModifyDate", rb"xmp:MetadataDate"):
        data = re.sub(rb"(<" + tag + rb">)(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)", rb"\g<1>2024-01-02T03:04:05", data)
    path.write_bytes(data)


def normalize_rtf_dates(path: Path) -> None:
    data = path.read_bytes()
    data = re.sub(
        rb"\\(creatim|revtim|printim)\\yr\d+\\mo\d+\\dy\d+\\hr\d+\\min\d+",
        rb"\\\1\\yr2024\\mo1\\dy2\\hr3\\min4",
        data,
    )
    path.write_bytes(data)


class Soffice:
    """Runs LibreOffice headless with a private, throw-away profile. Each
    call starts its own process group and kills that group (and nothing
    else) if it overruns, so no soffice is left behind."""

    def __init__(self) -> None:
        exe = shutil.which("soffice") or shutil.which("libreoffice")
        if not exe:
            raise SystemExit("soffice not found: run scripts/make-fixtures.sh")
        self.exe = exe
        self.profile = Path(tempfile.mkdtemp(prefix="baton-fixtures-lo-"))
        user = self.profile / "user"
        user.mkdir(parents=True)
        # Always recalculate formulas on load, so files converted from
        # openpyxl output (which stores no cached values) carry them.
        (user / "registrymodifications.xcu").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
            '<item oor:path="/org.openoffice.Office.Calc/Formula/Load">'
            '<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>\n'
            '<item oor:path="/org.openoffice.Office.Calc/Formula/Load">'
            '<prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>\n'
            "</oor:items>\n"
        )
        self._version: str | None = None

    def _run(self, args: list[str], capture: bool = True) -> subprocess.CompletedProcess:
        cmd = [
            self.exe,
            f"-env:UserInstallation={self.profile.as_uri()}",
            "--headless", "--invisible", "--norestore", "--nologo",
            "--nodefault", "--nolockcheck",
            *args,
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=SOFFICE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise RuntimeError(f"soffice timed out: {' '.join(args)}")
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def version(self) -> str:
        if self._version is None:
            r = self._run(["--version"])
            words = r.stdout.decode(errors="replace").split()
            self._version = " ".join(words[:2]) if words else "LibreOffice"
        return self._version

    def convert(self, src: Path, target: str, dest: Path) -> Path:
        """Converts src with filter spec `target` (e.g. 'pdf:writer_pdf_Export')
        and moves the result to dest."""
        ext = target.split(":", 1)[0]
        with tempfile.TemporaryDirectory(prefix="baton-fixtures-conv-") as td:
            r = self._run(["--convert-to", target, "--outdir", td, str(src)])
            produced = Path(td) / (src.stem + "." + ext)
            if r.returncode != 0 or not produced.exists():
                raise RuntimeError(
                    f"soffice failed converting {src.name} to {target}: rc={r.returncode}\n"
                    f"{r.stdout.decode(errors='replace')}{r.stderr.decode(errors='replace')}")
            shutil.move(str(produced), dest)
        return dest

    def cat(self, src: Path) -> str:
        r = self._run(["--cat", str(src)])
        if r.returncode != 0:
            raise RuntimeError(f"soffice --cat {src.name} failed: {r.stderr.decode(errors='replace')}")
        return r.stdout.decode("utf-8", errors="replace")

    def run_uno(self, script_args: list[str]) -> None:
        """Starts soffice listening on a private pipe, runs `python3
        script_args...` (the system Python that has python3-uno) with the
        pipe name inserted after the first argument, then ends that soffice
        (its process group) if the script did not."""
        py = uno_python()
        pipe = f"baton_fixtures_{os.getpid()}"
        cmd = [
            self.exe,
            f"-env:UserInstallation={self.profile.as_uri()}",
            "--headless", "--invisible", "--norestore", "--nologo",
            "--nodefault", "--nolockcheck",
            f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
        ]
        office = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        try:
            r = subprocess.run([py, script_args[0], script_args[1], pipe, *script_args[2:]],
                               capture_output=True, timeout=SOFFICE_TIMEOUT_S)
            if r.returncode != 0:
                raise RuntimeError(f"UNO script {script_args[1]} failed: rc={r.returncode}\n"
                                   f"{r.stdout.decode(errors='replace')}{r.stderr.decode(errors='replace')}")
            try:
                office.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        finally:
            if office.poll() is None:
                os.killpg(office.pid, signal.SIGKILL)
                office.wait()

    def close(self) -> None:
        shutil.rmtree(self.profile, ignore_errors=True)


def uno_python() -> str:
    """A Python that can `import uno` (Debian's python3-uno is built for the
    system /usr/bin/python3, not for the fixture venv)."""
    for py in ("/usr/bin/python3", shutil.which("python3")):
        if py and subprocess.run([py, "-c", "import uno"], capture_output=True).returncode == 0:
            return py
    raise SystemExit("no Python with the uno module: run scripts/make-fixtures.sh (installs python3-uno)")


# --------------------------------------------------------------------------
# DOCX (python-docx)
# --------------------------------------------------------------------------


def _add_hyperlink(paragraph, text: str, url: str) -> None:
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    r_id = paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), r_id)
    run = OxmlElement("w:r")
    rpr = OxmlElement("w:rPr")
    color = OxmlElement("w:color")
    color.set(qn("w:val"), "0563C1")
    underline = OxmlElement("w:u")
    underline.set(qn("w:val"), "single")
    rpr.append(color)
    rpr.append(underline)
    run.append(rpr)
    t = OxmlElement("w:t")
    t.set(qn("xml:space"), "preserve")
    t.text = text
    run.append(t)
    link.append(run)
    paragraph._p.append(link)


_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _add_footnotes_part(document, notes: list[str]) -> None:
    """python-docx has no footnote API: add word/footnotes.xml (with the
    separator notes Word expects) and relate it to the document part."""
    from xml.sax.saxutils import escape

    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    body = [
        f'<w:footnotes xmlns:w="{_W_NS}">',
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>'
        "<w:r><w:separator/></w:r></w:p></w:footnote>",
        '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>'
        "<w:r><w:continuationSeparator/></w:r></w:p></w:footnote>",
    ]
    for i, note in enumerate(notes, start=1):
        body.append(
            f'<w:footnote w:id="{i}"><w:p><w:pPr><w:spacing w:after="0"/><w:rPr><w:sz w:val="18"/></w:rPr></w:pPr>'
            '<w:r><w:rPr><w:vertAlign w:val="superscript"/><w:sz w:val="18"/></w:rPr><w:footnoteRef/></w:r>'
            f'<w:r><w:rPr><w:sz w:val="18"/></w:rPr><w:t xml:space="preserve"> {escape(note)}</w:t></w:r></w:p></w:footnote>'
        )
    body.append("</w:footnotes>")
    blob = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + "".join(body)).encode()
    part = Part(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, blob, document.part.package)
    document.part.relate_to(part, RT.FOOTNOTES)


def _add_footnote_reference(paragraph, note_id: int) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    run = OxmlElement("w:r")
    rpr = OxmlElement("w:rPr")
    va = OxmlElement("w:vertAlign")
    va.set(qn("w:val"), "superscript")
    rpr.append(va)
    run.append(rpr)
    ref = OxmlElement("w:footnoteReference")
    ref.set(qn("w:id"), str(note_id))
    run.append(ref)
    paragraph._p.append(run)


def make_docx(path: Path) -> None:
    import docx
    from docx.shared import Pt

    d = docx.Document()
    cp = d.core_properties
    cp.title = REPORT_TITLE
    cp.author = "Baton Fixtures"
    cp.last_modified_by = "Baton Fixtures"
    cp.subject = "Converter test fixture"
    cp.created = FIXED_DT
    cp.modified = FIXED_DT
    cp.last_printed = FIXED_DT
    cp.revision = 1

    section = d.sections[0]
    section.header.paragraphs[0].text = REPORT_HEADER
    section.footer.paragraphs[0].text = REPORT_FOOTER

    _add_footnotes_part(d, [REPORT_FOOTNOTE])

    for kind, payload in REPORT_BLOCKS:
        if kind == "title":
            d.add_heading(payload, level=0)
        elif kind == "h1":
            d.add_heading(payload, level=1)
        elif kind == "h2":
            d.add_heading(payload, level=2)
        elif kind == "runs":
            p = d.add_paragraph()
            for text, fmt in payload:
                r = p.add_run(text)
                r.bold = fmt == "bold"
                r.italic = fmt == "italic"
        elif kind == "footnote_p":
            p = d.add_paragraph(payload)
            _add_footnote_reference(p, 1)
        elif kind == "bullet":
            text, level = payload
            d.add_paragraph(text, style="List Bullet" if level == 0 else "List Bullet 2")
        elif kind == "number":
            d.add_paragraph(payload, style="List Number")
        elif kind == "p":
            d.add_paragraph(payload)
        elif kind == "table":
            t = d.add_table(rows=len(payload), cols=len(payload[0]))
            t.style = "Table Grid"
            for ri, row in enumerate(payload):
                for ci, value in enumerate(row):
                    cell = t.cell(ri, ci)
                    cell.text = value
                    if ri == 0:
                        for r in cell.paragraphs[0].runs:
                            r.bold = True
            # Mark the first row as a repeating header row.
            from docx.oxml import OxmlElement
            from docx.oxml.ns import qn
            trpr = t.rows[0]._tr.get_or_add_trPr()
            hdr = OxmlElement("w:tblHeader")
            trpr.append(hdr)
            d.add_paragraph()
        elif kind == "link_p":
            before, text, after = payload
            p = d.add_paragraph(before)
            _add_hyperlink(p, text, REPORT_LINK_URL)
            p.add_run(after)
        else:
            raise ValueError(kind)
    d.styles["Normal"].font.size = Pt(11)
    d.save(path)
    normalize_zip(path)


# --------------------------------------------------------------------------
# PDF (ReportLab, Pillow)
# --------------------------------------------------------------------------


def _rl_setup():
    import reportlab.rl_config as rl_config

    rl_config.invariant = 1  # fixed dates and IDs: reproducible bytes


def make_layout_pdf(path: Path) -> None:
    _rl_setup()
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import (BaseDocTemplate, Frame, FrameBreak, ListFlowable, ListItem,
                                    NextPageTemplate, PageBreak, PageTemplate, Paragraph, Spacer,
                                    Table, TableStyle)

    styles = getSampleStyleSheet()
    w, h = A4
    margin = 20 * mm
    gap = 10 * mm
    doc = BaseDocTemplate(str(path), pagesize=A4, title="Layout Test Document",
                          author="Baton Fixtures", subject="Converter test fixture",
                          creator="ReportLab", invariant=1)
    one = Frame(margin, margin, w - 2 * margin, h - 2 * margin, id="one")
    head_h = 25 * mm
    top = Frame(margin, h - margin - head_h, w - 2 * margin, head_h, id="top")
    col_w = (w - 2 * margin - gap) / 2
    col_h = h - 2 * margin - head_h
    left = Frame(margin, margin, col_w, col_h, id="left")
    right = Frame(margin + col_w + gap, margin, col_w, col_h, id="right")
    doc.addPageTemplates([
        PageTemplate(id="OneCol", frames=[one]),
        PageTemplate(id="TwoCol", frames=[top, left, right]),
    ])
    story = []
    for kind, payload in LAYOUT_P1:
        if kind == "h1":
            story.append(Paragraph(payload, styles["Heading1"]))
        elif kind == "h2":
            story.append(Paragraph(payload, styles["Heading2"]))
        elif kind == "p":
            story.append(Paragraph(payload, styles["BodyText"]))
        elif kind == "bullets":
            story.append(ListFlowable(
                [ListItem(Paragraph(t, styles["BodyText"])) for t in payload],
                bulletType="bullet", start="\u2022", leftIndent=15))
            story.append(Spacer(1, 6))
        elif kind == "table":
            t = Table(payload, colWidths=[50 * mm, 30 * mm, 40 * mm])
            t.setStyle(TableStyle([
                ("GRID", (0, 0), (-1, -1), 0.75, colors.black),
                ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]))
            story.append(t)
    story.append(NextPageTemplate("TwoCol"))
    story.append(PageBreak())
    story.append(Paragraph(LAYOUT_P2_HEADING, styles["Heading1"]))
    story.append(FrameBreak())
    for para in LAYOUT_LEFT:
        story.append(Paragraph(para, styles["BodyText"]))
    story.append(FrameBreak())
    for para in LAYOUT_RIGHT:
        story.append(Paragraph(para, styles["BodyText"]))
    doc.build(story)


LONG_PDF_PAGES = 300
LONG_PDF_PAGE = 212
LONG_PDF_FACT = ("Vessels over 5,000 gross tonnes pay pilotage dues of 0.42 EUR per tonne, "
                 "settled with the port authority before departure.")
LONG_PDF_SUBJECTS = ["crop rotation", "bridge inspection", "choir rehearsals", "library lending",
                     "bicycle repair", "school lunches", "winter road salting", "museum lighting",
                     "forest fire watch", "bee keeping", "street lamps", "tram timetables"]


def make_long_pdf(path: Path) -> None:
    """A 300-page handbook (one chapter a page, plain text with page
    numbers as the converter sees them); one sentence on page 212 answers
    a question put in other words (the attachment-passages test)."""
    _rl_setup()
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    styles = getSampleStyleSheet()
    rng = random.Random(300)
    verbs = ["is reviewed", "is planned", "is recorded", "is discussed", "is checked", "is scheduled"]
    times = ["every spring", "each month", "before the holidays", "after the first frost", "twice a year"]
    story = []
    for page in range(1, LONG_PDF_PAGES + 1):
        subject = LONG_PDF_SUBJECTS[page % len(LONG_PDF_SUBJECTS)]
        story.append(Paragraph(f"Chapter {page}: {subject.capitalize()}", styles["Heading1"]))
        for _ in range(6):
            words = [f"The {subject} {rng.choice(verbs)} {rng.choice(times)} by the committee."
                     for _ in range(3)]
            story.append(Paragraph(" ".join(words), styles["BodyText"]))
        if page == LONG_PDF_PAGE:
            story.append(Paragraph(LONG_PDF_FACT, styles["BodyText"]))
        if page < LONG_PDF_PAGES:
            story.append(PageBreak())
    SimpleDocTemplate(str(path), title="Town Handbook", author="Baton Fixtures",
                      creator="ReportLab", invariant=1).build(story)


def make_encrypted_pdf(path: Path) -> None:
    _rl_setup()
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    enc = StandardEncryption(ENCRYPTED_USER_PASSWORD, ownerPassword=ENCRYPTED_OWNER_PASSWORD,
                             canPrint=1, canModify=0, canCopy=0, canAnnotate=0, strength=128)
    c = canvas.Canvas(str(path), pagesize=A4, encrypt=enc, invariant=1)
    c.setFont("Helvetica", 14)
    c.drawString(72, A4[1] - 100, ENCRYPTED_TEXT)
    c.showPage()
    c.save()


def _font(size: int, bold: bool = False):
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT_BOLD if bold else FONT_REGULAR), size)


def render_lines(lines: list[str], size: tuple[int, int], first_px: int, body_px: int,
                 margin: int, spacing: float = 1.6, mode: str = "RGB"):
    from PIL import Image, ImageDraw

    img = Image.new(mode, size, "white")
    draw = ImageDraw.Draw(img)
    y = margin
    for i, line in enumerate(lines):
        px = first_px if i == 0 else body_px
        draw.text((margin, y), line, font=_font(px, bold=(i == 0)), fill="black")
        y += int(px * spacing)
    return img


def make_scanned_pdf(path: Path) -> None:
    # A4 at 200 dpi; 11 pt body text = ~31 px.
    img = render_lines(SCANNED_LINES, (1654, 2339), first_px=50, body_px=34, margin=180,
                       spacing=1.9, mode="L")
    img.save(path, "PDF", resolution=200.0, quality=80, title="Scanned letter",
             author="Baton Fixtures", producer="Pillow", creator="Baton fixtures",
             creationDate=FIXED_DT.timetuple(), modDate=FIXED_DT.timetuple())


def make_invoice_images(out: Path) -> None:
    img = render_lines(INVOICE_LINES, (1400, 760), first_px=64, body_px=48, margin=80)
    img.save(out / "invoice.png", "PNG", optimize=True)
    img.save(out / "invoice.jpg", "JPEG", quality=90)
    img.save(out / "invoice.tiff", "TIFF", compression="tiff_adobe_deflate", dpi=(200, 200))
    img.save(out / "invoice.webp", "WEBP", quality=90, method=6)


# --------------------------------------------------------------------------
# Spreadsheets (openpyxl)
# --------------------------------------------------------------------------


def _fmt_num(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def budget_totals() -> list:
    return [q * p for _, q, p, _ in BUDGET_ROWS]


def make_budget_xlsx(path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(BUDGET_HEADER)
    for c in ws[1]:
        c.font = Font(bold=True)
    for i, (item, qty, price, when) in enumerate(BUDGET_ROWS, start=2):
        ws.cell(row=i, column=1, value=item)
        ws.cell(row=i, column=2, value=qty)
        ws.cell(row=i, column=3, value=price)
        ws.cell(row=i, column=4, value=f"=B{i}*C{i}")
        c = ws.cell(row=i, column=5, value=when)
        c.number_format = "yyyy-mm-dd"
    last = len(BUDGET_ROWS) + 1
    total_row = last + 1
    ws.cell(row=total_row, column=1, value="Total").font = Font(bold=True)
    ws.cell(row=total_row, column=4, value=f"=SUM(D2:D{last})").font = Font(bold=True)
    for col, width in zip("ABCDE", (14, 10, 12, 12, 12)):
        ws.column_dimensions[col].width = width
    notes = wb.create_sheet("Notes")
    for line in BUDGET_NOTES:
        notes.append([line])
    notes.column_dimensions["A"].width = 40
    wb.properties.creator = "Baton Fixtures"
    wb.properties.created = FIXED_DT
    wb.save(path)
    normalize_zip(path)


def big_row(i: int) -> list:
    return [
        i,
        f"Item {i:05d}",
        BIG_CATEGORIES[i % len(BIG_CATEGORIES)],
        i * 1.25,
        dt.datetime(2024, 1, 1) + dt.timedelta(days=i % 366),
        i % 3 == 0,
    ]


def make_big_xlsx(path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Data")
    ws.append(BIG_HEADER)
    for i in range(1, BIG_ROWS + 1):
        row = big_row(i)
        date_cell = WriteOnlyCell(ws, value=row[4])
        date_cell.number_format = "yyyy-mm-dd"
        row[4] = date_cell
        ws.append(row)
    wb.properties.creator = "Baton Fixtures"
    wb.properties.created = FIXED_DT
    wb.save(path)
    normalize_zip(path)


# --------------------------------------------------------------------------
# Spreadsheet toolbox fixtures (tests/fixtures/sheets/)
# --------------------------------------------------------------------------


def sales_rows() -> list[list]:
    total = sum(SALES_UNITS)
    rows = []
    for i, (month, units, price) in enumerate(zip(SALES_MONTHS, SALES_UNITS, SALES_PRICES)):
        rows.append([month, units, price, round(units / total, 4), dt.datetime(2024, i + 1, 1)])
    return rows


def sales_totals() -> dict[str, float]:
    """Values LibreOffice caches for the Sales formulas (F2.., B14, F14)."""
    revenue = [u * p for u, p in zip(SALES_UNITS, SALES_PRICES)]
    out = {f"F{r}": v for r, v in enumerate(revenue, start=2)}
    last = len(SALES_UNITS) + 2
    out[f"B{last}"] = sum(SALES_UNITS)
    out[f"F{last}"] = sum(revenue)
    return out


def tiny_logo_png() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (48, 48), (0x1F, 0x4E, 0x79))
    ImageDraw.Draw(img).rectangle((12, 12, 35, 35), fill=(0xF2, 0xC8, 0x11))
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def build_rich_workbook(external_formula: bool = False):
    from openpyxl import Workbook
    from openpyxl.chart import BarChart, Reference
    from openpyxl.comments import Comment
    from openpyxl.drawing.image import Image as XLImage
    from openpyxl.formatting.rule import CellIsRule
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.worksheet.datavalidation import DataValidation
    from openpyxl.worksheet.table import Table, TableStyleInfo

    def font(**kw) -> Font:
        """A full font record (name, size, family), as Excel writes them."""
        kw.setdefault("size", 11)
        return Font(name="Calibri", family=2, **kw)

    wb = Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(SALES_HEADER)
    header_fill = PatternFill("solid", fgColor="FFDDEBF7")
    header_border = Border(bottom=Side(style="medium", color="FF1F4E79"))
    for c in ws[1]:
        c.font = font(bold=True, color="FF1F4E79")
        c.fill = header_fill
        c.border = header_border
        c.alignment = Alignment(horizontal="center")
    for r, row in enumerate(sales_rows(), start=2):
        ws.append([*row, f"=B{r}*C{r}"])
        ws.cell(row=r, column=3).number_format = '"$"#,##0.00'
        ws.cell(row=r, column=4).number_format = "0.0%"
        ws.cell(row=r, column=5).number_format = "yyyy-mm-dd"
        ws.cell(row=r, column=6).number_format = '"$"#,##0.00'
    last = len(SALES_UNITS) + 1
    total = last + 1
    ws.cell(row=total, column=1, value="Total").font = font(bold=True)
    ws.cell(row=total, column=2, value=f"=SUM(B2:B{last})").font = font(bold=True)
    c = ws.cell(row=total, column=6, value=f"=SUM(F2:F{last})")
    c.font = font(bold=True)
    c.number_format = '"$"#,##0.00'
    note_row = total + 2
    ws.cell(row=note_row, column=1, value=SALES_NOTE).font = font(italic=True)
    ws.merge_cells(start_row=note_row, start_column=1, end_row=note_row, end_column=4)
    for col, width in zip("ABCDEF", (14, 9, 11, 9, 12, 13)):
        ws.column_dimensions[col].width = width
    ws.freeze_panes = "A2"
    table = Table(displayName=SALES_TABLE, ref=f"A1:F{last}")
    table.tableStyleInfo = TableStyleInfo(name="TableStyleMedium9", showRowStripes=True,
                                          showColumnStripes=False, showFirstColumn=False,
                                          showLastColumn=False)
    ws.add_table(table)
    ws.conditional_formatting.add(
        f"B2:B{last}", CellIsRule(operator="greaterThan", formula=["150"],
                                  font=Font(color="FF9C0006"),  # dxf: colour only
                                  fill=PatternFill("solid", bgColor="FFFFC7CE")))
    # One landscape page holding the data and the chart (H2, ~9 columns wide).
    ws.print_area = f"A1:Q{max(note_row, 18)}"
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 1
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    chart = BarChart()
    chart.type = "col"
    chart.title = SALES_CHART_TITLE
    chart.y_axis.title = "Units"
    chart.x_axis.title = "Month"
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=last), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=2, max_row=last))
    chart.width, chart.height = 16, 8
    ws.add_chart(chart, "H2")

    notes = wb.create_sheet("Notes")
    notes["A1"] = NOTES_TITLE
    notes["A1"].font = font(bold=True, size=14)
    notes.merge_cells("A1:D1")
    notes["A3"] = NOTES_LINES[0]
    notes["A3"].comment = Comment(*NOTES_COMMENT, width=200, height=60)
    notes["A4"] = NOTES_LINES[1]
    notes["A4"].font = font(italic=True)
    notes["A4"].fill = PatternFill("solid", fgColor="FFFFF2CC")
    notes["A6"] = NOTES_LINK[0]
    notes["A6"].hyperlink = NOTES_LINK[1]
    notes["A6"].font = font(underline="single", color="FF0563C1")
    notes["A8"] = "Status"
    notes["B8"] = "Open"
    dv = DataValidation(type="list", formula1='"Open,Closed,Deferred"', allow_blank=True)
    dv.add("B8")
    notes.add_data_validation(dv)
    notes["A9"] = "Total units"
    notes["B9"] = "=TotalUnits"
    if external_formula:
        notes["A10"] = "Linked value"
        notes["B10"] = "=[1]Sheet1!$A$1"
    notes.column_dimensions["A"].width = 48
    logo = XLImage(io.BytesIO(tiny_logo_png()))
    notes.add_image(logo, "D3")

    wb.defined_names["TotalUnits"] = DefinedName("TotalUnits", attr_text=f"Sales!$B${total}")
    wb.properties.creator = "Baton Fixtures"
    wb.properties.created = FIXED_DT
    wb.properties.modified = FIXED_DT
    return wb


def make_rich_xlsx(path: Path, external_formula: bool = False) -> None:
    build_rich_workbook(external_formula).save(path)
    normalize_zip(path)


_EXTERNAL_LINK_XML = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
    '<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14" '
    'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
    '<externalBook r:id="rId1">'
    '<sheetNames><sheetName val="Sheet1"/></sheetNames>'
    '<sheetDataSet><sheetData sheetId="0"><row r="1"><cell r="A1"><v>{value}</v></cell></row>'
    "</sheetData></sheetDataSet></externalBook></externalLink>")
_EXTERNAL_LINK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLinkPath" '
    'Target="{target}" TargetMode="External"/></Relationships>')


def inject_external_link(src: Path, dest: Path) -> None:
    """Adds an external workbook link the way Excel writes one: the
    externalLink part with its cached sheet data, its rels (TargetMode
    External), the workbook relationship, <externalReferences> in
    workbook.xml and the content-type Override. The Notes!B10 formula
    '[1]Sheet1!$A$1' (written by build_rich_workbook) gets the cached value."""
    with zipfile.ZipFile(src) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    files = {info.filename: data for info, data in entries}
    rels = files["xl/_rels/workbook.xml.rels"].decode()
    ids = [int(m) for m in re.findall(r'Id="rId(\d+)"', rels)]
    rid = f"rId{max(ids) + 1}"
    rels = rels.replace(
        "</Relationships>",
        f'<Relationship Id="{rid}" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLink" '
        'Target="externalLinks/externalLink1.xml"/></Relationships>')
    wbxml = files["xl/workbook.xml"].decode()
    assert "</sheets>" in wbxml and "externalReferences" not in wbxml
    wbxml = wbxml.replace(
        "</sheets>",
        f'</sheets><externalReferences><externalReference '
        f'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="{rid}"/>'
        "</externalReferences>", 1)
    ct = files["[Content_Types].xml"].decode()
    ct = ct.replace(
        "</Types>",
        '<Override PartName="/xl/externalLinks/externalLink1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>'
        "</Types>")
    sheet = files["xl/worksheets/sheet2.xml"].decode()
    cell_re = re.compile(r'<c r="B10"([^>]*)><f>(\[1\]Sheet1!\$A\$1)</f>(?:<v\s*/>|<v></v>)?</c>')
    assert cell_re.search(sheet), "Notes!B10 external formula not found"
    sheet = cell_re.sub(lambda m: f'<c r="B10"{m.group(1)}><f>{m.group(2)}</f><v>{EXTERNAL_VALUE}</v></c>',
                        sheet, count=1)
    files["xl/_rels/workbook.xml.rels"] = rels.encode()
    files["xl/workbook.xml"] = wbxml.encode()
    files["[Content_Types].xml"] = ct.encode()
    files["xl/worksheets/sheet2.xml"] = sheet.encode()
    new = [
        ("xl/externalLinks/externalLink1.xml", _EXTERNAL_LINK_XML.replace("{value}", str(EXTERNAL_VALUE))),
        ("xl/externalLinks/_rels/externalLink1.xml.rels",
         _EXTERNAL_LINK_RELS.replace("{target}", EXTERNAL_TARGET)),
    ]
    tmp = dest.with_suffix(dest.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w") as out:
        names = [info.filename for info, _ in entries] + [n for n, _ in new]
        files.update({n: d.encode() for n, d in new})
        for name in names:
            zi = zipfile.ZipInfo(name, FIXED_ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = 0o600 << 16
            out.writestr(zi, files[name], compresslevel=9)
    tmp.replace(dest)


def pivot_rows() -> list[list]:
    rows = []
    for i in range(16):
        region = PIVOT_REGIONS[i % len(PIVOT_REGIONS)]
        product = PIVOT_PRODUCTS[(i // 2) % len(PIVOT_PRODUCTS)]
        rows.append([region, product, 10 + (i * 7) % 23])
    return rows


def pivot_sums() -> dict[tuple[str, str], int]:
    sums: dict[tuple[str, str], int] = {}
    for region, product, units in pivot_rows():
        sums[(region, product)] = sums.get((region, product), 0) + units
    return sums


def make_pivot_source(path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["Region", "Product", "Units"])
    for c in ws[1]:
        c.font = Font(bold=True)
    for row in pivot_rows():
        ws.append(row)
    wb.properties.creator = "Baton Fixtures"
    wb.properties.created = FIXED_DT
    wb.save(path)


def uno_make_pivot(pipe: str, src: str, dest: str) -> int:
    """Runs under the system Python with python3-uno (not the venv): loads
    src in the LibreOffice listening on `pipe`, adds a sheet "Pivot" with a
    DataPilot (rows Region, columns Product, data Sum of Units) over Data,
    and stores it as xlsx at dest."""
    import time

    import uno
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException
    from com.sun.star.table import CellAddress

    def prop(name, value):
        p = PropertyValue()
        p.Name, p.Value = name, value
        return p

    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + 60
    while True:
        try:
            ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            break
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    try:
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(src), "_blank", 0,
                                           (prop("Hidden", True),))
        sheets = doc.Sheets
        data = sheets.getByName("Data")
        cursor = data.createCursor()
        cursor.gotoEndOfUsedArea(False)
        end_row = cursor.RangeAddress.EndRow
        sheets.insertNewByName("Pivot", 1)
        tables = sheets.getByName("Pivot").getDataPilotTables()
        desc = tables.createDataPilotDescriptor()
        desc.setSourceRange(data.getCellRangeByPosition(0, 0, 2, end_row).getRangeAddress())
        fields = desc.getDataPilotFields()
        orient = "com.sun.star.sheet.DataPilotFieldOrientation"
        fields.getByIndex(0).Orientation = uno.Enum(orient, "ROW")
        fields.getByIndex(1).Orientation = uno.Enum(orient, "COLUMN")
        units = fields.getByIndex(2)
        units.Orientation = uno.Enum(orient, "DATA")
        units.Function = uno.Enum("com.sun.star.sheet.GeneralFunction", "SUM")
        at = CellAddress()
        at.Sheet, at.Column, at.Row = 1, 0, 0
        tables.insertNewByName("SalesPivot", at, desc)
        doc.storeToURL(uno.systemPathToFileUrl(dest),
                       (prop("FilterName", "Calc MS Excel 2007 XML"), prop("Overwrite", True)))
        doc.close(True)
    finally:
        try:
            desktop.terminate()
        except Exception:  # the bridge drops as soffice exits
            pass
    return 0


def make_pivot_xlsx(lo: "Soffice", path: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="baton-fixtures-pivot-") as td:
        src = Path(td) / "pivot_src.xlsx"
        make_pivot_source(src)
        lo.run_uno([__file__, "--uno-pivot", str(src), str(path)])
    normalize_zip(path)


def make_sheets(out: Path, lo: "Soffice") -> None:
    steps = [
        ("rich.xlsx", lambda: make_rich_xlsx(out / "rich.xlsx")),
        ("external_link.xlsx", lambda: make_external_link_xlsx(out / "external_link.xlsx")),
        ("rich_lo.xlsx (LibreOffice)", lambda: make_lo_copy(lo, out / "rich.xlsx", out / "rich_lo.xlsx")),
        ("pivot.xlsx (LibreOffice UNO)", lambda: make_pivot_xlsx(lo, out / "pivot.xlsx")),
        # The same looks in the two formats that are read and saved as .xlsx.
        ("rich.xls (LibreOffice)", lambda: lo.convert(out / "rich.xlsx", "xls:MS Excel 97", out / "rich.xls")),
        ("rich.ods (LibreOffice)", lambda: normalize_zip(lo.convert(out / "rich.xlsx", "ods", out / "rich.ods"))),
    ]
    for label, fn in steps:
        print(f"make_fixtures: sheets/{label}", flush=True)
        fn()


def make_external_link_xlsx(path: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="baton-fixtures-ext-") as td:
        src = Path(td) / "src.xlsx"
        make_rich_xlsx(src, external_formula=True)
        inject_external_link(src, path)


def make_lo_copy(lo: "Soffice", src: Path, dest: Path) -> None:
    lo.convert(src, "xlsx:Calc MS Excel 2007 XML", dest)
    normalize_zip(dest)


# --------------------------------------------------------------------------
# PPTX, HTML, EPUB, EML, text formats
# --------------------------------------------------------------------------


def make_pptx(path: Path) -> None:
    from pptx import Presentation

    prs = Presentation()
    cp = prs.core_properties
    cp.title = DECK_SLIDES[0][0]
    cp.author = "Baton Fixtures"
    cp.last_modified_by = "Baton Fixtures"
    cp.created = FIXED_DT
    cp.modified = FIXED_DT
    cp.revision = 1
    layout = prs.slide_layouts[1]  # Title and Content
    for title, bullets, notes in DECK_SLIDES:
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = title
        tf = slide.placeholders[1].text_frame
        for i, (text, level) in enumerate(bullets):
            p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
            p.text = text
            p.level = level
        slide.notes_slide.notes_text_frame.text = notes
    prs.save(path)
    normalize_zip(path)


def tiny_png() -> bytes:
    from PIL import Image

    img = Image.new("RGB", (8, 8), (200, 30, 30))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def make_html(path: Path) -> None:
    from html import escape

    img_b64 = base64.b64encode(tiny_png()).decode()
    head, *rows = HTML_TABLE
    body_rows = "\n".join(
        "      <tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    html = f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{escape(HTML_TITLE)}</title>
  <style>
    body {{ font-family: sans-serif; margin: 2em; }}
    .muted {{ color: #666; }}
  </style>
  <script>
    window.addEventListener("load", function () {{ alert("loaded"); }});
  </script>
</head>
<body>
  <h1>{escape(HTML_H1)}</h1>
  <p>This page tests <b>HTML</b> to Markdown conversion with <i>inline</i> formatting and a <a href="https://example.com/docs">documentation link</a>.</p>
  <h2>{escape(HTML_LIST_HEADING)}</h2>
  <ul>
    <li>Apples</li>
    <li>Bread
      <ul>
        <li>Whole wheat</li>
      </ul>
    </li>
    <li>Coffee</li>
  </ul>
  <div hidden>SECRET_HIDDEN text inside an element with the hidden attribute.</div>
  <h2>{escape(HTML_TABLE_HEADING)}</h2>
  <table>
    <thead>
      <tr>{"".join(f"<th>{escape(c)}</th>" for c in head)}</tr>
    </thead>
    <tbody>
{body_rows}
    </tbody>
  </table>
  <p style="display:none">SECRET_HIDDEN text inside an element styled display:none.</p>
  <p><img src="data:image/png;base64,{img_b64}" alt="{escape(HTML_IMG_ALT)}" width="8" height="8"></p>
  <p class="muted">{escape(HTML_OUTRO)}</p>
  <script>document.title = "alert(" + "not shown" + ")";</script>
</body>
</html>
"""
    path.write_text(html, encoding="utf-8")


def make_epub(path: Path) -> None:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("urn:uuid:6f1c2a52-9d2e-4c57-9a57-0f1b1a2e7c01")
    book.set_title(EPUB_TITLE)
    book.set_language("en")
    book.add_author("Baton Fixtures")
    chapters = []
    for i, (heading, paras) in enumerate(EPUB_CHAPTERS, start=1):
        ch = epub.EpubHtml(title=heading, file_name=f"chap_{i:02d}.xhtml", lang="en")
        ch.content = f"<h1>{heading}</h1>" + "".join(f"<p>{p}</p>" for p in paras)
        book.add_item(ch)
        chapters.append(ch)
    book.toc = tuple(epub.Link(c.file_name, c.title, f"chap{i}") for i, c in enumerate(chapters, 1))
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(path), book, {"mtime": FIXED_DT})
    normalize_zip(path)


def make_eml(path: Path) -> None:
    msg = EmailMessage()
    msg["From"] = MAIL_FROM
    msg["To"] = MAIL_TO
    msg["Subject"] = MAIL_SUBJECT
    msg["Date"] = format_datetime(MAIL_DATE)
    msg["Message-ID"] = "<fixture-0001@example.com>"
    plain = "\n".join(MAIL_BODY_LINES) + "\n"
    msg.set_content(plain)
    html_paras = "</p>\n<p>".join(
        l for l in ("Hi Bob,", "Please find the draft notes attached.<br>The budget review is scheduled for <b>Thursday</b>.",
                    "Best,<br>Alice"))
    msg.add_alternative(f"<html><body>\n<p>{html_paras}</p>\n</body></html>\n", subtype="html")
    msg.add_attachment(NOTES_TXT.encode(), maintype="text", subtype="plain", filename="notes.txt")
    for n, part in enumerate(p for p in msg.walk() if p.is_multipart()):
        part.set_boundary(f"==baton-fixture-boundary-{n}==")
    path.write_bytes(msg.as_bytes(policy=email.policy.default))


def make_csvs(out: Path) -> None:
    rows = [CSV_HEADER, *CSV_ROWS]
    with open(out / "data.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    with open(out / "data.tsv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter="\t", lineterminator="\n").writerows(rows)
    with open(out / "data_semicolon.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=";", lineterminator="\n").writerows(semicolon_rows())


def semicolon_rows() -> list[list[str]]:
    out = [CSV_HEADER]
    for r in CSV_ROWS:
        r = list(r)
        r[3] = r[3].replace(".", ",")
        out.append(r)
    return out


def make_text_files(out: Path) -> None:
    (out / "notes.txt").write_text(NOTES_TXT, encoding="utf-8")
    (out / "readme.md").write_text(README_MD, encoding="utf-8")
    (out / "config.json").write_text(json.dumps(CONFIG_OBJ, indent=2) + "\n", encoding="utf-8")
    (out / "config.yaml").write_text(CONFIG_YAML, encoding="utf-8")
    (out / "layout.xml").write_text(LAYOUT_XML, encoding="utf-8")
    (out / "main.rs").write_text(MAIN_RS, encoding="utf-8")


# --------------------------------------------------------------------------
# Bad files
# --------------------------------------------------------------------------


def make_bad_files(out: Path) -> None:
    (out / "empty.pdf").write_bytes(b"")
    (out / "corrupt.docx").write_bytes((out / "report.docx").read_bytes()[:300])
    pdf = (out / "layout.pdf").read_bytes()
    (out / "corrupt.pdf").write_bytes(pdf[: len(pdf) // 2])
    shutil.copyfile(out / "layout.pdf", out / "mislabelled.docx")
    (out / "random.bin").write_bytes(random.Random(20240102).randbytes(1024))
    make_encrypted_pdf(out / "encrypted.pdf")
    make_long_pdf(out / "handbook300.pdf")
    make_zipbomb(out / "zipbomb.docx")


def make_zipbomb(path: Path) -> None:
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        "</Types>")
    rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="word/document.xml"/></Relationships>')
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in (("[Content_Types].xml", content_types), ("_rels/.rels", rels)):
            z.writestr(zipfile.ZipInfo(name, FIXED_ZIP_TIME), data, compress_type=zipfile.ZIP_DEFLATED)
        zi = zipfile.ZipInfo("word/document.xml", FIXED_ZIP_TIME)
        zi.compress_type = zipfile.ZIP_DEFLATED
        chunk = b"\0" * (1 << 20)
        with z.open(zi, "w") as f:
            for _ in range(ZIPBOMB_SIZE // len(chunk)):
                f.write(chunk)


# --------------------------------------------------------------------------
# Ground truth
# --------------------------------------------------------------------------


def report_truth() -> dict:
    lines, headings, cells, bullets, numbered = [], [], [], [], []
    for kind, payload in REPORT_BLOCKS:
        if kind in ("title", "h1", "h2"):
            lines.append(payload)
            headings.append(payload)
        elif kind == "runs":
            lines.append("".join(t for t, _ in payload))
        elif kind in ("p", "footnote_p"):
            lines.append(payload)
        elif kind == "bullet":
            lines.append(payload[0])
            bullets.append(payload[0])
        elif kind == "number":
            lines.append(payload)
            numbered.append(payload)
        elif kind == "table":
            for row in payload:
                lines.append("\t".join(row))
                cells.extend(row)
        elif kind == "link_p":
            lines.append("".join(payload))
    return {
        "text": "\n".join(lines),
        "headings": headings,
        "cells": cells,
        "list_items": bullets + numbered,
        "bold": ["three major releases"],
        "italic": ["long-standing"],
        "links": [{"text": REPORT_LINK_TEXT, "url": REPORT_LINK_URL}],
        "peripheral": {"header": [REPORT_HEADER], "footer": [REPORT_FOOTER],
                       "footnotes": [REPORT_FOOTNOTE]},
    }


def layout_truth() -> dict:
    lines, headings, cells = [], [], []
    for kind, payload in LAYOUT_P1:
        if kind in ("h1", "h2"):
            lines.append(payload)
            headings.append(payload)
        elif kind == "p":
            lines.append(payload)
        elif kind == "bullets":
            lines.extend(payload)
        elif kind == "table":
            for row in payload:
                lines.append("\t".join(row))
                cells.extend(row)
    lines.append(LAYOUT_P2_HEADING)
    headings.append(LAYOUT_P2_HEADING)
    lines.extend(LAYOUT_LEFT)
    lines.extend(LAYOUT_RIGHT)
    return {
        "text": "\n".join(lines),
        "headings": headings,
        "cells": cells,
        "list_items": LAYOUT_P1[3][1],
        "order": [LAYOUT_P2_HEADING, *LAYOUT_LEFT, *LAYOUT_RIGHT],
        "pages": 2,
    }


def budget_truth(with_values: bool) -> dict:
    lines = ["Summary", "\t".join(BUDGET_HEADER)]
    cells = list(BUDGET_HEADER)
    values = {}
    formulas = {}
    for i, ((item, qty, price, when), total) in enumerate(zip(BUDGET_ROWS, budget_totals()), start=2):
        row = [item, str(qty), _fmt_num(price), _fmt_num(total) if with_values else "",
               when.strftime("%Y-%m-%d")]
        lines.append("\t".join(row).rstrip("\t"))
        cells.extend(c for c in row if c)
        formulas[f"Summary!D{i}"] = f"=B{i}*C{i}"
        values[f"Summary!D{i}"] = _fmt_num(total)
    total_row = len(BUDGET_ROWS) + 2
    grand = _fmt_num(sum(budget_totals()))
    formulas[f"Summary!D{total_row}"] = f"=SUM(D2:D{total_row - 1})"
    values[f"Summary!D{total_row}"] = grand
    lines.append("Total\t\t\t" + grand if with_values else "Total")
    cells.append("Total")
    if with_values:
        cells.append(grand)
    lines.append("Notes")
    lines.extend(BUDGET_NOTES)
    cells.extend(BUDGET_NOTES)
    return {
        "text": "\n".join(lines),
        "headings": ["Summary", "Notes"],
        "sheets": ["Summary", "Notes"],
        "cells": cells,
        "formulas": formulas,
        "values": values,
        "cached_values": with_values,
    }


def big_truth() -> dict:
    def show(row):
        return [str(row[0]), row[1], row[2], _fmt_num(row[3]), row[4].strftime("%Y-%m-%d"),
                "TRUE" if row[5] else "FALSE"]

    first, last = show(big_row(1)), show(big_row(BIG_ROWS))
    return {
        "text": None,
        "headings": ["Data"],
        "sheets": ["Data"],
        "cells": [*BIG_HEADER, *first[:4], first[4], *last[:4], last[4]],
        "rows": BIG_ROWS + 1,
        "cols": len(BIG_HEADER),
        "first_row": first,
        "last_row": last,
        "notes": "header + 5000 data rows; Amount = ID * 1.25, Date = 2024-01-01 + (ID mod 366) days, "
                 "Active = (ID mod 3 == 0); 'text' omitted (too large), rebuild it from these rules",
    }


def deck_truth() -> dict:
    lines, headings, items, notes = [], [], [], []
    for title, bullets, note in DECK_SLIDES:
        lines.append(title)
        headings.append(title)
        for text, _ in bullets:
            lines.append(text)
            items.append(text)
        notes.append(note)
    return {"text": "\n".join(lines), "headings": headings, "list_items": items, "slides": len(DECK_SLIDES),
            "peripheral": {"notes": notes}}


def html_truth() -> dict:
    lines = [HTML_H1, HTML_INTRO, HTML_LIST_HEADING, *HTML_LIST, HTML_TABLE_HEADING]
    lines += ["\t".join(r) for r in HTML_TABLE]
    lines.append(HTML_OUTRO)
    return {
        "text": "\n".join(lines),
        "title": HTML_TITLE,
        "headings": [HTML_H1, HTML_LIST_HEADING, HTML_TABLE_HEADING],
        "cells": [c for r in HTML_TABLE for c in r],
        "list_items": HTML_LIST,
        "bold": ["HTML"],
        "italic": ["inline"],
        "links": [{"text": "documentation link", "url": "https://example.com/docs"}],
        "peripheral": {"alt": [HTML_IMG_ALT], "title": [HTML_TITLE]},
        "must_not_contain": ["SECRET_HIDDEN", "alert(", "base64", "font-family", "addEventListener"],
    }


def epub_truth() -> dict:
    lines, headings = [], []
    for heading, paras in EPUB_CHAPTERS:
        lines.append(heading)
        headings.append(heading)
        lines.extend(paras)
    return {"text": "\n".join(lines), "headings": headings, "title": EPUB_TITLE,
            "order": [h for h, _ in EPUB_CHAPTERS]}


def eml_truth() -> dict:
    return {
        "text": "\n".join(MAIL_BODY_LINES),
        "headings": [],
        "headers": {"From": MAIL_FROM, "To": MAIL_TO, "Subject": MAIL_SUBJECT,
                    "Date": format_datetime(MAIL_DATE)},
        "peripheral": {"attachments": ["notes.txt"]},
        "must_not_contain": ["Content-Transfer-Encoding", "=?utf-8?", "baton-fixture-boundary"],
    }


def csv_truth(rows: list[list[str]]) -> dict:
    return {"text": "\n".join("\t".join(r) for r in rows), "headings": [],
            "cells": [c for r in rows for c in r], "rows": len(rows), "cols": len(rows[0])}


def image_truth(lines: list[str]) -> dict:
    return {"text": "\n".join(lines), "headings": [], "needs_ocr": True}


def build_truth(lo_version: str) -> dict:
    v = pkg_version
    lo = f"LibreOffice {lo_version}".replace("LibreOffice LibreOffice", "LibreOffice")
    docx_prod = f"python-docx {v('python-docx')}"
    generic_nc = {"docx": ["<w:", "</w:t>"], "odt": ["<text:", "office:document"], "rtf": ["{\\rtf", "\\par"],
                  "pdf": ["endobj", "/FlateDecode"], "xlsx": ["<c r=", "sharedStrings"],
                  "xls": ["Workbook"], "ods": ["<table:"], "pptx": ["<a:t>", "p:sld"],
                  "epub": ["<?xml", "xhtml"], "eml": []}
    fixtures = []

    def add(file, fmt, producer, truth, **extra):
        t = dict(truth)
        nc = list(t.pop("must_not_contain", []))
        for s in generic_nc.get(fmt, []):
            if s not in nc:
                nc.append(s)
        entry = {"file": file, "format": fmt, "producer": producer,
                 "text": t.pop("text"), "headings": t.pop("headings", []),
                 "cells": t.pop("cells", []), "must_not_contain": nc}
        entry.update(t)
        entry.update(extra)
        fixtures.append(entry)

    rep = report_truth()
    add("report.docx", "docx", docx_prod, rep)
    add("report.pdf", "pdf", f"{lo} from report.docx", rep)
    add("report.odt", "odt", f"{lo} from report.docx", rep)
    add("report.rtf", "rtf", f"{lo} from report.docx", rep)
    add("layout.pdf", "pdf", f"ReportLab {v('reportlab')}", layout_truth())
    add("scanned.pdf", "pdf", f"Pillow {v('pillow')} (image-only PDF, 200 dpi, no text layer)",
        image_truth(SCANNED_LINES), headings=[SCANNED_LINES[0]])
    for name, fmt in (("invoice.png", "png"), ("invoice.jpg", "jpeg"), ("invoice.tiff", "tiff"),
                      ("invoice.webp", "webp")):
        add(name, fmt, f"Pillow {v('pillow')}", image_truth(INVOICE_LINES))
    add("budget.xlsx", "xlsx", f"openpyxl {v('openpyxl')} (formulas without cached values)",
        budget_truth(with_values=False))
    add("budget_lo.xlsx", "xlsx", f"{lo} round-trip of budget.xlsx (formulas with cached values)",
        budget_truth(with_values=True))
    add("budget.xls", "xls", f"{lo} from budget.xlsx", budget_truth(with_values=True))
    add("budget.ods", "ods", f"{lo} from budget.xlsx", budget_truth(with_values=True))
    add("big.xlsx", "xlsx", f"openpyxl {v('openpyxl')} (write-only mode)", big_truth())
    add("deck.pptx", "pptx", f"python-pptx {v('python-pptx')}", deck_truth())
    add("page.html", "html", "hand-written by make_fixtures.py", html_truth())
    add("book.epub", "epub", f"EbookLib {v('ebooklib')}", epub_truth())
    add("mail.eml", "eml", f"Python {sys.version.split()[0]} email package", eml_truth())
    add("data.csv", "csv", "Python csv module", csv_truth([CSV_HEADER, *CSV_ROWS]), delimiter=",")
    add("data.tsv", "tsv", "Python csv module", csv_truth([CSV_HEADER, *CSV_ROWS]), delimiter="\t")
    add("data_semicolon.csv", "csv", "Python csv module", csv_truth(semicolon_rows()), delimiter=";",
        decimal_separator=",")
    readme_headings = [l.lstrip("#").strip() for l in README_MD.splitlines() if l.startswith("#")]
    for name, fmt, content, headings in (
        ("notes.txt", "txt", NOTES_TXT, []),
        ("readme.md", "md", README_MD, readme_headings),
        ("config.json", "json", json.dumps(CONFIG_OBJ, indent=2) + "\n", []),
        ("config.yaml", "yaml", CONFIG_YAML, []),
        ("layout.xml", "xml", LAYOUT_XML, []),
        ("main.rs", "rust", MAIN_RS, []),
    ):
        add(name, fmt, "hand-written by make_fixtures.py", {"text": content, "headings": headings},
            exact=True)

    bad = [
        {"file": "empty.pdf", "format": "pdf", "expect": "error", "reason": "0 bytes"},
        {"file": "corrupt.docx", "format": "docx", "expect": "error",
         "reason": "first 300 bytes of report.docx (zip cut inside the first entry)"},
        {"file": "corrupt.pdf", "format": "pdf", "expect": "error_or_partial",
         "reason": "first half of layout.pdf: no xref table or trailer; tolerant parsers may recover page 1",
         "partial_text_may_contain": [LAYOUT_P1[0][1]]},
        {"file": "encrypted.pdf", "format": "pdf", "expect": "error_encrypted",
         "reason": "ReportLab StandardEncryption, 128-bit RC4, user password required",
         "user_password": ENCRYPTED_USER_PASSWORD, "owner_password": ENCRYPTED_OWNER_PASSWORD,
         "text_with_password": ENCRYPTED_TEXT},
        {"file": "mislabelled.docx", "format": "docx", "expect": "error_or_sniffed_as_pdf",
         "reason": "byte copy of layout.pdf with a .docx name", "actual_format": "pdf",
         "same_as": "layout.pdf"},
        {"file": "random.bin", "format": "bin", "expect": "error_or_unsupported",
         "reason": "1024 bytes from random.Random(20240102).randbytes"},
        {"file": "zipbomb.docx", "format": "docx", "expect": "error_limit",
         "reason": "zip whose word/document.xml inflates to 200 MiB of NUL bytes",
         "uncompressed_bytes": ZIPBOMB_SIZE},
    ]
    return {
        "schema": 1,
        "text_conventions": (
            "text: blocks in reading order joined by '\\n'; a table row is its cells joined by '\\t'; "
            "no Markdown markup. Compare after collapsing whitespace. Entries with exact=true are "
            "the byte-exact file content. peripheral strings (headers, footers, footnotes, notes, "
            "attachments, alt text) may appear anywhere or not at all."),
        "fixtures": fixtures,
        "bad": bad,
    }


# --------------------------------------------------------------------------
# Verification: reopen every file with an independent reader
# --------------------------------------------------------------------------


def _norm(s: str) -> str:
    return " ".join(s.split())


def _check_contains(label: str, hay: str, needles: list[str], errors: list[str]) -> None:
    h = _norm(hay)
    for n in needles:
        if _norm(n) not in h:
            errors.append(f"{label}: missing {n!r}")


def _pdftotext(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(["pdftotext", *extra, str(path), "-"], capture_output=True, timeout=60)


def verify(out: Path, lo: Soffice | None) -> list[str]:
    import docx
    import openpyxl
    import pptx
    from ebooklib import epub
    from PIL import Image

    errors: list[str] = []
    truth = json.loads((out / "truth.json").read_text(encoding="utf-8"))
    by_file = {f["file"]: f for f in truth["fixtures"]}
    for f in [*truth["fixtures"], *truth["bad"]]:
        if not (out / f["file"]).exists():
            errors.append(f"{f['file']}: missing")
    if errors:
        return errors

    rep = by_file["report.docx"]
    d = docx.Document(out / "report.docx")
    body = "\n".join(p.text for p in d.paragraphs)
    _check_contains("report.docx", body, rep["headings"] + rep["list_items"], errors)
    cells = [c.text for t in d.tables for r in t.rows for c in r.cells]
    if cells != rep["cells"]:
        errors.append(f"report.docx: table cells {cells}")
    if d.sections[0].header.paragraphs[0].text != REPORT_HEADER:
        errors.append("report.docx: header")
    links = [(h.text, h.url) for p in d.paragraphs for h in p.hyperlinks]
    if links != [(REPORT_LINK_TEXT, REPORT_LINK_URL)]:
        errors.append(f"report.docx: links {links}")

    have_pdftotext = shutil.which("pdftotext") is not None
    if have_pdftotext:
        for name in ("report.pdf", "layout.pdf"):
            r = _pdftotext(out / name)
            txt = r.stdout.decode("utf-8", errors="replace")
            t = by_file[name]
            _check_contains(name, txt, t["headings"] + t["cells"] + t.get("list_items", []), errors)
            if name == "report.pdf":
                _check_contains(name, txt, [REPORT_HEADER, REPORT_FOOTER, REPORT_FOOTNOTE], errors)
            if "order" in t:
                pos = [_norm(txt).find(_norm(s)) for s in t["order"]]
                if -1 in pos or pos != sorted(pos):
                    errors.append(f"{name}: pdftotext order {pos}")
        r = _pdftotext(out / "scanned.pdf")
        if r.returncode != 0 or r.stdout.strip(b"\x0c \n"):
            errors.append(f"scanned.pdf: has a text layer: {r.stdout[:80]!r}")
        r = _pdftotext(out / "encrypted.pdf")
        if r.returncode == 0:
            errors.append("encrypted.pdf: opened without password")
        r = _pdftotext(out / "encrypted.pdf", "-upw", ENCRYPTED_USER_PASSWORD)
        if ENCRYPTED_TEXT not in r.stdout.decode(errors="replace"):
            errors.append("encrypted.pdf: user password does not open it")
        if _pdftotext(out / "corrupt.pdf").returncode == 0 and b"xref" in (out / "corrupt.pdf").read_bytes()[-2000:]:
            errors.append("corrupt.pdf: still has a trailer")
    else:
        errors.append("pdftotext missing: PDFs not verified (install poppler-utils)")

    if lo is not None:
        for name in ("report.odt", "report.rtf"):
            txt = lo.cat(out / name)
            t = by_file[name]
            _check_contains(name, txt, t["headings"] + t["cells"] + t["list_items"], errors)
        # soffice --cat leaves footnotes out: look for them in the markup.
        with zipfile.ZipFile(out / "report.odt") as z:
            content = z.read("content.xml").decode()
        if "text:note-class=\"footnote\"" not in content or REPORT_FOOTNOTE not in content:
            errors.append("report.odt: footnote missing")
        rtf = (out / "report.rtf").read_text(encoding="latin-1")
        if "\\footnote" not in rtf or REPORT_FOOTNOTE not in rtf:
            errors.append("report.rtf: footnote missing")
        for name in ("budget.xls", "budget.ods"):
            with tempfile.TemporaryDirectory(prefix="baton-fixtures-verify-") as td:
                csv_path = lo.convert(out / name, "csv", Path(td) / "sheet.csv")
                txt = csv_path.read_text(encoding="utf-8", errors="replace")
            summary_cells = [c for c in by_file[name]["cells"] if c not in BUDGET_NOTES]
            _check_contains(name, txt, summary_cells, errors)

    wb = openpyxl.load_workbook(out / "budget.xlsx")
    if wb.sheetnames != ["Summary", "Notes"] or wb["Summary"]["D2"].value != "=B2*C2":
        errors.append("budget.xlsx: sheets/formula")
    if not isinstance(wb["Summary"]["E2"].value, dt.datetime):
        errors.append("budget.xlsx: E2 is not a date")
    wb = openpyxl.load_workbook(out / "budget_lo.xlsx", data_only=True)
    got = {k: wb[k.split("!")[0]][k.split("!")[1]].value for k in by_file["budget_lo.xlsx"]["values"]}
    want = {k: float(v) for k, v in by_file["budget_lo.xlsx"]["values"].items()}
    if {k: float(v) if v is not None else None for k, v in got.items()} != want:
        errors.append(f"budget_lo.xlsx: cached values {got}")
    wb = openpyxl.load_workbook(out / "big.xlsx", read_only=True)
    # Write-only mode stores no <dimension>: count the rows themselves.
    rows = list(wb["Data"].iter_rows(values_only=True))
    if len(rows) != BIG_ROWS + 1 or {len(r) for r in rows} != {len(BIG_HEADER)}:
        errors.append(f"big.xlsx: {len(rows)} rows")
    elif rows[-1][:4] != tuple(big_row(BIG_ROWS)[:4]):
        errors.append(f"big.xlsx: last row {rows[-1]}")
    wb.close()

    prs = pptx.Presentation(out / "deck.pptx")
    titles = [s.shapes.title.text for s in prs.slides]
    notes = [s.notes_slide.notes_text_frame.text for s in prs.slides]
    if titles != [s[0] for s in DECK_SLIDES] or notes != [s[2] for s in DECK_SLIDES]:
        errors.append(f"deck.pptx: {titles} {notes}")

    book = epub.read_epub(str(out / "book.epub"), {"ignore_ncx": True})
    docs = [i.get_content().decode() for i in book.get_items() if i.file_name.startswith("chap_")]
    _check_contains("book.epub", "\n".join(docs), by_file["book.epub"]["text"].split("\n"), errors)

    msg = email.message_from_bytes((out / "mail.eml").read_bytes(), policy=email.policy.default)
    if str(msg["Subject"]) != MAIL_SUBJECT:
        errors.append(f"mail.eml: subject {msg['Subject']!r}")
    plain = msg.get_body(("plain",)).get_content()
    if plain.strip() != by_file["mail.eml"]["text"].strip():
        errors.append("mail.eml: plain body")
    atts = [(a.get_filename(), a.get_content()) for a in msg.iter_attachments()]
    if atts != [("notes.txt", NOTES_TXT)]:
        errors.append(f"mail.eml: attachments {atts}")

    for name in ("invoice.png", "invoice.jpg", "invoice.tiff", "invoice.webp"):
        with Image.open(out / name) as im:
            im.verify()
    with Image.open(out / "invoice.png") as im:
        if im.size != (1400, 760):
            errors.append("invoice.png: size")

    for name, delim in (("data.csv", ","), ("data.tsv", "\t"), ("data_semicolon.csv", ";")):
        with open(out / name, newline="", encoding="utf-8") as f:
            cells = [c for r in csv.reader(f, delimiter=delim) for c in r]
        if cells != by_file[name]["cells"]:
            errors.append(f"{name}: cells {cells}")
    for f in truth["fixtures"]:
        if f.get("exact") and (out / f["file"]).read_text(encoding="utf-8") != f["text"]:
            errors.append(f"{f['file']}: content differs from truth")
    json.loads((out / "config.json").read_text())
    import xml.dom.minidom
    xml.dom.minidom.parseString((out / "layout.xml").read_bytes())

    for name in ("report.docx", "report.odt", "budget.xlsx", "budget_lo.xlsx", "budget.ods",
                 "big.xlsx", "deck.pptx", "book.epub"):
        with zipfile.ZipFile(out / name) as z:
            bad = z.testzip()
            if bad:
                errors.append(f"{name}: bad zip member {bad}")
    with zipfile.ZipFile(out / "zipbomb.docx") as z:
        info = z.getinfo("word/document.xml")
        if info.file_size != ZIPBOMB_SIZE:
            errors.append("zipbomb.docx: size")
    if (out / "zipbomb.docx").stat().st_size > 300 * 1024:
        errors.append("zipbomb.docx: over 300 KB")
    try:
        zipfile.ZipFile(out / "corrupt.docx")
        errors.append("corrupt.docx: opens as a zip")
    except zipfile.BadZipFile:
        pass
    if (out / "empty.pdf").stat().st_size != 0:
        errors.append("empty.pdf: not empty")
    if (out / "mislabelled.docx").read_bytes()[:5] != b"%PDF-":
        errors.append("mislabelled.docx: not a PDF")
    return errors


def verify_sheets(out: Path) -> list[str]:
    """Re-reads the sheet fixtures with openpyxl through scripts/sheet_dump.py
    (the same dump the Rust tests compare) and checks what each must hold."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import sheet_dump

    errors: list[str] = []
    names = ("rich.xlsx", "rich_lo.xlsx", "external_link.xlsx", "pivot.xlsx")
    for name in names:
        if not (out / name).exists():
            errors.append(f"sheets/{name}: missing")
    if errors:
        return errors
    dumps = {}
    for name in names:
        with zipfile.ZipFile(out / name) as z:
            bad = z.testzip()
            if bad:
                errors.append(f"sheets/{name}: bad zip member {bad}")
        dumps[name] = sheet_dump.dump(out / name)
    last = len(SALES_UNITS) + 1

    def check(name: str, what: str, got, want, *also) -> None:
        """also: other values accepted, for what LibreOffice rewrites or drops."""
        if got != want and got not in also:
            errors.append(f"sheets/{name}: {what}: got {got!r}, want {want!r}")

    for name in ("rich.xlsx", "rich_lo.xlsx", "external_link.xlsx"):
        d = dumps[name]
        # LibreOffice 7.4 writes "$" as \$ in formats (same meaning), and its
        # headless conversion drops the freeze pane and the table style (see
        # tests/fixtures/sheets/README.md).
        lo = name == "rich_lo.xlsx"
        check(name, "sheet names", d["sheet_names"], ["Sales", "Notes"])
        s = d["sheets"]["Sales"]
        check(name, "header", [s["cells"].get(f"{c}1") for c in "ABCDEF"], SALES_HEADER)
        check(name, "F2", s["cells"].get("F2"), "=B2*C2")
        check(name, f"B{last + 1}", s["cells"].get(f"B{last + 1}"), f"=SUM(B2:B{last})")
        check(name, "E2", s["cells"].get("E2"), "2024-01-01T00:00:00")
        check(name, "C2 format", s["number_formats"].get("C2"), '"$"#,##0.00', *(["\\$#,##0.00"] if lo else []))
        check(name, "D2 format", s["number_formats"].get("D2"), "0.0%")
        check(name, "A1 bold", s["fonts"].get("A1", {}).get("bold"), True)
        check(name, "A1 fill", bool(s["fills"].get("A1")), True)
        check(name, "A1 bottom border", "bottom" in s["borders"].get("A1", {}), True)
        check(name, "merged", s["merged"], [f"A{last + 3}:D{last + 3}"])
        check(name, "freeze", s["freeze_panes"], "A2", *([None] if lo else []))
        check(name, "charts", [(c["types"], c["anchor"], c["title"]) for c in s["charts"]],
              [(["BarChart"], "H2", SALES_CHART_TITLE)])
        check(name, "table", [(t["name"], t["ref"], t["style"]) for t in s["tables"]],
              [(SALES_TABLE, f"A1:F{last}", "TableStyleMedium9")],
              *([[(SALES_TABLE, f"A1:F{last}", None)]] if lo else []))
        check(name, "conditional formatting", len(s["conditional_formatting"]), 1)
        n = d["sheets"]["Notes"]
        check(name, "Notes merged", n["merged"], ["A1:D1"])
        check(name, "Notes A4 italic", n["fonts"].get("A4", {}).get("italic"), True)
        check(name, "Notes hyperlink", n["hyperlinks"].get("A6", {}).get("target"), NOTES_LINK[1])
        check(name, "Notes data validations", len(n["data_validations"]), 1)
        check(name, "Notes images", len(n["images"]), 1)
        check(name, "Notes comment", n["comments"].get("A3", {}).get("text"), NOTES_COMMENT[0])
        check(name, "defined name", d["defined_names"].get("TotalUnits", {}).get("value"),
              f"Sales!$B${last + 1}")
    for name in ("rich.xlsx", "external_link.xlsx"):
        check(name, "fullCalcOnLoad", dumps[name]["full_calc_on_load"], True)
        check(name, "cached values", set(dumps[name]["sheets"]["Sales"]["cached"].values()), {None})
    lo_cached = dumps["rich_lo.xlsx"]["sheets"]["Sales"]["cached"]
    check("rich_lo.xlsx", "cached values", {k: lo_cached.get(k) for k in sales_totals()},
          {k: (int(v) if float(v).is_integer() else v) for k, v in sales_totals().items()})
    ext = dumps["external_link.xlsx"]
    check("external_link.xlsx", "external links", ext["external_links"], [EXTERNAL_TARGET])
    check("external_link.xlsx", "B10", ext["sheets"]["Notes"]["cells"].get("B10"), "=[1]Sheet1!$A$1")
    check("external_link.xlsx", "B10 cached", ext["sheets"]["Notes"]["cached"].get("B10"), EXTERNAL_VALUE)
    for part in ("xl/externalLinks/externalLink1.xml", "xl/externalLinks/_rels/externalLink1.xml.rels"):
        if part not in ext["parts"]:
            errors.append(f"sheets/external_link.xlsx: no {part}")
    pv = dumps["pivot.xlsx"]
    check("pivot.xlsx", "sheet names", pv["sheet_names"], ["Data", "Pivot"])
    check("pivot.xlsx", "pivots", [p["name"] for p in pv["sheets"]["Pivot"]["pivots"]], ["SalesPivot"])
    if not any(p.startswith("xl/pivotCache/") for p in pv["parts"]):
        errors.append("sheets/pivot.xlsx: no pivot cache part")
    # Grand total of the pivot: the largest number on the Pivot sheet.
    nums = [v for v in pv["sheets"]["Pivot"]["cells"].values() if isinstance(v, (int, float))
            and not isinstance(v, bool)]
    check("pivot.xlsx", "grand total", max(nums, default=None), sum(pivot_sums().values()))
    return errors


# --------------------------------------------------------------------------


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] == "--uno-pivot":  # run by Soffice.run_uno
        return uno_make_pivot(*sys.argv[2:5])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="document fixtures folder")
    ap.add_argument("--sheets-out", type=Path, default=DEFAULT_SHEETS_OUT,
                    help="spreadsheet toolbox fixtures folder")
    ap.add_argument("--only", choices=("docs", "sheets"), help="build/verify one corpus only")
    ap.add_argument("--verify-only", action="store_true")
    args = ap.parse_args()
    out: Path = args.out
    sheets_out: Path = args.sheets_out
    do_docs = args.only in (None, "docs")
    do_sheets = args.only in (None, "sheets")
    if do_docs:
        out.mkdir(parents=True, exist_ok=True)
    if do_sheets:
        sheets_out.mkdir(parents=True, exist_ok=True)
    if not FONT_REGULAR.exists():
        raise SystemExit(f"{FONT_REGULAR} missing: install fonts-dejavu-core")

    lo = Soffice()
    errors: list[str] = []
    try:
        if not args.verify_only and do_docs:
            steps = [
                ("report.docx", lambda: make_docx(out / "report.docx")),
                ("layout.pdf", lambda: make_layout_pdf(out / "layout.pdf")),
                ("scanned.pdf", lambda: make_scanned_pdf(out / "scanned.pdf")),
                ("invoice.*", lambda: make_invoice_images(out)),
                ("budget.xlsx", lambda: make_budget_xlsx(out / "budget.xlsx")),
                ("big.xlsx", lambda: make_big_xlsx(out / "big.xlsx")),
                ("deck.pptx", lambda: make_pptx(out / "deck.pptx")),
                ("page.html", lambda: make_html(out / "page.html")),
                ("book.epub", lambda: make_epub(out / "book.epub")),
                ("mail.eml", lambda: make_eml(out / "mail.eml")),
                ("csv/tsv", lambda: make_csvs(out)),
                ("text files", lambda: make_text_files(out)),
            ]
            for label, fn in steps:
                print(f"make_fixtures: {label}", flush=True)
                fn()
            conversions = [
                ("report.docx", "pdf:writer_pdf_Export", "report.pdf"),
                ("report.docx", "odt", "report.odt"),
                ("report.docx", "rtf", "report.rtf"),
                ("budget.xlsx", "xls:MS Excel 97", "budget.xls"),
                ("budget.xlsx", "ods", "budget.ods"),
                ("budget.xlsx", "xlsx:Calc MS Excel 2007 XML", "budget_lo.xlsx"),
            ]
            for src, target, dest in conversions:
                print(f"make_fixtures: {dest} (LibreOffice)", flush=True)
                lo.convert(out / src, target, out / dest)
                if dest.endswith((".odt", ".ods", ".xlsx")):
                    normalize_zip(out / dest)
                elif dest.endswith(".pdf"):
                    normalize_pdf_dates(out / dest)
                elif dest.endswith(".rtf"):
                    normalize_rtf_dates(out / dest)
            print("make_fixtures: bad files", flush=True)
            make_bad_files(out)
            truth = build_truth(lo.version())
            (out / "truth.json").write_text(json.dumps(truth, indent=2, ensure_ascii=False) + "\n",
                                            encoding="utf-8")
        if not args.verify_only and do_sheets:
            make_sheets(sheets_out, lo)
        print("make_fixtures: verifying", flush=True)
        if do_docs:
            errors += verify(out, lo)
        if do_sheets:
            errors += verify_sheets(sheets_out)
    finally:
        lo.close()
    for e in errors:
        print(f"make_fixtures: FAIL {e}", file=sys.stderr)
    for folder, on in ((out, do_docs), (sheets_out, do_sheets)):
        if on:
            files = [p for p in folder.iterdir() if p.is_file()]
            print(f"make_fixtures: {folder.name}: {len(files)} files, "
                  f"{sum(p.stat().st_size for p in files)} bytes")
    print(f"make_fixtures: {'ok' if not errors else f'{len(errors)} problem(s)'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
