/* The MCPI solver from C (and, through the ppsparse_mcpi module, from Fortran).
 *
 * An opaque handle holds one solver: its setup from the structure of O, then any number of
 * numeric phases (ppsparse_mcpi_update) and solves (ppsparse_mcpi_apply, ppsparse_mcpi_fgmres).
 * Every function returns PPSPARSE_SUCCESS or an error code; ppsparse_last_error() then gives a
 * one-line message (per thread). No C++ exception crosses this interface.
 *
 *   ppsparse_initialize();
 *   ppsparse_mcpi_solver* s;
 *   ppsparse_mcpi_create(&s, nb, n, row_ptr, col_idx, 0, NULL, PPSPARSE_MEMORY_HOST);
 *   for (each time step) {
 *     ppsparse_mcpi_update(s, O, D, PPSPARSE_ROW_MAJOR, PPSPARSE_MEMORY_HOST);
 *     ppsparse_mcpi_control c;  ppsparse_mcpi_control_default(&c);  c.rtol = 1e-6;
 *     ppsparse_mcpi_status st;
 *     if (ppsparse_mcpi_apply(s, R, dq, PPSPARSE_MEMORY_HOST, &c, &st)) puts(ppsparse_last_error());
 *   }
 *   ppsparse_mcpi_destroy(s);
 *   ppsparse_finalize();
 *
 * Arrays are in the caller's numbering. PPSPARSE_MEMORY_DEVICE pointers are device pointers
 * of the build's default device (CUDA or HIP: cudaMalloc'ed, OpenACC host_data use_device,
 * CUDA Fortran device arrays); PPSPARSE_MEMORY_HOST arrays are staged through the device.
 */
#ifndef PPSPARSE_C_MCPI_H
#define PPSPARSE_C_MCPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Return codes. */
enum {
  PPSPARSE_SUCCESS = 0,
  PPSPARSE_ERROR_INVALID_ARGUMENT = 1, /**< bad sizes, indices, colouring, control, or call order */
  PPSPARSE_ERROR_NUMERICAL = 2,        /**< a singular or non-finite block, NaN or Inf in R */
  PPSPARSE_ERROR_OUT_OF_MEMORY = 3,
  PPSPARSE_ERROR_INTERNAL = 4
};
/** Where the arrays of a call live. */
enum { PPSPARSE_MEMORY_HOST = 0, PPSPARSE_MEMORY_DEVICE = 1 };
/** How the entries of one nb x nb block lie: (i, j) at j * nb + i, or at i * nb + j. */
enum { PPSPARSE_COLUMN_MAJOR = 0, PPSPARSE_ROW_MAJOR = 1 };
/** Why a solve stopped (ppsparse_mcpi_status.reason). PPSPARSE_FAILED: the call returned an
 *  error code and solved nothing (ppsparse_last_error() says why); the residuals are then NaN.
 *  PPSPARSE_NOT_FINITE: the solve ran, and a NaN or Inf appeared in dq (the system, not the
 *  input, is at fault); a NaN or Inf in R or in a given initial dq is bad input, an error code. */
enum {
  PPSPARSE_CONVERGED = 0,
  PPSPARSE_MAX_SWEEPS = 1,
  PPSPARSE_DIVERGED = 2,
  PPSPARSE_NOT_FINITE = 3,
  PPSPARSE_FAILED = 4
};

/** How the sweeps store O (ppsparse_mcpi_options.o_format; see ppsparse/mcpi/o_format.hpp):
 *  FP32, BF16, FP16 with a power-of-two scale per block row, int8 with a power-of-two scale per
 *  column of each block. Arithmetic stays in FP32. */
enum { PPSPARSE_O_FP32 = 0, PPSPARSE_O_BF16 = 1, PPSPARSE_O_FP16 = 2, PPSPARSE_O_INT8 = 3 };

typedef struct ppsparse_mcpi_solver ppsparse_mcpi_solver;

/** Setup options of ppsparse_mcpi_create_with (ppsparse_mcpi_options_default sets the defaults). */
typedef struct {
  int o_format;    /**< PPSPARSE_O_FP32 (default), _BF16, _FP16 or _INT8 */
  int o_keep_fp32; /**< 1: with a reduced format, also keep O in FP32 (4 bytes per entry) for
                        ppsparse_mcpi_multiply, FGMRES's operator and the true residuals that
                        decide convergence; 0 (default): they read the reduced O too */
  int o_keep_fp64; /**< 1: also keep the user's O in FP64 (8 bytes per entry) for the operator: FGMRES's
                        residuals and converged status are then those of the user's values, not of O
                        as stored (default 0; needs the values through update) */
  int lu_fp32;     /**< 1: the sweeps read D's LU factors rounded to FP32 (4 bytes per entry of D
                        instead of 8; factored in FP64, kept in FP64 too for the operator and the true
                        residuals); 0 (default): FP64 */
} ppsparse_mcpi_options;

/** The multigrid's coarse corrections (ppsparse_multigrid_options.cycle; MultigridOptions::Cycle). */
enum { PPSPARSE_CYCLE_V = 0, PPSPARSE_CYCLE_W = 1, PPSPARSE_CYCLE_K = 2 };
/** How each coarse correction is scaled (ppsparse_multigrid_options.scaling; MultigridOptions::Scaling). */
enum {
  PPSPARSE_SCALING_AUTO = 0,
  PPSPARSE_SCALING_NONE = 1,
  PPSPARSE_SCALING_ENERGY = 2,
  PPSPARSE_SCALING_RESIDUAL = 3
};

/** An aggregation multigrid hierarchy over the solver (ppsparse_mcpi_create_multigrid; see
 *  ppsparse::mcpi::MultigridOptions; ppsparse_multigrid_options_default sets the defaults). */
typedef struct {
  int max_levels;         /**< levels, the finest included, >= 1 (default 12) */
  int32_t coarse_rows;    /**< coarsening stops at or below this many block rows, >= 1 (default 500) */
  int matching_passes;    /**< pairwise matchings per level, >= 1 (default 2: aggregates of about 4 rows) */
  int pre_sweeps;         /**< MCPI sweeps before each coarse correction, >= 0 (default 2) */
  int post_sweeps;        /**< after it, >= 0 (default 2) */
  int coarse_sweeps;      /**< on the coarsest level, >= 1 (default 20) */
  int cycle;              /**< PPSPARSE_CYCLE_K (default), _W or _V */
  int cycle_every;        /**< the W or K corrections at every cycle_every-th level only, the V-cycle's
                               between, >= 1 (default 1: every level) */
  int32_t cycle_min_rows; /**< the W or K corrections only on levels of at least this many block rows,
                               the V-cycle's below, >= 0 (default 0: every level) */
  int scaling;            /**< PPSPARSE_SCALING_AUTO (default), _NONE, _ENERGY or _RESIDUAL */
  int coarse_o_format;    /**< the coarse levels' O: PPSPARSE_O_FP32, _BF16, _FP16 or _INT8, or -1 (default):
                               BF16 where the finest level's O is FP32, else the finest's format */
} ppsparse_multigrid_options;

/** Stopping criteria of ppsparse_mcpi_apply (see ppsparse::mcpi::Control). */
typedef struct {
  int max_sweeps;           /**< >= 0 (default 15) */
  double rtol;              /**< stop at ||R - A dQ|| <= max(atol, rtol ||R - A dQ0||); 0 disables (default) */
  double atol;              /**< 0 disables (default) */
  int check_interval;       /**< residual check every this many sweeps, 0 never (default 5) */
  int initial_guess_given;  /**< 1: start from dq's contents; 0: from zero (default) */
  int final_residual;       /**< 1: compute the true final residual (default) */
  double divergence_factor; /**< diverged past this times the initial residual (default 1e6) */
  int sweep_graphs;         /**< 1 (default): the sweeps between checks as one recorded device graph
                                 where one can be recorded (see ppsparse::mcpi::Control::sweep_graphs);
                                 0: each colour launched */
} ppsparse_mcpi_control;

/** FGMRES(restart) right-preconditioned by `sweeps` MCPI sweeps (see ppsparse::mcpi::FgmresControl). */
typedef struct {
  int restart;              /**< Krylov vectors per cycle, >= 1 (default 30) */
  int max_iterations;       /**< (default 300) */
  double rtol;              /**< (default 1e-6) */
  double atol;              /**< (default 0) */
  int sweeps;               /**< MCPI sweeps per preconditioner application, >= 1 (default 5) */
  int initial_guess_given;  /**< (default 0) */
  double divergence_factor; /**< (default 1e6) */
} ppsparse_fgmres_control;

/** What a solve did. Residuals are NaN where not computed. */
typedef struct {
  int reason;              /**< PPSPARSE_CONVERGED, ... */
  int sweeps;              /**< MCPI sweeps run (FGMRES: in its preconditioner) */
  int iterations;          /**< FGMRES iterations (0 for apply) */
  double initial_residual; /**< ||R - A dQ0||_2 */
  double final_residual;   /**< the true ||R - A dQ||_2 of the returned dQ */
} ppsparse_mcpi_status;

/** Initialises Kokkos (default settings) unless it already is; ppsparse_finalize finalises it
 *  if ppsparse_initialize initialised it. All handles must be destroyed before. */
int ppsparse_initialize(void);
int ppsparse_finalize(void);
/** The message of the calling thread's last failed call ("" if none). */
const char* ppsparse_last_error(void);

void ppsparse_mcpi_control_default(ppsparse_mcpi_control* control);
void ppsparse_mcpi_options_default(ppsparse_mcpi_options* options);
void ppsparse_fgmres_control_default(ppsparse_fgmres_control* control);
void ppsparse_multigrid_options_default(ppsparse_multigrid_options* options);
/** The setting for the Jacobians of compressible flows (MultigridOptions::flow_jacobian): a
 *  V-cycle over aggregates of two block rows down to 32 block rows, 1 + 4 sweeps per level, 30
 *  on the coarsest, corrections unscaled (docs/multigrid.md). */
void ppsparse_multigrid_options_flow_jacobian(ppsparse_multigrid_options* options);

/** Setup from the structure of O (off-diagonal blocks only): n block rows of size nb, block CSR
 *  row_ptr (n + 1) and col_idx, both index_base-based (0 or 1). colors: one colour per block
 *  row, or NULL to let ppsparse colour. memory: where row_ptr, col_idx and colors live.
 *  *solver is NULL on failure. */
int ppsparse_mcpi_create(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int32_t* row_ptr,
                         const int32_t* col_idx, int index_base, const int32_t* colors, int memory);
/** The same with 64-bit row pointers (more than 2^31 - 1 blocks). */
int ppsparse_mcpi_create64(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int64_t* row_ptr,
                           const int32_t* col_idx, int index_base, const int32_t* colors, int memory);
/** ppsparse_mcpi_create and ppsparse_mcpi_create64 with setup options (NULL: the defaults). */
int ppsparse_mcpi_create_with(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int32_t* row_ptr,
                              const int32_t* col_idx, int index_base, const int32_t* colors, int memory,
                              const ppsparse_mcpi_options* options);
int ppsparse_mcpi_create64_with(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int64_t* row_ptr,
                                const int32_t* col_idx, int index_base, const int32_t* colors, int memory,
                                const ppsparse_mcpi_options* options);
/** ppsparse_mcpi_create_with whose solver is the finest level of an aggregation multigrid
 *  (options and multigrid NULL: the defaults). ppsparse_mcpi_update then forms the hierarchy
 *  from its values (first call) or refreshes its values (later calls); ppsparse_mcpi_fgmres is
 *  preconditioned by one multigrid cycle per iteration (control.sweeps unused); ppsparse_mcpi_apply
 *  sweeps the finest level. Errors of a coarse level name the level and its block. */
int ppsparse_mcpi_create_multigrid(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int32_t* row_ptr,
                                   const int32_t* col_idx, int index_base, int memory,
                                   const ppsparse_mcpi_options* options, const ppsparse_multigrid_options* multigrid);
/** A multigrid handle's levels, finest first: up to `capacity` block-row counts into rows[]
 *  (may be NULL when capacity is 0), *count the number of levels (1 before the first update;
 *  1 for a handle without multigrid). */
int ppsparse_mcpi_levels(const ppsparse_mcpi_solver* solver, int capacity, int32_t* rows, int* count);
/** Frees the solver (NULL is accepted). */
int ppsparse_mcpi_destroy(ppsparse_mcpi_solver* solver);
/** The block size, block rows, off-diagonal blocks and colours of the solver; any output may be NULL. */
int ppsparse_mcpi_sizes(const ppsparse_mcpi_solver* solver, int* nb, int32_t* n, int64_t* nnzb, int32_t* ncolors);

/** New values: O (nnzb * nb * nb, block k at k * nb * nb in the order of col_idx) and D
 *  (n * nb * nb, by block row), each block in block_order; then the LU of D. */
int ppsparse_mcpi_update(ppsparse_mcpi_solver* solver, const double* O, const double* D, int block_order, int memory);
/** The same with O in single precision. */
int ppsparse_mcpi_update_f32(ppsparse_mcpi_solver* solver, const float* O, const double* D, int block_order,
                             int memory);

/** MCPI sweeps on A dq = R (n * nb each); control NULL: defaults; status may be NULL. The status
 *  is written on every return: reason PPSPARSE_FAILED with a nonzero return code. */
int ppsparse_mcpi_apply(ppsparse_mcpi_solver* solver, const double* R, double* dq, int memory,
                        const ppsparse_mcpi_control* control, ppsparse_mcpi_status* status);
/** FGMRES with MCPI (or, for a multigrid handle, multigrid) preconditioning on A dq = R;
 *  control NULL: defaults; status may be NULL
 *  (written on every return, as for ppsparse_mcpi_apply). */
int ppsparse_mcpi_fgmres(ppsparse_mcpi_solver* solver, const double* R, double* dq, int memory,
                         const ppsparse_fgmres_control* control, ppsparse_mcpi_status* status);
/** y = A x for ppsparse_mcpi_fgmres_operator: n * nb doubles each, in the caller's numbering and
 *  in the call's memory (device pointers with PPSPARSE_MEMORY_DEVICE). Returns 0, or a nonzero
 *  code of the caller's that stops the solve. */
typedef int (*ppsparse_operator)(const double* x, double* y, void* context);
/** ppsparse_mcpi_fgmres with `op` as the operator instead of the handle's A, preconditioned by
 *  the MCPI sweeps (or the multigrid cycle) over the handle's values: a Jacobian-free
 *  Newton-Krylov step, for example, whose assembled approximate Jacobian is the handle's.
 *  `context` is passed to op unchanged. The status's residuals are those of op's system. A
 *  nonzero return of op ends the call with PPSPARSE_ERROR_INVALID_ARGUMENT, op's code in
 *  ppsparse_last_error(). Later ppsparse_mcpi_fgmres calls use A again. */
int ppsparse_mcpi_fgmres_operator(ppsparse_mcpi_solver* solver, ppsparse_operator op, void* context, const double* R,
                                  double* dq, int memory, const ppsparse_fgmres_control* control,
                                  ppsparse_mcpi_status* status);
/** The residual checks of the handle's last solve (apply: every check_interval sweeps; FGMRES:
 *  every iteration): up to `capacity` pairs into steps[] and residuals[]. A step is the number of
 *  sweeps (FGMRES: iterations) behind the iterate that check measured; an MCPI check is formed during
 *  the following sweep, so with check_interval 1 the first step is 0, about the initial residual;
 *  *count receives the number of checks (may exceed capacity). Arrays may be NULL when capacity is 0. */
int ppsparse_mcpi_history(const ppsparse_mcpi_solver* solver, int capacity, int* steps, double* residuals, int* count);
/** y = A x = (D + O) x (n * nb each). */
int ppsparse_mcpi_multiply(ppsparse_mcpi_solver* solver, const double* x, double* y, int memory);

#ifdef __cplusplus
}
#endif

#endif /* PPSPARSE_C_MCPI_H */
