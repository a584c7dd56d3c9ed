#!/usr/bin/env python3
"""The reduced-precision O study: tables and plots from `mcpi --flow` histories and `mcpi --json` runs.

    python3 bench/tools/o_format_report.py LOGDIR --out docs/perf/o_format_h100

LOGDIR holds, per flow case C (naca, bend) and format F (fp32, bf16, fp16, int8):
  C_F_mcpi/flow_history.json         MCPI alone (the true residual checks on the stored O)
  C_F_fgmres_full/flow_history.json  FGMRES + MCPI, the Krylov operator in FP32 (--o-keep-fp32)
  C_F_fgmres/flow_history.json       FGMRES + MCPI, the Krylov operator in F (reduced formats)
and, for the generated systems, gen_F.json (mcpi --sweeps 30 --o-keep-fp32 --json: the true
residual after each sweep, unrounded A). Prints Markdown tables; writes OUT_flows.png and
OUT_generated.png (matplotlib), and the tables' numbers to --json (default OUT_flows.json).
"""
import argparse
import json
import os
import sys

FORMATS = ["fp32", "bf16", "fp16", "int8"]
CASES = {"naca": "NACA 0012, 2-D, refined once", "bend": "pipe bend, 3-D, refined three times"}
CONFIGS = [("mcpi", "MCPI alone"), ("fgmres_full", "FGMRES, FP32 operator"), ("fgmres", "FGMRES, reduced operator")]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def summary(h, drop):
    steps = h["steps"]
    solved = [s for s in steps if s.get("cfl", 0) > 0]  # the last record is the stopping residual
    n = len(solved)
    t_step = sum(s["t_residual"] + s["t_jacobian"] + s["t_factor"] + s["t_solve"] + s["t_update"] for s in solved)
    return {
        "vertices": h["vertices"],
        "converged": h["converged"] and steps[-1]["relative"] <= drop,
        "steps": n,
        "final": steps[-1]["relative"],
        "lin_it": sum(s["linear_iterations"] for s in solved) / max(n, 1),
        "sweeps": sum(s["sweeps"] for s in solved) / max(n, 1),
        "ms_step": 1e3 * t_step / max(n, 1),
        "time": steps[-1]["elapsed"],
        "history": [(s["step"], s["relative"], s["elapsed"]) for s in steps],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logdir")
    ap.add_argument("--out", default="o_format")
    ap.add_argument("--drop", type=float, default=1e-10)
    ap.add_argument("--json", help="where the flows' summary goes (default OUT_flows.json)")
    a = ap.parse_args()
    table = {}
    for case in CASES:
        for fmt in FORMATS:
            for cfg, _ in CONFIGS:
                h = load(os.path.join(a.logdir, "%s_%s_%s" % (case, fmt, cfg), "flow_history.json"))
                if h is None and fmt == "fp32" and cfg == "fgmres":
                    continue  # FP32 has one operator
                if h is not None:
                    table[(case, fmt, cfg)] = summary(h, a.drop)
    rows = []
    for case, title in CASES.items():
        if not any(k[0] == case for k in table):
            continue
        verts = next(v["vertices"] for k, v in table.items() if k[0] == case)
        print("\n### %s (%s vertices)\n" % (title, format(verts, ",")))
        print("| linear solver | O | steps to %.0e | vs FP32 | lin. it. / step | sweeps / step | ms / step | time to converge s | vs FP32 |" % a.drop)
        print("|---|---|---|---|---|---|---|---|---|")
        for cfg, cname in CONFIGS:
            base = table.get((case, "fp32", "fgmres_full" if cfg == "fgmres" else cfg))
            for fmt in FORMATS:
                r = table.get((case, fmt, cfg))
                if r is None:
                    continue
                ok = r["converged"]
                steps = "%d" % r["steps"] if ok else "not in %d (%.1e)" % (r["steps"], r["final"])
                vs = "%.2fx" % (r["steps"] / base["steps"]) if base and ok and base["converged"] else "-"
                tvs = "%.2fx" % (r["time"] / base["time"]) if base and ok and base["converged"] else "-"
                print("| %s | %s | %s | %s | %.1f | %.0f | %.1f | %s | %s |" % (
                    cname, fmt, steps, vs, r["lin_it"], r["sweeps"], r["ms_step"],
                    "%.2f" % r["time"] if ok else "-", tvs))
                rows.append({"case": case, "format": fmt, "config": cfg, **{k: v for k, v in r.items() if k != "history"}})
    with open(a.json or a.out + "_flows.json", "w") as f:
        json.dump(rows, f, indent=1)

    gen = {fmt: load(os.path.join(a.logdir, "gen_%s.json" % fmt)) for fmt in FORMATS}
    gen = {k: v for k, v in gen.items() if v}
    if gen:
        print("\n### Generated FUN3D-like system (true residual, unrounded A)\n")
        print("| O | FP32 copy kept | ms / sweep | after 5 sweeps | after 15 | after 30 |")
        print("|---|---|---|---|---|---|")
        for fmt, d in gen.items():
            r = d["results"][0]
            h = r["residual_history"]
            print("| %s | %s | %.3f | %.2e | %.2e | %.2e |" % (
                fmt, "yes" if d.get("o_keep_fp32") and fmt != "fp32" else "no", r["ms_per_sweep"],
                h[4], h[min(14, len(h) - 1)], h[min(29, len(h) - 1)]))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plots", file=sys.stderr)
        return
    colours = {"fp32": "k", "bf16": "tab:blue", "fp16": "tab:green", "int8": "tab:red"}
    styles = {"mcpi": ":", "fgmres_full": "-", "fgmres": "--"}
    cases = [c for c in CASES if any(k[0] == c for k in table)]
    if cases:
        fig, axes = plt.subplots(len(cases), 2, figsize=(12, 4.2 * len(cases)), squeeze=False)
        for i, case in enumerate(cases):
            for (c, fmt, cfg), r in table.items():
                if c != case:
                    continue
                st = [x[0] for x in r["history"]]
                rel = [x[1] for x in r["history"]]
                el = [x[2] for x in r["history"]]
                label = "%s, %s" % (fmt, dict(CONFIGS)[cfg])
                axes[i][0].semilogy(st, rel, styles[cfg], color=colours[fmt], label=label)
                axes[i][1].semilogy(el, rel, styles[cfg], color=colours[fmt], label=label)
            axes[i][0].set_title("%s: density residual by step" % CASES[case])
            axes[i][1].set_title("%s: by time" % CASES[case])
            axes[i][0].set_xlabel("pseudo-time step")
            axes[i][1].set_xlabel("seconds")
            for ax in axes[i]:
                ax.axhline(a.drop, color="grey", lw=0.5)
                ax.grid(True, which="both", alpha=0.3)
            axes[i][0].set_ylabel("||R_rho|| / ||R_rho,0||")
        axes[0][1].legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(a.out + "_flows.png", dpi=110)
    if gen:
        fig, ax = plt.subplots(figsize=(6, 4))
        for fmt, d in gen.items():
            h = d["results"][0]["residual_history"]
            ax.semilogy(range(1, len(h) + 1), h, color=colours[fmt], label=fmt)
        ax.set_xlabel("MCPI sweeps from dQ = 0")
        ax.set_ylabel("||R - A dQ|| / ||R||  (FP64, unrounded A)")
        ax.set_title("generated FUN3D-like system, 1.09 M block rows, nb 5")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.out + "_generated.png", dpi=110)


if __name__ == "__main__":
    main()
