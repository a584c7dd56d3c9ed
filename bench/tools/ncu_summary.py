#!/usr/bin/env python3
"""Summarises an `ncu --csv --metrics ...` log: per kernel name, launches, total time and the
time-weighted mean of each other metric."""
import csv
import io
import sys
from collections import defaultdict


def main(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        sys.exit(f"{path}: no ncu CSV table found")
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    by = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        name = r["Kernel Name"].split("(")[0].split("<")[0][:40]
        try:
            by[name][r["ID"]][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    for name, launches in by.items():
        tot = sum(m.get("gpu__time_duration.sum", 0) for m in launches.values())
        metrics = sorted({k for m in launches.values() for k in m if k != "gpu__time_duration.sum"})
        out = [f"{name}: {len(launches)} launches, {tot / 1e3:.1f} us"]
        for k in metrics:
            w = sum(m.get("gpu__time_duration.sum", 0) * m.get(k, 0) for m in launches.values())
            out.append(f"{k}={w / tot:.3g}" if tot else f"{k}=?")
        print("; ".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
