#!/usr/bin/env python3
"""The distributed MCPI's scaling model (docs/scaling.md): time per sweep on P GPUs from
measured inputs. Prints weak- and strong-scaling tables and the per-GPU size below which the
small colours' halo latency dominates.

  python3 bench/tools/mcpi_scaling_model.py            # the inputs measured on 2 x H100 (docs/scaling.md)
  python3 bench/tools/mcpi_scaling_model.py --alpha 30 --beta 25   # an inter-node link (us, GB/s)
"""
import argparse

# Rows per colour of the greedy colouring (largest degree first) of the embedded mixed-element
# mesh, 130^3 vertices (mcpi --distributed --grid 130 --per-colour, 2 x H100).
COLOUR_ROWS_130 = [231094, 232490, 233436, 234241, 235084, 235477, 234054, 226004, 190238, 112715, 30140, 2013, 14]


def sweep_time(rows_per_gpu, p, a):
    """Modelled seconds per sweep with rows_per_gpu block rows on each of p GPUs."""
    total = sum(COLOUR_ROWS_130)
    t = 0.0
    ghosts = 0.0 if p == 1 else a.ghost_layer * rows_per_gpu ** (2.0 / 3.0) * min(p - 1, a.faces)
    for rows in COLOUR_ROWS_130:
        n_c = rows / total * rows_per_gpu
        t += a.t0 + a.tau * n_c  # the colour's kernel: launch and tail, then bandwidth
        if p == 1 or n_c < 1:
            continue
        # An active colour: one more launch (its boundary rows) and two cross-stream waits,
        # and the exchange of its ghosts, hidden by the interior rows up to their time.
        boundary = min(n_c, ghosts * rows / total)
        exchange = a.alpha + boundary * a.row_bytes / a.beta
        interior = a.tau * (n_c - boundary)
        t += a.split + max(0.0, exchange - interior)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # One GPU (H100, nb = 5): 0.938 ms at 1,092,727 rows and 1.793 ms at 2,197,000 rows (12
    # colours): tau = 0.774 ns per block row, t0 = 7.7 us per colour.
    ap.add_argument("--tau", type=float, default=0.774e-9, help="seconds per block row (one GPU's bandwidth)")
    ap.add_argument("--t0", type=float, default=7.7e-6, help="seconds per colour kernel (launch and tail)")
    ap.add_argument("--split", type=float, default=15.4e-6,
                    help="seconds an active colour adds: its boundary launch and two stream waits (2 t0)")
    ap.add_argument("--alpha", type=float, default=22e-6, help="exchange latency, seconds (NCCL on NVLink: 22 us)")
    ap.add_argument("--beta", type=float, default=170e9, help="exchange bandwidth, bytes/s (NCCL on NVLink: 170 GB/s)")
    ap.add_argument("--row-bytes", type=float, default=20.0, help="bytes per ghost row (nb = 5, FP32 dQ)")
    ap.add_argument("--ghost-layer", type=float, default=1.17,
                    help="ghost rows per face row (measured: 19,698 ghosts for a 130 x 130 face)")
    ap.add_argument("--faces", type=int, default=6, help="faces of a GPU's block of a 3-D partition")
    ap.add_argument("--rows", type=float, default=1092727, help="the default problem's rows per GPU")
    a = ap.parse_args()

    t1 = sweep_time(a.rows, 1, a)
    print(f"inputs: tau {a.tau * 1e9:.3f} ns/row, t0 {a.t0 * 1e6:.1f} us, split {a.split * 1e6:.1f} us, "
          f"alpha {a.alpha * 1e6:.1f} us, beta {a.beta * 1e-9:.0f} GB/s")
    print(f"\nweak scaling, {a.rows:,.0f} rows per GPU (one GPU: {t1 * 1e3:.3f} ms per sweep)")
    print(f"{'GPUs':>6} {'ms/sweep':>9} {'efficiency':>11}")
    for p in (1, 2, 8, 27, 64, 125, 343, 1000):
        t = sweep_time(a.rows, p, a)
        print(f"{p:>6} {t * 1e3:9.3f} {t1 / t * 100:10.1f}%")
    n_total = 2 * a.rows
    print(f"\nstrong scaling, {n_total:,.0f} rows (twice the default problem)")
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
    # Where latency dominates: the per-GPU size at which a colour's interior no longer hides
    # the exchange for most colours.
    total = sum(COLOUR_ROWS_130)
    for rows in (a.rows, a.rows / 2, a.rows / 4, a.rows / 8, a.rows / 16):
        exposed = sum(1 for r in COLOUR_ROWS_130 if a.tau * r / total * rows < a.alpha)
        print(f"{rows:12,.0f} rows per GPU: {exposed:2d} of {len(COLOUR_ROWS_130)} colours too small to hide "
              f"the {a.alpha * 1e6:.0f} us exchange")


if __name__ == "__main__":
    main()
