"""GPU arrays (CuPy, and any object with __cuda_array_interface__) on a GPU build: read and written
in place, with the same results, bit for bit, as NumPy arrays staged by the library; ordered
after the work queued on their stream; bad ones refused with the library's message. Skipped
unless the build runs on a GPU and CuPy imports."""
import numpy as np
import pytest
import scipy.sparse as sp

import ppsparse
from test_ppsparse import InterfaceOnly, grid_system

cp = pytest.importorskip("cupy")
if not ppsparse.gpu_build():
    pytest.skip("a CPU build of ppsparse", allow_module_level=True)


def solver_for(O, D, **options):
    solver = ppsparse.McpiSolver.from_bsr(O, **options)
    solver.update(O.data, D)
    return solver


def test_apply_fgmres_multiply_and_update_on_gpu_arrays_equal_the_host_path():
    O, D, A, R = grid_system(g=6, nb=5, seed=23)
    solver = solver_for(O, D)
    dq_host, st_host = solver.apply(R, max_sweeps=9, check_interval=3)
    R_gpu = cp.asarray(R)
    dq_gpu, st_gpu = solver.apply(R_gpu, max_sweeps=9, check_interval=3)
    assert isinstance(dq_gpu, cp.ndarray) and dq_gpu.dtype == cp.float64
    assert np.array_equal(cp.asnumpy(dq_gpu), dq_host)
    assert (st_gpu.sweeps, st_gpu.final_residual) == (st_host.sweeps, st_host.final_residual)
    # In place into a given array, and from it as the initial guess.
    out = cp.full(R.size, cp.nan)
    same, _ = solver.apply(R_gpu, out, max_sweeps=9, check_interval=3)
    assert same is out and np.array_equal(cp.asnumpy(out), dq_host)
    more_host, _ = solver.apply(R, dq_host.copy(), max_sweeps=2, initial_guess=True)
    more_gpu, _ = solver.apply(R_gpu, out, max_sweeps=2, initial_guess=True)
    assert np.array_equal(cp.asnumpy(more_gpu), more_host)
    g_host, gs_host = solver.fgmres(R, rtol=1e-9)
    g_gpu, gs_gpu = solver.fgmres(R_gpu, rtol=1e-9)
    assert gs_gpu.converged and gs_gpu.iterations == gs_host.iterations
    assert np.array_equal(cp.asnumpy(g_gpu), g_host)
    x = np.random.default_rng(5).uniform(-1, 1, R.size)
    assert np.array_equal(cp.asnumpy(solver.multiply(cp.asarray(x))), solver.multiply(x))
    # New values from GPU arrays, in both block orders.
    O2 = O.copy()
    O2.data = O.data * 0.5
    for order in ("row_major", "column_major"):
        host = solver_for(O2, D)
        host.update(O2.data, D, order=order)
        gpu = solver_for(O, D)
        gpu.update(cp.asarray(O2.data), cp.asarray(D), order=order)
        assert np.array_equal(cp.asnumpy(gpu.apply(R_gpu, max_sweeps=4)[0]), host.apply(R, max_sweeps=4)[0])


def test_reduced_o_and_setup_from_gpu_index_arrays():
    O, D, _, R = grid_system(g=5, nb=4, seed=3)
    host = solver_for(O, D, o_format="bf16")
    gpu = ppsparse.McpiSolver(cp.asarray(O.indptr), cp.asarray(O.indices), 4, o_format="bf16")
    assert np.array_equal(gpu.colors, host.colors)
    gpu.update(cp.asarray(O.data), cp.asarray(D))
    assert np.array_equal(cp.asnumpy(gpu.apply(cp.asarray(R), max_sweeps=6)[0]), host.apply(R, max_sweeps=6)[0])


def test_work_queued_on_the_arrays_stream_comes_first():
    """R is written on a non-blocking CuPy stream behind a long kernel; the interface names that
    stream, and the solve must see the finished R."""
    O, D, _, R = grid_system(g=8, nb=5, seed=9)
    solver = solver_for(O, D)
    expected, _ = solver.apply(R, max_sweeps=3)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        big = cp.random.default_rng(1).random(1 << 26)
        for _ in range(20):
            big = cp.sqrt(big * big + 1.0)  # about 20 passes over 512 MB: the copy below waits
        R_gpu = cp.empty(R.size)
        R_gpu.set(R, stream=stream)
        dq, _ = solver.apply(R_gpu, max_sweeps=3)
    assert np.array_equal(cp.asnumpy(dq), expected)


def test_spmv_and_matrix_power_on_gpu_arrays():
    a = sp.random(300, 300, density=0.03, format="csr", random_state=4) + sp.eye(300)
    x = np.random.default_rng(2).uniform(-1, 1, 300)
    op = ppsparse.SpmvOperator(a)
    y = op @ cp.asarray(x)
    assert isinstance(y, cp.ndarray) and np.array_equal(cp.asnumpy(y), op @ x)
    mpk = ppsparse.MatrixPower(a, 3)
    Y = mpk.apply(cp.asarray(x))
    assert Y.shape == (4, 300) and np.array_equal(cp.asnumpy(Y), mpk.apply(x))
    import cupyx.scipy.sparse as csp
    assert np.array_equal(cp.asnumpy(ppsparse.SpmvOperator(csp.csr_matrix(a)) @ cp.asarray(x)), op @ x)


def test_bad_gpu_arrays_are_refused_with_the_librarys_message():
    O, D, _, R = grid_system(g=3, nb=2)
    solver = solver_for(O, D)
    with pytest.raises(TypeError, match=r"R: a GPU array of type '<f4'; ppsparse reads '<f8' GPU arrays in place"):
        solver.apply(cp.asarray(R, dtype=cp.float32))
    with pytest.raises(ValueError, match="R: a GPU array that is not contiguous"):
        solver.apply(cp.asarray(np.repeat(R, 2))[::2])
    with pytest.raises(ValueError, match="R has %d entries, expected %d" % (R.size - 1, R.size)):
        solver.apply(cp.asarray(R[:-1]))
    with pytest.raises(ValueError, match="dq is a GPU array and R is not"):
        solver.apply(R, cp.empty(R.size))
    host = np.zeros(R.size)
    with pytest.raises(ValueError, match="R: its __cuda_array_interface__ points to host memory"):
        solver.apply(InterfaceOnly(R.size, host.ctypes.data))
    with pytest.raises(ValueError, match="stream 0"):
        solver.apply(InterfaceOnly(R.size, cp.asarray(R).data.ptr, stream=0))
    with pytest.raises(ValueError, match="initial_guess=True needs dq"):
        solver.apply(cp.asarray(R), initial_guess=True)
