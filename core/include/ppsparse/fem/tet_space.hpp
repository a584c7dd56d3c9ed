#pragma once
/// @file
/// Continuous P1 and P2 finite element spaces on tetrahedral meshes, for the finite element
/// Poisson problem (fem/poisson.hpp): the nodes (vertices, and edge midpoints for P2), each
/// element's nodes, and the Dirichlet nodes taken from the mesh's boundary faces.
///
///   mesh::Mesh m = mesh::read("brick_tets.su2");
///   fem::TetSpace p2 = fem::make_tet_space(m, 2);             // every boundary marker Dirichlet
///   fem::TetSpace p1 = fem::make_tet_space(m, 1, {"wall"});   // only the faces of marker "wall"
#include <array>
#include <string>
#include <vector>

#include <ppsparse/mesh/mesh.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::fem {

/// The P2 element's edges (nodes 4..9 of its node list), as pairs of its vertices: 01, 12, 02,
/// 03, 13, 23 (the VTK quadratic tetrahedron's order).
inline constexpr std::array<std::array<int, 2>, 6> kTetEdges = {{{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}}};

/// A P1 or P2 space on straight-sided tetrahedra. Node numbering: the mesh's vertices first
/// (same ids), then, for P2, one node per edge in order of first appearance. An element's nodes
/// are its 4 vertices (the mesh's order, positively oriented) then, for P2, its edges in the
/// order of kTetEdges.
struct TetSpace {
  int order = 1;                      ///< 1 (P1) or 2 (P2)
  ordinal_t nvertices = 0;            ///< the mesh's vertices, nodes 0 .. nvertices-1
  ordinal_t nnodes = 0;               ///< all nodes (vertices, then edge nodes for P2)
  std::vector<double> coords;         ///< 3 * nvertices, the vertices' coordinates
  std::vector<ordinal_t> elem_nodes;  ///< nelements * nodes_per_element(), 0-based
  std::vector<char> dirichlet;        ///< per node: 1 on the Dirichlet boundary

  int nodes_per_element() const { return order == 1 ? 4 : 10; }
  ordinal_t nelements() const { return static_cast<ordinal_t>(elem_nodes.size() / nodes_per_element()); }
};

/// The space of `order` (1 or 2) on m, a 3-D mesh of tetrahedra. Dirichlet nodes: the nodes of
/// the boundary faces of the markers named (empty: every marker), for P2 the faces' edge nodes
/// too. InputError naming the element in the mesh's numbering (element k, from 1, as mesh
/// files count) for an element that is not a tetrahedron or whose volume is not positive
/// (inverted or degenerate); InvalidArgument for an order other than 1 or 2, a marker the mesh
/// does not have (listing its markers), or a mesh without boundary faces.
TetSpace make_tet_space(const mesh::Mesh& m, int order, const std::vector<std::string>& dirichlet_markers = {});

/// A box [0, nx*h] x [0, ny*h] x [0, nz*h] of nx*ny*nz cubes of side h, each split into six
/// positively oriented tetrahedra along its main diagonal (conforming), with its six sides as
/// boundary markers "xmin", "xmax", "ymin", "ymax", "zmin", "zmax".
mesh::Mesh box_tet_mesh(ordinal_t nx, ordinal_t ny, ordinal_t nz, double h = 1.0);

}  // namespace ppsparse::fem
