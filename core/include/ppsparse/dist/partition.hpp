#pragma once
/// @file
/// Partitions of a whole system for the distributed solver (the mini-app's path: one rank
/// reads, partitions, and each rank takes its share): METIS's k-way partition of the coupling
/// graph, and one rank's share of a block system in the form make_distributed_solver takes.
#include <vector>

#include <ppsparse/dist/plan.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/formats/graph.hpp>

namespace ppsparse::dist {

/// METIS_PartGraphKway of g (symmetrised) into `parts` parts: the part of each vertex.
/// `parts` = 1 gives all zeros. InvalidArgument for parts < 1 or a METIS failure.
std::vector<int> partition_metis(const Graph& g, int parts);

/// One rank's share of a block system: the owned rows (ascending global id), their O blocks
/// with ghost columns (ghosts in ascending global id), D and R. Values are host vectors in the
/// order update() and apply() read them (O's blocks in col_idx order, column-major).
struct LocalSystem {
  int nb = 1;
  ordinal_t n = 0;
  std::vector<offset_t> row_ptr;
  std::vector<ordinal_t> col_idx;
  std::vector<global_t> global_ids, ghost_ids;
  std::vector<float> O;
  std::vector<double> D, R;
};

/// The rows of `system` whose part is `rank`, with ghosts. InvalidArgument when part has not
/// one entry per block row or names a part < 0.
LocalSystem local_share(const BlockSystem<HostSpace>& system, const std::vector<int>& part, int rank);

}  // namespace ppsparse::dist
