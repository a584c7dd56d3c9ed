#!/usr/bin/env python3
"""Turn bench_mpk's Google Benchmark JSON into a speedup table and a plot.

usage: mpk_report.py RESULT.json [MORE.json ...] [--out PREFIX] [--no-plot]

For every matrix and power p the table gives the back-to-back time (p SpMVs with the
fastest spmv kernel) and its GB/s by the back-to-back model (the matrix once per power),
then each variant's speedup over back-to-back (b2b time / variant time, both the median
over repetitions), the cache budget and the number of level groups of the blocked
schedule. A summary lists, per matrix, the best variant at p = 4..8 against the MPK's
speedup target (>= 1.4x on well-levelled matrices), and every p at which `auto` fell below 0.97x back-to-back.
Writes PREFIX.md, PREFIX.csv (one row per result) and PREFIX.png (speedup over p per
matrix; matplotlib with the Agg backend, skipped with a note if it is missing).
"""
import argparse
import csv
import gzip
import json
import math
import re
import sys
from collections import OrderedDict, defaultdict

VARIANT_ORDER = ["b2b_rowkernel", "blocked", "graph", "persistent", "pipelined", "blocked_race", "auto"]


def variant_key(name):
    base, _, fraction = name.partition("@")
    order = VARIANT_ORDER.index(base) if base in VARIANT_ORDER else len(VARIANT_ORDER)
    return (order, fraction, name)


def read_json(path):
    """Google Benchmark writes its JSON as it goes: a run that was killed leaves a file cut
    short, which is repaired by closing it after the last complete benchmark. Files ending in
    .gz (how docs/perf/data keeps the larger runs) are read through gzip."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        cut = text.rfind("\n    }")
        if cut < 0:
            raise
        print(f"note: {path} is incomplete (killed run?); using the benchmarks before the cut", file=sys.stderr)
        return json.loads(text[:cut + 6] + "\n  ]\n}\n")


def load(paths):
    """Returns (rows, context): rows[(matrix, p, variant)] = metrics of the median aggregate."""
    samples = defaultdict(list)
    errors = {}
    context = {}
    for path in paths:
        data = read_json(path)
        context = data.get("context", context) or context
        for b in data.get("benchmarks", []):
            name = b.get("run_name") or b.get("name", "")
            parts = name.split("/")
            if parts[0] != "mpk" or len(parts) < 4 or not parts[2].startswith("p"):
                continue
            key = (parts[1], int(parts[2][1:]), parts[3])
            if b.get("error_occurred"):
                errors[key] = b.get("error_message", "error")
                continue
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            samples[key].append(b)
    rows = OrderedDict()
    for key, runs in samples.items():
        medians = [r for r in runs if r.get("aggregate_name") == "median"]
        if medians:
            r = medians[-1]
        else:  # a single repetition: median of the iterations
            runs = sorted(runs, key=lambda r: r["real_time"])
            r = runs[len(runs) // 2]
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[r.get("time_unit", "us")]
        rows[key] = {"seconds": r["real_time"] * unit, **{k: v for k, v in r.items() if isinstance(v, (int, float))},
                     "label": r.get("label", "")}
    for key, msg in errors.items():
        if key not in rows:
            rows[key] = {"error": msg}
    return rows, context


def matrix_sort_key(name):
    m = re.match(r"(.*)_x([0-9.]+)$", name)
    if m:
        return (0, m.group(1), float(m.group(2)))
    return (1, name, 0.0)


def build_tables(rows):
    by_matrix = defaultdict(dict)
    variants = set()
    for (matrix, p, variant), r in rows.items():
        by_matrix[matrix].setdefault(p, {})[variant] = r
        if variant != "b2b":
            variants.add(variant)
    variants = sorted(variants, key=variant_key)
    table = []  # dicts for csv and md
    for matrix in sorted(by_matrix, key=matrix_sort_key):
        for p in sorted(by_matrix[matrix]):
            runs = by_matrix[matrix][p]
            base = runs.get("b2b", {})
            t0 = base.get("seconds")
            entry = {"matrix": matrix, "p": p, "b2b_us": t0 * 1e6 if t0 else None,
                     "b2b_gbs": base.get("gbs"), "budget_mb": None, "groups": None}
            for v in variants:
                r = runs.get(v, {})
                if "error" in r:
                    entry[v] = "error: " + r["error"]
                elif t0 and r.get("seconds"):
                    entry[v] = t0 / r["seconds"]
                else:
                    entry[v] = None
                if v in ("blocked",) and r.get("groups") is not None:
                    entry["budget_mb"] = r.get("budget_mb")
                    entry["groups"] = int(r["groups"])
                if v.startswith("auto") and r.get("label"):
                    entry["auto_choice_" + v] = r["label"].split(" ")[0].replace("auto->", "")
                if v.startswith("auto") and isinstance(r.get("speedup_interleaved"), (int, float)):
                    entry["auto_interleaved_" + v] = float(r["speedup_interleaved"])
            if entry["groups"] is None:
                for v in variants:
                    r = runs.get(v, {})
                    if v.startswith("blocked") and not v.startswith("blocked_race") and r.get("groups") is not None:
                        entry["budget_mb"], entry["groups"] = r.get("budget_mb"), int(r["groups"])
            table.append(entry)
    return table, variants


def fmt(v, spec="{:.2f}"):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v[:40]
    return spec.format(v)


def write_markdown(table, variants, context, out):
    lines = ["# MPK speedup over back-to-back SpMV", ""]
    ctx = ", ".join(f"{k} {context[k]}" for k in ("backend", "llc_mb", "mpk_cache_mb", "copy_gbs", "date",
                                                   "host_name") if k in context)
    if ctx:
        lines += [f"Run: {ctx}.", ""]
    lines += ["Speedup = back-to-back time / variant time (medians over repetitions). b2b GB/s is by the "
              "back-to-back model (the matrix once per power); budget and groups are those of the blocked "
              "schedule.", ""]
    header = ["matrix", "p", "b2b us", "b2b GB/s"] + variants + ["budget MB", "groups"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for e in table:
        cells = [e["matrix"], str(e["p"]), fmt(e["b2b_us"], "{:.1f}"), fmt(e["b2b_gbs"], "{:.1f}")]
        cells += [fmt(e.get(v)) for v in variants]
        cells += [fmt(e["budget_mb"], "{:.1f}"), fmt(e["groups"], "{:d}")]
        lines.append("| " + " | ".join(cells) + " |")

    lines += ["", "## Summary", "",
              "Best variant at p = 4..8 (the MPK target: >= 1.4x on well-levelled matrices); "
              "auto below 0.97x back-to-back is listed as a miss, judged by its interleaved speedup "
              "(auto and back-to-back run in turn in auto's benchmark) where the run has it.", "",
              "| matrix | best speedup (variant, p) | min over p = 4..8 of the best speedup | auto misses (< 0.97x) |",
              "|---|---|---|---|"]
    by_matrix = defaultdict(list)
    for e in table:
        by_matrix[e["matrix"]].append(e)
    for matrix, entries in by_matrix.items():
        best = (0.0, "-", 0)
        worst_best = math.inf
        misses = []
        for e in entries:
            numeric = {v: e[v] for v in variants if isinstance(e.get(v), float) and v != "b2b_rowkernel"}
            if 4 <= e["p"] <= 8 and numeric:
                v, s = max(numeric.items(), key=lambda kv: kv[1])
                if s > best[0]:
                    best = (s, v, e["p"])
                worst_best = min(worst_best, s)
            for v in variants:
                s_auto = e.get("auto_interleaved_" + v, e.get(v))
                if v.startswith("auto") and isinstance(s_auto, float) and s_auto < 0.97:
                    misses.append(f"p={e['p']} {v} {s_auto:.2f}")
        lines.append(f"| {matrix} | {best[0]:.2f} ({best[1]}, p={best[2]}) | "
                     f"{'-' if worst_best == math.inf else f'{worst_best:.2f}'} | {', '.join(misses) or 'none'} |")
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")


def write_csv(table, variants, out):
    fields = ["matrix", "p", "b2b_us", "b2b_gbs"] + variants + ["budget_mb", "groups"]
    with open(out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for e in table:
            w.writerow(e)


def write_plot(table, variants, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib missing, no plot written", file=sys.stderr)
        return
    matrices = list(OrderedDict((e["matrix"], None) for e in table))
    if not matrices:
        return
    cols = 4
    rows = (len(matrices) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False, sharey=False)
    for ax, matrix in zip(axes.flat, matrices):
        entries = [e for e in table if e["matrix"] == matrix]
        ps = [e["p"] for e in entries]
        for v in variants:
            ys = [e.get(v) if isinstance(e.get(v), float) else float("nan") for e in entries]
            ax.plot(ps, ys, marker="o", markersize=3, label=v)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(1.4, color="grey", linewidth=0.8, linestyle="--")
        ax.set_title(matrix, fontsize=9)
        ax.set_xlabel("p", fontsize=8)
        ax.set_ylabel("speedup vs b2b", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(matrices):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=min(len(labels), 7), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(out + ".png", dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--out", default="mpk_report")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args()
    rows, context = load(args.json)
    if not rows:
        print("mpk_report: no mpk/... results in the input", file=sys.stderr)
        return 1
    table, variants = build_tables(rows)
    write_markdown(table, variants, context, args.out)
    write_csv(table, variants, args.out)
    if not args.no_plot:
        write_plot(table, variants, args.out)
    print(f"wrote {args.out}.md, {args.out}.csv" + ("" if args.no_plot else f", {args.out}.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
