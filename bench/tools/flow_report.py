#!/usr/bin/env python3
"""Tables and plots of mcpi --flow runs from their flow_history.json files.

  flow_report.py --case LABEL=DIR/flow_history.json ... [--cp LABEL=DIR/flow_wall_cp.csv]
                 [--mach-vtu flow_solution.vtu] --out PREFIX

Prints a Markdown table (steps, vertices, linear iterations and sweeps per step, median step
split, time to converge) and writes PREFIX_convergence.png (density residual against steps and
against time) and, with --cp / --mach-vtu, PREFIX_solution.png.
"""
import argparse
import json
import statistics
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402


def pairs(items):
    out = []
    for item in items or []:
        label, _, path = item.partition("=")
        out.append((label, path))
    return out


def table(cases):
    print("| case | vertices | linear | steps | final drop | lin. it. / step | sweeps / step | "
          "residual ms | Jacobian ms | factor ms | solve ms | (res + Jac) / solve | time to converge s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, h in cases:
        steps = [s for s in h["steps"] if s["cfl"] > 0]
        later = [s for s in steps if s["step"] > 1] or steps
        med = lambda k: statistics.median(s[k] for s in later) * 1e3  # noqa: E731
        res, jac, fac, sol = med("t_residual"), med("t_jacobian"), med("t_factor"), med("t_solve")
        print("| %s | %d | %s | %d | %.1e | %.1f | %.0f | %.3f | %.3f | %.3f | %.2f | %.3f | %.2f%s |" % (
            label, h["vertices"], h["linear"], len(steps), h["steps"][-1]["relative"],
            statistics.mean(s["linear_iterations"] for s in steps), statistics.mean(s["sweeps"] for s in steps),
            res, jac, fac, sol, (res + jac) / sol, h["steps"][-1]["elapsed"], "" if h["converged"] else " (not converged)"))


def convergence_plot(cases, path):
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for label, h in cases:
        s = h["steps"]
        ax[0].semilogy([r["step"] - 1 for r in s], [r["relative"] for r in s], label=label)
        ax[1].semilogy([r["elapsed"] for r in s], [r["relative"] for r in s], label=label)
    ax[0].set_xlabel("pseudo-time steps")
    ax[0].set_ylabel("density residual / first")
    ax[1].set_xlabel("time (s, after setup)")
    ax[1].set_xscale("log")
    for a in ax:
        a.grid(True, which="both", alpha=0.3)
    ax[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def vtu_field(path, name):
    root = ET.parse(path).getroot()
    piece = root.find("UnstructuredGrid/Piece")
    arrays = {a.get("Name"): a for a in piece.iter("DataArray")}
    pts = [float(x) for x in piece.find("Points/DataArray").text.split()]
    conn = [int(x) for x in arrays["connectivity"].text.split()]
    offs = [int(x) for x in arrays["offsets"].text.split()]
    field = [float(x) for x in arrays[name].text.split()]
    tris, start = [], 0
    for end in offs:
        cell = conn[start:end]
        for k in range(1, len(cell) - 1):  # fan: triangles and quadrilaterals
            tris.append((cell[0], cell[k], cell[k + 1]))
        start = end
    return pts[0::3], pts[1::3], tris, field


def solution_plot(cp_cases, vtu, path):
    panels = (1 if cp_cases else 0) + (1 if vtu else 0)
    fig, ax = plt.subplots(1, panels, figsize=(5.5 * panels, 4))
    ax = ax if panels > 1 else [ax]
    k = 0
    if vtu:
        x, y, tris, mach = vtu_field(vtu, "Mach")
        t = mtri.Triangulation(x, y, tris)
        c = ax[k].tricontourf(t, mach, levels=30, cmap="viridis")
        fig.colorbar(c, ax=ax[k], label="Mach number")
        ax[k].set_xlim(-0.5, 1.5)
        ax[k].set_ylim(-0.75, 0.75)
        ax[k].set_aspect("equal")
        ax[k].set_title("Mach number")
        k += 1
    if cp_cases:
        for label, p in cp_cases:
            rows = [line.strip().split(",") for line in open(p)][1:]
            ax[k].plot([float(r[0]) for r in rows], [float(r[-1]) for r in rows], ".", ms=2, label=label)
        ax[k].invert_yaxis()
        ax[k].set_xlabel("x / c")
        ax[k].set_ylabel("Cp")
        ax[k].grid(True, alpha=0.3)
        ax[k].legend(fontsize=8)
        ax[k].set_title("wall pressure coefficient")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", action="append", required=True)
    p.add_argument("--cp", action="append")
    p.add_argument("--mach-vtu")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    cases = [(label, json.load(open(path))) for label, path in pairs(a.case)]
    table(cases)
    convergence_plot(cases, a.out + "_convergence.png")
    if a.cp or a.mach_vtu:
        solution_plot(pairs(a.cp), a.mach_vtu, a.out + "_solution.png")


if __name__ == "__main__":
    main()
