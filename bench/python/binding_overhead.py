#!/usr/bin/env python3
"""What a Python call adds to a solve: McpiSolver.apply from Python against the same C++ apply
called in a loop inside the module (McpiSolver._native_apply_seconds), on the same solver and
arrays; both finish every call (a fence), as a caller needs the result.

    python3 bench/python/binding_overhead.py [--repeats 2000] [--rounds 5] [--json out.json] [--quick]

On a GPU build with CuPy the vectors are CuPy arrays (read and written in place on the GPU);
otherwise NumPy arrays. Each round times the Python loop and the C++ loop back to back; the table
gives each case's median over the rounds, and the overhead (Python - C++) per call with its
spread (smallest, largest round).
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

import ppsparse


def system(g, nb, seed=1):
    """A 7-point block stencil on a g^3 grid: O (bsr_matrix), D diagonally dominant, R."""
    rng = np.random.default_rng(seed)
    n = g ** 3
    idx = np.arange(n).reshape(g, g, g)
    rows, cols = [], []
    for axis in range(3):
        for shift in (1, -1):
            src = np.roll(idx, shift, axis=axis)
            keep = np.ones_like(idx, dtype=bool)
            sl = [slice(None)] * 3
            sl[axis] = 0 if shift == 1 else g - 1
            keep[tuple(sl)] = False  # no wrap-around
            rows.append(idx[keep])
            cols.append(src[keep])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    pattern = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    pattern.sort_indices()
    blocks = rng.uniform(-1, 1, size=(pattern.nnz, nb, nb))
    O = sp.bsr_matrix((blocks, pattern.indices, pattern.indptr), shape=(n * nb, n * nb))
    D = np.stack([np.eye(nb) * 8.0 * nb] * n) + rng.uniform(-0.5, 0.5, (n, nb, nb))
    return O, D, rng.uniform(-1, 1, n * nb)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=2000, help="calls per timed loop")
    p.add_argument("--rounds", type=int, default=5, help="Python/C++ loop pairs per case")
    p.add_argument("--json", help="write the table's numbers here")
    p.add_argument("--quick", action="store_true", help="the small system only (a smoke run)")
    args = p.parse_args()

    gpu = ppsparse.gpu_build()
    xp = np
    if gpu:
        try:
            import cupy
            xp = cupy
        except ImportError:
            print("note: a GPU build without CuPy: NumPy arrays (staged through the device)", file=sys.stderr)
    arrays = "CuPy" if xp is not np else "NumPy"
    print("# ppsparse.apply from Python vs the same C++ call: %s, %s arrays" % (ppsparse.execution_space(), arrays))
    cases = [(8, 5, 1, 0), (8, 5, 5, 5)] + ([] if args.quick else [(32, 5, 1, 0), (32, 5, 5, 5)])
    rows = []
    for g, nb, sweeps, check in cases:
        O, D, R = system(g, nb)
        solver = ppsparse.McpiSolver.from_bsr(O)
        solver.update(O.data, D)
        r, dq = xp.asarray(R), xp.zeros(R.size)
        solver.apply(r, dq, max_sweeps=sweeps, check_interval=check)  # first-call costs
        python_us, native_us, overhead_us = [], [], []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            for _ in range(args.repeats):
                solver.apply(r, dq, max_sweeps=sweeps, check_interval=check)
            py = (time.perf_counter() - t0) / args.repeats * 1e6
            native = solver._native_apply_seconds(r, dq, args.repeats, sweeps, check) * 1e6
            python_us.append(py)
            native_us.append(native)
            overhead_us.append(py - native)
        row = dict(n=g ** 3, nb=nb, sweeps=sweeps, check_interval=check, python_us=statistics.median(python_us),
                   cpp_us=statistics.median(native_us), overhead_us=statistics.median(overhead_us),
                   overhead_min_us=min(overhead_us), overhead_max_us=max(overhead_us))
        rows.append(row)
    print("| block rows | nb | sweeps | checks every | Python us/call | C++ us/call | overhead us (min..max) |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print("| %d | %d | %d | %s | %.1f | %.1f | %.1f (%.1f..%.1f) |" % (
            r["n"], r["nb"], r["sweeps"], r["check_interval"] or "never", r["python_us"], r["cpp_us"],
            r["overhead_us"], r["overhead_min_us"], r["overhead_max_us"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(execution_space=ppsparse.execution_space(), arrays=arrays, repeats=args.repeats,
                           rounds=args.rounds, cases=rows), f, indent=1)


if __name__ == "__main__":
    main()
