/* A PETSc program that knows nothing of ppsparse: it solves a block system with the KSP and PC
 * that its options name, then checks the answer against a second solve (options prefix ref_,
 * by default GMRES with block Jacobi to 1e-12). ppsparse's preconditioner comes in at run time:
 *
 *   mpiexec -n 3 ./ksp_block_system -dll_append /path/libppsparse_petsc.so \
 *       -ksp_type fgmres -pc_type mcpi -pc_mcpi_sweeps 5 -ksp_converged_reason
 *
 * Options: -m (grid points per side, 40), -nb (block size, 3), -mat_type (baij, or aij), and
 * any KSP or PC option. Exit status 0 when both solves converged and agree to 1e-6. */
#include <petscksp.h>

#include "block_system.h"

int main(int argc, char** argv) {
  PetscInt m = 40, nb = 3, iterations;
  Mat A;
  Vec b, x, x_ref;
  KSP ksp, ref;
  KSPConvergedReason reason, ref_reason;
  PetscReal difference, size, residual;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Solves a block system with the KSP and PC the options name.\n"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nb", &nb, NULL));
  PetscCall(assemble_block_system(PETSC_COMM_WORLD, m, nb, -1, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &x_ref));
  PetscCall(VecSet(b, 1.0));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &iterations));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ref));
  PetscCall(KSPSetOptionsPrefix(ref, "ref_"));
  PetscCall(KSPSetOperators(ref, A, A));
  PetscCall(KSPSetType(ref, KSPGMRES));
  PetscCall(KSPSetTolerances(ref, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
  {
    PC pc;
    PetscCall(KSPGetPC(ref, &pc));
    PetscCall(PCSetType(pc, PCBJACOBI));
  }
  PetscCall(KSPSetFromOptions(ref));
  PetscCall(KSPSolve(ref, b, x_ref));
  PetscCall(KSPGetConvergedReason(ref, &ref_reason));

  /* The true residual of the user's system, and the distance to the reference solution. */
  {
    Vec r;
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &residual));
    PetscCall(VecNorm(b, NORM_2, &size));
    residual /= size;
    PetscCall(VecDestroy(&r));
  }
  PetscCall(VecNorm(x_ref, NORM_2, &size));
  PetscCall(VecAXPY(x_ref, -1.0, x));
  PetscCall(VecNorm(x_ref, NORM_2, &difference));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: %" PetscInt_FMT " iterations, relative residual %.2e; distance to the reference "
                        "solution %.2e\n",
                        KSPConvergedReasons[reason], iterations, (double)residual, (double)(difference / size)));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&ref));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&x_ref));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return reason > 0 && ref_reason > 0 && difference <= 1e-6 * size ? 0 : 1;
}
