"""A convergence study from Python: on a real mesh's vertex graph (a shared SU2 mesh, refined;
the committed channel mesh where ../shared is absent), a FUN3D-like block system (nb = 5),
solved by MCPI alone and by FGMRES + MCPI, each with O in FP32 and in int8; the residual
histories are plotted with matplotlib into convergence_study.png (or the path given).

    python3 examples/python/convergence_study.py [OUT.png]
"""
import os
import pathlib
import sys

import numpy as np
import scipy.sparse as sp

import ppsparse

here = pathlib.Path(__file__).resolve().parents[2]
shared = pathlib.Path(os.environ.get("PPSPARSE_SHARED_DIR", here.parent / "shared")) / "meshes" / "brick_tets.su2"
path, refine = (shared, 0) if shared.exists() else (here / "test" / "data" / "flow" / "channel_2d.su2", 2)
out = sys.argv[1] if len(sys.argv) > 1 else "convergence_study.png"

mesh = ppsparse.read_mesh(path, refine=refine)
g = mesh["graph"].tocsr()
g.sort_indices()
n, nb = g.shape[0], 5
rng = np.random.default_rng(2026)
# O: blocks of negative entries on the graph's edges (an M-matrix-like coupling, where the sweeps'
# errors do not cancel); D: each row's off-diagonal mass times 1.01 (barely dominant); R random.
# On brick_tets, MCPI alone takes about 20 sweeps to 1e-6 with O in FP32, and with O in int8 it
# stalls near 5e-4 of the FP32 system (the rounding of O), where FGMRES, whose operator is the
# FP32 copy (keep_fp32), still reaches 1e-8 in about 5 iterations: the plot shows both.
O = -rng.uniform(0, 1, (g.nnz, nb, nb)).astype(np.float32).astype(np.float64)
mass = np.add.reduceat(np.abs(O).sum(axis=2).max(axis=1), g.indptr[:-1]) if g.nnz else np.zeros(n)
D = 1.01 * mass[:, None, None] * np.eye(nb) + 0.05 * rng.uniform(-1, 1, (n, nb, nb))
R = rng.uniform(-1, 1, n * nb)
print("%s refined %d: %d vertices, %d blocks" % (path.name, refine, n, g.nnz))

histories, finals = {}, {}
for fmt in ("fp32", "int8"):
    solver = ppsparse.McpiSolver(g.indptr, g.indices, nb, o_format=fmt, keep_fp32=True)
    solver.update(O, D)
    _, st = solver.apply(R, rtol=1e-6, max_sweeps=300, check_interval=1)
    # The checks fused into the sweeps measure the stored O; the final residual, the FP32 one
    # (keep_fp32): int8's gap between the two is its rounding.
    histories["MCPI, O in %s (checks on the stored O)" % fmt] = (
        [h[0] + 1 for h in st.history], [h[1] / st.initial_residual for h in st.history])
    finals["MCPI, O in %s: true residual" % fmt] = (st.sweeps, st.final_residual / st.initial_residual)
    print("MCPI, O in %s: %d sweeps, %s, ||r|| / ||R|| = %.2e" % (fmt, st.sweeps, st.reason,
                                                                 st.final_residual / st.initial_residual))
    _, st = solver.fgmres(R, rtol=1e-8, sweeps=5)
    # An FGMRES iteration costs about 5 sweeps and one product: plotted against sweeps.
    histories["FGMRES + 5 sweeps, O in %s" % fmt] = ([5 * (h[0] + 1) for h in st.history],
                                                     [h[1] / st.initial_residual for h in st.history])
    print("FGMRES + MCPI, O in %s: %d iterations, %s, ||r|| / ||R|| = %.2e" % (
        fmt, st.iterations, st.reason, st.final_residual / st.initial_residual))
    if not st.converged:
        sys.exit("FGMRES did not converge")

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(6.5, 4.2))
for label, (x, y) in histories.items():
    ax.semilogy(x, y, "--" if "int8" in label else "-", label=label)
for label, (x, y) in finals.items():
    ax.semilogy([x], [y], "o", label=label)
ax.set_xlabel("MCPI sweeps")
ax.set_ylabel("||R - A dQ|| / ||R||")
ax.set_title("%s refined %d, nb %d, %s" % (path.name, refine, nb, ppsparse.execution_space()))
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=100)
print("wrote", out)
