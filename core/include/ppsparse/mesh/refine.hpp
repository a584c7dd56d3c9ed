#pragma once
/// @file
/// Conforming uniform refinement. Each pass adds a point at the midpoint of every edge,
/// at the centre (mean of the 4 corners) of every quadrilateral face, and at the centre
/// of every hexahedron, and splits
///   tetrahedron -> 8 tetrahedra (interior octahedron cut along its shortest diagonal)
///   hexahedron  -> 8 hexahedra,  prism -> 8 prisms,  pyramid -> 6 pyramids + 4 tetrahedra
///   triangle    -> 4 triangles,  quadrilateral -> 4 quadrilaterals.
/// New points are keyed by their global edge / face, so a face shared by two elements is
/// split identically on both sides. Children keep their parent's orientation, and the
/// total volume (element_signed_volume) is preserved exactly up to rounding. Boundary faces
/// split likewise (line -> 2, triangle and quadrilateral -> 4), keeping their markers.
/// Point numbering: old points first, then edge midpoints in order of sorted
/// (min, max) node pairs, then quadrilateral face centres, then hexahedron centres.
#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// InvalidArgument if times < 0, m is invalid, or the result would have more than
/// 2^31-1 points or elements (checked before any work is done for the elements).
Mesh refine_uniform(const Mesh& m, int times);

}  // namespace ppsparse::mesh
