#!/usr/bin/env python3
"""The distributed MCPI's scaling model (docs/scaling.md): time per sweep on P GPUs from
measured inputs. Prints weak- and strong-scaling tables, the per-GPU size below which the
small colours' halo latency dominates, and (--scenarios) each transport and colouring at 4, 8
and 1000 GPUs.

  python3 bench/tools/mcpi_scaling_model.py                 # inputs measured on 4 x H100 (docs/scaling.md)
  python3 bench/tools/mcpi_scaling_model.py --scenarios     # transports x colourings, 4 / 8 / 1000 GPUs
  python3 bench/tools/mcpi_scaling_model.py --alpha 30e-6 --beta 25e9   # another link (s, bytes/s)
"""
import argparse

# Rows per colour of the greedy colouring (largest degree first, the same on every partition)
# of the embedded mixed-element mesh, 164^3 vertices (mcpi --distributed --grid 164
# --per-colour, 4 x H100, 2026-11-27).
COLOUR_ROWS_164 = [462443, 465794, 467356, 468986, 470549, 471083, 468875, 453703, 385267, 230678, 62071, 4091, 48]

# What each transport costs per exchanging colour besides the messages and their exposed
# latency: s with one neighbour and its growth per further neighbour, fitted so that this model
# gives the sweeps measured at 1.1 M rows per GPU on 2 and 4 H100s of one host
# (docs/perf/mcpi_distributed.md: NCCL 1.143 and 1.232 ms, as a graph 1.137 and 1.179
# ms, staged 1.276 and 1.399 ms); and the transport's link (mcpi --probe-link).
TRANSPORTS = {
    # name: (s with one neighbour, s per further neighbour, alpha, beta)
    "nccl": (12.3e-6, 3.6e-6, 29e-6, 150e9),
    "nccl_graph": (11.8e-6, 1.6e-6, 29e-6, 150e9),
    # The device-initiated exchange as a graph: measured once, on 4 GPUs at 549 k rows each,
    # beside NCCL as a graph (0.690 against 0.724 ms, 12 exchanging colours): 2.8 us less per
    # exchanging colour; the neighbour growth and the link are taken as NCCL's.
    "peer_graph": (9.0e-6, 1.6e-6, 29e-6, 150e9),
    # The same with one kernel per exchange (it gathers its rows) and the exchange at the highest
    # priority: fitted to its 4-GPU sweeps with boundary pairs at 1.1 M rows per GPU (1.041-1.042
    # ms, runs 8 and 10), the neighbour growth and the link again NCCL's.
    "peer_graph_one_kernel": (7.3e-6, 1.6e-6, 29e-6, 150e9),
    "staged": (25.5e-6, 4.9e-6, 16e-6, 4e9),
}


def sweep_time(rows_per_gpu, p, a, exchanging=0, pairs=False):
    """Modelled seconds per sweep with rows_per_gpu block rows on each of p GPUs; exchanging > 0:
    only the first `exchanging` colours exchange (the boundary-first colouring); pairs: those
    colours exchange in pairs, once after each pair's second colour (the boundary-pairs
    colouring, which also takes one colour more: measured 14 against 13 at 1 M rows per rank)."""
    total = sum(COLOUR_ROWS_164)
    neighbours = min(p - 1, a.faces)
    ghosts = 0.0 if p == 1 else a.ghost_layer * rows_per_gpu ** (2.0 / 3.0) * neighbours
    s = a.split + a.split_per_neighbour * max(0, neighbours - 1)
    active = [i for i, r in enumerate(COLOUR_ROWS_164) if r / total * rows_per_gpu >= 1]
    if exchanging > 0:
        active = active[:exchanging]
    active_rows = sum(COLOUR_ROWS_164[i] for i in active)
    # The boundary rows each exchange carries, at the colour after which it runs.
    carried = {}
    for j, i in enumerate(active):
        at = active[min(j | 1, len(active) - 1)] if pairs else i
        carried[at] = carried.get(at, 0.0) + min(COLOUR_ROWS_164[i] / total * rows_per_gpu,
                                                 ghosts * COLOUR_ROWS_164[i] / active_rows)
    t = a.t0 if pairs and p > 1 else 0.0  # the extra colour
    for i, rows in enumerate(COLOUR_ROWS_164):
        n_c = rows / total * rows_per_gpu
        t += a.t0 + a.tau * n_c  # the colour's kernel: launch and tail, then bandwidth
        if p == 1 or i not in carried:
            continue
        # An exchanging colour: its extra cost s, and the exchange of its ghosts, hidden by
        # its interior rows up to their time.
        boundary = carried[i]
        if boundary < 1:  # no ghost row expected in this colour: it does not exchange
            continue
        exchange = a.alpha + boundary * a.row_bytes / a.beta
        interior = a.tau * max(0.0, n_c - min(n_c, boundary))
        t += s + max(0.0, exchange - interior)
    return t


def exposed_colours(rows_per_gpu, a):
    """Colours whose interior rows run for less than one exchange latency."""
    total = sum(COLOUR_ROWS_164)
    return sum(1 for r in COLOUR_ROWS_164 if a.tau * r / total * rows_per_gpu < a.alpha)


def scenarios(a):
    """Each transport and colouring at 4, 8 (one node) and 1000 GPUs (weak, 1.09 M rows each)."""
    print("\nweak scaling, %s rows per GPU: ms per sweep (efficiency against one GPU)" % f"{a.rows:,.0f}")
    print(f"{'transport':<22} {'colouring':<22} {'4 GPUs':>16} {'8 GPUs':>16} {'1000 GPUs':>16}")
    t1 = sweep_time(a.rows, 1, a)
    for name, (s1, ds, alpha, beta) in TRANSPORTS.items():
        for colouring, exchanging, pairs in (("partition_independent", 0, False),
                                             ("boundary_first", a.boundary_first_colours, False),
                                             ("boundary_pairs", a.boundary_first_colours, True)):
            cells = []
            for p, link in ((4, None), (8, None), (1000, (a.internode_alpha, a.internode_beta))):
                if link and name.startswith("peer"):  # one node only: between nodes it is NCCL's row
                    cells.append("-")
                    continue
                b = argparse.Namespace(**vars(a))
                b.split, b.split_per_neighbour, b.alpha, b.beta = s1, ds, alpha, beta
                if link and name != "staged":
                    b.alpha, b.beta = link
                t = sweep_time(a.rows, p, b, exchanging, pairs)
                cells.append(f"{t * 1e3:6.3f} ({t1 / t * 100:4.1f} %)")
            print(f"{name:<22} {colouring:<22} {cells[0]:>16} {cells[1]:>16} {cells[2]:>16}")


def plot_measured(path, out, a):
    """Strong- and weak-scaling efficiency measured (path: docs/perf/data/mcpi_distributed_*.json)
    beside this model's, as a PNG."""
    import json
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    d = json.load(open(path))
    t1_big = sum(d["one_gpu_ms"]["4410944"]) / len(d["one_gpu_ms"]["4410944"])
    t1 = sum(d["one_gpu_ms"]["1092727"]) / len(d["one_gpu_ms"]["1092727"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, key, title, eff in (
            (axes[0], "strong_4410944", "strong: 4.41 M rows", lambda p, t: t1_big / (p * t)),
            (axes[1], "weak_per_gpu_1.1M", "weak: 1.1 M rows per GPU", lambda p, t: t1 / t)):
        for i, (name, runs) in enumerate(d[key].items()):
            for p, times in runs.items():
                effs = [100 * eff(int(p), t) for t in times]
                x = int(p) + (i - 3) * 0.1
                ax.plot([x] * len(effs), effs, "o", color=f"C{i}", label=name if p == list(runs)[0] else None)
        lines = [(name, False) for name in TRANSPORTS] + [("peer_graph_one_kernel", True)]
        for name, pairs in lines:
            if name == "staged" and key.startswith("weak"):
                continue
            s1, ds, alpha, beta = TRANSPORTS[name]
            b = argparse.Namespace(**vars(a))
            b.split, b.split_per_neighbour, b.alpha, b.beta = s1, ds, alpha, beta
            ex = a.boundary_first_colours if pairs else 0
            ps = [1, 2, 4, 8]
            if key.startswith("strong"):
                ys = [100 * sweep_time(4410944, 1, b) / (p * sweep_time(4410944 / p, p, b, ex, pairs)) for p in ps]
            else:
                ys = [100 * sweep_time(a.rows, 1, b) / sweep_time(a.rows, p, b, ex, pairs) for p in ps]
            style = "-" if pairs else {"nccl": "--", "nccl_graph": "-", "peer_graph": ":", "peer_graph_one_kernel": (0, (1, 3)),
                                       "staged": "-."}[name]
            ax.plot(ps, ys, linestyle=style, lw=1.2 if pairs else 1, color="black" if pairs else "grey",
                    label=f"model, {name}" + (", boundary pairs" if pairs else ""))
        ax.axhline(90 if key.startswith("weak") else 85, color="r", lw=0.8, ls=":", label="target (4 GPUs)")
        ax.set_title(title)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("efficiency, %")
        ax.set_xticks([1, 2, 4, 8])
        ax.set_ylim(40, 105)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6.5, loc="lower left", ncol=2)
    fig.suptitle(d["device"].split(",")[0] + ", " + d["date"], fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # One GPU (H100, nb = 5): 0.937 ms at 1,092,727 rows and 3.495 ms at 4,410,944 rows
    # (12 colours): tau = 0.771 ns per block row, t0 = 7.9 us per colour.
    ap.add_argument("--tau", type=float, default=0.771e-9, help="seconds per block row (one GPU's bandwidth)")
    ap.add_argument("--t0", type=float, default=7.9e-6, help="seconds per colour kernel (launch and tail)")
    ap.add_argument("--split", type=float, default=TRANSPORTS["nccl_graph"][0],
                    help="seconds an exchanging colour adds with one neighbour (fitted: NCCL as a graph)")
    ap.add_argument("--split-per-neighbour", type=float, default=TRANSPORTS["nccl_graph"][1],
                    help="seconds an exchanging colour adds per further neighbour (fitted on 4 GPUs)")
    ap.add_argument("--alpha", type=float, default=29e-6, help="exchange latency, seconds (NCCL on NVLink: 29 us)")
    ap.add_argument("--beta", type=float, default=150e9, help="exchange bandwidth, bytes/s (NCCL on NVLink: 150 GB/s)")
    ap.add_argument("--internode-alpha", type=float, default=30e-6, help="latency between nodes (assumed)")
    ap.add_argument("--internode-beta", type=float, default=25e9, help="bandwidth between nodes (assumed)")
    ap.add_argument("--row-bytes", type=float, default=20.0, help="bytes per ghost row (nb = 5, FP32 dQ)")
    ap.add_argument("--ghost-layer", type=float, default=1.17,
                    help="ghost rows per face row (measured: 19,698 ghosts for a 130 x 130 face)")
    ap.add_argument("--faces", type=int, default=6, help="neighbours of a GPU's block of a 3-D partition")
    ap.add_argument("--boundary-first-colours", type=int, default=11,
                    help="colours that exchange with the boundary-first colouring (measured on 4 GPUs: 11 of 13)")
    ap.add_argument("--rows", type=float, default=1092727, help="the default problem's rows per GPU")
    ap.add_argument("--scenarios", action="store_true", help="print only the transports x colourings table")
    ap.add_argument("--plot-measured", nargs=2, metavar=("JSON", "PNG"),
                    help="plot the efficiencies of a measured run beside the model's")
    a = ap.parse_args()
    if a.plot_measured:
        plot_measured(a.plot_measured[0], a.plot_measured[1], a)
        return

    if a.scenarios:
        scenarios(a)
        return
    t1 = sweep_time(a.rows, 1, a)
    print(f"inputs: tau {a.tau * 1e9:.3f} ns/row, t0 {a.t0 * 1e6:.1f} us, s {a.split * 1e6:.1f} us "
          f"+ {a.split_per_neighbour * 1e6:.1f} us per further neighbour, alpha {a.alpha * 1e6:.1f} us, "
          f"beta {a.beta * 1e-9:.0f} GB/s")
    print(f"\nweak scaling, {a.rows:,.0f} rows per GPU (one GPU: {t1 * 1e3:.3f} ms per sweep)")
    print(f"{'GPUs':>6} {'ms/sweep':>9} {'efficiency':>11}")
    for p in (1, 2, 4, 8, 27, 64, 125, 343, 1000):
        t = sweep_time(a.rows, p, a)
        print(f"{p:>6} {t * 1e3:9.3f} {t1 / t * 100:10.1f}%")
    n_total = 4 * a.rows
    print(f"\nstrong scaling, {n_total:,.0f} rows (four times the default problem)")
    print(f"{'GPUs':>6} {'rows/GPU':>10} {'ms/sweep':>9} {'efficiency':>11}")
    ts = sweep_time(n_total, 1, a)
    for p in (1, 2, 4, 8, 16, 32, 64):
        t = sweep_time(n_total / p, p, a)
        print(f"{p:>6} {n_total / p:10,.0f} {t * 1e3:9.3f} {ts / (p * t) * 100:10.1f}%")
    n_big = 1000 * a.rows
    print(f"\nstrong scaling, {n_big:,.0f} rows (the default problem on each of 1000 GPUs)")
    print(f"{'GPUs':>6} {'rows/GPU':>10} {'ms/sweep':>9} {'vs 1000':>8}")
    base = sweep_time(a.rows, 1000, a)
    for p in (1000, 2000, 4000, 8000, 16000):
        t = sweep_time(n_big / p, p, a)
        print(f"{p:>6} {n_big / p:10,.0f} {t * 1e3:9.3f} {base / (t * p / 1000) * 100:7.1f}%")
    for rows in (a.rows, a.rows / 2, a.rows / 4, a.rows / 8, a.rows / 16):
        print(f"{rows:12,.0f} rows per GPU: {exposed_colours(rows, a):2d} of {len(COLOUR_ROWS_164)} colours too "
              f"small to hide the {a.alpha * 1e6:.0f} us exchange")


if __name__ == "__main__":
    main()
