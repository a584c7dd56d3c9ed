#pragma once
// What the distributed setup's files (plan.cpp, ghosts.cpp) share: the prefix of their errors
// and a collective range.
#include <string>
#include <utility>

#include <mpi.h>

namespace ppsparse::distributed::setup {

inline const std::string who = "mcpi distributed setup: ";

/// The smallest and the largest of `value` over the ranks (collective): equal where every rank
/// gave the same.
inline std::pair<int, int> range_over_ranks(MPI_Comm comm, int value) {
  int range[2] = {-value, value};
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, comm);
  return {-range[0], range[1]};
}

}  // namespace ppsparse::distributed::setup
