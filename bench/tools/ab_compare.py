#!/usr/bin/env python3
"""Old against new: compares Google Benchmark JSON outputs of two builds of the same benchmark.

    ab_compare.py --old old1.json [old2.json ...] --new new1.json [new2.json ...] [--margin 0.03]
                  [--match REGEX] [--markdown]

Run the two binaries alternately on one machine (old, new, old, new, ...) so that drift in the
device's clocks or temperature falls on both. For every benchmark present in both builds, each
repetition's time (the `iteration` entries; a run with --benchmark_report_aggregates_only gives
only aggregates, and then the medians are used) is pooled over the files of one side, and the
table gives the medians, the ratio new / old of the medians and the ratio's spread: the smallest
and largest ratio of one old file's median against one new file's, over all pairs of files.
A benchmark is flagged `SLOWER` when the ratio of medians exceeds 1 + margin. The copy benchmarks
(`copy/...`) are listed first: they move no library code, so their ratio is the run's own noise.
The exit status is 1 if any benchmark is flagged, 2 on bad input.
"""
import argparse
import gzip
import json
import re
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"ab_compare.py: {path}: {e}")


def times(doc):
    """run_name -> list of per-repetition times in microseconds."""
    to_us = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    per_run, medians = {}, {}
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        name = b.get("run_name", b.get("name"))
        t = b.get("real_time")
        if t is None:
            continue
        t *= to_us.get(b.get("time_unit", "ns"), 1e-3)
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = t
        else:
            per_run.setdefault(name, []).append(t)
    for name, t in medians.items():
        per_run.setdefault(name, [t])
    return per_run


def short_name(name):
    """The benchmark's name without Google Benchmark's run settings (min_time, repeats, ...)."""
    return re.sub(r"/(min_time|repeats|iterations|manual_time)[^/]*", "", name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--margin", type=float, default=0.03)
    ap.add_argument("--match", default="", help="only benchmarks whose name (without run settings) matches this regex")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    old = [times(load(p)) for p in a.old]
    new = [times(load(p)) for p in a.new]
    pattern = re.compile(a.match)
    names = [n for n in old[0] if all(n in d for d in old + new) and pattern.search(short_name(n))]
    if not names:
        sys.exit("ab_compare.py: no benchmark is in every file" + (f" and matches '{a.match}'" if a.match else ""))
    names.sort(key=lambda n: (not n.startswith("copy/"), n))
    rows, flagged = [], 0
    for n in names:
        o = statistics.median([t for d in old for t in d[n]])
        w = statistics.median([t for d in new for t in d[n]])
        pairs = [statistics.median(dn[n]) / statistics.median(do[n]) for do in old for dn in new]
        ratio = w / o if o > 0 else float("inf")
        slower = ratio > 1 + a.margin and not n.startswith("copy/")
        flagged += slower
        short = short_name(n)
        rows.append((short, o, w, ratio, min(pairs), max(pairs), "SLOWER" if slower else ""))
    if a.markdown:
        print("| benchmark | old us | new us | new/old | pair range | |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.3f} | {r[4]:.3f}-{r[5]:.3f} | {r[6]} |")
    else:
        width = max(len(r[0]) for r in rows)
        print(f"{'benchmark':<{width}} {'old us':>10} {'new us':>10} {'new/old':>8} {'pair range':>13}")
        for r in rows:
            print(f"{r[0]:<{width}} {r[1]:10.1f} {r[2]:10.1f} {r[3]:8.3f} {r[4]:6.3f}-{r[5]:.3f} {r[6]}")
    ratios = [r[3] for r in rows if not r[0].startswith("copy/")]
    if ratios:
        print(f"{len(ratios)} benchmarks: new/old median {statistics.median(ratios):.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}; {flagged} over 1 + {a.margin:g}")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
