#!/usr/bin/env python3
"""Turn bench_mcpi's Google Benchmark JSON into Markdown tables, the sweep's target check and plots.

usage: mcpi_report.py RESULT.json [MORE.json ...] [--out DIR] [--no-plot]

Several files (e.g. one bench_mcpi run per problem group) are merged; a file cut short by a
timeout contributes its complete entries.

Per problem, one row per case: every ppsparse variant with the backend's kernels ("backend")
and with the portable Kokkos kernels ("portable"), and the peers (cuSPARSE + cuBLAS baseline,
Kokkos Kernels). Columns: ms per sweep, GB/s against mcpi::sweep_traffic's bytes model,
% of the copy bandwidth measured in the same run, GFLOP/s, and the speedup of the row over
each peer (peer time / row time). Values are Google Benchmark's "median" aggregate over the
repetitions (each repetition's time is its mean sweep). The best ppsparse case per problem is
the one with the smallest time. The target section checks the sweep's goals: the default
problem (nb = 5) at >= 90 % copy, >= 2.0x cuSPARSE, >= 1.15x Kokkos Kernels; every nb of the
sweep at >= 75 % copy and never slower than cuSPARSE.

Writes DIR/mcpi_report.md, DIR/mcpi_results.csv and, with matplotlib (Agg), DIR/mcpi_nb_sweep.png
(% copy over nb: best backend, best portable, peers) and DIR/mcpi_problems.png (GB/s per case
of the default and mesh problems).
"""
import gzip
import argparse
import csv
import json
import os
import re
import statistics
import sys
from collections import OrderedDict, defaultdict

PEERS = OrderedDict([("peer_cusparse", "cuSPARSE"), ("peer_kokkos_kernels", "Kokkos Kernels")])
VARIANT_ORDER = ["warp_per_row", "warp_per_row_l2", "warp_per_row_l2_async", "rows_per_warp", "rows_per_warp_l2",
                 "rows_per_warp_l2_async", "rows_per_warp_prefetch", "split"]
METRICS = ("gbs", "pct_copy", "gflops", "copy_gbs", "model_bytes", "n", "nb", "nnzb", "colours", "check_err",
           "fp64_err", "setup_s")
TARGETS = {"default_pct_copy": 90.0, "default_vs_cusparse": 2.0, "default_vs_kk": 1.15, "sweep_pct_copy": 75.0,
           "sweep_vs_cusparse": 1.0}


def case_of(name):
    """'mcpi/<problem>/<case...>/iterations:10/repeats:5/manual_time' -> (problem, case)."""
    parts = [p for p in name.split("/") if not re.match(r"^(iterations|repeats|min_time|threads):", p)
             and p not in ("manual_time", "real_time")]
    if len(parts) < 3 or parts[0] != "mcpi":
        return None
    return parts[1], "/".join(parts[2:])


def to_ms(value, unit):
    return value * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(unit, 1.0)


def read_json(path):
    """The JSON of a run; a run cut short (timeout) leaves an unterminated file, whose complete
    benchmark entries are recovered. None (with a note) when nothing can be read."""
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            text = f.read()
    except OSError as e:
        print(f"mcpi_report: {path}: {e.strerror}, skipped", file=sys.stderr)
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    end = text.rfind("\n    }")
    if "\"benchmarks\": [" in text and end > 0:
        try:
            data = json.loads(text[:end + 6] + "\n  ]\n}\n")
            print(f"mcpi_report: {path} was cut short; recovered {len(data.get('benchmarks', []))} entries",
                  file=sys.stderr)
            return data
        except json.JSONDecodeError:
            pass
    print(f"mcpi_report: {path}: not readable JSON, skipped", file=sys.stderr)
    return None


def load(paths):
    samples = defaultdict(list)
    errors = OrderedDict()
    copies = []
    context = {}
    order = []
    for path in paths:
        data = read_json(path)
        if data is None:
            continue
        context = data.get("context", context)
        for b in data.get("benchmarks", []):
            name = b.get("run_name") or b.get("name", "")
            if name.startswith("copy/"):
                if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                    continue
                if "gbs" in b:
                    copies.append(b["gbs"])
                continue
            key = case_of(name)
            if key is None:
                continue
            if key not in order:
                order.append(key)
            if b.get("error_occurred"):
                errors[key] = b.get("error_message", "error")
                continue
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            samples[key].append(b)
    results = OrderedDict()
    for key in order:
        rows = samples.get(key)
        if not rows:
            continue
        medians = [r for r in rows if r.get("run_type") == "aggregate"]
        if medians:
            r = medians[-1]
            m = {k: r.get(k) for k in METRICS}
            m["ms"] = to_ms(r.get("real_time", 0.0), r.get("time_unit", "ns"))
        else:  # a single repetition: median over the repetition rows
            m = {k: statistics.median([x.get(k, 0.0) for x in rows]) for k in METRICS if k in rows[0]}
            m["ms"] = statistics.median([to_ms(x.get("real_time", 0.0), x.get("time_unit", "ns")) for x in rows])
        m["label"] = rows[-1].get("label", "")
        results[key] = m
    return results, errors, copies, context


def case_sort_key(case):
    if case.startswith("peer_"):
        return (2, list(PEERS).index(case) if case in PEERS else 9, case)
    variant, _, kind = case.partition("/")
    v = VARIANT_ORDER.index(variant) if variant in VARIANT_ORDER else len(VARIANT_ORDER)
    return (0 if kind == "backend" else 1, v, case)


def group_of(problem):
    if problem.startswith("default"):
        return "default"
    if problem.startswith("nbsweep"):
        return "nb_sweep"
    if problem.startswith("mesh"):
        return "mesh"
    return "other"


def best_case(cases, kind=None):
    """Fastest ppsparse case (optionally only 'backend' or 'portable')."""
    own = {c: m for c, m in cases.items() if not c.startswith("peer_") and (kind is None or c.endswith("/" + kind))}
    if not own:
        return None, None
    c = min(own, key=lambda k: own[k]["ms"])
    return c, own[c]


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def fmt_x(v):
    return "-" if v is None else f"{v:.2f}x"


def speedup(peer, row):
    if not peer or not row or not row.get("ms"):
        return None
    return peer["ms"] / row["ms"]


def build_report(results, errors, copies, context):
    problems = OrderedDict()
    for (problem, case), m in results.items():
        problems.setdefault(problem, OrderedDict())[case] = m
    for (problem, case) in errors:
        problems.setdefault(problem, OrderedDict())
    lines = ["# MCPI benchmark (bench_mcpi)", ""]
    host = context.get("host_name", "?")
    lines.append(f"- Run: {context.get('date', '?')} on {host} ({context.get('num_cpus', '?')} host CPUs).")
    if copies:
        lines.append(f"- Copy bandwidth (device-to-device, same run, median): {statistics.median(copies):.1f} GB/s.")
    lines.append("- Time: median over repetitions of the mean sweep of a repetition (each sweep fenced and timed).")
    lines.append("- GB/s: mcpi::sweep_traffic bytes model (O values FP32 + block column indices + 64-bit row "
                 "pointers, D FP64, R FP64 once; dQ FP32 read once and written once). Speedup = peer time / row time.")
    lines.append("- Every case's dQ after the check sweeps agrees with ppsparse's portable rows_per_warp to < 1e-4 "
                 "(relative L2), or the case is listed as an error instead of a number.")
    lines.append("")
    summary = []
    for problem, cases in problems.items():
        any_m = next(iter(cases.values()), None)
        lines.append(f"## {problem}")
        lines.append("")
        if any_m:
            lines.append(f"n = {int(any_m['n'] or 0):,} block rows, nb = {int(any_m['nb'] or 0)}, "
                         f"{int(any_m['nnzb'] or 0):,} off-diagonal blocks, {int(any_m['colours'] or 0)} colours, "
                         f"{(any_m['model_bytes'] or 0) / 1e6:.1f} MB per sweep, copy {fmt(any_m.get('copy_gbs'), '.0f')} GB/s"
                         + (f", reference vs FP64 host reference {any_m['fp64_err']:.1e}"
                            if any_m.get("fp64_err") is not None and any_m["fp64_err"] >= 0 else "") + ".")
            lines.append("")
        peers = {p: cases.get(p) for p in PEERS}
        lines.append("| case | kernel | ms/sweep | GB/s | % copy | GFLOP/s | vs cuSPARSE | vs KK | check |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for case in sorted(cases, key=case_sort_key):
            m = cases[case]
            label = (m.get("label") or "").replace("|", "/")
            if len(label) > 90:
                label = label[:87] + "..."
            vs_cu = speedup(peers["peer_cusparse"], m) if case != "peer_cusparse" else None
            vs_kk = speedup(peers["peer_kokkos_kernels"], m) if case != "peer_kokkos_kernels" else None
            lines.append(f"| {case} | {label} | {m['ms']:.3f} | {fmt(m.get('gbs'), '.1f')} | {fmt(m.get('pct_copy'), '.1f')} | "
                         f"{fmt(m.get('gflops'), '.1f')} | {fmt_x(vs_cu)} | {fmt_x(vs_kk)} | {fmt(m.get('check_err'), '.1e')} |")
        for (p, case), msg in errors.items():
            if p == problem:
                lines.append(f"| {case} | error: {msg.replace('|', '/')} | | | | | | | |")
        lines.append("")
        best, bm = best_case(cases)
        if best:
            s = {"problem": problem, "group": group_of(problem), "nb": int(bm["nb"] or 0), "best": best,
                 "pct_copy": bm.get("pct_copy"), "gbs": bm.get("gbs"), "ms": bm["ms"],
                 "vs_cusparse": speedup(peers["peer_cusparse"], bm), "vs_kk": speedup(peers["peer_kokkos_kernels"], bm),
                 "best_portable": best_case(cases, "portable"), "best_backend": best_case(cases, "backend"),
                 "cusparse": peers["peer_cusparse"], "kk": peers["peer_kokkos_kernels"]}
            summary.append(s)
            lines.append(f"Best ppsparse case: **{best}**, {bm['ms']:.3f} ms, {fmt(bm.get('gbs'), '.0f')} GB/s = "
                         f"{fmt(bm.get('pct_copy'), '.1f')} % of copy; vs cuSPARSE {fmt_x(s['vs_cusparse'])}, "
                         f"vs Kokkos Kernels {fmt_x(s['vs_kk'])}.")
            lines.append("")
    sweep = sorted([s for s in summary if s["group"] == "nb_sweep"], key=lambda s: s["nb"])
    if sweep:
        lines.append("## nb sweep summary")
        lines.append("")
        lines.append("| nb | problem | best case | GB/s | % copy | best portable % copy | cuSPARSE % copy | KK % copy | "
                     "vs cuSPARSE | vs KK |")
        lines.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for s in sweep:
            bp = s["best_portable"][1]
            lines.append(f"| {s['nb']} | {s['problem']} | {s['best']} | {fmt(s['gbs'], '.0f')} | {fmt(s['pct_copy'], '.1f')} | "
                         f"{fmt(bp and bp.get('pct_copy'), '.1f')} | {fmt(s['cusparse'] and s['cusparse'].get('pct_copy'), '.1f')} | "
                         f"{fmt(s['kk'] and s['kk'].get('pct_copy'), '.1f')} | {fmt_x(s['vs_cusparse'])} | {fmt_x(s['vs_kk'])} |")
        lines.append("")
    lines += target_section(summary)
    return "\n".join(lines) + "\n", summary


def verdict(value, target, higher_is_better=True):
    if value is None:
        return "not measured"
    ok = value >= target if higher_is_better else value <= target
    return ("met" if ok else f"MISSED by {target - value:.2f}" if higher_is_better else "MISSED") + f" ({value:.2f})"


def target_section(summary):
    lines = ["## Sweep targets", ""]
    default = [s for s in summary if s["group"] == "default" and s["nb"] == 5]
    if default:
        s = default[0]
        lines.append(f"- default problem ({s['problem']}, best case {s['best']}):")
        lines.append(f"  - % of copy >= {TARGETS['default_pct_copy']:.0f}: {verdict(s['pct_copy'], TARGETS['default_pct_copy'])}")
        lines.append(f"  - speedup over cuSPARSE >= {TARGETS['default_vs_cusparse']:.2f}x: "
                     f"{verdict(s['vs_cusparse'], TARGETS['default_vs_cusparse'])}")
        lines.append(f"  - speedup over Kokkos Kernels >= {TARGETS['default_vs_kk']:.2f}x: "
                     f"{verdict(s['vs_kk'], TARGETS['default_vs_kk'])}")
    else:
        lines.append("- default problem (nb = 5): not in this run")
    sweep = sorted([s for s in summary if s["group"] == "nb_sweep"], key=lambda s: s["nb"])
    if sweep:
        low = [s for s in sweep if s["pct_copy"] is None or s["pct_copy"] < TARGETS["sweep_pct_copy"]]
        unmeasured = [s for s in sweep if s["vs_cusparse"] is None]
        slow = [s for s in sweep if s["vs_cusparse"] is not None and s["vs_cusparse"] < TARGETS["sweep_vs_cusparse"]]
        lines.append(f"- nb sweep ({len(sweep)} block sizes, nb {sweep[0]['nb']}..{sweep[-1]['nb']}):")
        lines.append(f"  - every nb >= {TARGETS['sweep_pct_copy']:.0f} % of copy: "
                     + ("met" if not low else "MISSED at nb " + ", ".join(
                         f"{s['nb']} ({fmt(s['pct_copy'], '.1f')} %)" for s in low)))
        verdicts = []
        if slow:
            verdicts.append("MISSED at nb " + ", ".join(f"{s['nb']} ({fmt_x(s['vs_cusparse'])})" for s in slow))
        if unmeasured:
            verdicts.append("not measured at nb " + ", ".join(str(s["nb"]) for s in unmeasured))
        lines.append("  - never slower than cuSPARSE: " + ("; ".join(verdicts) if verdicts else "met"))
    lines.append("")
    return lines


def write_csv(path, results):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["problem", "case", "ms_per_sweep"] + list(METRICS) + ["label"])
        for (problem, case), m in results.items():
            w.writerow([problem, case, m["ms"]] + [m.get(k) for k in METRICS] + [m.get("label", "")])


def plot(out_dir, summary, results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("mcpi_report: matplotlib not available: no plots", file=sys.stderr)
        return []
    written = []
    sweep = sorted([s for s in summary if s["group"] == "nb_sweep"], key=lambda s: s["nb"])
    if sweep:
        fig, ax = plt.subplots(figsize=(9, 5))
        nbs = [s["nb"] for s in sweep]

        def series(get):
            xs, ys = [], []
            for s in sweep:
                v = get(s)
                if v is not None:
                    xs.append(s["nb"])
                    ys.append(v)
            return xs, ys
        for label, get, style in [
                ("ppsparse best", lambda s: s["pct_copy"], "o-"),
                ("ppsparse best portable", lambda s: s["best_portable"][1] and s["best_portable"][1].get("pct_copy"), "s--"),
                ("cuSPARSE + cuBLAS", lambda s: s["cusparse"] and s["cusparse"].get("pct_copy"), "^-"),
                ("Kokkos Kernels", lambda s: s["kk"] and s["kk"].get("pct_copy"), "v-")]:
            xs, ys = series(get)
            if xs:
                ax.plot(xs, ys, style, label=label)
        ax.axhline(TARGETS["sweep_pct_copy"], color="gray", ls=":", lw=1, label="75 % target")
        ax.set_xscale("log", base=2)
        ax.set_xticks(nbs)
        ax.set_xticklabels([str(n) for n in nbs])
        ax.set_xlabel("block size nb")
        ax.set_ylabel("% of device-to-device copy bandwidth")
        ax.set_title("MCPI sweep, nb sweep (bench_mcpi)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(out_dir, "mcpi_nb_sweep.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    others = [s["problem"] for s in summary if s["group"] in ("default", "mesh")]
    if others:
        fig, axes = plt.subplots(1, len(others), figsize=(6 * len(others), 5), squeeze=False)
        for ax, problem in zip(axes[0], others):
            cases = sorted([c for (p, c) in results if p == problem], key=case_sort_key)
            vals = [results[(problem, c)].get("pct_copy") or 0.0 for c in cases]
            colours = ["tab:blue" if c.endswith("/backend") else "tab:orange" if c.endswith("/portable") else "tab:gray"
                       for c in cases]
            ax.barh(range(len(cases)), vals, color=colours)
            ax.set_yticks(range(len(cases)))
            ax.set_yticklabels(cases, fontsize=7)
            ax.invert_yaxis()
            ax.axvline(TARGETS["default_pct_copy"], color="gray", ls=":", lw=1)
            ax.set_xlabel("% of copy bandwidth")
            ax.set_title(problem + "  (blue: backend, orange: portable, gray: peers)", fontsize=8)
        fig.tight_layout()
        path = os.path.join(out_dir, "mcpi_problems.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", help="bench_mcpi --benchmark_out files")
    ap.add_argument("--out", default="mcpi_report", help="output directory (default: mcpi_report)")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    results, errors, copies, context = load(args.json)
    if not results and not errors:
        sys.exit("mcpi_report: no mcpi/... benchmarks in " + ", ".join(args.json))
    os.makedirs(args.out, exist_ok=True)
    text, summary = build_report(results, errors, copies, context)
    md = os.path.join(args.out, "mcpi_report.md")
    with open(md, "w") as f:
        f.write(text)
    write_csv(os.path.join(args.out, "mcpi_results.csv"), results)
    written = [md, os.path.join(args.out, "mcpi_results.csv")]
    if not args.no_plot:
        written += plot(args.out, summary, results)
    for w in written:
        print("wrote", w)


if __name__ == "__main__":
    main(sys.argv[1:])
