#pragma once
/// @file
/// Distance-1 colourings for the multicolour point-implicit iteration: vertices of one
/// colour share no edge, so a colour's block rows can be relaxed in parallel. The
/// renumbering makes every colour a contiguous range of rows.
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/reorder/permutation.hpp>
#include <vector>

namespace ppsparse {

/// A colouring of the block rows: colour c holds the rows perm.new_to_old[color_offsets[c] ..
/// color_offsets[c + 1]), so each colour is contiguous in the new numbering.
struct Coloring {
  ordinal_t ncolors = 0;
  std::vector<ordinal_t> color;          ///< per vertex, original numbering, 0 .. ncolors-1, every colour used
  Permutation perm;                      ///< colour-contiguous renumbering (stable inside a colour)
  std::vector<ordinal_t> color_offsets;  ///< ncolors + 1: colour c is new rows [color_offsets[c], color_offsets[c+1])
};

/// Colouring by Kokkos Kernels' KokkosGraph::Experimental::graph_color (default algorithm
/// for the host execution space), run on the host so the result does not depend on the
/// device backend; the colour count and assignment may differ between Kokkos versions and
/// host backends. InvalidArgument if g is not a valid graph.
Coloring color_distance1(const Graph& g);

/// A user-supplied colouring (one nonnegative colour per vertex), checked and renumbered.
/// Colour ids are compacted to 0 .. ncolors-1 keeping their order (unused ids are dropped).
/// InvalidArgument if the size differs from g.n, a colour is negative, or two adjacent
/// vertices share a colour (the message names the edge and the colour).
Coloring coloring_from_colors(const Graph& g, std::vector<ordinal_t> color);

/// True when color has one nonnegative entry per vertex and no edge joins two vertices of
/// one colour. InvalidArgument only if g itself is not a valid graph.
bool is_valid_coloring(const Graph& g, const std::vector<ordinal_t>& color);

/// Iterated greedy recolouring (Culberson 1992): `passes` times, the vertices are coloured
/// first-fit again, taken class by class from the last colour to the first (inside a class in
/// their current order). A pass never needs more colours than it started with, and the small
/// last colours of a greedy colouring, which cost a sweep a launch and a partial wave each for
/// little work, tend to empty into the others. Returns the colouring after the pass with the
/// fewest colours (ties: the larger smallest colour). InvalidArgument unless c is valid for g.
Coloring recolor_iterated_greedy(const Graph& g, const Coloring& c, int passes = 4);

/// The vertices of each colour, in colour order (for reports).
std::vector<ordinal_t> color_sizes(const Coloring& c);

}  // namespace ppsparse
