#pragma once
/// @file
/// Coupling graphs of structured 3D meshes, standing in for unstructured CFD meshes.
/// Vertex (i, j, k) of an nx x ny x nz grid is numbered i + nx * (j + ny * k) (x fastest).
/// Each unit cube of the grid is a "cell" with lower corner (i, j, k), i < nx-1 etc.
///
/// Sizes: every dimension must be positive and nx*ny*nz at most 2^31-1, else InvalidArgument.
#include <cstdint>
#include <ppsparse/formats/graph.hpp>

namespace ppsparse::gen {

/// Freudenthal (Kuhn) split of every cell into 6 tetrahedra around its main diagonal
/// (i,j,k)-(i+1,j+1,k+1). The tetrahedra's edges join each vertex to the 14 offsets
/// +-(1,0,0), +-(0,1,0), +-(0,0,1), +-(1,1,0), +-(1,0,1), +-(0,1,1), +-(1,1,1),
/// so an interior vertex has 14 neighbours (fewer on the boundary).
Graph tet_mesh_graph(ordinal_t nx, ordinal_t ny, ordinal_t nz);

/// Mixed-element variant averaging about 17 neighbours per interior vertex (the figure
/// FUN3D reports for its mixed-element meshes). Construction: each cell independently
/// (decided by a hash of seed and cell index) is either
///  * a hexahedron, with probability p = (3 - sqrt(7)) / 2 ~ 0.177, whose 8 vertices are all
///    coupled to each other (a full-element stencil: 12 edges, 12 face diagonals, 4 body
///    diagonals), or
///  * the 6 Kuhn tetrahedra of tet_mesh_graph.
/// An interior vertex always has the 14 Kuhn neighbours; each of its 6 other face-diagonal
/// neighbours (offsets with two nonzero components of opposite sign) lies in 2 cells and is
/// present with probability 1 - (1-p)^2, each of its 6 other body-diagonal neighbours lies in
/// one cell and is present with probability p: the expected degree is
/// 14 + 6(2p - p^2) + 6p = 17 exactly for this p (interior; boundary vertices have fewer).
/// Deterministic in (nx, ny, nz, seed); the graph is a supergraph of tet_mesh_graph.
Graph mixed_mesh_graph(ordinal_t nx, ordinal_t ny, ordinal_t nz, std::uint64_t seed);

/// Probability that a cell of mixed_mesh_graph is a fully coupled hexahedron.
inline constexpr double mixed_mesh_hex_probability = 0.17712434446770464;  // (3 - sqrt(7)) / 2

}  // namespace ppsparse::gen
