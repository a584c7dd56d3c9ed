#pragma once
// Meshes for the flow tests: the builders' boxes and rectangles with their sides as markers, a
// mirror-symmetric mesh around a body, and the shared real meshes.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <ppsparse/mesh/mesh.hpp>

#include "mesh/mesh_builders.hpp"
#include "test_util.hpp"

namespace flow::test_meshes {

using ppsparse::ordinal_t;
namespace mesh = ppsparse::mesh;

// Adds every element face that only one element has as a boundary face, under the marker
// name_of(face centroid) gives.
template <class NameOf>
void add_boundary(mesh::Mesh& m, const NameOf& name_of) {
  std::map<std::vector<ordinal_t>, std::pair<int, std::vector<ordinal_t>>> faces;
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    const ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    for (const auto& f : mesh::element_faces(m.types[e])) {
      std::vector<ordinal_t> nodes;
      for (int i : f) nodes.push_back(v[i]);
      auto key = nodes;
      std::sort(key.begin(), key.end());
      auto& entry = faces[key];
      ++entry.first;
      entry.second = nodes;
    }
  }
  for (const auto& [key, entry] : faces) {
    if (entry.first != 1) continue;
    double c[3] = {0, 0, 0};
    for (ordinal_t p : entry.second)
      for (int k = 0; k < m.dim; ++k) c[k] += m.coords[static_cast<size_t>(p) * m.dim + k] / entry.second.size();
    const auto t = m.dim == 2                 ? mesh::ElementType::line
                   : entry.second.size() == 3 ? mesh::ElementType::triangle
                                              : mesh::ElementType::quadrilateral;
    m.add_face(name_of(c), t, entry.second.data());
  }
}

// The sides of an [0, nx] x [0, ny] (x [0, nz]) box: x_m, x_p, y_m, y_p, z_m, z_p.
inline void add_box_markers(mesh::Mesh& m, const double* size) {
  add_boundary(m, [&](const double* c) {
    for (int k = 0; k < m.dim; ++k) {
      const std::string axis(1, static_cast<char>('x' + k));
      if (c[k] < 1e-12) return axis + "_m";
      if (c[k] > size[k] - 1e-12) return axis + "_p";
    }
    return std::string("inside?");
  });
}

inline mesh::Mesh box(int nx, int ny, int nz, mesh::builders::CellSplit split, double jitter) {
  mesh::Mesh m = mesh::builders::box_mesh({nx, ny, nz}, split, jitter, ppsparse::test::test_seed());
  const double size[3] = {double(nx), double(ny), double(nz)};
  add_box_markers(m, size);
  return m;
}

inline mesh::Mesh rectangle(int nx, int ny, double jitter) {
  mesh::Mesh m = mesh::builders::rectangle_mesh(nx, ny, jitter, ppsparse::test::test_seed());
  const double size[2] = {double(nx), double(ny)};
  add_box_markers(m, size);
  return m;
}

// A 2-D mesh mirror-symmetric about y = 0: the upper half, [-nx/2, nx/2] x [0, ny] less a
// rectangular body of bx x by cells on the axis, and its reflection. Markers "body" and "far".
inline mesh::Mesh mirrored_body(int nx, int ny, int bx, int by) {
  const mesh::Mesh half = mesh::builders::rectangle_mesh(nx, ny, 0.0, ppsparse::test::test_seed());
  mesh::Mesh m;
  m.dim = 2;
  const ordinal_t np = half.npoints();
  // Points: the half's (shifted to centre x), then the mirror of those off the axis.
  std::vector<ordinal_t> mirror(static_cast<size_t>(np));
  m.coords = half.coords;
  for (ordinal_t p = 0; p < np; ++p) m.coords[2 * p] -= nx / 2.0;
  for (ordinal_t p = 0; p < np; ++p) {
    if (half.coords[2 * p + 1] == 0) {
      mirror[p] = p;
      continue;
    }
    mirror[p] = static_cast<ordinal_t>(m.coords.size() / 2);
    m.coords.push_back(m.coords[2 * p]);
    m.coords.push_back(-m.coords[2 * p + 1]);
  }
  for (ordinal_t e = 0; e < half.nelements(); ++e) {
    const ordinal_t* v = half.elem_nodes.data() + half.elem_ptr[e];
    const int nn = mesh::nodes_per_element(half.types[e]);
    double cx = 0, cy = 0;
    for (int a = 0; a < nn; ++a) cx += m.coords[2 * v[a]] / nn, cy += m.coords[2 * v[a] + 1] / nn;
    if (std::abs(cx) < bx / 2.0 && cy < by) continue;  // inside the body
    std::vector<ordinal_t> up(v, v + nn), down;
    for (int a = nn - 1; a >= 0; --a) down.push_back(mirror[v[a]]);  // reflected, order reversed
    for (const auto* nodes : {&up, &down}) {
      m.types.push_back(half.types[e]);
      m.elem_nodes.insert(m.elem_nodes.end(), nodes->begin(), nodes->end());
      m.elem_ptr.push_back(static_cast<ppsparse::offset_t>(m.elem_nodes.size()));
    }
  }
  // Drop the points inside the body.
  std::vector<ordinal_t> number(m.coords.size() / 2, -1);
  ordinal_t used = 0;
  for (ordinal_t& v : m.elem_nodes) {
    if (number[v] < 0) number[v] = used++;
    v = number[v];
  }
  std::vector<double> coords(2 * static_cast<size_t>(used));
  for (size_t p = 0; p < number.size(); ++p)
    if (number[p] >= 0) coords[2 * number[p]] = m.coords[2 * p], coords[2 * number[p] + 1] = m.coords[2 * p + 1];
  m.coords = coords;
  add_boundary(m, [&](const double* c) {
    const bool outer = std::abs(c[0]) > nx / 2.0 - 1e-12 || std::abs(c[1]) > ny - 1e-12;
    return std::string(outer ? "far" : "body");
  });
  return m;
}

// Triangles around the unit circle out to radius `far`: an O-grid of n_theta points around and
// n_r + 1 rings, spaced geometrically (cells about as long as wide), each quadrilateral split
// along alternating diagonals. Markers "wall" (the circle) and "far".
inline mesh::Mesh cylinder(int n_theta, int n_r, double far) {
  mesh::Mesh m;
  m.dim = 2;
  const double growth = std::pow(far, 1.0 / n_r);
  const double pi = std::acos(-1.0);
  for (int k = 0; k <= n_r; ++k)
    for (int l = 0; l < n_theta; ++l) {
      const double r = std::pow(growth, k), t = 2 * pi * l / n_theta;
      m.coords.push_back(r * std::cos(t));
      m.coords.push_back(r * std::sin(t));
    }
  auto at = [&](int k, int l) { return static_cast<ordinal_t>(k * n_theta + (l % n_theta)); };
  auto triangle = [&](ordinal_t a, ordinal_t b, ordinal_t c) {
    m.types.push_back(mesh::ElementType::triangle);
    m.elem_nodes.insert(m.elem_nodes.end(), {a, b, c});
    m.elem_ptr.push_back(static_cast<ppsparse::offset_t>(m.elem_nodes.size()));
  };
  for (int k = 0; k < n_r; ++k)
    for (int l = 0; l < n_theta; ++l) {  // counter-clockwise: outward along k, around along l
      const ordinal_t a = at(k, l), b = at(k + 1, l), c = at(k + 1, l + 1), d = at(k, l + 1);
      if ((k + l) % 2 == 0) {
        triangle(a, b, c), triangle(a, c, d);
      } else {
        triangle(a, b, d), triangle(d, b, c);
      }
    }
  add_boundary(m, [&](const double* c) { return std::string(std::hypot(c[0], c[1]) < 1.5 ? "wall" : "far"); });
  return m;
}

inline std::string shared_mesh(const std::string& name) {
  const auto dir = ppsparse::test::shared_dir();
  return dir.empty() ? std::string() : (dir / "meshes" / name).string();
}

}  // namespace flow::test_meshes
