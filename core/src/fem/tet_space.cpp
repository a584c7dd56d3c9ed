#include <ppsparse/fem/tet_space.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include <ppsparse/error.hpp>

namespace ppsparse::fem {

namespace {

std::string element_name(ordinal_t e) { return "element " + std::to_string(static_cast<long long>(e) + 1); }

}  // namespace

TetSpace make_tet_space(const mesh::Mesh& m, int order, const std::vector<std::string>& dirichlet_markers) {
  const std::string who = "fem space: ";
  if (order != 1 && order != 2)
    throw InvalidArgument(who + "order " + std::to_string(order) + " (P1 and P2 only: 1 or 2)");
  if (m.dim != 3) throw InvalidArgument(who + "a " + std::to_string(m.dim) + "-D mesh; the space needs tetrahedra");
  std::vector<char> marked(m.marker_names.size(), dirichlet_markers.empty() ? 1 : 0);
  for (const std::string& name : dirichlet_markers) {
    const auto it = std::find(m.marker_names.begin(), m.marker_names.end(), name);
    if (it == m.marker_names.end()) {
      std::string known;
      for (const auto& k : m.marker_names) known += (known.empty() ? "" : ", ") + k;
      throw InvalidArgument(who + "no boundary marker '" + name + "' in the mesh (its markers: " + known + ")");
    }
    marked[it - m.marker_names.begin()] = 1;
  }

  TetSpace s;
  s.order = order;
  s.nvertices = m.npoints();
  s.coords = m.coords;
  const int per = s.nodes_per_element();
  s.elem_nodes.reserve(static_cast<size_t>(m.nelements()) * per);
  std::map<std::pair<ordinal_t, ordinal_t>, ordinal_t> edge_node;
  ordinal_t next = s.nvertices;
  const auto edge = [&](ordinal_t a, ordinal_t b) {
    const auto [it, fresh] = edge_node.emplace(std::minmax(a, b), next);
    if (fresh) ++next;
    return it->second;
  };
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    if (m.types[e] != mesh::ElementType::tetrahedron)
      throw InputError("mesh", who + element_name(e) + " is a " + mesh::element_name(m.types[e]) +
                                   "; the P1 and P2 spaces are built on tetrahedra only");
    const double volume = mesh::element_signed_volume(m, e);
    if (!(volume > 0)) {
      throw InputError("mesh", who + element_name(e) + " has volume " + std::to_string(volume) +
                                   (volume < 0 ? " (inverted)" : " (degenerate)") + "; its vertices " +
                                   std::to_string(m.elem_nodes[m.elem_ptr[e]] + 1) + ", " +
                                   std::to_string(m.elem_nodes[m.elem_ptr[e] + 1] + 1) + ", " +
                                   std::to_string(m.elem_nodes[m.elem_ptr[e] + 2] + 1) + ", " +
                                   std::to_string(m.elem_nodes[m.elem_ptr[e] + 3] + 1) + " (from 1)");
    }
    const ordinal_t* v = &m.elem_nodes[m.elem_ptr[e]];
    s.elem_nodes.insert(s.elem_nodes.end(), v, v + 4);
    if (order == 2)
      for (const auto& [a, b] : kTetEdges) s.elem_nodes.push_back(edge(v[a], v[b]));
  }
  s.nnodes = next;
  if (m.nfaces() == 0)
    throw InvalidArgument(who + "the mesh has no boundary faces: the Dirichlet boundary comes from its markers");
  s.dirichlet.assign(static_cast<size_t>(s.nnodes), 0);
  for (ordinal_t f = 0; f < m.nfaces(); ++f) {
    if (!marked[m.face_marker[f]]) continue;
    const offset_t b = m.face_ptr[f], n = m.face_ptr[f + 1] - b;
    for (offset_t k = 0; k < n; ++k) {
      s.dirichlet[m.face_nodes[b + k]] = 1;
      if (order == 2) {  // the face's edges are element edges
        const auto it = edge_node.find(std::minmax(m.face_nodes[b + k], m.face_nodes[b + (k + 1) % n]));
        if (it != edge_node.end()) s.dirichlet[it->second] = 1;
      }
    }
  }
  return s;
}

mesh::Mesh box_tet_mesh(ordinal_t nx, ordinal_t ny, ordinal_t nz, double h) {
  if (nx < 1 || ny < 1 || nz < 1 || !(h > 0))
    throw InvalidArgument("box_tet_mesh: " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
                          std::to_string(nz) + " cubes of side " + std::to_string(h) + " (each at least 1, h > 0)");
  mesh::Mesh m;
  m.dim = 3;
  const auto id = [&](ordinal_t i, ordinal_t j, ordinal_t k) { return (k * (ny + 1) + j) * (nx + 1) + i; };
  for (ordinal_t k = 0; k <= nz; ++k)
    for (ordinal_t j = 0; j <= ny; ++j)
      for (ordinal_t i = 0; i <= nx; ++i) m.coords.insert(m.coords.end(), {i * h, j * h, k * h});
  // The six tetrahedra around the diagonal from corner 0 to corner 7 (bit 0: x, 1: y, 2: z),
  // one per path 0 -> 7 along the cube's edges: each shares its faces with its neighbours'.
  static constexpr int kPaths[6][3] = {{1, 2, 4}, {1, 4, 2}, {2, 1, 4}, {2, 4, 1}, {4, 1, 2}, {4, 2, 1}};
  for (ordinal_t k = 0; k < nz; ++k)
    for (ordinal_t j = 0; j < ny; ++j)
      for (ordinal_t i = 0; i < nx; ++i) {
        const auto corner = [&](int c) { return id(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1)); };
        for (const auto& p : kPaths) {
          const int c1 = p[0], c2 = c1 | p[1];
          std::array<ordinal_t, 4> t = {corner(0), corner(c1), corner(c2), corner(7)};
          m.types.push_back(mesh::ElementType::tetrahedron);
          m.elem_nodes.insert(m.elem_nodes.end(), t.begin(), t.end());
          m.elem_ptr.push_back(static_cast<offset_t>(m.elem_nodes.size()));
          if (mesh::element_signed_volume(m, m.nelements() - 1) < 0)  // the path's handedness
            std::swap(m.elem_nodes[m.elem_nodes.size() - 1], m.elem_nodes[m.elem_nodes.size() - 2]);
        }
      }
  // The sides, two triangles per square, split along the diagonal the tetrahedra use.
  const auto square = [&](const std::string& side, ordinal_t a, ordinal_t b, ordinal_t c, ordinal_t d) {
    // a-b-c-d around the square, a and c on the cube's main diagonal's side.
    const ordinal_t t1[3] = {a, b, c}, t2[3] = {a, c, d};
    m.add_face(side, mesh::ElementType::triangle, t1);
    m.add_face(side, mesh::ElementType::triangle, t2);
  };
  for (ordinal_t k = 0; k < nz; ++k)
    for (ordinal_t j = 0; j < ny; ++j) {
      square("xmin", id(0, j, k), id(0, j + 1, k), id(0, j + 1, k + 1), id(0, j, k + 1));
      square("xmax", id(nx, j, k), id(nx, j + 1, k), id(nx, j + 1, k + 1), id(nx, j, k + 1));
    }
  for (ordinal_t k = 0; k < nz; ++k)
    for (ordinal_t i = 0; i < nx; ++i) {
      square("ymin", id(i, 0, k), id(i + 1, 0, k), id(i + 1, 0, k + 1), id(i, 0, k + 1));
      square("ymax", id(i, ny, k), id(i + 1, ny, k), id(i + 1, ny, k + 1), id(i, ny, k + 1));
    }
  for (ordinal_t j = 0; j < ny; ++j)
    for (ordinal_t i = 0; i < nx; ++i) {
      square("zmin", id(i, j, 0), id(i + 1, j, 0), id(i + 1, j + 1, 0), id(i, j + 1, 0));
      square("zmax", id(i, j, nz), id(i + 1, j, nz), id(i + 1, j + 1, nz), id(i, j + 1, nz));
    }
  mesh::validate(m, "box_tet_mesh");
  return m;
}

}  // namespace ppsparse::fem
