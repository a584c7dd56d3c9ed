/* ppsparse's MCPI solver as a PETSc preconditioner: PCMCPI ("mcpi").
 *
 * A PETSc code tries it without a changed line, by loading the library at run time:
 *
 *   ./app -dll_append /path/libppsparse_petsc.so -ksp_type fgmres -pc_type mcpi -pc_mcpi_sweeps 5
 *
 * or registers it once after PetscInitialize (linking ppsparse::petsc):
 *
 *   #include <ppsparse/petsc/pc_mcpi.h>
 *   PetscCall(PCMcpiRegister());   then -pc_type mcpi, or PCSetType(pc, PCMCPI)
 *
 * The preconditioner applies `sweeps` multicolour point-implicit sweeps (FUN3D's MCPI: each
 * colour's block rows relaxed at once, D's blocks by their LU factors) to A z = r from z = 0,
 * on the device of ppsparse's build, or one cycle of ppsparse's aggregation multigrid with the
 * sweeps as its smoother (-pc_mcpi_multigrid, one rank).
 *
 * Matrices: MATSEQBAIJ and MATMPIBAIJ (block size nb), MATSEQAIJ and MATMPIAIJ with their block
 * size (MatSetBlockSize; 1 gives scalar multicolour Gauss-Seidel). Every block row needs its
 * diagonal block, nonsingular for LU without pivoting. On several ranks the solver is ppsparse's
 * distributed one over the matrix's own row distribution (the same colouring and iterates as one
 * rank's). PCSetUp with the same nonzero pattern is a numeric update of the values (the colouring
 * and device arrays are kept); a new pattern, or new options, is a new setup.
 *
 * Options (also listed by -help):
 *   -pc_mcpi_sweeps <5>          sweeps per application (>= 1)
 *   -pc_mcpi_o_format <fp32>     how the sweeps store O: fp32, bf16, fp16, int8
 *   -pc_mcpi_lu_fp32             the sweeps read the diagonal blocks' LU factors in FP32
 *   -pc_mcpi_variant <auto>      the sweep kernel (ppsparse/mcpi/variant.hpp): auto, rows_per_warp, ...
 *   -pc_mcpi_multigrid           one multigrid cycle in place of the sweeps (one rank; FGMRES)
 *   -pc_mcpi_mg_cycle <k>        the multigrid cycle: v, w or k
 *   -pc_mcpi_mg_coarse_rows <500> coarsen until at most this many block rows
 *
 * With the sweeps the preconditioner is a fixed linear operator (GMRES, BiCGStab, FGMRES); the
 * K-cycle's inner Krylov steps make the multigrid one vary, so use FGMRES with it.
 *
 * Errors (bad matrix type or block layout, a missing or singular diagonal block, NaN or Inf in
 * the values, bad options) are PETSc errors on every rank, naming the block row and scalar rows in
 * PETSc's global numbering (from 0).
 *
 * Vectors: the host arrays of PETSc's vectors, staged to ppsparse's device. In a GPU build of
 * ppsparse, device arrays (PETSc built with CUDA or Kokkos, VecGetArrayReadAndMemType) are read
 * in place.
 */
#ifndef PPSPARSE_PETSC_PC_MCPI_H
#define PPSPARSE_PETSC_PC_MCPI_H

#include <petscpc.h>

#define PCMCPI "mcpi"

#ifdef __cplusplus
extern "C" {
#endif

/** Registers PCMCPI with PETSc (PCRegister) and initialises Kokkos where no one has; Kokkos is
 *  then finalised by PetscFinalize. Call after PetscInitialize; calling it again does nothing. */
PetscErrorCode PCMcpiRegister(void);

/** What -dll_append loads: PCMcpiRegister(). */
PetscErrorCode PetscDLLibraryRegister_ppsparse_petsc(void);

/** How often the preconditioner was set up from a pattern (colouring, device arrays) and how
 *  often it took new values into an existing setup (PCSetUp with the same nonzero pattern). */
PetscErrorCode PCMcpiGetSetupCounts(PC pc, PetscInt* setups, PetscInt* updates);

#ifdef __cplusplus
}
#endif

#endif
