#pragma once
/// @file
/// The host-side setup of a distributed MCPI system (FUN3D's domain decomposition): from each
/// rank's block rows, with ghost columns carrying global ids, it builds
///  - the owners of the ghosts (a directory of the global ids, distributed over the ranks),
///    checking that every global row is owned by exactly one rank;
///  - a globally consistent distance-1 colouring: the greedy colouring in a fixed order of
///    the global ids (Jones-Plassmann's rule, with halo exchanges of colours), so that it does
///    not depend on the partition, or the user's colours checked across ranks;
///  - each rank's colour-contiguous order with its boundary rows (those other ranks read)
///    first in each colour, and per colour and neighbour the rows to send and ghosts to receive.
/// Every error is agreed by all ranks (dist/collective.hpp): no rank is left in a collective.
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include <ppsparse/mcpi/setup.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::distributed {

/// Global block-row ids (past 2^31 rows).
using global_t = std::int64_t;

/// One rank's share of the block structure of O, host arrays as the user gave them: block rows
/// 0 .. n - 1 are owned, columns n .. n + n_ghost - 1 (index_base added) are the ghosts, rows
/// of other ranks. Global ids number the rows of all ranks 0 .. N - 1 (index_base added).
struct LocalStructure {
  int nb = 1;
  ordinal_t n = 0;
  ordinal_t n_ghost = 0;
  const offset_t* row_ptr = nullptr;     ///< n + 1
  const ordinal_t* col_idx = nullptr;    ///< row_ptr[n] - index_base
  const global_t* global_ids = nullptr;  ///< n: each owned row's global id
  const global_t* ghost_ids = nullptr;   ///< n_ghost: each ghost's global id
  int index_base = 0;                    ///< 0 or 1, for every index array
};

/// Per colour and neighbour, what one rank sends and receives (entry c * neighbours.size() + k
/// of the offsets, CSR).
struct HaloLists {
  std::vector<int> neighbours;         ///< ranks exchanged with, ascending
  std::vector<offset_t> send_offsets;  ///< ncolors * neighbours + 1
  std::vector<ordinal_t> send_rows;    ///< owned rows in colour order, ascending
  std::vector<offset_t> recv_offsets;  ///< ncolors * neighbours + 1
  /// Ghost slots 0 .. n_ghost - 1 in the solver's order (by colour, owner and the owner's
  /// colour order: each entry's slots are consecutive), matching the owner's send_rows.
  std::vector<ordinal_t> recv_ghosts;
};

/// What one rank's distributed setup builds.
struct DistributedPlan {
  mcpi::detail::SetupPlan setup;  ///< local plan: global colours, boundary rows first, ghosts
  HaloLists halo;
  global_t n_global = 0;  ///< block rows over all ranks
  int rank = 0, size = 1;
};

/// Where a ghost lives: the rank that owns its row, and the row's index there (0-based, in
/// that rank's user order).
struct GhostOwner {
  std::int32_t rank = -1;
  ordinal_t index = 0;
};

/// Checks s as make_distributed_plan does (sizes, indices, global ids owned exactly once, ghost
/// ids in range, not owned here, distinct; every error agreed by all ranks) and finds each
/// ghost's owner through a directory of the global ids spread over the ranks (collective over
/// comm). n_global, if given, receives the number of rows over all ranks.
std::vector<GhostOwner> locate_ghosts(MPI_Comm comm, const LocalStructure& s, global_t* n_global = nullptr);

/// How make_distributed_plan colours the rows when the caller gives no colours.
enum class HaloColoring {
  /// Greedy in one fixed priority order (larger degree first): the same colours on any
  /// partition, and every colour holding rows coupled to other ranks costs an exchange.
  partition_independent,
  /// The same greedy, with the rows coupled to other ranks (the partition's boundary) before
  /// all others: they take the first few colours, the interior fills every colour, and only
  /// the colours that hold boundary rows exchange. The colours depend on the partition.
  boundary_first,
  /// boundary_first, with the colours taken in pairs (0-1, 2-3, ...): rows coupled across
  /// ranks lie in different pairs, so a row never reads a ghost of the other colour of its own
  /// pair, and one exchange after the pair's second colour carries both colours' rows. About
  /// half the exchanges of boundary_first, for a colour or two more.
  boundary_pairs,
};

/// The name of a HaloColoring ("partition_independent", "boundary_first", "boundary_pairs"), and back
/// (InvalidArgument listing the names).
const char* name(HaloColoring c);
HaloColoring parse_halo_coloring(const std::string& s);

/// Builds rank's plan (collective over comm). `colors`, if not empty, gives each owned row's
/// colour (any nonnegative ids, the same id meaning the same colour on every rank); otherwise
/// the greedy colouring in `halo_coloring`'s order, then, for the partition-independent order,
/// `recolor_passes` passes of iterated greedy recolouring over the ranks
/// (reorder::recolor_iterated_greedy's result on the whole graph, on any partition).
/// InvalidArgument on every rank naming the first failing rank and the defect: sizes, an index
/// out of range, a global id owned twice or by no rank, a ghost id no rank owns, coupled rows
/// sharing a colour, a negative recolor_passes, options that differ between the ranks,
/// recolouring asked with the boundary-first or boundary-pairs order (it would spread the
/// boundary rows over every colour again).
DistributedPlan make_distributed_plan(MPI_Comm comm, const LocalStructure& s, const std::vector<ordinal_t>& colors = {},
                                      int recolor_passes = 0,
                                      HaloColoring halo_coloring = HaloColoring::partition_independent);

}  // namespace ppsparse::distributed
