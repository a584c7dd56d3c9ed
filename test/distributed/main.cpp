// GoogleTest main for the mpirun tests: MPI and Kokkos around the tests on every rank; the
// exit status is the worst rank's, so that mpirun fails when any rank's test failed.
#include <mpi.h>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int result = 0;
  {
    ::testing::InitGoogleTest(&argc, argv);
    Kokkos::ScopeGuard kokkos(argc, argv);
    result = RUN_ALL_TESTS();
  }
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
