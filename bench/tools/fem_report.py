#!/usr/bin/env python3
"""Tables and a plot from bench_fem's JSON (Google Benchmark, --benchmark_out_format=json).

    python3 bench/tools/fem_report.py bench_fem.json --out docs/perf/fem_h100

Prints, per mesh, order and precision, a Markdown table of the operators: time per product, the
ratio to the CSR operator, GB/s on the operator's own bytes model and its share of the run's
copy bandwidth, what it stores, the setup in products, the break-even against CSR, and CG's
iterations and time. Writes OUT.png (time per product relative to CSR, and share of copy).
"""
import argparse
import json
import sys
from collections import OrderedDict


def rows_of(path):
    with open(path) as f:
        doc = json.load(f)
    copy = float(doc.get("context", {}).get("copy_gbs", 0) or 0)
    cases = OrderedDict()
    for b in doc.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        if not name.startswith("fem/") or b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
            continue
        _, mesh, order, precision, op = name.split("/")[:5]
        cases.setdefault((mesh, order, precision), []).append(dict(op=op, label=b.get("label", ""),
                                                                   us=b["real_time"] * {"ns": 1e-3, "us": 1, "ms": 1e3}[b.get("time_unit", "ns")],
                                                                   **{k: b[k] for k in b if isinstance(b[k], (int, float))}))
    return copy, cases


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json")
    p.add_argument("--out", help="write OUT.png")
    args = p.parse_args()
    copy, cases = rows_of(args.json)
    if not cases:
        sys.exit("fem_report: no fem/ benchmarks in " + args.json)
    print("copy bandwidth in the same run: %.0f GB/s\n" % copy)
    for (mesh, order, precision), rows in cases.items():
        first = rows[0]
        print("### %s, %s, %s: %d nodes, %d elements, %d nonzeros\n" % (mesh, order, precision, first.get("nodes", 0),
                                                                      first.get("elements", 0), first.get("nnz", 0)))
        print("| operator | us / product | CSR kernel / this | SpMV auto / this | GB/s (own model) | % of copy | stored MB | setup (products) | break-even vs CSR (products) | CG iterations | CG s |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            be = r.get("break_even")
            ratio = lambda k: "%.2f" % r[k] if k in r else "-"  # noqa: E731
            print("| %s | %.1f | %s | %s | %.0f | %.0f | %.0f | %.1f | %s | %s | %s |" % (
                r["op"], r["us"], ratio("csr_ratio"), ratio("auto_ratio"), r.get("gbs", 0), r.get("pct_copy", 0), r.get("matrix_mb", 0),
                r.get("setup_products", 0), "-" if be is None else ("never" if be < 0 else "%.0f" % be),
                "%d" % r["cg_iterations"] if "cg_iterations" in r else "-", "%.3f" % r["cg_s"] if "cg_s" in r else "-"))
        print()
    if args.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        keys = list(cases)
        ops = []
        for rows in cases.values():
            for r in rows:
                if r["op"] not in ops:
                    ops.append(r["op"])
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
        width = 0.8 / len(ops)
        for k, op in enumerate(ops):
            ratio = [next((r.get("auto_ratio", 0) for r in cases[c] if r["op"] == op), 0) for c in keys]
            share = [next((r.get("pct_copy", 0) for r in cases[c] if r["op"] == op), 0) for c in keys]
            xs = [i + (k - len(ops) / 2) * width for i in range(len(keys))]
            axes[0].bar(xs, ratio, width, label=op)
            axes[1].bar(xs, share, width, label=op)
        for ax, title in ((axes[0], "speed relative to the assembled matrix (SpMV auto time / time)"),
                          (axes[1], "% of copy bandwidth, own bytes model")):
            ax.set_xticks(range(len(keys)))
            ax.set_xticklabels(["%s\n%s %s" % c for c in keys], fontsize=7)
            ax.set_title(title)
            ax.grid(axis="y", alpha=0.3)
        axes[0].axhline(1, color="k", lw=0.8)
        axes[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.out + ".png", dpi=110)
        print("wrote " + args.out + ".png")


if __name__ == "__main__":
    main()
