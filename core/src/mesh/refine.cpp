#include <ppsparse/mesh/refine.hpp>

#include <algorithm>
#include <stdexcept>

#include <ppsparse/error.hpp>

namespace ppsparse::mesh {
namespace {

// A point of the refined element is the mean of a set of parent corners, written as a
// bit mask over local corner numbers: one bit a corner, two an edge midpoint, four a
// quadrilateral face centre, eight the hexahedron centre.
using Mask = std::uint8_t;
template <class... I>
constexpr Mask corners(I... i) {
  return static_cast<Mask>(((1u << i) | ...));
}

struct ChildTemplate {
  ElementType type;
  std::vector<Mask> nodes;
};

// Local quadrilateral faces (corner sets; order does not matter for keys).
const std::vector<std::array<int, 4>>& quad_faces(ElementType t) {
  static const std::vector<std::array<int, 4>> none;
  static const std::vector<std::array<int, 4>> self{{0, 1, 2, 3}};
  static const std::vector<std::array<int, 4>> prism{{0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
  static const std::vector<std::array<int, 4>> hex{{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                                   {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  switch (t) {
    case ElementType::quadrilateral:  // in 2-D the element is its own face
    case ElementType::pyramid:
      return self;
    case ElementType::prism:
      return prism;
    case ElementType::hexahedron:
      return hex;
    default:
      return none;
  }
}

// Children of the reference square/cube cut in half along every axis: the child at
// offset o has, at its corner k, the lattice point o + ref[k] of the doubled lattice,
// which is the mean of the parent corners whose coordinates match on each axis
// (lattice 0 -> coordinate 0, 2 -> 1, 1 -> either). Keeps the parent's orientation.
template <int Dim, int N>
std::vector<ChildTemplate> tensor_children(ElementType t, const int (&ref)[N][Dim]) {
  std::vector<ChildTemplate> out;
  for (int o = 0; o < (1 << Dim); ++o) {
    ChildTemplate c{t, {}};
    for (int k = 0; k < N; ++k) {
      Mask m = 0;
      for (int q = 0; q < N; ++q) {
        bool match = true;
        for (int a = 0; a < Dim; ++a) {
          const int lattice = ((o >> a) & 1) + ref[k][a];
          if (lattice != 1 && ref[q][a] != lattice / 2) match = false;
        }
        if (match) m = static_cast<Mask>(m | (1u << q));
      }
      c.nodes.push_back(m);
    }
    out.push_back(c);
  }
  return out;
}

std::vector<ChildTemplate> triangle_children() {
  const Mask a = corners(0, 1), b = corners(1, 2), c = corners(2, 0);
  return {{ElementType::triangle, {corners(0), a, c}},
          {ElementType::triangle, {a, corners(1), b}},
          {ElementType::triangle, {c, b, corners(2)}},
          {ElementType::triangle, {a, b, c}}};
}

// Each child triangle of the base, stacked twice: bottom half and top half.
std::vector<ChildTemplate> prism_children() {
  std::vector<ChildTemplate> out;
  for (int layer = 0; layer < 2; ++layer)
    for (const auto& tri : triangle_children()) {
      ChildTemplate c{ElementType::prism, {}};
      for (int level : {layer, layer + 1})
        for (Mask m : tri.nodes) {
          const Mask top = static_cast<Mask>(m << 3);
          c.nodes.push_back(level == 0 ? m : level == 1 ? static_cast<Mask>(m | top) : top);
        }
      out.push_back(c);
    }
  return out;
}

// 4 corner tetrahedra plus the interior octahedron cut along one of its 3 diagonals
// (0: 01-23, 1: 02-13, 2: 03-12) into 4 tetrahedra, all oriented like the parent.
std::vector<ChildTemplate> tetrahedron_children(int diagonal) {
  const Mask a = corners(0, 1), b = corners(0, 2), c = corners(0, 3);
  const Mask d = corners(1, 2), e = corners(1, 3), f = corners(2, 3);
  const auto T = ElementType::tetrahedron;
  std::vector<ChildTemplate> out{
      {T, {corners(0), a, b, c}}, {T, {a, corners(1), d, e}}, {T, {b, d, corners(2), f}}, {T, {c, e, f, corners(3)}}};
  // Around the diagonal (p, q), the other four points in a cycle; (p, q, r_i, r_i+1).
  Mask p, q;
  std::array<Mask, 4> ring;
  if (diagonal == 0) {
    p = a, q = f, ring = {b, c, e, d};
  } else if (diagonal == 1) {
    p = b, q = e, ring = {c, a, d, f};
  } else {
    p = c, q = d, ring = {a, b, f, e};
  }
  for (int i = 0; i < 4; ++i) out.push_back({T, {p, q, ring[i], ring[(i + 1) % 4]}});
  return out;
}

std::vector<ChildTemplate> pyramid_children() {
  const Mask centre = corners(0, 1, 2, 3);
  const Mask m01 = corners(0, 1), m12 = corners(1, 2), m23 = corners(2, 3), m30 = corners(3, 0);
  const Mask a0 = corners(0, 4), a1 = corners(1, 4), a2 = corners(2, 4), a3 = corners(3, 4);
  const auto P = ElementType::pyramid, T = ElementType::tetrahedron;
  return {// a quarter of the base under each base corner, apex at the lateral edge midpoint
          {P, {corners(0), m01, centre, m30, a0}},
          {P, {m01, corners(1), m12, centre, a1}},
          {P, {centre, m12, corners(2), m23, a2}},
          {P, {m30, centre, m23, corners(3), a3}},
          // the top half-size pyramid, and the upside-down one below it
          {P, {a0, a1, a2, a3, corners(4)}},
          {P, {a0, a3, a2, a1, centre}},
          // the four gaps under the base edges
          {T, {m01, centre, a0, a1}},
          {T, {m12, centre, a1, a2}},
          {T, {m23, centre, a2, a3}},
          {T, {m30, centre, a3, a0}}};
}

// How to refine one element type: its refined points (corners, then edge midpoints in
// element_edges order, then quad face centres in quad_faces order, then the cell
// centre for hexahedra) and its children as indices into them.
struct Rule {
  int ncorners = 0, nedges = 0, nfaces = 0;
  bool cell_centre = false;
  std::vector<Mask> points;
  std::vector<std::pair<ElementType, std::vector<int>>> children;
};

Rule make_rule(ElementType t, const std::vector<ChildTemplate>& templates) {
  Rule r;
  r.ncorners = nodes_per_element(t);
  for (int i = 0; i < r.ncorners; ++i) r.points.push_back(corners(i));
  for (const auto& e : element_edges(t)) r.points.push_back(corners(e[0], e[1]));
  r.nedges = static_cast<int>(element_edges(t).size());
  for (const auto& f : quad_faces(t)) r.points.push_back(corners(f[0], f[1], f[2], f[3]));
  r.nfaces = static_cast<int>(quad_faces(t).size());
  if (t == ElementType::hexahedron) {
    r.cell_centre = true;
    r.points.push_back(0xff);
  }
  for (const auto& c : templates) {
    std::vector<int> idx;
    for (Mask m : c.nodes) {
      auto it = std::find(r.points.begin(), r.points.end(), m);
      if (it == r.points.end()) throw std::logic_error("refine: child template uses a point the rule lacks");
      idx.push_back(static_cast<int>(it - r.points.begin()));
    }
    r.children.emplace_back(c.type, idx);
  }
  return r;
}

// variant selects the tetrahedron's octahedron diagonal; 0 for the other types.
const Rule& rule_for(ElementType t, int variant) {
  static const int square[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  static const int cube[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  static const Rule tri = make_rule(ElementType::triangle, triangle_children());
  static const Rule quad = make_rule(ElementType::quadrilateral, tensor_children(ElementType::quadrilateral, square));
  static const Rule hex = make_rule(ElementType::hexahedron, tensor_children(ElementType::hexahedron, cube));
  static const Rule prism = make_rule(ElementType::prism, prism_children());
  static const Rule pyramid = make_rule(ElementType::pyramid, pyramid_children());
  static const Rule tet[3] = {make_rule(ElementType::tetrahedron, tetrahedron_children(0)),
                              make_rule(ElementType::tetrahedron, tetrahedron_children(1)),
                              make_rule(ElementType::tetrahedron, tetrahedron_children(2))};
  switch (t) {
    case ElementType::triangle:
      return tri;
    case ElementType::quadrilateral:
      return quad;
    case ElementType::hexahedron:
      return hex;
    case ElementType::prism:
      return prism;
    case ElementType::pyramid:
      return pyramid;
    case ElementType::tetrahedron:
      return tet[variant];
    default:
      throw InvalidArgument(std::string("refine_uniform: cannot refine a ") + element_name(t));
  }
}

// Index of the type in a per-type count array.
int type_slot(ElementType t) {
  switch (t) {
    case ElementType::triangle:
      return 0;
    case ElementType::quadrilateral:
      return 1;
    case ElementType::tetrahedron:
      return 2;
    case ElementType::pyramid:
      return 3;
    case ElementType::prism:
      return 4;
    case ElementType::hexahedron:
      return 5;
    default:
      return 6;
  }
}

// Refuses, before any work, refinements whose element count would pass 32 bits.
void check_element_growth(const Mesh& m, int times) {
  long long count[7] = {};  // per type_slot
  for (ElementType t : m.types) ++count[type_slot(t)];
  for (int level = 1; level <= times; ++level) {
    long long next[7] = {};
    next[0] = 4 * count[0];
    next[1] = 4 * count[1];
    next[2] = 8 * count[2] + 4 * count[3];
    next[3] = 6 * count[3];
    next[4] = 8 * count[4];
    next[5] = 8 * count[5];
    long long total = 0;
    for (int s = 0; s < 7; ++s) total += count[s] = next[s];
    if (total > max_ordinal)
      throw InvalidArgument("refine_uniform: " + std::to_string(times) + " refinements of " +
                            std::to_string(m.nelements()) + " elements give " + std::to_string(total) +
                            " elements after refinement " + std::to_string(level) + ", past the 32-bit limit " +
                            std::to_string(max_ordinal));
  }
}

using EdgeKey = std::uint64_t;
EdgeKey edge_key(ordinal_t u, ordinal_t v) {
  if (u > v) std::swap(u, v);
  return (static_cast<EdgeKey>(u) << 32) | static_cast<EdgeKey>(static_cast<std::uint32_t>(v));
}
using FaceKey = std::array<ordinal_t, 4>;

template <class Key>
void sort_unique(std::vector<Key>& keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

template <class Key>
offset_t position(const std::vector<Key>& keys, const Key& k) {
  return static_cast<offset_t>(std::lower_bound(keys.begin(), keys.end(), k) - keys.begin());
}

// The tetrahedron's octahedron diagonal of least length (first on ties): the best
// shaped children, and the same choice as any other code that measures lengths.
int shortest_diagonal(const double* p0, const double* p1, const double* p2, const double* p3) {
  double len[3] = {0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    const double x01_23 = p0[d] + p1[d] - p2[d] - p3[d];
    const double x02_13 = p0[d] + p2[d] - p1[d] - p3[d];
    const double x03_12 = p0[d] + p3[d] - p1[d] - p2[d];
    len[0] += x01_23 * x01_23;
    len[1] += x02_13 * x02_13;
    len[2] += x03_12 * x03_12;
  }
  return len[1] < len[0] ? (len[2] < len[1] ? 2 : 1) : (len[2] < len[0] ? 2 : 0);
}

Mesh refine_once(const Mesh& m, int level, int times) {
  const int dim = m.dim;
  const ordinal_t np = m.npoints();
  const ordinal_t ne = m.nelements();
  auto nodes_of = [&](ordinal_t e) { return m.elem_nodes.data() + m.elem_ptr[e]; };

  // Global edges and quadrilateral faces, each once, in sorted key order.
  std::vector<EdgeKey> edges;
  std::vector<FaceKey> faces;
  edges.reserve(static_cast<size_t>(ne) * 6);
  ordinal_t nhex = 0;
  for (ordinal_t e = 0; e < ne; ++e) {
    const ordinal_t* v = nodes_of(e);
    for (const auto& ed : element_edges(m.types[e])) edges.push_back(edge_key(v[ed[0]], v[ed[1]]));
    for (const auto& f : quad_faces(m.types[e])) {
      FaceKey k{v[f[0]], v[f[1]], v[f[2]], v[f[3]]};
      std::sort(k.begin(), k.end());
      faces.push_back(k);
    }
    if (m.types[e] == ElementType::hexahedron) ++nhex;
  }
  sort_unique(edges);
  sort_unique(faces);

  const long long total_points =
      static_cast<long long>(np) + static_cast<long long>(edges.size()) + static_cast<long long>(faces.size()) + nhex;
  if (total_points > max_ordinal)
    throw InvalidArgument("refine_uniform: refinement " + std::to_string(level) + " of " + std::to_string(times) +
                          " gives " + std::to_string(total_points) + " points, past the 32-bit limit " +
                          std::to_string(max_ordinal));
  const ordinal_t edge_base = np;
  const ordinal_t face_base = edge_base + static_cast<ordinal_t>(edges.size());
  const ordinal_t centre_base = face_base + static_cast<ordinal_t>(faces.size());

  Mesh r;
  r.dim = dim;
  r.coords.resize(static_cast<size_t>(total_points) * dim);
  std::copy(m.coords.begin(), m.coords.end(), r.coords.begin());
  auto x = [&](ordinal_t p) { return m.coords.data() + static_cast<size_t>(p) * dim; };
  for (size_t k = 0; k < edges.size(); ++k) {
    const double* a = x(static_cast<ordinal_t>(edges[k] >> 32));
    const double* b = x(static_cast<ordinal_t>(edges[k] & 0xffffffffu));
    double* out = r.coords.data() + (static_cast<size_t>(edge_base) + k) * dim;
    for (int d = 0; d < dim; ++d) out[d] = 0.5 * (a[d] + b[d]);
  }
  for (size_t k = 0; k < faces.size(); ++k) {
    double* out = r.coords.data() + (static_cast<size_t>(face_base) + k) * dim;
    for (int d = 0; d < dim; ++d)
      out[d] = 0.25 * (x(faces[k][0])[d] + x(faces[k][1])[d] + x(faces[k][2])[d] + x(faces[k][3])[d]);
  }

  size_t nchildren = 0, nchild_nodes = 0;
  for (ordinal_t e = 0; e < ne; ++e) {
    for (const auto& c : rule_for(m.types[e], 0).children) {
      ++nchildren;
      nchild_nodes += c.second.size();
    }
  }
  r.types.reserve(nchildren);
  r.elem_ptr.reserve(nchildren + 1);
  r.elem_nodes.reserve(nchild_nodes);

  ordinal_t next_centre = centre_base;
  std::vector<ordinal_t> ids;
  for (ordinal_t e = 0; e < ne; ++e) {
    const ElementType t = m.types[e];
    const ordinal_t* v = nodes_of(e);
    const int variant = t == ElementType::tetrahedron ? shortest_diagonal(x(v[0]), x(v[1]), x(v[2]), x(v[3])) : 0;
    const Rule& rule = rule_for(t, variant);
    ids.assign(rule.points.size(), 0);
    int k = 0;
    for (int i = 0; i < rule.ncorners; ++i) ids[k++] = v[i];
    for (const auto& ed : element_edges(t))
      ids[k++] = edge_base + static_cast<ordinal_t>(position(edges, edge_key(v[ed[0]], v[ed[1]])));
    for (const auto& f : quad_faces(t)) {
      FaceKey key{v[f[0]], v[f[1]], v[f[2]], v[f[3]]};
      std::sort(key.begin(), key.end());
      ids[k++] = face_base + static_cast<ordinal_t>(position(faces, key));
    }
    if (rule.cell_centre) {
      double* out = r.coords.data() + static_cast<size_t>(next_centre) * dim;
      for (int d = 0; d < dim; ++d) {
        double s = 0;
        for (int i = 0; i < rule.ncorners; ++i) s += x(v[i])[d];
        out[d] = s / rule.ncorners;
      }
      ids[k++] = next_centre++;
    }
    for (const auto& [child_type, child_points] : rule.children) {
      r.types.push_back(child_type);
      for (int p : child_points) r.elem_nodes.push_back(ids[p]);
      r.elem_ptr.push_back(static_cast<offset_t>(r.elem_nodes.size()));
    }
  }

  // Boundary faces split as the elements' faces they lie on: lines in two, triangles and
  // quadrilaterals in four (a face that is no element's face has no refined points: an error).
  r.marker_names = m.marker_names;
  auto find = [&](const auto& keys, const auto& key, ordinal_t base, ordinal_t f) {
    const offset_t k = position(keys, key);
    if (static_cast<size_t>(k) >= keys.size() || keys[static_cast<size_t>(k)] != key)
      throw InvalidArgument("refine_uniform: boundary face " + std::to_string(f) + " of marker '" +
                            m.marker_names[static_cast<size_t>(m.face_marker[f])] + "' is not a face of any element");
    return base + static_cast<ordinal_t>(k);
  };
  for (ordinal_t f = 0; f < m.nfaces(); ++f) {
    const ElementType t = m.face_types[f];
    const ordinal_t* v = m.face_nodes.data() + m.face_ptr[f];
    const std::string& marker = m.marker_names[static_cast<size_t>(m.face_marker[f])];
    if (t == ElementType::line) {
      const ordinal_t mid = find(edges, edge_key(v[0], v[1]), edge_base, f);
      const ordinal_t a[2] = {v[0], mid}, b[2] = {mid, v[1]};
      r.add_face(marker, t, a);
      r.add_face(marker, t, b);
      continue;
    }
    const Rule& rule = rule_for(t, 0);
    ids.assign(rule.points.size(), 0);
    int k = 0;
    for (int i = 0; i < rule.ncorners; ++i) ids[k++] = v[i];
    for (const auto& ed : element_edges(t)) ids[k++] = find(edges, edge_key(v[ed[0]], v[ed[1]]), edge_base, f);
    if (t == ElementType::quadrilateral) {
      FaceKey key{v[0], v[1], v[2], v[3]};
      std::sort(key.begin(), key.end());
      ids[k++] = find(faces, key, face_base, f);
    }
    for (const auto& [child_type, child_points] : rule.children) {
      ordinal_t nodes[4];
      for (size_t i = 0; i < child_points.size(); ++i) nodes[i] = ids[static_cast<size_t>(child_points[i])];
      r.add_face(marker, child_type, nodes);
    }
  }
  return r;
}

}  // namespace

Mesh refine_uniform(const Mesh& m, int times) {
  if (times < 0) throw InvalidArgument("refine_uniform: times is " + std::to_string(times) + ", must be >= 0");
  validate(m, "refine_uniform: input mesh");
  check_element_growth(m, times);
  Mesh r = m;
  for (int level = 1; level <= times; ++level) r = refine_once(r, level, times);
  return r;
}

}  // namespace ppsparse::mesh
