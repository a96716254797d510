#!/usr/bin/env python3
"""The browser toolbox's figures for `make bench`, as ratios measured in the
same run (these machines are noisy):

1. Page -> Markdown of a large page (~2.5 MB of HTML: navigation, inline
   styles and scripts, base64 images, tracking pixels, hidden menus, an
   article with tables): Baton's get_page_content on the live page in
   headless Chromium vs turndown (npm, with its bundled DOM) and
   markdownify (PyPI, BeautifulSoup) converting the same HTML in-process.
   Times exclude start-up on every side. Goal: Baton >= 10x faster than
   both, with smaller output keeping the same article text.
2. navigate + get_page_content of a small local page, and peak memory of
   the process holding the browser session.

    bench_web.py --bench PATH/baton-web-bench [--runs 5]

turndown is installed under ~/.cache/baton-bench/node (npm), markdownify
into the fixture virtualenv (scripts/make-fixtures.sh --tools-only makes
it); run this with that virtualenv's Python.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "baton-bench"
SENTINELS = 600

TURNDOWN = r"""
const fs = require('fs');
const TurndownService = require('turndown');
const html = fs.readFileSync(process.argv[2], 'utf8');
const runs = +process.argv[3];
const td = new TurndownService();
td.remove(['script', 'style', 'noscript']);
let md = '', times = [];
for (let i = 0; i < runs; i++) { const t = process.hrtime.bigint(); md = td.turndown(html); times.push(Number(process.hrtime.bigint() - t) / 1e6); }
times.sort((a, b) => a - b);
fs.writeFileSync(process.argv[4], md);
console.log(JSON.stringify({ms: times[Math.floor(times.length / 2)], bytes: Buffer.byteLength(md)}));
"""

MARKDOWNIFY = r"""
import json, sys, time
from markdownify import markdownify
html = open(sys.argv[1], encoding='utf-8').read()
runs = int(sys.argv[2])
times = []
for _ in range(runs):
    t = time.perf_counter(); md = markdownify(html, strip=['script', 'style']); times.append((time.perf_counter() - t) * 1000)
times.sort()
open(sys.argv[3], 'w', encoding='utf-8').write(md)
print(json.dumps({'ms': times[len(times) // 2], 'bytes': len(md.encode())}))
"""


def sentinel(i: int) -> str:
    return f"Sentinel sentence number {i:04d} is part of the article"


def large_page(path: Path) -> None:
    """A deterministic page shaped like a big news or wiki page."""
    rnd = random.Random(7)
    words = "market river policy engine garden quarter report signal archive budget harbor station".split()
    def text(n: int) -> str:
        return " ".join(rnd.choice(words) for _ in range(n))
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Big page</title>"]
    parts.append("<style>" + "".join(f".c{i}{{color:#{i:06x};margin:{i % 9}px}}\n" for i in range(2500)) + ".hidden-menu{display:none}</style>")
    for s in range(6):
        parts.append("<script>" + "".join(f"var v{s}_{i} = function(a, b) {{ return a * {i} + b; }};\n" for i in range(1500)) + "</script>")
    parts.append("</head><body><header><nav><ul>")
    parts += [f"<li><a href='/section/{i}'>Section {i}</a></li>" for i in range(150)]
    parts.append("</ul></nav><div class='hidden-menu'>" + "".join(f"<a href='/m/{i}'>Menu {i}</a>" for i in range(300)) + "</div></header>")
    parts.append("<form action='/search'><input name='q' placeholder='Search'><button>Go</button></form><main><article><h1>The big article</h1>")
    pixel = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    for i in range(SENTINELS):
        links = " ".join(f"<a href='/w/{i}/{k}' class='c{k}'><span>{text(2)}</span></a>" for k in range(6))
        parts.append(f"<section class='c{i}'><div class='wrap'><div class='inner'><h2><span>Part {i}</span></h2>"
                     f"<p class='c{i % 2500}'>{sentinel(i)}. {text(60)} {links}</p><div><div><p><em>{text(40)}</em> <b>{text(10)}</b></p></div></div>"
                     f"<ul>{''.join(f'<li><a href=/l/{i}/{k}>{text(3)}</a></li>' for k in range(5))}</ul></div></div></section>")
        if i % 30 == 0:
            parts.append("<table><tr><th>Year</th><th>Value</th><th>Note</th></tr>" + "".join(f"<tr><td>{2000 + r}</td><td>{r * 17}</td><td>{text(5)}</td></tr>" for r in range(20)) + "</table>")
        if i % 15 == 0:
            parts.append(f"<img src='{pixel * 40}' alt=''><img src='/pixel.gif?i={i}' width='1' height='1' alt=''>")
        if i % 21 == 0:
            parts.append(f"<div style='display:none'>Hidden promo {i} {text(30)}</div>")
    parts.append("</article></main><footer>" + "".join(f"<a href='/f/{i}'>Footer {i}</a> " for i in range(200)) + "</footer></body></html>")
    path.write_text("".join(parts), encoding="utf-8")


SMALL = "<!doctype html><html><head><title>Small</title></head><body><h1>Orders</h1><p>Three open orders.</p><a href='/o/1'>Order 1</a><form><input name='q' aria-label='Find'><button>Find</button></form></body></html>"


def ensure_turndown() -> Path:
    node = CACHE / "node"
    if not (node / "node_modules" / "turndown").exists():
        node.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(node), "turndown@7"], check=True)
    return node


def ensure_markdownify() -> None:
    try:
        import markdownify  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "markdownify"], check=True)


def kept(md: str) -> int:
    return sum(1 for i in range(SENTINELS) if sentinel(i) in md)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    big = CACHE / "web-large.html"
    if not big.exists():
        large_page(big)
    small = CACHE / "web-small.html"
    small.write_text(SMALL, encoding="utf-8")
    node = ensure_turndown()
    ensure_markdownify()
    out = CACHE / "web-out"
    out.mkdir(exist_ok=True)
    env = dict(os.environ, BATON_WEB_BENCH_OUT=str(out / "baton.md"))
    b = json.loads(subprocess.run([a.bench, "--large", str(big), "--small", str(small), "--runs", str(a.runs)], check=True, capture_output=True, text=True, env=env).stdout.strip().splitlines()[-1])
    script = node / "turndown_bench.js"
    script.write_text(TURNDOWN, encoding="utf-8")
    t = json.loads(subprocess.run(["node", str(script), str(big), str(a.runs), str(out / "turndown.md")], check=True, capture_output=True, text=True).stdout)
    m = json.loads(subprocess.run([sys.executable, "-c", MARKDOWNIFY, str(big), str(max(1, a.runs // 2)), str(out / "markdownify.md")], check=True, capture_output=True, text=True).stdout)
    size = big.stat().st_size / 1e6
    kb, kt, km = (kept((out / f).read_text(encoding="utf-8")) for f in ("baton.md", "turndown.md", "markdownify.md"))
    bt = b["large_content_ms"]
    print(f"page -> Markdown, {size:.1f} MB page: baton {bt:.0f} ms ({b['large_markdown_bytes'] / 1e3:.0f} KB, {kb}/{SENTINELS} article sentences) vs "
          f"turndown {t['ms']:.0f} ms ({t['bytes'] / 1e3:.0f} KB, {kt}/{SENTINELS}): {t['ms'] / bt:.1f}x; "
          f"markdownify {m['ms']:.0f} ms ({m['bytes'] / 1e3:.0f} KB, {km}/{SENTINELS}): {m['ms'] / bt:.1f}x "
          f"(goal >= 10x both, smaller, same text: {'met' if min(t['ms'], m['ms']) >= 10 * bt and b['large_markdown_bytes'] < min(t['bytes'], m['bytes']) and kb == SENTINELS else 'missed'}); medians of {a.runs}")
    print(f"navigate + get_page_content of a small local page: {b['small_navigate_and_content_ms']:.0f} ms (median of {a.runs}); "
          f"browser launch + first navigate {b['launch_and_first_navigate_ms']:.0f} ms; peak memory of the process holding the session {b['peak_rss_mb']:.0f} MB (the browser's own processes not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
