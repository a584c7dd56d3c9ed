#pragma once
/// @file
/// The vertex adjacency graph of a mesh: two points are neighbours when they are the
/// ends of an element edge (element_edges: tetrahedron 6, pyramid 8, prism 9,
/// hexahedron 12, triangle 3, quadrilateral 4). Face and body diagonals do not couple
/// vertices, as in an edge-based finite-volume discretisation.
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// InvalidArgument if m is not valid (see validate(const Mesh&)).
Graph vertex_graph(const Mesh& m);

}  // namespace ppsparse::mesh
