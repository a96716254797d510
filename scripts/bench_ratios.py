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
        def fmt(ns):
            return f"{ns/1e6:.2f} ms" if ns >= 1e5 else f"{ns/1e3:.2f} µs"
        print(f"{group.name}: {k} median {fmt(means[k])} vs {base[0]} {fmt(means[base[0]])}"
              f" -> {means[k]/means[base[0]]:.1f}x the baseline's time (throughput ratio {ratio:.2f})")
