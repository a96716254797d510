#!/usr/bin/env python3
"""Prints criterion results of each group as ratios of the Baton
benchmark's throughput to the group's baseline benchmark."""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
for group in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "report"):
    means = {}
    for bench in group.iterdir():
        est = bench / "new" / "estimates.json"
        if est.exists():
            means[bench.name] = json.loads(est.read_text())["median"]["point_estimate"]
    base = [k for k in means if "baseline" in k]
    ours = [k for k in means if "baseline" not in k]
    if not base:
        continue
    for k in ours:
        ratio = means[base[0]] / means[k]
        print(f"{group.name}: {k} median {means[k]/1e6:.2f} ms vs {base[0]} {means[base[0]]/1e6:.2f} ms"
              f" -> throughput ratio {ratio:.2f}x of baseline")
