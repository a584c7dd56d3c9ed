#pragma once
// The median-dual control volumes of a mesh (Blazek 2015, sec. 5.2): one per vertex, bounded by
// the faces that join edge midpoints, face centres and element centroids. Computed on the
// device from the elements; the host only numbers edges and orients the boundary faces.
#include <functional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <ppsparse/mesh/mesh.hpp>
#include <ppsparse/types.hpp>

namespace flow {

using ppsparse::offset_t;
using ppsparse::ordinal_t;
using MemSpace = ppsparse::DefaultMemSpace;

struct DualMesh {
  int dim = 0;
  ordinal_t nvertices = 0;
  /// Edges (i < j) and the dual face between i and j: its area-weighted normal, from i to j.
  Kokkos::View<ordinal_t* [2], MemSpace> edges;
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> edge_normal;  ///< nedges x dim
  Kokkos::View<double*, MemSpace> volume;                             ///< per vertex
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> coords;       ///< nvertices x dim
  /// Boundary nodes: one per (vertex, marker) the boundary faces touch, with the vertex's part
  /// of that marker's faces as an outward area-weighted normal.
  Kokkos::View<ordinal_t*, MemSpace> bnode_vertex;
  Kokkos::View<int*, MemSpace> bnode_marker;
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> bnode_normal;  ///< nbnodes x dim
  /// The vertex graph as the Jacobian's block pattern (rows sorted, no diagonal).
  std::vector<offset_t> row_ptr;
  std::vector<ordinal_t> col_idx;
  /// The same pattern on the device, with the edge of each block (v, j).
  Kokkos::View<offset_t*, MemSpace> row_ptr_device;
  Kokkos::View<ordinal_t*, MemSpace> col_idx_device, pos_edge;

  ordinal_t nedges() const { return static_cast<ordinal_t>(edges.extent(0)); }
  ordinal_t nbnodes() const { return static_cast<ordinal_t>(bnode_vertex.extent(0)); }
};

/// Builds the dual mesh on the device. InvalidArgument naming the element (1-based, in the
/// file's order of volume elements) for an element whose orientation is the opposite of most
/// elements' (inverted) or whose volume is zero, and naming the boundary face (1-based within
/// its marker) for a face that is no element's face.
DualMesh build_dual_mesh(const ppsparse::mesh::Mesh& m, const std::function<void(const std::string&)>& progress = {});

}  // namespace flow
