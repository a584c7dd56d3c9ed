#pragma once
// What the Gmsh MSH reader and writer share: the linear element types. Private to the library.
#include <array>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh::gmsh {

// A linear Gmsh element type; dim 0 is the point, which has no ElementType.
struct GmshType {
  int id;
  int nodes;
  int dim;
  ElementType type;
};

inline constexpr std::array<GmshType, 8> kLinearTypes = {{{1, 2, 1, ElementType::line},
                                                          {2, 3, 2, ElementType::triangle},
                                                          {3, 4, 2, ElementType::quadrilateral},
                                                          {4, 4, 3, ElementType::tetrahedron},
                                                          {5, 8, 3, ElementType::hexahedron},
                                                          {6, 6, 3, ElementType::prism},
                                                          {7, 5, 3, ElementType::pyramid},
                                                          {15, 1, 0, ElementType::line}}};

inline const GmshType* linear_type(long long id) {
  for (const GmshType& t : kLinearTypes)
    if (t.id == id) return &t;
  return nullptr;
}

inline int gmsh_id(ElementType t) {
  for (const GmshType& g : kLinearTypes)
    if (g.dim > 0 && g.type == t) return g.id;
  return 0;
}

}  // namespace ppsparse::mesh::gmsh
