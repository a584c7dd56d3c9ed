#pragma once
/// @file
/// An unstructured mesh of one dimension (2-D or 3-D): point coordinates and the
/// volume elements (triangles/quadrilaterals in 2-D; tetrahedra, pyramids, prisms and
/// hexahedra in 3-D) in SU2/VTK node numbering, and its boundary faces (lines in 2-D,
/// triangles and quadrilaterals in 3-D) grouped by the file's marker names.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <ppsparse/types.hpp>

namespace ppsparse::mesh {

/// Element type ids as SU2 and VTK number them.
enum class ElementType : std::uint8_t {
  line = 3,
  triangle = 5,
  quadrilateral = 9,
  tetrahedron = 10,
  hexahedron = 12,
  prism = 13,
  pyramid = 14
};

/// True when id is one of the ElementType values above.
bool is_element_type_id(long long id);
/// Nodes, dimension (2 or 3) and name ("tetrahedron", ...) of an element type.
int nodes_per_element(ElementType t);
int element_dimension(ElementType t);  // line 1, triangle/quadrilateral 2, the rest 3
const char* element_name(ElementType t);

/// The element's edges as pairs of local node numbers (SU2/VTK numbering):
/// line 1, triangle 3, quadrilateral 4, tetrahedron 6, pyramid 8, prism 9, hexahedron 12.
/// Face diagonals and body diagonals are not edges.
const std::vector<std::array<int, 2>>& element_edges(ElementType t);

/// The element's faces as cycles of local node numbers, ordered so that the right-hand rule
/// gives the outward normal of an element of positive element_signed_volume (a 2-D element's
/// faces are its edges, counter-clockwise; its outward normal is (dy, -dx)):
/// triangle 3, quadrilateral 4, tetrahedron 4, pyramid 5, prism 5, hexahedron 6.
const std::vector<std::vector<int>>& element_faces(ElementType t);

/// An unstructured mesh of one dimension: its points, its volume elements and its boundary
/// faces (see the file's description).
struct Mesh {
  int dim = 3;
  std::vector<double> coords;         ///< npoints * dim, point-major
  std::vector<ElementType> types;     ///< volume (dim-D) elements only
  std::vector<offset_t> elem_ptr{0};  ///< nelements + 1
  std::vector<ordinal_t> elem_nodes;  ///< elem_ptr.back()

  /// Boundary faces (elements of dimension dim - 1) as the file groups them: SU2 MARKER_TAG,
  /// Gmsh physical group, CGNS boundary condition or section, UGRID surface tag. Face f is a
  /// face_types[f] with nodes face_nodes[face_ptr[f] .. face_ptr[f + 1]) and belongs to marker
  /// face_marker[f], named marker_names[face_marker[f]]. Their orientation is the file's.
  std::vector<std::string> marker_names;
  std::vector<ElementType> face_types;
  std::vector<offset_t> face_ptr{0};
  std::vector<ordinal_t> face_nodes;
  std::vector<int> face_marker;

  ordinal_t npoints() const { return static_cast<ordinal_t>(coords.size() / static_cast<size_t>(dim > 0 ? dim : 1)); }
  ordinal_t nelements() const { return static_cast<ordinal_t>(types.size()); }
  ordinal_t nfaces() const { return static_cast<ordinal_t>(face_types.size()); }

  /// Adds a boundary face of `marker` (created on first use, in order of appearance).
  void add_face(const std::string& marker, ElementType type, const ordinal_t* nodes);
  /// The index of marker `name`, or -1.
  int find_marker(const std::string& name) const;
};

/// Throws InvalidArgument (one line, naming the first defect) unless m is well formed:
/// dim 2 or 3, finite coordinates, counts within 32 bits, elem_ptr consistent with the
/// types, every element of dimension dim with distinct node ids in range, every boundary face
/// of dimension dim - 1 with distinct node ids in range and a marker that exists.
void validate(const Mesh& m, const std::string& what = "mesh");

/// Volume (area in 2-D) of element e, integrated exactly over the element's standard
/// map: flat triangles, bilinear quadrilateral faces, trilinear hexahedra. The sign
/// follows VTK's node-order conventions: + when the tetrahedron's 0,1,2 is
/// counter-clockwise seen from 3, the pyramid's base 0,1,2,3 counter-clockwise seen from
/// the apex 4, the hexahedron's 0,1,2,3 counter-clockwise seen from 4,5,6,7, the prism's
/// 0,1,2 clockwise seen from 3,4,5 (VTK's wedge is the odd one out), and 2-D elements
/// counter-clockwise.
double element_signed_volume(const Mesh& m, ordinal_t e);
/// |element_signed_volume|: the measure, whatever the orientation convention.
double element_volume(const Mesh& m, ordinal_t e);

}  // namespace ppsparse::mesh
