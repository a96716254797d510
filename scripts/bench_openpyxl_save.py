"""The baseline of `make bench`'s workbook figure: openpyxl loads each
workbook of the corpus, sets the same far cell and saves it (what a Python
user would do). Prints one JSON line: files, seconds, files losing package
parts (the calculation chain aside) and the files it could not open.

    python bench_openpyxl_save.py CORPUS_DIR
"""

import json
import pathlib
import sys
import tempfile
import time
import warnings
import zipfile

import openpyxl

warnings.simplefilter("ignore")


def parts(path):
    with zipfile.ZipFile(path) as z:
        return {n for n in z.namelist() if n.lower() != "xl/calcchain.xml"}


def main():
    corpus = pathlib.Path(sys.argv[1])
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".xlsx", ".xlsm"))
    saved = lost = failed = 0
    elapsed = 0.0
    with tempfile.TemporaryDirectory() as out:
        for f in files:
            target = pathlib.Path(out) / f.name
            start = time.perf_counter()
            try:
                book = openpyxl.load_workbook(f, keep_vba=f.suffix == ".xlsm", keep_links=True)
                book.worksheets[0]["ZZ5000"] = "Baton"
                book.save(target)
            except Exception:  # noqa: BLE001 - counted, as Baton's refusals are
                failed += 1
                continue
            finally:
                elapsed += time.perf_counter() - start
            saved += 1
            if parts(f) - parts(target):
                lost += 1
    print(json.dumps({"files": len(files), "saved": saved, "seconds": elapsed,
                      "losing_parts": lost, "failed": failed}))


main()
