#!/usr/bin/env python3
"""bench_multigrid's JSON as a Markdown table (docs/perf/multigrid.md): per system and tolerance,
each solver's setup, refresh, iterations and time to the tolerance, and its time against the
fastest AmgX configuration of the same system and tolerance.

    python3 bench/tools/multigrid_report.py mg.json [more.json ...] [--out report.md]
"""
import argparse
import json
import re
import sys


def load(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            m = re.match(r"solve/([^/]+)/([^/]+)/rtol_([^/]+)/", b["name"] + "/")
            if not m:
                continue
            row = {"system": m.group(1), "file": path, "solver": m.group(2), "rtol": float(m.group(3))}
            if b.get("error_occurred"):
                row["error"] = b.get("error_message", "error")
            else:
                row.update({k: b.get(k) for k in ("setup_s", "refresh_s", "iterations", "converged", "true_rel",
                                                  "ms_per_iteration", "levels", "n", "nb")})
                row["ms"] = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] * 1e-6
                row["label"] = b.get("label", "")
            rows.append(row)
    return rows


def table(rows):
    out = []
    # A system is its name and size: two files of one name from different folders stay apart.
    sizes = {}
    for r in rows:
        if "n" in r:
            sizes[(r["system"], r["file"])] = int(r["n"])
    keys = sorted({(r["system"], r["file"], r["rtol"]) for r in rows},
                  key=lambda k: (sizes.get(k[:2], 0), k[0], -k[2]))
    for system, file, rtol in keys:
        group = [r for r in rows if r["system"] == system and r["file"] == file and r["rtol"] == rtol]
        amgx = [r["ms"] for r in group if r["solver"].startswith("amgx") and "ms" in r and r.get("converged")]
        best = min(amgx) if amgx else None
        sized = next((r for r in group if "n" in r), None)
        size = f", {int(sized['n']):,} block rows of {int(sized['nb'])}" if sized else ""
        out.append(f"\n**{system}{size}, to {rtol:g}**\n")
        out.append("| solver | levels | setup s | refresh ms | iterations | solve ms | ms / it. | true residual | "
                   "against the best AmgX |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in group:
            if "error" in r:
                out.append(f"| {r['solver']} | | | | | | | | error: {r['error'][:80]} |")
                continue
            conv = "" if r["converged"] else " (not converged)"
            ratio = f"{r['ms'] / best:.2f}x" if best else "-"
            out.append(f"| {r['solver']} | {int(r['levels'])} | {r['setup_s']:.3f} | {1e3 * r['refresh_s']:.2f} | "
                       f"{int(r['iterations'])}{conv} | {r['ms']:.1f} | {r['ms_per_iteration']:.2f} | "
                       f"{r['true_rel']:.1e} | {ratio} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+")
    ap.add_argument("--out", help="write the table here (default: standard output)")
    a = ap.parse_args()
    rows = load(a.json)
    if not rows:
        sys.exit("multigrid_report: no solve/ benchmarks in " + ", ".join(a.json))
    text = table(rows)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
