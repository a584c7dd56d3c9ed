#!/usr/bin/env python3
"""Summarises bench_mcpi's time-step and auto cases (JSON from --benchmark_out, .gz accepted).

Per problem: each step/* case's median step time and its ratio to step/sweeps (apply alone,
the baseline), and auto/backend against the fastest variant of the same problem.

  python3 bench/tools/mcpi_step_report.py step.json.gz [nbsweep.json.gz ...]
"""
import gzip
import json
import re
import sys
from collections import defaultdict


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(paths):
    medians = defaultdict(dict)  # problem -> case -> (ms, counters)
    for path in paths:
        for b in load(path)["benchmarks"]:
            if not b["name"].endswith("_median"):
                continue
            m = re.match(r"mcpi/([^/]+)/(step/[^/]+|[^/]+/(?:backend|portable))/", b["name"])
            if m:
                medians[m.group(1)][m.group(2)] = (b["real_time"], b)
    for problem, cases in medians.items():
        print(f"\n{problem}")
        base = cases.get("step/sweeps")
        steps = [c for c in cases if c.startswith("step/")]
        if base and steps:
            print(f"  {'case':28s} {'ms/step':>9s} {'x sweeps':>9s}")
            for c in sorted(steps):
                ms = cases[c][0]
                print(f"  {c:28s} {ms:9.3f} {ms / base[0]:9.3f}")
        for suffix in ("backend", "portable"):
            variants = {c: v for c, v in cases.items() if c.endswith("/" + suffix)}
            auto = variants.get(f"auto/{suffix}")
            others = [(v[0], c) for c, v in variants.items() if c != f"auto/{suffix}"]
            if auto and others:
                best = min(others)
                print(f"  auto/{suffix} {auto[0]:.4f} ms/sweep = {auto[0] / best[0]:.3f} x the best"
                      f" ({best[1]}, {best[0]:.4f} ms)")

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
