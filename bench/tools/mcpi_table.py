#!/usr/bin/env python3
"""Turns mcpi --json outputs into a Markdown table: one row per (file, variant)."""
import gzip
import json
import sys


def main(paths):
    print("| problem | n | nb | colours | MB/sweep | copy GB/s | variant | kernel | ms/sweep | GB/s | % copy | GFLOP/s | ‖r‖/‖R‖ |")
    print("|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|")
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            d = json.load(f)
        for r in d["results"]:
            print(f"| {d['problem']} | {d['n']} | {d['nb']} | {d['colours']} | {d['bytes_per_sweep'] / 1e6:.1f} | "
                  f"{d['copy_gbs']:.0f} | {r['variant']} | {r.get('kernel', '')} | {r['ms_per_sweep']:.3f} | {r['gbs']:.0f} | "
                  f"{r['pct_copy']:.1f} | {r['gflops']:.0f} | {r['residual_reduction']:.2e} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: mcpi_table.py FILE.json [FILE.json ...]")
    main(sys.argv[1:])
