"""The Python package over the library: the MCPI solver against SciPy, its storage formats, FGMRES,
SpMV against SciPy, the readers, and bad input as Python exceptions."""
import os
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import ppsparse

DATA = pathlib.Path(os.environ.get("PPSPARSE_TEST_DATA_DIR", pathlib.Path(__file__).parents[1] / "data"))


def grid_system(g=6, nb=3, seed=7):
    """A 7-point block stencil on a g^3 grid: O as a bsr_matrix (random blocks), D diagonally
    dominant, R random; and the whole A = D + O for SciPy."""
    rng = np.random.default_rng(seed)
    n = g ** 3
    rows, cols = [], []
    for z in range(g):
        for y in range(g):
            for x in range(g):
                i = (z * g + y) * g + x
                for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
                    if 0 <= x + dx < g and 0 <= y + dy < g and 0 <= z + dz < g:
                        rows.append(i)
                        cols.append(((z + dz) * g + y + dy) * g + x + dx)
    pattern = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    pattern.sort_indices()
    # FP32 values (the solver stores O in FP32): A below is then exactly the stored system.
    blocks = rng.uniform(-1, 1, size=(pattern.nnz, nb, nb)).astype(np.float32).astype(np.float64)
    O = sp.bsr_matrix((blocks, pattern.indices, pattern.indptr), shape=(n * nb, n * nb))
    D = np.stack([np.eye(nb) * (8.0 * nb) + rng.uniform(-0.5, 0.5, (nb, nb)) for _ in range(n)])
    A = (O + sp.bsr_matrix((D, np.arange(n), np.arange(n + 1)), shape=O.shape)).tocsr()
    R = rng.uniform(-1, 1, n * nb)
    return O, D, A, R


def test_fgmres_solves_your_operator_preconditioned_by_the_sweeps():
    O, D, A, R = grid_system()
    solver = ppsparse.McpiSolver.from_bsr(O)
    solver.update(O.data, D)
    shifted = (A + 0.4 * sp.identity(A.shape[0])).tocsc()
    calls = []

    def op(x):
        calls.append(1)
        return A @ x + 0.4 * x

    dq, st = solver.fgmres(R, rtol=1e-10, restart=2, sweeps=1, op=op)
    assert st.converged and st.system == "operator: the Python op", st
    assert len(calls) >= st.iterations > 2  # across restarts
    exact = spla.spsolve(shifted, R)
    assert np.linalg.norm(dq - exact) <= 1e-8 * np.linalg.norm(exact)
    with pytest.raises(ValueError, match=r"op's result \(product 1\) has 3 entries, expected 648"):
        solver.fgmres(R, op=lambda x: np.zeros(3))
    with pytest.raises(ZeroDivisionError):
        solver.fgmres(R, op=lambda x: 1 / 0)
    with pytest.raises(TypeError, match="op: a callable"):
        solver.fgmres(R, op=3)
    dq2, st2 = solver.fgmres(R, rtol=1e-10)  # A again
    assert st2.system != st.system
    assert np.linalg.norm(dq2 - spla.spsolve(A.tocsc(), R)) <= 1e-8 * np.linalg.norm(dq2)


def test_apply_and_fgmres_solve_what_scipy_solves():
    O, D, A, R = grid_system()
    solver = ppsparse.McpiSolver.from_bsr(O)
    assert (solver.nb, solver.n, solver.nnzb) == (3, 216, O.indices.size)
    assert solver.ncolors >= 2 and len(solver.colors) == solver.n
    solver.update(O.data, D)
    exact = spla.spsolve(A.tocsc(), R)
    dq, st = solver.apply(R, rtol=1e-6, max_sweeps=500)
    assert st.converged and st.reason == "converged", st
    assert st.final_residual <= 1e-6 * st.initial_residual
    assert np.linalg.norm(dq - exact) <= 1e-5 * np.linalg.norm(exact)
    assert abs(st.final_residual - np.linalg.norm(R - A @ dq)) <= 1e-9 * np.linalg.norm(R)
    assert len(st.history) > 0
    dq2, st2 = solver.fgmres(R, rtol=1e-10)
    assert st2.converged and st2.iterations > 0
    assert np.linalg.norm(dq2 - exact) <= 1e-8 * np.linalg.norm(exact)
    x = np.random.default_rng(1).uniform(-1, 1, R.size)
    assert np.allclose(solver.multiply(x), A @ x, rtol=1e-12, atol=1e-12)
    # The sweeps as a recorded device graph (GPU builds) or launched colour by colour: one iterate.
    launched, _ = solver.apply(R, max_sweeps=9, check_interval=4, sweep_graphs=False)
    graphs, _ = solver.apply(R, max_sweeps=9, check_interval=4, sweep_graphs=True)
    assert np.array_equal(launched, graphs)


def test_in_place_output_and_initial_guess():
    O, D, A, R = grid_system(g=4, nb=2)
    solver = ppsparse.McpiSolver.from_bsr(O)
    solver.update(O.data, D)
    dq = np.full(R.size, np.nan)
    out, st = solver.apply(R, dq=dq, max_sweeps=10, check_interval=0)
    assert out is dq and np.all(np.isfinite(dq)) and st.sweeps == 10
    _, st2 = solver.apply(R, dq=dq, initial_guess=True, max_sweeps=5, check_interval=0)
    # The second solve started from the first's result: its initial residual is the first's final.
    assert st2.initial_residual == pytest.approx(st.final_residual, rel=1e-6)
    assert st2.initial_residual < 1e-3 * st.initial_residual and np.all(np.isfinite(dq))


@pytest.mark.parametrize("fmt", ["bf16", "fp16", "int8"])
def test_reduced_o_formats(fmt):
    O, D, A, R = grid_system(nb=5)
    solver = ppsparse.McpiSolver.from_bsr(O, o_format=fmt, keep_fp32=True)
    assert solver.o_format == fmt
    solver.update(O.data, D)
    dq, st = solver.fgmres(R, rtol=1e-9)  # the FP32 operator: FGMRES reaches the true system's tolerance
    assert st.converged
    assert np.linalg.norm(R - A @ dq) <= 1e-8 * np.linalg.norm(R)
    lean = ppsparse.McpiSolver.from_bsr(O, o_format=fmt)
    assert lean.device_bytes < solver.device_bytes


def test_fortran_order_and_one_based_indices():
    O, D, A, R = grid_system(g=4, nb=2)
    solver = ppsparse.McpiSolver(O.indptr + 1, O.indices + 1, 2, index_base=1)
    solver.update(np.transpose(O.data, (0, 2, 1)).copy(), np.transpose(D, (0, 2, 1)).copy(), order="column_major")
    x = np.arange(R.size, dtype=float)
    assert np.allclose(solver.multiply(x), A @ x)


def test_bad_input_raises_python_exceptions():
    O, D, A, R = grid_system(g=3, nb=2)
    solver = ppsparse.McpiSolver.from_bsr(O)
    with pytest.raises(ValueError, match="O has 10 entries, expected"):
        solver.update(np.zeros(10), D)
    with pytest.raises(TypeError, match="not a real number type"):
        solver.update(O.data.astype(complex), D)
    with pytest.raises(ValueError, match="order must be"):
        solver.update(O.data, D, order="diagonal")
    with pytest.raises(ValueError, match="no factored values"):
        solver.apply(R)
    singular = D.copy()
    singular[4] = 0.0
    with pytest.raises(ppsparse.NumericalError, match="diagonal block 4: zero or tiny pivot"):
        solver.update(O.data, singular)
    with pytest.raises(ValueError, match="unknown O format 'fp8'"):
        ppsparse.McpiSolver.from_bsr(O, o_format="fp8")
    with pytest.raises(ValueError, match="col_idx"):
        ppsparse.McpiSolver(O.indptr, O.indices + 1000, 2)
    with pytest.raises(TypeError):
        ppsparse.McpiSolver(O.indptr, None, 2)
    solver.update(O.data, D)
    with pytest.raises(ValueError, match="R has 3 entries"):
        solver.apply(np.zeros(3))
    with pytest.raises(TypeError, match="writable, contiguous float64"):
        solver.apply(R, dq=np.zeros(R.size, dtype=np.float32))


@pytest.mark.parametrize("algorithm", ["auto", "csr_v1", "csr_v2", "csr_coop", "sell", "column_panels"])
def test_spmv_matches_scipy(algorithm):
    rng = np.random.default_rng(3)
    a = sp.random(300, 250, density=0.03, random_state=4, format="csr") + sp.eye(300, 250)
    op = ppsparse.SpmvOperator(a, algorithm=algorithm)
    x = rng.uniform(-1, 1, 250)
    assert np.allclose(op @ x, a @ x, rtol=1e-12, atol=1e-13)
    assert op.algorithm != "auto"
    with pytest.raises(ValueError, match="x has 3 entries"):
        op.apply(np.zeros(3))


@pytest.mark.parametrize("variant", ["automatic", "back_to_back", "blocked", "pipelined"])
def test_matrix_power_matches_scipy(variant):
    a = sp.random(400, 400, density=0.01, random_state=5, format="csr") + sp.eye(400)
    x = np.random.default_rng(6).uniform(-1, 1, 400)
    y = ppsparse.MatrixPower(a, 4, variant=variant).apply(x)
    assert y.shape == (5, 400)
    want = x.copy()
    for k in range(5):
        assert np.allclose(y[k], want, rtol=1e-10, atol=1e-12), k
        want = a @ want
    with pytest.raises(ValueError, match="unknown MPK variant 'fast'"):
        ppsparse.MatrixPower(a, 2, variant="fast")


def test_readers():
    mtx = sorted((DATA / "mtx" / "good").glob("*.mtx"))
    assert mtx, "committed Matrix Market files"
    a = ppsparse.read_matrix_market(mtx[0])
    assert sp.isspmatrix_csr(a) and a.shape[0] > 0
    mesh = ppsparse.read_mesh(DATA / "flow" / "channel_2d.su2")
    assert mesh["dim"] == 2 and mesh["points"].shape[1] == 2
    assert set(mesh["marker_names"]) >= {"inlet", "outlet", "lower", "upper"}
    assert mesh["graph"].shape == (mesh["points"].shape[0],) * 2
    refined = ppsparse.read_mesh(DATA / "flow" / "channel_2d.su2", refine=1)
    assert refined["points"].shape[0] > mesh["points"].shape[0]
    with pytest.raises(ValueError, match="no_such_file"):
        ppsparse.read_mesh(DATA / "no_such_file.su2")


def test_results_equal_the_c_and_cpp_api():
    """The same system through the library's C interface (ctypes on libppsparse): the same dq, bit
    for bit, and the same residuals."""
    import ctypes
    lib_path = os.environ.get("PPSPARSE_LIBRARY")
    if not lib_path:
        pytest.skip("PPSPARSE_LIBRARY (set by ctest) names libppsparse")
    lib = ctypes.CDLL(lib_path)

    class Control(ctypes.Structure):
        _fields_ = [("max_sweeps", ctypes.c_int), ("rtol", ctypes.c_double), ("atol", ctypes.c_double),
                    ("check_interval", ctypes.c_int), ("initial_guess_given", ctypes.c_int),
                    ("final_residual", ctypes.c_int), ("divergence_factor", ctypes.c_double),
                    ("sweep_graphs", ctypes.c_int)]

    class CStatus(ctypes.Structure):
        _fields_ = [("reason", ctypes.c_int), ("sweeps", ctypes.c_int), ("iterations", ctypes.c_int),
                    ("initial_residual", ctypes.c_double), ("final_residual", ctypes.c_double)]

    O, D, A, R = grid_system(g=5, nb=4, seed=11)
    i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)  # noqa: E731
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    ptr = lambda a, t: a.ctypes.data_as(ctypes.POINTER(t))  # noqa: E731
    indptr, indices, o, d, r = i32(O.indptr), i32(O.indices), f64(O.data), f64(D), f64(R)
    handle = ctypes.c_void_p()
    assert lib.ppsparse_initialize() == 0
    assert lib.ppsparse_mcpi_create(ctypes.byref(handle), 4, ctypes.c_int32(O.shape[0] // 4),
                                    ptr(indptr, ctypes.c_int32), ptr(indices, ctypes.c_int32), 0, None, 0) == 0
    assert lib.ppsparse_mcpi_update(handle, ptr(o, ctypes.c_double), ptr(d, ctypes.c_double), 1, 0) == 0
    control = Control()
    lib.ppsparse_mcpi_control_default(ctypes.byref(control))
    control.max_sweeps, control.check_interval = 7, 0
    dq_c = np.full(R.size, np.nan)
    status = CStatus()
    assert lib.ppsparse_mcpi_apply(handle, ptr(r, ctypes.c_double), ptr(dq_c, ctypes.c_double), 0,
                                   ctypes.byref(control), ctypes.byref(status)) == 0
    assert lib.ppsparse_mcpi_destroy(handle) == 0
    solver = ppsparse.McpiSolver.from_bsr(O)
    solver.update(O.data, D)
    dq, st = solver.apply(R, max_sweeps=7, check_interval=0)
    assert np.array_equal(dq, dq_c)
    assert st.sweeps == status.sweeps == 7
    assert st.final_residual == status.final_residual and st.initial_residual == status.initial_residual


class InterfaceOnly:
    """An object that only describes an array through __cuda_array_interface__ (as Numba's and
    PyTorch's GPU arrays do), pointing wherever it is told."""

    def __init__(self, n, address=0, typestr="<f8", **extra):
        self.__cuda_array_interface__ = dict(shape=(n,), typestr=typestr, data=(address, False), version=3, **extra)


def test_gpu_arrays_on_a_cpu_build_and_mixed_places_are_refused():
    O, D, _, R = grid_system(g=3, nb=2)
    solver = ppsparse.McpiSolver.from_bsr(O)
    solver.update(O.data, D)
    with pytest.raises(ValueError, match="dq is a GPU array and R is not: pass both on the GPU or both on the host"):
        solver.apply(R, InterfaceOnly(R.size))
    with pytest.raises(ValueError, match="O is a GPU array and D is not"):
        solver.update(InterfaceOnly(O.data.size), D)
    if ppsparse.gpu_build():
        pytest.skip("a GPU build takes GPU arrays (test_ppsparse_gpu.py)")
    with pytest.raises(TypeError, match=r"R: a GPU array \(__cuda_array_interface__\) given to a CPU build of "
                                        r"ppsparse \(.*\): pass a NumPy array"):
        solver.apply(InterfaceOnly(R.size))
    with pytest.raises(TypeError, match="x: a GPU array .* CPU build"):
        ppsparse.SpmvOperator(sp.eye(4, format="csr")) @ InterfaceOnly(4)


def test_status_shows_small_residuals_and_from_bsr_refuses_other_formats():
    O, D, A, R = grid_system()
    solver = ppsparse.McpiSolver.from_bsr(O)
    solver.update(O.data, D)
    _, st = solver.fgmres(R, rtol=1e-10)
    assert st.converged and st.final_residual < 1e-8
    text = repr(st)
    assert "final_residual=%.3e" % st.final_residual in text and "0.000000" not in text, text
    with pytest.raises(TypeError, match="from_bsr: a scipy.sparse.bsr_matrix .* got a scipy.sparse CSR matrix"):
        ppsparse.McpiSolver.from_bsr(O.tocsr())
    with pytest.raises(TypeError, match="from_bsr: .* got ndarray"):
        ppsparse.McpiSolver.from_bsr(np.zeros((6, 6)))


def test_every_public_method_and_property_of_the_solver_is_documented():
    for name in ("update", "apply", "fgmres", "multiply", "from_bsr", "nb", "n", "nnzb", "ncolors", "colors",
                 "o_format", "device_bytes"):
        doc = getattr(ppsparse.McpiSolver, name).__doc__ or ""
        # pybind11 puts the signature first: the documentation is what follows it.
        text = doc.split("\n", 1)[-1] if doc.startswith(name + "(") else doc
        assert len(text.strip()) > 10, "%s has no docstring beyond its signature: %r" % (name, doc)


def test_keep_fp64_makes_fgmres_converge_on_the_users_own_system():
    O, D, A, R = grid_system()
    # FP64 values FP32 rounds: the stored system is then not the user's to 1e-10.
    O.data[:] *= 1.0 + 1e-9 * np.sin(np.arange(O.data.size)).reshape(O.data.shape)
    A = (O + sp.bsr_matrix((D, np.arange(O.shape[0] // 3), np.arange(O.shape[0] // 3 + 1)), shape=O.shape)).tocsr()
    for keep, system in ((False, "O as stored (fp32)"), (True, "the user's O in FP64")):
        solver = ppsparse.McpiSolver.from_bsr(O, keep_fp64=keep)
        solver.update(O.data, D)
        dq, st = solver.fgmres(R, rtol=1e-12)
        assert st.converged and st.system == system, st
        user = np.linalg.norm(R - A @ dq) / np.linalg.norm(R)
        assert (user <= 1e-11) if keep else (user > 1e-11), (keep, user)


def test_lu_fp32_sweeps_read_d_rounded_and_hold_its_bytes():
    O, D, A, R = grid_system()
    plain = ppsparse.McpiSolver.from_bsr(O, o_format="int8")
    lu32 = ppsparse.McpiSolver.from_bsr(O, o_format="int8", lu_fp32=True)
    nb = O.blocksize[0]
    assert lu32.device_bytes - plain.device_bytes == 4 * lu32.n * nb * nb  # the FP32 factors
    for s in (plain, lu32):
        s.update(O.data, D)
    dq0, st0 = plain.apply(R, rtol=1e-5, max_sweeps=200)
    dq1, st1 = lu32.apply(R, rtol=1e-5, max_sweeps=200)
    assert st0.converged and st1.converged, (st0, st1)
    assert np.linalg.norm(dq1 - dq0) <= 1e-4 * np.linalg.norm(dq0)


def test_multigrid_preconditions_fgmres_and_lists_its_levels():
    O, D, A, R = grid_system(g=10, nb=2, seed=3)
    plain = ppsparse.McpiSolver.from_bsr(O)
    plain.update(O.data, D)
    mg = ppsparse.McpiSolver.from_bsr(O, multigrid={"coarse_rows": 20, "cycle": "k"})
    assert mg.levels[0]["n"] == 1000 and len(mg.levels) == 1  # the hierarchy comes with the values
    mg.update(O.data, D)
    levels = mg.levels
    assert len(levels) >= 2 and all(a["n"] > b["n"] for a, b in zip(levels, levels[1:]))
    assert mg.device_bytes > plain.device_bytes
    exact = spla.spsolve(A.tocsc(), R)
    dq, st = mg.fgmres(R, rtol=1e-10)
    assert st.converged and np.linalg.norm(dq - exact) <= 1e-8 * np.linalg.norm(exact)
    with pytest.raises(ValueError, match="multigrid: unknown option 'levels'"):
        ppsparse.McpiSolver.from_bsr(O, multigrid={"levels": 3})
    with pytest.raises(ValueError, match="cycle is 'v', 'w' or 'k', got 'f'"):
        ppsparse.McpiSolver.from_bsr(O, multigrid={"cycle": "f"})
    with pytest.raises(ValueError, match="coarse_rows must be >= 1, got 0"):
        ppsparse.McpiSolver.from_bsr(O, multigrid={"coarse_rows": 0})
    with pytest.raises(ValueError, match="coarse_o_format: unknown O format 'fp8'"):
        ppsparse.McpiSolver.from_bsr(O, multigrid={"coarse_o_format": "fp8"})
    # Coarse levels in FP32 (BF16 is the default under an FP32 finest level): the first coarse
    # level the same, holding 2 more bytes per O entry.
    wide = ppsparse.McpiSolver.from_bsr(O, multigrid={"coarse_rows": 20, "cycle": "k", "coarse_o_format": "fp32"})
    wide.update(O.data, D)
    assert wide.levels[1]["nnzb"] == levels[1]["nnzb"]  # deeper levels are aggregated from the coded values
    assert wide.levels[1]["device_bytes"] == levels[1]["device_bytes"] + 2 * 4 * levels[1]["nnzb"] - 16
    dq, st = wide.fgmres(R, rtol=1e-10)
    assert st.converged and np.linalg.norm(dq - exact) <= 1e-8 * np.linalg.norm(exact)


def test_multigrid_flow_jacobian_preset():
    O, D, A, R = grid_system(g=10, nb=2, seed=5)
    exact = spla.spsolve(A.tocsc(), R)
    default = ppsparse.McpiSolver.from_bsr(O, multigrid=True)
    default.update(O.data, D)
    # Pairs down to 32 block rows: deeper than the default's aggregates of four down to 500.
    for preset in ("flow_jacobian", {"preset": "flow_jacobian", "post_sweeps": 6},
                   {"preset": "flow_jacobian", "cycle": "k", "cycle_every": 3}):
        mg = ppsparse.McpiSolver.from_bsr(O, multigrid=preset)
        mg.update(O.data, D)
        assert len(mg.levels) > len(default.levels) and mg.levels[-1]["n"] <= 32, mg.levels
        dq, st = mg.fgmres(R, rtol=1e-10)
        assert st.converged and np.linalg.norm(dq - exact) <= 1e-8 * np.linalg.norm(exact)
    with pytest.raises(ValueError, match="the preset is 'default' or 'flow_jacobian', got 'euler'"):
        ppsparse.McpiSolver.from_bsr(O, multigrid="euler")
    with pytest.raises(TypeError, match="a preset's name or a dict of options"):
        ppsparse.McpiSolver.from_bsr(O, multigrid=3)
