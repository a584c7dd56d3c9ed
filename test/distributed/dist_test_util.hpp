#pragma once
// Helpers of the tests under mpirun: this process's rank and the number of ranks.
#include <mpi.h>

namespace ppsparse::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

}  // namespace ppsparse::test
