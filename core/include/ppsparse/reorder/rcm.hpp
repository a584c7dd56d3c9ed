#pragma once
/// @file
/// Reverse Cuthill-McKee renumbering, to shrink bandwidth (and so improve the locality of
/// x in SpMV and the overlap of levels in the matrix power kernel).
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/reorder/permutation.hpp>

namespace ppsparse {

/// RCM of every connected component, computed by Kokkos Kernels'
/// KokkosGraph::Experimental::graph_rcm on the host (same API in Kokkos Kernels 3.4 and 4.x;
/// the start vertex heuristic differs between versions, so the exact order may too).
/// InvalidArgument if g is not a valid graph.
Permutation rcm(const Graph& g);

}  // namespace ppsparse
