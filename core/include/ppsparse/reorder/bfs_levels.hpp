#pragma once
/// @file
/// Breadth-first level structure for the matrix power kernel's level blocking: once
/// vertices are renumbered level by level, row r of A^k x needs only levels within k of
/// r's level, so consecutive levels can be pipelined through cache.
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/reorder/permutation.hpp>
#include <vector>

namespace ppsparse {

/// Breadth-first levels of a graph: the level-contiguous order and where each level starts in it.
struct BfsLevels {
  std::vector<ordinal_t> level_offsets{0};  ///< nlevels + 1: level l is new rows [level_offsets[l], level_offsets[l+1])
  Permutation perm;                         ///< level-contiguous renumbering (BFS order)

  ordinal_t nlevels() const { return static_cast<ordinal_t>(level_offsets.size()) - 1; }
};

/// Levels of a breadth-first search per connected component. Components are taken in the
/// order of their lowest-numbered vertex; each starts from a pseudo-peripheral vertex (the
/// component's lowest-degree vertex, improved by George-Liu iteration: restart from the
/// lowest-degree vertex of the last level while that lengthens the level structure), and its
/// levels are appended after the previous component's. In the new numbering every edge joins
/// two vertices of the same level or of adjacent levels of one component; an isolated
/// vertex forms a level of its own. Deterministic. InvalidArgument if g is not a valid graph.
BfsLevels bfs_levels(const Graph& g);

/// Levels of the input numbering itself (perm is the identity): level 0 is vertex 0, and each
/// next level ends after the farthest neighbour of the vertices before it, so that every edge
/// joins the same or adjacent levels, as in bfs_levels. Why: a numbering with a narrow band
/// keeps it. A structured grid's lexicographic order has levels of about one plane (n^2 + n + 1
/// rows for a 27-point stencil on n^3), where the BFS shells from a corner reach 3 n^2.
/// InvalidArgument if g is not a valid graph.
BfsLevels input_order_levels(const Graph& g);

/// The most vertices of two adjacent levels (of the only level where there is one): how many
/// rows one row's neighbours can span in that numbering. 0 for an empty structure.
ordinal_t widest_adjacent_levels(const BfsLevels& levels);

}  // namespace ppsparse
