#pragma once
// Small meshes built in the tests: structured grids split into each element type,
// random single elements, and an independent face enumeration for conformity checks.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <ppsparse/mesh/mesh.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

#include "test_util.hpp"

namespace ppsparse::mesh::builders {

inline void add_element(Mesh& m, ElementType t, std::vector<ordinal_t> nodes) {
  m.types.push_back(t);
  m.elem_nodes.insert(m.elem_nodes.end(), nodes.begin(), nodes.end());
  m.elem_ptr.push_back(static_cast<offset_t>(m.elem_nodes.size()));
}

// Reorders the nodes of every element with negative signed volume so that all are
// positive (tetrahedron: swap 1 and 2; pyramid: reverse the base; prism and
// hexahedron: swap the two layers; 2-D: reverse).
inline void orient_positive(Mesh& m) {
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    if (element_signed_volume(m, e) > 0) continue;
    ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    switch (m.types[e]) {
      case ElementType::tetrahedron:
        std::swap(v[1], v[2]);
        break;
      case ElementType::pyramid:
        std::swap(v[1], v[3]);
        break;
      case ElementType::prism:
        std::swap_ranges(v, v + 3, v + 3);
        break;
      case ElementType::hexahedron:
        std::swap_ranges(v, v + 4, v + 4);
        break;
      case ElementType::triangle:
        std::swap(v[1], v[2]);
        break;
      case ElementType::quadrilateral:
        std::swap(v[1], v[3]);
        break;
      default:
        break;
    }
  }
}

// Points of an (nx+1) x (ny+1) x (nz+1) lattice with spacing 1; interior points moved
// by up to `jitter` in each coordinate (boundary points stay, so the box volume is
// nx*ny*nz). 2-D when nz == 0.
struct Lattice {
  int nx, ny, nz;
  ordinal_t id(int i, int j, int k) const { return static_cast<ordinal_t>((k * (ny + 1) + j) * (nx + 1) + i); }
  // Cube corner c (bits x, y, z) of cell (i, j, k), in hexahedron order.
  ordinal_t corner(int i, int j, int k, int c) const {
    static const int off[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                  {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    return id(i + off[c][0], j + off[c][1], k + off[c][2]);
  }
};

inline Mesh lattice_points(const Lattice& g, double jitter, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  Mesh m;
  m.dim = g.nz == 0 ? 2 : 3;
  for (int k = 0; k <= g.nz; ++k)
    for (int j = 0; j <= g.ny; ++j)
      for (int i = 0; i <= g.nx; ++i) {
        const bool interior = i > 0 && i < g.nx && j > 0 && j < g.ny && (m.dim == 2 || (k > 0 && k < g.nz));
        m.coords.push_back(i + (interior ? u(rng) : 0.0));
        m.coords.push_back(j + (interior ? u(rng) : 0.0));
        if (m.dim == 3) m.coords.push_back(k + (interior ? u(rng) : 0.0));
      }
  return m;
}

enum class CellSplit { hexahedra, tetrahedra, prisms, pyramids, hexahedra_and_pyramids };

// A conforming 3-D mesh of the lattice's cells: each cell as one hexahedron, 6 Kuhn
// tetrahedra, 2 prisms, or 6 pyramids around a new centre point (or alternating
// hexahedra and pyramids in a checkerboard).
inline Mesh box_mesh(const Lattice& g, CellSplit split, double jitter, std::uint64_t seed) {
  Mesh m = lattice_points(g, jitter, seed);
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        auto c = [&](int n) { return g.corner(i, j, k, n); };
        CellSplit s = split;
        if (s == CellSplit::hexahedra_and_pyramids)
          s = (i + j + k) % 2 == 0 ? CellSplit::hexahedra : CellSplit::pyramids;
        if (s == CellSplit::hexahedra) {
          add_element(m, ElementType::hexahedron, {c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7)});
        } else if (s == CellSplit::tetrahedra) {
          // Kuhn: paths from corner 0 to corner 6 along the axes in every order.
          static const int bit_of[3] = {1, 2, 4};
          static const int hex_of_bits[8] = {0, 1, 3, 2, 4, 5, 7, 6};  // bits (x,y,z) -> hex corner
          int perm[3] = {0, 1, 2};
          do {
            int bits = 0;
            std::vector<ordinal_t> tet{c(0)};
            for (int a : perm) {
              bits |= bit_of[a];
              tet.push_back(c(hex_of_bits[bits]));
            }
            add_element(m, ElementType::tetrahedron, tet);
          } while (std::next_permutation(perm, perm + 3));
        } else if (s == CellSplit::prisms) {
          add_element(m, ElementType::prism, {c(0), c(1), c(2), c(4), c(5), c(6)});
          add_element(m, ElementType::prism, {c(0), c(2), c(3), c(4), c(6), c(7)});
        } else {
          const ordinal_t centre = m.npoints();
          m.coords.push_back(i + 0.5 + u(rng));
          m.coords.push_back(j + 0.5 + u(rng));
          m.coords.push_back(k + 0.5 + u(rng));
          static const int faces[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                          {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
          for (const auto& f : faces)
            add_element(m, ElementType::pyramid, {c(f[0]), c(f[1]), c(f[2]), c(f[3]), centre});
        }
      }
  orient_positive(m);
  return m;
}

// A conforming 2-D mesh: cells alternately one quadrilateral or two triangles.
inline Mesh rectangle_mesh(int nx, int ny, double jitter, std::uint64_t seed) {
  Lattice g{nx, ny, 0};
  Mesh m = lattice_points(g, jitter, seed);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const ordinal_t a = g.id(i, j, 0), b = g.id(i + 1, j, 0), c = g.id(i + 1, j + 1, 0), d = g.id(i, j + 1, 0);
      if ((i + j) % 2 == 0) {
        add_element(m, ElementType::quadrilateral, {a, b, c, d});
      } else {
        add_element(m, ElementType::triangle, {a, b, c});
        add_element(m, ElementType::triangle, {a, c, d});
      }
    }
  orient_positive(m);
  return m;
}

// One element of type t: the reference element under a random affine map plus a
// random perturbation of every node (so quadrilateral faces are not planar).
inline Mesh single_element(ElementType t, double perturb, std::uint64_t seed) {
  static const double tet[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  static const double pyr[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0.5, 1}};
  static const double pri[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
  static const double hex[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  static const double tri[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  static const double quad[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  const double(*ref)[3] = nullptr;
  switch (t) {
    case ElementType::tetrahedron:
      ref = tet;
      break;
    case ElementType::pyramid:
      ref = pyr;
      break;
    case ElementType::prism:
      ref = pri;
      break;
    case ElementType::hexahedron:
      ref = hex;
      break;
    case ElementType::triangle:
      ref = tri;
      break;
    default:
      ref = quad;
      break;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Mesh m;
  m.dim = element_dimension(t);
  // Affine map: identity plus a small random matrix, random offset.
  double a[3][3], b[3];
  for (int r = 0; r < 3; ++r) {
    b[r] = 5 * u(rng);
    for (int c = 0; c < 3; ++c) a[r][c] = (r == c ? 1.0 : 0.0) + 0.3 * u(rng);
  }
  std::vector<ordinal_t> nodes;
  for (int n = 0; n < nodes_per_element(t); ++n) {
    double p[3] = {ref[n][0] + perturb * u(rng), ref[n][1] + perturb * u(rng), ref[n][2] + perturb * u(rng)};
    for (int r = 0; r < m.dim; ++r)
      m.coords.push_back(b[r] + a[r][0] * p[0] + a[r][1] * p[1] + (m.dim == 3 ? a[r][2] * p[2] : 0.0));
    nodes.push_back(n);
  }
  add_element(m, t, nodes);
  return m;
}

inline long double total_volume(const Mesh& m) {
  long double v = 0;
  for (ordinal_t e = 0; e < m.nelements(); ++e) v += element_volume(m, e);
  return v;
}

// Every element's faces (edges in 2-D) as sorted node tuples padded with -1, sorted,
// so that a face shared by n elements appears n times in a row. Independent of the
// library's tables on purpose.
using FaceKey = std::array<ordinal_t, 4>;
inline std::vector<FaceKey> sorted_faces(const Mesh& m) {
  static const std::vector<std::vector<int>> tet{{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
  static const std::vector<std::vector<int>> pyr{{0, 1, 2, 3}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}};
  static const std::vector<std::vector<int>> pri{{0, 1, 2}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
  static const std::vector<std::vector<int>> hex{{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                                 {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  static const std::vector<std::vector<int>> tri{{0, 1}, {1, 2}, {2, 0}};
  static const std::vector<std::vector<int>> quad{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  std::vector<FaceKey> all;
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    const std::vector<std::vector<int>>* faces = nullptr;
    switch (m.types[e]) {
      case ElementType::tetrahedron:
        faces = &tet;
        break;
      case ElementType::pyramid:
        faces = &pyr;
        break;
      case ElementType::prism:
        faces = &pri;
        break;
      case ElementType::hexahedron:
        faces = &hex;
        break;
      case ElementType::triangle:
        faces = &tri;
        break;
      default:
        faces = &quad;
        break;
    }
    const ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    for (const auto& f : *faces) {
      FaceKey k{-1, -1, -1, -1};
      for (size_t i = 0; i < f.size(); ++i) k[i] = v[f[i]];
      std::sort(k.begin(), k.begin() + f.size());
      all.push_back(k);
    }
  }
  std::sort(all.begin(), all.end());
  return all;
}

struct FaceSummary {
  long long faces = 0;        // distinct faces
  long long boundary = 0;     // faces of exactly one element
  long long max_sharing = 0;  // most elements sharing one face (2 in a conforming mesh)
};
inline FaceSummary summarize_faces(const Mesh& m) {
  const auto all = sorted_faces(m);
  FaceSummary s;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    ++s.faces;
    if (j - i == 1) ++s.boundary;
    s.max_sharing = std::max<long long>(s.max_sharing, static_cast<long long>(j - i));
    i = j;
  }
  return s;
}

// Every 3-D element type, pyramids included, with positive volumes (for reader round trips).
inline Mesh mixed_mesh(std::uint64_t seed) {
  Mesh m = box_mesh({3, 2, 2}, CellSplit::hexahedra_and_pyramids, 0.1, seed);
  const Mesh t = box_mesh({2, 2, 1}, CellSplit::tetrahedra, 0.1, seed + 1);
  const Mesh p = box_mesh({2, 1, 1}, CellSplit::prisms, 0.1, seed + 2);
  for (const Mesh* other : {&t, &p}) {  // appended as separate pieces: still a valid mesh
    const ordinal_t base = m.npoints();
    m.coords.insert(m.coords.end(), other->coords.begin(), other->coords.end());
    for (ordinal_t e = 0; e < other->nelements(); ++e) {
      std::vector<ordinal_t> nodes;
      for (offset_t k = other->elem_ptr[e]; k < other->elem_ptr[e + 1]; ++k)
        nodes.push_back(other->elem_nodes[k] + base);
      add_element(m, other->types[e], nodes);
    }
  }
  return m;
}

// The same vertex graph (same point numbering).
inline void expect_same_graph(const Mesh& a, const Mesh& b) {
  const Graph ga = vertex_graph(a), gb = vertex_graph(b);
  EXPECT_EQ(ga.n, gb.n);
  EXPECT_EQ(ga.row_ptr, gb.row_ptr);
  EXPECT_EQ(ga.adj, gb.adj);
}

// Calls check(stem, mesh) for each SU2 mesh of ../shared/meshes; skips the test when there are
// none, and fails it when no mesh was checked.
template <class Check>
void for_each_shared_mesh(Check&& check) {
  const std::filesystem::path dir = test::shared_dir() / "meshes";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no ../shared/meshes";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".su2") continue;
    SCOPED_TRACE(entry.path().filename().string());
    check(entry.path().stem().string(), read_su2(entry.path().string()));
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace ppsparse::mesh::builders
