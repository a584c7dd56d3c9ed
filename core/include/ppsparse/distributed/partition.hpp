#pragma once
/// @file
/// Partitions for the distributed solver:
///  - of a whole system on one rank (the mini-app's path: one rank reads, partitions, and each
///    rank takes its share): METIS's k-way partition of the coupling graph, and one rank's share
///    of a block system in the form make_distributed_solver takes;
///  - of a system already distributed (each rank holds some rows, as a CFD code's reader leaves
///    them): Zoltan's parallel graph partitioning, and the move of each row, with its values,
///    to its new rank.
#include <string>
#include <vector>

#include <mpi.h>

#include <ppsparse/distributed/plan.hpp>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/formats/graph.hpp>

namespace ppsparse::distributed {

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

/// True when this build partitions distributed graphs with Zoltan (PPSPARSE_ENABLE_ZOLTAN).
bool zoltan_available();

/// Options of partition_zoltan.
struct ZoltanOptions {
  double imbalance_tolerance = 1.05;  ///< largest part / mean part, Zoltan's IMBALANCE_TOL
  std::string method = "GRAPH";       ///< Zoltan's LB_METHOD: GRAPH or HYPERGRAPH (both PHG)
};

/// Zoltan's parallel partitioning (PHG) of the coupling graph of O, distributed as s gives it
/// (collective over comm; the graph is symmetrised), into one part per rank: the new rank of
/// each owned row, in s's order. s is checked as make_distributed_plan checks it (locate_ghosts),
/// and every error, Zoltan's included, is agreed by all ranks. Error naming the build option
/// when this build has no Zoltan.
std::vector<int> partition_zoltan(MPI_Comm comm, const LocalStructure& s, const ZoltanOptions& options = {});

/// Moves each owned row of `mine` (its O blocks, D and R) to rank new_rank[i] (collective over
/// comm): returns this rank's new share, owned rows ascending by global id, ghosts ascending,
/// each row's blocks in the order they came. InvalidArgument on every rank when a rank's
/// new_rank has not one entry per owned row or names a rank outside the communicator.
LocalSystem redistribute(MPI_Comm comm, const LocalSystem& mine, const std::vector<int>& new_rank);

/// The structure of a share, as make_distributed_plan and partition_zoltan take it (pointers
/// into `share`, 0-based).
LocalStructure structure_of(const LocalSystem& share);

}  // namespace ppsparse::distributed
