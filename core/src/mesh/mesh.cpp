#include <ppsparse/mesh/mesh.hpp>

#include <cmath>
#include <limits>

#include <ppsparse/error.hpp>

namespace ppsparse::mesh {

bool is_element_type_id(long long id) {
  switch (id) {
    case 3:
    case 5:
    case 9:
    case 10:
    case 12:
    case 13:
    case 14:
      return true;
    default:
      return false;
  }
}

int nodes_per_element(ElementType t) {
  switch (t) {
    case ElementType::line:
      return 2;
    case ElementType::triangle:
      return 3;
    case ElementType::quadrilateral:
      return 4;
    case ElementType::tetrahedron:
      return 4;
    case ElementType::hexahedron:
      return 8;
    case ElementType::prism:
      return 6;
    case ElementType::pyramid:
      return 5;
  }
  throw InvalidArgument("nodes_per_element: invalid element type id " + std::to_string(static_cast<int>(t)));
}

int element_dimension(ElementType t) {
  switch (t) {
    case ElementType::line:
      return 1;
    case ElementType::triangle:
    case ElementType::quadrilateral:
      return 2;
    case ElementType::tetrahedron:
    case ElementType::hexahedron:
    case ElementType::prism:
    case ElementType::pyramid:
      return 3;
  }
  throw InvalidArgument("element_dimension: invalid element type id " + std::to_string(static_cast<int>(t)));
}

const char* element_name(ElementType t) {
  switch (t) {
    case ElementType::line:
      return "line";
    case ElementType::triangle:
      return "triangle";
    case ElementType::quadrilateral:
      return "quadrilateral";
    case ElementType::tetrahedron:
      return "tetrahedron";
    case ElementType::hexahedron:
      return "hexahedron";
    case ElementType::prism:
      return "prism";
    case ElementType::pyramid:
      return "pyramid";
  }
  return "invalid element type";
}

const std::vector<std::array<int, 2>>& element_edges(ElementType t) {
  static const std::vector<std::array<int, 2>> line{{0, 1}};
  static const std::vector<std::array<int, 2>> tri{{0, 1}, {1, 2}, {2, 0}};
  static const std::vector<std::array<int, 2>> quad{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  static const std::vector<std::array<int, 2>> tet{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  static const std::vector<std::array<int, 2>> pyramid{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
  static const std::vector<std::array<int, 2>> prism{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5},
                                                     {5, 3}, {0, 3}, {1, 4}, {2, 5}};
  static const std::vector<std::array<int, 2>> hex{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                                   {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  switch (t) {
    case ElementType::line:
      return line;
    case ElementType::triangle:
      return tri;
    case ElementType::quadrilateral:
      return quad;
    case ElementType::tetrahedron:
      return tet;
    case ElementType::hexahedron:
      return hex;
    case ElementType::prism:
      return prism;
    case ElementType::pyramid:
      return pyramid;
  }
  throw InvalidArgument("element_edges: invalid element type id " + std::to_string(static_cast<int>(t)));
}

const std::vector<std::vector<int>>& element_faces(ElementType t) {
  using Faces = std::vector<std::vector<int>>;
  static const Faces line{{0}, {1}};
  static const Faces tri{{0, 1}, {1, 2}, {2, 0}};
  static const Faces quad{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  static const Faces tet{{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
  static const Faces pyramid{{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}};
  static const Faces prism{{0, 1, 2}, {3, 5, 4}, {0, 3, 4, 1}, {1, 4, 5, 2}, {2, 5, 3, 0}};
  static const Faces hex{{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  switch (t) {
    case ElementType::line:
      return line;
    case ElementType::triangle:
      return tri;
    case ElementType::quadrilateral:
      return quad;
    case ElementType::tetrahedron:
      return tet;
    case ElementType::hexahedron:
      return hex;
    case ElementType::prism:
      return prism;
    case ElementType::pyramid:
      return pyramid;
  }
  throw InvalidArgument("element_faces: invalid element type id " + std::to_string(static_cast<int>(t)));
}

void Mesh::add_face(const std::string& marker, ElementType type, const ordinal_t* nodes) {
  int k = find_marker(marker);
  if (k < 0) {
    k = static_cast<int>(marker_names.size());
    marker_names.push_back(marker);
  }
  face_types.push_back(type);
  face_nodes.insert(face_nodes.end(), nodes, nodes + nodes_per_element(type));
  face_ptr.push_back(static_cast<offset_t>(face_nodes.size()));
  face_marker.push_back(k);
}

int Mesh::find_marker(const std::string& name) const {
  for (size_t k = 0; k < marker_names.size(); ++k)
    if (marker_names[k] == name) return static_cast<int>(k);
  return -1;
}

namespace {
void validate_faces(const Mesh& m, const std::string& what, size_t np) {
  const size_t nf = m.face_types.size();
  if (m.face_ptr.size() != nf + 1 || m.face_ptr[0] != 0 || m.face_marker.size() != nf ||
      m.face_ptr.back() != static_cast<offset_t>(m.face_nodes.size()))
    throw InvalidArgument(what + ": face_ptr, face_nodes and face_marker do not fit " + std::to_string(nf) +
                          " boundary faces");
  for (size_t f = 0; f < nf; ++f) {
    const ElementType t = m.face_types[f];
    const std::string where = what + ": boundary face " + std::to_string(f);
    if (!is_element_type_id(static_cast<int>(t)) || element_dimension(t) != m.dim - 1)
      throw InvalidArgument(where + " is not an element of dimension " + std::to_string(m.dim - 1));
    const int npe = nodes_per_element(t);
    if (m.face_ptr[f + 1] - m.face_ptr[f] != npe)
      throw InvalidArgument(where + " (" + element_name(t) + ") has " +
                            std::to_string(m.face_ptr[f + 1] - m.face_ptr[f]) + " nodes, want " + std::to_string(npe));
    if (m.face_marker[f] < 0 || static_cast<size_t>(m.face_marker[f]) >= m.marker_names.size())
      throw InvalidArgument(where + " has marker " + std::to_string(m.face_marker[f]) + " of " +
                            std::to_string(m.marker_names.size()));
    const ordinal_t* nodes = m.face_nodes.data() + m.face_ptr[f];
    for (int i = 0; i < npe; ++i) {
      if (nodes[i] < 0 || static_cast<size_t>(nodes[i]) >= np)
        throw InvalidArgument(where + " (" + element_name(t) + ") node " + std::to_string(nodes[i]) +
                              " out of range [0, " + std::to_string(np) + ")");
      for (int j = 0; j < i; ++j)
        if (nodes[j] == nodes[i])
          throw InvalidArgument(where + " (" + element_name(t) + ") repeats node " + std::to_string(nodes[i]));
    }
  }
}
}  // namespace

void validate(const Mesh& m, const std::string& what) {
  if (m.dim != 2 && m.dim != 3) throw InvalidArgument(what + ": dim is " + std::to_string(m.dim) + ", not 2 or 3");
  if (m.coords.size() % static_cast<size_t>(m.dim) != 0)
    throw InvalidArgument(what + ": coords has " + std::to_string(m.coords.size()) + " values, not a multiple of dim " +
                          std::to_string(m.dim));
  const size_t np = m.coords.size() / static_cast<size_t>(m.dim);
  if (np > static_cast<size_t>(max_ordinal))
    throw InvalidArgument(what + ": " + std::to_string(np) + " points, past the 32-bit limit");
  if (m.types.size() > static_cast<size_t>(max_ordinal))
    throw InvalidArgument(what + ": " + std::to_string(m.types.size()) + " elements, past the 32-bit limit");
  for (size_t k = 0; k < m.coords.size(); ++k)
    if (!std::isfinite(m.coords[k]))
      throw InvalidArgument(what + ": non-finite coordinate of point " + std::to_string(k / m.dim));
  if (m.elem_ptr.size() != m.types.size() + 1 || m.elem_ptr[0] != 0)
    throw InvalidArgument(what + ": elem_ptr has " + std::to_string(m.elem_ptr.size()) + " entries for " +
                          std::to_string(m.types.size()) + " elements (want nelements + 1, starting at 0)");
  if (m.elem_ptr.back() != static_cast<offset_t>(m.elem_nodes.size()))
    throw InvalidArgument(what + ": elem_ptr ends at " + std::to_string(m.elem_ptr.back()) + " but elem_nodes has " +
                          std::to_string(m.elem_nodes.size()) + " entries");
  for (size_t e = 0; e < m.types.size(); ++e) {
    const ElementType t = m.types[e];
    const std::string where = what + ": element " + std::to_string(e);
    if (!is_element_type_id(static_cast<int>(t)))
      throw InvalidArgument(where + " has invalid type id " + std::to_string(static_cast<int>(t)));
    if (element_dimension(t) != m.dim)
      throw InvalidArgument(where + " is a " + element_name(t) + ", not a volume element of a " +
                            std::to_string(m.dim) + "-D mesh");
    const int npe = nodes_per_element(t);
    if (m.elem_ptr[e + 1] - m.elem_ptr[e] != npe)
      throw InvalidArgument(where + " (" + element_name(t) + ") has " +
                            std::to_string(m.elem_ptr[e + 1] - m.elem_ptr[e]) + " nodes, want " + std::to_string(npe));
    const ordinal_t* nodes = m.elem_nodes.data() + m.elem_ptr[e];
    for (int i = 0; i < npe; ++i) {
      if (nodes[i] < 0 || static_cast<size_t>(nodes[i]) >= np)
        throw InvalidArgument(where + " (" + element_name(t) + ") node " + std::to_string(nodes[i]) +
                              " out of range [0, " + std::to_string(np) + ")");
      for (int j = 0; j < i; ++j)
        if (nodes[j] == nodes[i])
          throw InvalidArgument(where + " (" + element_name(t) + ") repeats node " + std::to_string(nodes[i]));
    }
  }
  validate_faces(m, what, np);
}

namespace {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};
Vec3 operator-(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 operator+(const Vec3& a, const Vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 operator*(double s, const Vec3& a) { return {s * a.x, s * a.y, s * a.z}; }
double det3(const Vec3& a, const Vec3& b, const Vec3& c) {
  return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x);
}

// Two-point Gauss rule on [0, 1]: exact for cubics in each variable, which covers the
// Jacobian determinants of the pyramid, prism and trilinear hexahedron maps.
constexpr double gauss_lo = 0.5 - 0.28867513459481288225;  // 0.5 - 0.5/sqrt(3)
constexpr double gauss_hi = 0.5 + 0.28867513459481288225;

// Bilinear quadrilateral p0 (0,0), p1 (1,0), p2 (1,1), p3 (0,1): value and derivatives.
void bilinear(const Vec3* p, double s, double t, Vec3& x, Vec3& dxs, Vec3& dxt) {
  x = (1 - s) * (1 - t) * p[0] + s * (1 - t) * p[1] + s * t * p[2] + (1 - s) * t * p[3];
  dxs = (1 - t) * (p[1] - p[0]) + t * (p[2] - p[3]);
  dxt = (1 - s) * (p[3] - p[0]) + s * (p[2] - p[1]);
}

double hexahedron_volume(const Vec3* p) {
  // Trilinear map over [0,1]^3: bottom face p0..p3 at w = 0, top face p4..p7 at w = 1.
  double v = 0;
  for (double u : {gauss_lo, gauss_hi})
    for (double s : {gauss_lo, gauss_hi})
      for (double w : {gauss_lo, gauss_hi}) {
        Vec3 xb, bs, bt, xt, ts, tt;
        bilinear(p, u, s, xb, bs, bt);
        bilinear(p + 4, u, s, xt, ts, tt);
        v += 0.125 * det3((1 - w) * bs + w * ts, (1 - w) * bt + w * tt, xt - xb);
      }
  return v;
}

double pyramid_volume(const Vec3* p) {
  // Bilinear base p0..p3 joined to the apex p4: X = (1-w) B(u,s) + w p4.
  double v = 0;
  for (double u : {gauss_lo, gauss_hi})
    for (double s : {gauss_lo, gauss_hi})
      for (double w : {gauss_lo, gauss_hi}) {
        Vec3 b, bs, bt;
        bilinear(p, u, s, b, bs, bt);
        v += 0.125 * (1 - w) * (1 - w) * det3(bs, bt, p[4] - b);
      }
  return v;
}

double prism_volume(const Vec3* p) {
  // Linear triangles p0 p1 p2 (w = 0) and p3 p4 p5 (w = 1) joined linearly in w. The
  // determinant is linear over the triangle, so its centroid (weight 1/2) is exact.
  const double c = 1.0 / 3.0;
  double v = 0;
  for (double w : {gauss_lo, gauss_hi}) {
    const Vec3 du = (1 - w) * (p[1] - p[0]) + w * (p[4] - p[3]);
    const Vec3 dv = (1 - w) * (p[2] - p[0]) + w * (p[5] - p[3]);
    const Vec3 dw = c * (p[3] - p[0]) + c * (p[4] - p[1]) + c * (p[5] - p[2]);
    v += 0.5 * 0.5 * det3(du, dv, dw);
  }
  return v;
}

}  // namespace

double element_signed_volume(const Mesh& m, ordinal_t e) {
  if (e < 0 || e >= m.nelements())
    throw InvalidArgument("element_signed_volume: element " + std::to_string(e) + " out of range [0, " +
                          std::to_string(m.nelements()) + ")");
  const ElementType t = m.types[e];
  const int npe = nodes_per_element(t);
  if (m.elem_ptr.size() != m.types.size() + 1 || m.elem_ptr[e + 1] - m.elem_ptr[e] != npe ||
      m.elem_ptr[e + 1] > static_cast<offset_t>(m.elem_nodes.size()))
    throw InvalidArgument("element_signed_volume: element " + std::to_string(e) + " is malformed");
  Vec3 p[8];
  for (int i = 0; i < npe; ++i) {
    const ordinal_t v = m.elem_nodes[m.elem_ptr[e] + i];
    if (v < 0 || v >= m.npoints())
      throw InvalidArgument("element_signed_volume: element " + std::to_string(e) + " node " + std::to_string(v) +
                            " out of range");
    const double* x = m.coords.data() + static_cast<size_t>(v) * m.dim;
    p[i] = {x[0], x[1], m.dim == 3 ? x[2] : 0.0};
  }
  auto cross2 = [](const Vec3& a, const Vec3& b) { return a.x * b.y - a.y * b.x; };
  switch (t) {
    case ElementType::line: {
      const Vec3 d = p[1] - p[0];
      return std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    }
    case ElementType::triangle:
      return 0.5 * cross2(p[1] - p[0], p[2] - p[0]);
    case ElementType::quadrilateral:
      return 0.5 * cross2(p[2] - p[0], p[3] - p[1]);
    case ElementType::tetrahedron:
      return det3(p[1] - p[0], p[2] - p[0], p[3] - p[0]) / 6.0;
    case ElementType::pyramid:
      return pyramid_volume(p);
    case ElementType::prism:
      return -prism_volume(p);  // VTK: 0,1,2 normal points away from 3,4,5
    case ElementType::hexahedron:
      return hexahedron_volume(p);
  }
  throw InvalidArgument("element_signed_volume: element " + std::to_string(e) + " has an invalid type");
}

double element_volume(const Mesh& m, ordinal_t e) { return std::abs(element_signed_volume(m, e)); }

}  // namespace ppsparse::mesh
