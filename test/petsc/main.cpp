// GoogleTest main for PCMCPI's tests: PETSc (and through PCMcpiRegister, Kokkos) around the
// tests on every rank; the exit status is the worst rank's.
#include <gtest/gtest.h>

#include <ppsparse/petsc/pc_mcpi.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) return 1;
  int result = PCMcpiRegister() == 0 ? RUN_ALL_TESTS() : 1;
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  if (PetscFinalize() != 0) worst = 1;
  return worst;
}
