#!/usr/bin/env python3
"""Turn bench_spmv's Google Benchmark JSON into per-matrix tables, geometric means and a plot.

usage: spmv_report.py RESULT.json [MORE.json ...] [--out PREFIX] [--baseline ALGO] [--no-plot]

For every matrix and precision the table lists, per algorithm, the bandwidth against the
CSR bytes model (GB/s), its share of the copy bandwidth measured in the same run (% copy),
and the speedup over the baseline (vendor_csr, i.e. cuSPARSE / rocSPARSE, when the run has
it; otherwise kk_default). Values are the median over repetitions (Google Benchmark's
"median" aggregate; the median of the iterations when a run had one repetition).
Geometric means are given per precision and matrix group: "shared" (mm_*, small real
matrices that fit in a GPU's L2) and "large" (generated, 5-50x the L2).
Runs of spmv_tuner/<matrix>/fp64/samples=<s>[/runs=<r>] add a table of csr_coop's run-time tuner
against the exhaustive search (each time over the exhaustive best).
Writes PREFIX.md (tables), PREFIX.csv (one row per result) and PREFIX.png (bars of % copy,
matplotlib with the Agg backend; skipped with a note if matplotlib is missing).
"""
import gzip
import argparse
import csv
import json
import math
import statistics
import sys
from collections import OrderedDict, defaultdict

ALGORITHM_ORDER = ["csr_v1", "csr_v2", "csr_coop", "csr_coop_tuned", "sell", "sell_hyb",
                   "kk_native", "kk_default", "vendor_csr", "vendor_sell"]


def load(paths):
    """Returns (results, copy, errors, context, tuner): results[(matrix, prec, algo)] = dict of
    metrics; tuner[(matrix, setting)] = the spmv_tuner benchmarks' counters and labels, a list (one
    per repetition)."""
    samples = defaultdict(list)  # key -> list of (is_median_aggregate, row)
    copy = []
    errors = {}
    context = {}
    tuner = OrderedDict()
    for path in paths:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            data = json.load(f)
        context = data.get("context", context)
        for b in data.get("benchmarks", []):
            name = b.get("run_name") or b.get("name", "")
            parts = name.split("/")
            if parts[0] == "copy":
                if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                    continue
                if "gbs" in b:
                    copy.append(b["gbs"])
                continue
            if parts[0] == "spmv_tuner" and len(parts) >= 4:
                # --benchmark_repetitions: every repetition is a row of its own; the aggregates
                # of counts and ratios say nothing more.
                if not b.get("error_occurred") and b.get("run_type") != "aggregate":
                    # samples=<s>[/runs=<r>][/strict|/paper_start]: calls per candidate, products timed per call
                    # (older runs: one product per call, no runs= part).
                    setting = parts[3].replace("samples=", "")
                    rest = parts[4:]
                    runs = next((p_.replace("runs=", "") for p_ in rest if p_.startswith("runs=")), "1")
                    setting += f", {runs} per call" if "every_call" in rest or runs == "1" else f", <= {runs} per call"
                    if "paired" in rest:
                        setting += " paired with the best"
                    if "strict" in rest:
                        setting += " (strict descent)"
                    if "paper_start" in rest:
                        setting += " (start in the first call, repeat halved first)"
                    if "exhaustive_again" in rest:
                        setting += ", beside the exhaustive search repeated"
                    tuner.setdefault((parts[1], setting), []).append(b)
                continue
            if parts[0] != "spmv" or len(parts) < 4:
                continue
            key = (parts[1], parts[2], parts[3])
            if b.get("error_occurred"):
                errors[key] = b.get("error_message", "error")
                continue
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    samples[key].append((True, b))
            else:
                samples[key].append((False, b))
    results = {}
    for key, rows in samples.items():
        medians = [r for is_med, r in rows if is_med]
        if medians:
            row = medians[-1]
            metrics = {k: row.get(k) for k in ("gbs", "pct_copy", "gflops", "kernel_gbs", "setup_ms", "setup_spmvs",
                                               "nnz", "nrows", "err", "copy_gbs")}
            metrics["time_us"] = row.get("real_time")
        else:
            iters = [r for _, r in rows]
            metrics = {k: statistics.median([r.get(k, 0.0) for r in iters])
                       for k in ("gbs", "pct_copy", "gflops", "kernel_gbs", "setup_ms", "setup_spmvs", "nnz",
                                 "nrows", "err", "copy_gbs")}
            metrics["time_us"] = statistics.median([r.get("real_time", 0.0) for r in iters])
        metrics["label"] = rows[-1][1].get("label", "")
        results[key] = metrics
    return results, copy, errors, context, tuner


def tuner_lines(tuner):
    """The tuner table: times of the fixed rule, of the tuner's choice after 8 products and
    when it stops, each over the best point of the exhaustive search. Benchmarks of several
    tuner runs (counter `runs`) give the median run, the worst and the runs within 2 %; older
    ones, a single run."""
    if not tuner:
        return []
    lines = ["## csr_coop run-time tuner against the exhaustive search, fp64", "",
             "Times over the exhaustive best (1.00 = as fast); each point re-timed as the median of 21 products.", "",
             "| matrix | calls per candidate, products per call | fixed rule | after 8 calls (median run) | worst run | "
             "runs within 2 % | calls to finish | when finished | tuning overhead (products) | points searched | parameters |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def runs_of(b):
        runs = int(b.get("runs", 1))
        within = b.get("after8_within_2pct")
        if within is None:
            within = 1 if b.get("after8_over_best", 9) <= 1.02 else 0
        return int(within), runs

    for (m, s), b in ((key, b) for key, bs in tuner.items() for b in bs):
        within, runs = runs_of(b)
        worst = b.get("after8_worst", b.get("after8_over_best"))
        lines.append(f"| {m} | {s} | {fmt(b.get('start_over_best'), 3)} | {fmt(b.get('after8_over_best'), 3)} | "
                     f"{fmt(worst, 3)} | {within} of {runs} | {int(b.get('done_calls', 0))} | "
                     f"{fmt(b.get('done_over_best'), 3)} | {fmt(b.get('tuning_overhead'), 1)} | "
                     f"{int(b.get('points', 0))} | {b.get('label', '')} |")
    for s in sorted({s for _, s in tuner}):
        rows = [b for (m, ss), bs in tuner.items() if ss == s for b in bs]
        worst = max(b.get("after8_worst", b.get("after8_over_best", 0)) for b in rows)
        within = sum(runs_of(b)[0] for b in rows)
        runs = sum(runs_of(b)[1] for b in rows)
        lines.append("")
        overheads = sorted(b["tuning_overhead"] for b in rows if "tuning_overhead" in b)
        overhead = f"; tuning overhead {fmt(overheads[0], 1)}-{fmt(overheads[-1], 1)} products" if overheads else ""
        lines.append(f"- samples={s}: {within} of {runs} runs within 2 % of the exhaustive best after 8 calls; "
                     f"worst {fmt(worst, 3)}x{overhead}.")
        again = [b for b in rows if "exhaustive_runs" in b]
        if again:
            lines.append(f"- the exhaustive search repeated as if it were the tuner, same benchmarks: "
                         f"{int(sum(b['exhaustive_within_2pct'] for b in again))} of "
                         f"{int(sum(b['exhaustive_runs'] for b in again))} searches within 2 % of the exhaustive best; "
                         f"worst {fmt(max(b['exhaustive_worst'] for b in again), 3)}x.")
    lines.append("")
    return lines


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def group_of(matrix):
    return "shared" if matrix.startswith("mm_") else "large"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--out", default="spmv_report", help="prefix of the .md/.csv/.png outputs")
    ap.add_argument("--baseline", default=None, help="algorithm for the speedup column (default: vendor_csr, else kk_default)")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)

    results, copy, errors, context, tuner = load(args.json)
    if not results and not tuner:
        print("spmv_report: no SpMV results in " + ", ".join(args.json), file=sys.stderr)
        return 1
    algos = [a for a in ALGORITHM_ORDER if any(k[2] == a for k in results)]
    algos += sorted({k[2] for k in results} - set(algos))
    baseline = args.baseline or ("vendor_csr" if "vendor_csr" in algos else "kk_default")
    precisions = [p for p in ("fp64", "fp32") if any(k[1] == p for k in results)]
    matrices = list(OrderedDict.fromkeys(k[0] for k in sorted(results, key=lambda k: (group_of(k[0]) != "shared", k[0]))))

    lines = []
    copy_gbs = statistics.median(copy) if copy else None
    lines.append("# SpMV benchmark report")
    lines.append("")
    lines.append(f"- runs: {', '.join(args.json)}")
    if context:
        lines.append(f"- host: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs, "
                     f"date {context.get('date', '?')}")
    lines.append(f"- copy bandwidth (same run, median): {fmt(copy_gbs)} GB/s")
    lines.append(f"- GB/s: CSR bytes model / median time; % copy: share of the copy bandwidth; "
                 f"speedup: time of {baseline} / time")
    lines.append("")

    csv_rows = []
    for prec in precisions:
        lines.append(f"## {prec}")
        lines.append("")
        header = "| matrix | rows | nnz | " + " | ".join(f"{a} GB/s (% copy)" for a in algos) + f" | best | best / {baseline} |"
        lines.append(header)
        lines.append("|" + "---|" * (len(algos) + 5))
        for m in matrices:
            row_results = {a: results.get((m, prec, a)) for a in algos}
            present = {a: r for a, r in row_results.items() if r and r.get("gbs")}
            if not present:
                continue
            any_r = next(iter(present.values()))
            best = max(present, key=lambda a: present[a]["gbs"])
            base = present.get(baseline)
            cells = []
            for a in algos:
                r = row_results[a]
                if r and r.get("gbs"):
                    mark = "**" if a == best else ""
                    cells.append(f"{mark}{fmt(r['gbs'])} ({fmt(r['pct_copy'], 0)}%){mark}")
                elif (m, prec, a) in errors:
                    cells.append("skip")
                else:
                    cells.append("-")
                if r:
                    speed = (base["time_us"] / r["time_us"]) if base and r.get("time_us") else None
                    csv_rows.append({"matrix": m, "group": group_of(m), "precision": prec, "algorithm": a,
                                     "gbs": r.get("gbs"), "pct_copy": r.get("pct_copy"), "gflops": r.get("gflops"),
                                     "kernel_gbs": r.get("kernel_gbs"), "time_us": r.get("time_us"),
                                     "setup_ms": r.get("setup_ms"), "speedup_vs_" + baseline: speed,
                                     "nrows": r.get("nrows"), "nnz": r.get("nnz"), "label": r.get("label", "")})
            speedup = present[best]["time_us"] and base and base["time_us"] / present[best]["time_us"]
            lines.append(f"| {m} | {int(any_r.get('nrows') or 0)} | {int(any_r.get('nnz') or 0)} | " + " | ".join(cells) +
                         f" | {best} | {fmt(speedup, 2) if base else '-'} |")
        lines.append("")
        lines.append(f"### Geometric means, {prec}")
        lines.append("")
        lines.append(f"| algorithm | group | matrices | GB/s | % copy | speedup over {baseline} |")
        lines.append("|---|---|---|---|---|---|")
        for group in ("shared", "large"):
            for a in algos:
                vals = [results[(m, prec, a)] for m in matrices
                        if group_of(m) == group and (m, prec, a) in results and results[(m, prec, a)].get("gbs")]
                if not vals:
                    continue
                speeds = []
                for m in matrices:
                    r, b = results.get((m, prec, a)), results.get((m, prec, baseline))
                    if group_of(m) == group and r and b and r.get("time_us") and b.get("time_us"):
                        speeds.append(b["time_us"] / r["time_us"])
                lines.append(f"| {a} | {group} | {len(vals)} | {fmt(geomean([v['gbs'] for v in vals]))} | "
                             f"{fmt(geomean([v['pct_copy'] for v in vals]), 0)} | {fmt(geomean(speeds), 2)} |")
        lines.append("")
    lines += tuner_lines(tuner)
    if errors:
        reasons = OrderedDict()
        for (m, p, a), msg in errors.items():
            reasons.setdefault(msg, []).append(f"{m}/{p}/{a}")
        lines.append("## Skipped")
        lines.append("")
        for msg, which in reasons.items():
            lines.append(f"- {len(which)} x '{msg}' (e.g. {which[0]})")
        lines.append("")

    text = "\n".join(lines)
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    if csv_rows:
        fields = list(OrderedDict.fromkeys(k for r in csv_rows for k in r))
        with open(args.out + ".csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(csv_rows)
    print(text)

    if not args.no_plot and not precisions:
        print("spmv_report: no products in the input (a tuner-only run?), no plot written", file=sys.stderr)
    elif not args.no_plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("spmv_report: matplotlib not available, no plot written", file=sys.stderr)
            return 0
        fig, axes = plt.subplots(len(precisions), 1, figsize=(max(8, 0.9 * len(matrices) + 2), 4.5 * len(precisions)),
                                 squeeze=False)
        width = 0.8 / max(1, len(algos))
        for ax, prec in zip(axes[:, 0], precisions):
            for j, a in enumerate(algos):
                xs, ys = [], []
                for i, m in enumerate(matrices):
                    r = results.get((m, prec, a))
                    if r and r.get("pct_copy"):
                        xs.append(i + (j - (len(algos) - 1) / 2) * width)
                        ys.append(r["pct_copy"])
                if xs:
                    ax.bar(xs, ys, width=width, label=a)
            ax.set_xticks(range(len(matrices)))
            ax.set_xticklabels(matrices, rotation=60, ha="right", rotation_mode="anchor", fontsize=8)
            ax.set_ylabel("% of copy bandwidth")
            ax.set_title(f"SpMV {prec}: CSR bytes model / time, relative to the same-run copy ({fmt(copy_gbs)} GB/s)")
            ax.axhline(100, color="gray", linewidth=0.8, linestyle="--")
            ax.legend(fontsize=7, ncol=3)
        fig.tight_layout()
        fig.savefig(args.out + ".png", dpi=120)
        print(f"spmv_report: wrote {args.out}.md, {args.out}.csv, {args.out}.png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
