#!/usr/bin/env python3
"""First against second order of mcpi --flow runs: a Markdown table and a convergence plot.

  flow_orders_report.py --case LABEL=FIRST/flow_history.json,SECOND/flow_history.json ...
                        --out PREFIX [--data FILE.json.gz]

Each case pairs a first-order run with a second-order one (either may be "-"). The table gives
steps, final drop, time, the step at which the second-order run switched from first order and
the step of its first Newton-Krylov step, the linear solves at their limit, cl and cd; the plot
(PREFIX.png) the density residual against steps, the switch and the Newton-Krylov start marked.
--data writes the histories' plotted columns, compressed, so that the plot can be redrawn.
"""
import argparse
import gzip
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    if path == "-":
        return None
    with open(path) as f:
        h = json.load(f)
    keep = ("step", "relative", "elapsed", "order", "newton_krylov", "linear_at_limit", "cfl")
    h["steps"] = [{k: s.get(k) for k in keep} for s in h["steps"]]
    return h


def first_step(h, key, value):
    return next((s["step"] for s in h["steps"] if s.get(key) == value), None)


def row(label, order, h):
    if h is None:
        return "| %s | %d | — | | | | | | | |" % (label, order)
    st = h["steps"]
    solved = [s for s in st if s["cfl"] > 0]
    switch = first_step(h, "order", 2) if order == 2 else None
    newton = first_step(h, "newton_krylov", True)
    return "| %s | %d | %d | %s | %.1e | %.2f | %s | %s | %d | %.4f | %.4f |" % (
        label, order, h["vertices"], len(st) - 1 if h["converged"] else "— (%d)" % (len(st) - 1),
        st[-1]["relative"], st[-1]["elapsed"], switch or "", newton or "",
        sum(1 for s in solved if s["linear_at_limit"]), h["cl"], h["cd"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", action="append", required=True, help="LABEL=FIRST,SECOND")
    ap.add_argument("--out", required=True)
    ap.add_argument("--data")
    a = ap.parse_args()
    cases = []
    for c in a.case:
        label, _, paths = c.partition("=")
        first, _, second = paths.partition(",")
        cases.append((label, load(first), load(second)))
    print("| case | order | vertices | steps to 1e-8 | drop | time s | second order from | Newton-Krylov from "
          "| linear solves at the limit | cl | cd |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, h1, h2 in cases:
        print(row(label, 1, h1))
        print(row(label, 2, h2))
    if a.data:
        with gzip.open(a.data, "wt") as f:
            json.dump([{"case": lb, "first": h1, "second": h2} for lb, h1, h2 in cases], f, separators=(",", ":"))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (label, h1, h2) in enumerate(cases):
        ax = axes[0 if k < (len(cases) + 1) // 2 else 1]
        c = colours[k % len(colours)]
        for h, style, name in ((h1, "--", "1st"), (h2, "-", "2nd")):
            if h is None:
                continue
            t = [s["step"] for s in h["steps"]]
            r = [s["relative"] for s in h["steps"]]
            ax.semilogy(t, r, style, color=c, label="%s, %s" % (label, name))
            if h is h2:
                for key, value, marker in (("order", 2, "o"), ("newton_krylov", True, "s")):
                    at = next((i for i, s in enumerate(h["steps"]) if s.get(key) == value), None)
                    if at is not None:
                        ax.semilogy([t[at]], [r[at]], marker, color=c, mfc="none")
    for ax in axes:
        ax.set_xlabel("pseudo-time step")
        ax.set_ylabel("density residual / first")
        ax.axhline(1e-8, color="grey", lw=0.5)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_title("o: second order starts, □: Newton-Krylov starts", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out + ".png", dpi=110)


if __name__ == "__main__":
    main()
