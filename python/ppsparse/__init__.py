"""ppsparse from Python: the MCPI solver, SpMV, the matrix power kernel and the mesh and matrix
readers.

    import numpy as np, scipy.sparse as sp, ppsparse
    A = sp.bsr_matrix(...)                      # O: the off-diagonal blocks, nb x nb
    solver = ppsparse.McpiSolver.from_bsr(A)    # setup from the structure (colouring, order)
    solver.update(A.data, D)                    # D: the diagonal blocks, shape (n, nb, nb)
    dq, status = solver.apply(R, rtol=1e-6, max_sweeps=200)
    dq, status = solver.fgmres(R, rtol=1e-8)

Kokkos is initialised on import with its defaults (ppsparse.initialize(threads=..., device_id=...)
first to choose), and finalised at exit after every solver's arrays are released. Arrays are
NumPy arrays (any real dtype, converted once to float64 / int32 / int64 where they differ). On a
GPU build (ppsparse.gpu_build()), GPU arrays too: CuPy arrays, or any object with
__cuda_array_interface__, contiguous float64, read and written in place on the GPU after the
work queued on their stream; results of GPU inputs are CuPy arrays. Bad input raises ValueError
or TypeError with the library's one-line message; a singular or non-finite block raises
ppsparse.NumericalError naming the block in your numbering.
"""
import atexit

import numpy as np

from ._ppsparse import (  # noqa: F401
    MatrixPower as _MatrixPower,
    McpiSolver as _McpiSolver,
    NumericalError,
    SpmvOperator as _SpmvOperator,
    Status,
    execution_space,
    finalize,
    gpu_build,
    initialize as _initialize,
    is_initialized,
    o_formats,
    read_matrix_market_arrays,
    read_mesh_arrays,
)

__all__ = ["McpiSolver", "SpmvOperator", "MatrixPower", "NumericalError", "Status", "initialize", "finalize", "is_initialized",
           "execution_space", "gpu_build", "read_matrix_market", "read_mesh", "o_formats"]

_explicit = {"done": False}


def initialize(threads=None, device_id=None):
    """Initialises Kokkos with these settings; call it before anything else (importing ppsparse
    initialises it with the defaults on first use). Returns False if Kokkos was already up."""
    return _initialize(-1 if threads is None else int(threads), -1 if device_id is None else int(device_id))


def _ensure():
    if not is_initialized():
        _initialize(-1, -1)


atexit.register(finalize)


class McpiSolver(_McpiSolver):
    """FUN3D's multicolour point-implicit solver for A = D + O (ppsparse::mcpi::Solver).

    McpiSolver(indptr, indices, nb, colors=None, index_base=0, o_format="fp32", keep_fp32=False,
               keep_fp64=False, multigrid=None, lu_fp32=False):
    setup from the block CSR structure of O (off-diagonal blocks only), in your numbering.
    multigrid=True (or a preset's name, "default" or "flow_jacobian": a V-cycle over pairs for
    compressible flows' Jacobians, MultigridOptions::flow_jacobian; or a dict of options: preset,
    cycle "k"/"w"/"v", cycle_every and cycle_min_rows (the W or K corrections at every N-th level only,
    and only on levels of at least so many block rows), scaling "auto"/"energy"/"residual"/"none", max_levels, coarse_rows,
    matching_passes, pre_sweeps, post_sweeps, coarse_sweeps, coarse_o_format (the coarse levels'
    O: "fp32", "bf16", "fp16" or "int8"; bf16 by default where o_format is fp32), over the
    preset's values):
    an aggregation multigrid hierarchy (ppsparse::mcpi::Multigrid) whose finest level is this
    solver; update() forms it at the first call and refreshes it after; fgmres() is then
    preconditioned by one cycle per iteration; levels lists the levels.
    o_format stores O for the sweeps in "fp32", "bf16", "fp16" or "int8" (keep_fp32: also an FP32
    copy for multiply, FGMRES's operator and the true residuals). keep_fp64: also keep your O in
    FP64 for multiply and FGMRES's operator, so that fgmres's converged status is of your own
    system (Status.system says which system a status measures; by default O as stored, FP32).
    lu_fp32: the sweeps read D's LU factors rounded to FP32 (factored in FP64; 4 bytes per entry
    of D instead of 8 in every sweep, 4 more held); the operator keeps the FP64 factors.
    update(O, D, order="row_major"): O's blocks in the order of indices, D's by block row.
    apply(R, dq=None, rtol=0, atol=0, max_sweeps=15, check_interval=5, initial_guess=False,
          final_residual=True, variant="auto", sweep_graphs=True) -> (dq, Status)
          (sweep_graphs: the sweeps between checks as one recorded device graph on GPUs)
    fgmres(R, dq=None, rtol=1e-6, atol=0, restart=30, max_iterations=300, sweeps=5,
           initial_guess=False, op=None) -> (dq, Status)
           (op: a callable op(x) -> y, your own operator in place of A, given NumPy arrays,
           preconditioned by the sweeps over A: a Jacobian-free Newton-Krylov step)
    multiply(x) -> A x
    R, dq and x may be GPU arrays (both of a call on the GPU, or both on the host).
    """

    def __init__(self, indptr, indices, nb, colors=None, index_base=0, o_format="fp32", keep_fp32=False,
                 keep_fp64=False, multigrid=None, lu_fp32=False):
        _ensure()
        super().__init__(indptr, indices, int(nb), colors, int(index_base), str(o_format), bool(keep_fp32),
                         bool(keep_fp64), multigrid, bool(lu_fp32))

    @classmethod
    def from_bsr(cls, a, **options):
        """Setup from the structure of a scipy.sparse.bsr_matrix holding O (square blocks, no
        diagonal blocks); options as McpiSolver's. TypeError for anything that is not a BSR
        matrix (convert with a.tobsr(blocksize=(nb, nb)))."""
        a = _on_host(a)
        import scipy.sparse as sp
        if not (sp.issparse(a) and a.format == "bsr"):
            what = ("a scipy.sparse %s matrix" % a.format.upper()) if sp.issparse(a) else type(a).__name__
            raise TypeError("from_bsr: a scipy.sparse.bsr_matrix of the off-diagonal blocks is expected, got %s "
                            "(convert it with .tobsr(blocksize=(nb, nb)))" % what)
        r, c = a.blocksize
        if r != c:
            raise ValueError("from_bsr: blocks of %d x %d are not square" % (r, c))
        if a.shape[0] != a.shape[1]:
            raise ValueError("from_bsr: the matrix is %d x %d, not square" % a.shape)
        return cls(a.indptr, a.indices, r, **options)


def _on_host(a):
    """A cupyx.scipy.sparse matrix as its scipy.sparse copy (the structure is read on the host);
    anything else as it is."""
    if type(a).__module__.startswith("cupyx.scipy.sparse") and hasattr(a, "get"):
        return a.get()
    return a


def _csr(a, who):
    """a (any scipy.sparse or cupyx.scipy.sparse matrix) as a CSR matrix with sorted indices;
    TypeError otherwise."""
    import scipy.sparse as sp
    a = _on_host(a)
    if not sp.issparse(a):
        raise TypeError("%s: a scipy.sparse matrix is expected, got %s" % (who, type(a).__name__))
    a = sp.csr_matrix(a)
    a.sort_indices()
    return a


class SpmvOperator(_SpmvOperator):
    """y = A x for a scipy.sparse matrix (CSR; others are converted), with an SpMV algorithm of
    the library ("auto" by default; "csr_v1", "csr_v2", "csr_coop", "sell", "column_panels")."""

    def __init__(self, a, algorithm="auto"):
        _ensure()
        a = _csr(a, "SpmvOperator")
        super().__init__(a.indptr, a.indices, a.data, a.shape[0], a.shape[1], str(algorithm))
        self.shape = a.shape

    def __matmul__(self, x):
        return self.apply(x)


class MatrixPower(_MatrixPower):
    """The matrix power kernel: A^k x for k = 0..powers at once (ppsparse::mpk), for a square
    scipy.sparse matrix. apply(x) returns an array of shape (powers + 1, n). variant:
    "automatic" (default), "back_to_back", "blocked", "graph", "persistent", "pipelined"."""

    def __init__(self, a, powers, variant="automatic"):
        _ensure()
        a = _csr(a, "MatrixPower")
        if a.shape[0] != a.shape[1]:
            raise ValueError("MatrixPower: the matrix is %d x %d, not square" % a.shape)
        super().__init__(a.indptr, a.indices, a.data, a.shape[0], int(powers), str(variant))


def read_matrix_market(path):
    """A Matrix Market file (.mtx or .mtx.gz) as a scipy.sparse.csr_matrix (float64)."""
    import scipy.sparse as sp
    indptr, indices, data, shape = read_matrix_market_arrays(str(path))
    return sp.csr_matrix((data, indices, indptr), shape=shape)


def read_mesh(path, refine=0, zone=0):
    """A mesh (SU2, UGRID, Gmsh, CGNS) as a dict of NumPy arrays: points (npoints, dim), the
    elements (element_types, element_ptr, element_nodes, 0-based), the boundary faces and their
    markers (face_*, marker_names), element_type_names, and the vertex graph as a
    scipy.sparse.csr_matrix ("graph"). refine: uniform refinements; zone: one zone (0: all)."""
    import scipy.sparse as sp
    d = read_mesh_arrays(str(path), int(refine), int(zone))
    n = d["points"].shape[0]
    d["graph"] = sp.csr_matrix((np.ones(len(d["graph_indices"])), d.pop("graph_indices"), d.pop("graph_indptr")),
                               shape=(n, n))
    return d
