"""A time-step loop from Python, as examples/c and examples/fortran do: a 7-point block stencil
on a G^3 grid (nb = 5), new values at every step, MCPI to a tolerance, then the last step again
by FGMRES + MCPI. Exits with 1 if a step does not converge."""
import sys

import numpy as np
import scipy.sparse as sp

import ppsparse

G, NB, STEPS = 10, 5, 3
n = G ** 3
rows, cols = [], []
for z in range(G):
    for y in range(G):
        for x in range(G):
            i = (z * G + y) * G + x
            for dx, dy, dz in ((0, 0, -1), (0, -1, 0), (-1, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)):
                if 0 <= x + dx < G and 0 <= y + dy < G and 0 <= z + dz < G:
                    rows.append(i)
                    cols.append(((z + dz) * G + y + dy) * G + x + dx)
pattern = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
pattern.sort_indices()
solver = ppsparse.McpiSolver(pattern.indptr, pattern.indices, NB)  # setup from the structure, once
print("ppsparse on %s: %d block rows, nb %d, %d blocks, %d colours" % (
    ppsparse.execution_space(), solver.n, solver.nb, solver.nnzb, solver.ncolors))
failed = False
rng = np.random.default_rng(2026)
for t in range(STEPS):
    scale = 1.0 + 0.1 * t
    O = 0.05 * rng.uniform(-1, 1, (pattern.nnz, NB, NB)) * scale  # this step's values
    degree = np.diff(pattern.indptr).astype(float)
    D = (degree[:, None, None] + 0.5) * scale * np.eye(NB) + 0.02 * rng.uniform(-1, 1, (n, NB, NB))
    R = np.sin(0.01 * np.arange(n * NB) + t)
    solver.update(O, D)
    dq, st = solver.apply(R, rtol=1e-6, max_sweeps=500, check_interval=5)
    print("step %d: MCPI %d sweeps, ||r|| %.3e -> %.3e, %s" % (t, st.sweeps, st.initial_residual,
                                                                st.final_residual, st.reason))
    failed |= not st.converged
dq, st = solver.fgmres(R, rtol=1e-10)
print("FGMRES + MCPI: %d iterations, ||r|| %.3e -> %.3e, %s" % (st.iterations, st.initial_residual,
                                                                st.final_residual, st.reason))
failed |= not st.converged
print("Python example: %s" % ("FAILED" if failed else "OK"))
sys.exit(1 if failed else 0)
