/* A block system as an implicit flow solver's Jacobian looks to PETSc: block rows on an m x m
 * grid, nb unknowns per point, a nonsymmetric diagonal block per point and upwind-weighted
 * couplings to the four neighbours, assembled block by block (MatSetValuesBlocked) into a matrix
 * of the type the options give (baij by default; aij keeps the block size).
 *
 * `missing_diagonal`, if >= 0, is a block row assembled without its diagonal block (to show
 * the preconditioner's error). */
#ifndef PPSPARSE_EXAMPLES_PETSC_BLOCK_SYSTEM_H
#define PPSPARSE_EXAMPLES_PETSC_BLOCK_SYSTEM_H

#include <math.h>

#include <petscmat.h>

static PetscErrorCode assemble_block_system(MPI_Comm comm, PetscInt m, PetscInt nb, PetscInt missing_diagonal, Mat* A) {
  PetscInt first, end, nb2 = nb * nb;
  PetscScalar* block;
  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, m * m * nb, m * m * nb));
  PetscCall(MatSetBlockSize(*A, nb));
  PetscCall(MatSetType(*A, MATBAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqBAIJSetPreallocation(*A, nb, 5, NULL));
  PetscCall(MatMPIBAIJSetPreallocation(*A, nb, 5, NULL, 4, NULL));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5 * nb, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5 * nb, NULL, 4 * nb, NULL));
  PetscCall(MatGetOwnershipRange(*A, &first, &end));
  PetscCall(PetscMalloc1(nb2, &block));
  for (PetscInt g = first / nb; g < end / nb; ++g) {
    const PetscInt i = g % m, j = g / m;
    /* The neighbours, and the weight of each: the flow goes along +x, so the upstream (left)
     * neighbour couples three times as strongly as the downstream one. */
    const PetscInt neighbour[4] = {i > 0 ? g - 1 : -1, i < m - 1 ? g + 1 : -1, j > 0 ? g - m : -1,
                                   j < m - 1 ? g + m : -1};
    const double weight[4] = {1.5, 0.5, 1.0, 1.0};
    for (int k = 0; k < 4; ++k) {
      if (neighbour[k] < 0) continue;
      for (PetscInt a = 0; a < nb; ++a)
        for (PetscInt b = 0; b < nb; ++b)
          block[a * nb + b] = -weight[k] * (a == b ? 1.0 : 0.1 * cos((double)(a - 2 * b + k)));
      PetscCall(MatSetValuesBlocked(*A, 1, &g, 1, &neighbour[k], block, INSERT_VALUES));
    }
    if (g == missing_diagonal) continue;
    for (PetscInt a = 0; a < nb; ++a)
      for (PetscInt b = 0; b < nb; ++b)
        block[a * nb + b] = a == b ? 6.0 + 0.5 * (double)a : 0.4 * sin((double)(1 + a + 2 * b + g));
    PetscCall(MatSetValuesBlocked(*A, 1, &g, 1, &g, block, INSERT_VALUES));
  }
  PetscCall(PetscFree(block));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

#endif
