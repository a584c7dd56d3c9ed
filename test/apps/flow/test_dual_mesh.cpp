// The median-dual control volumes: each closes (its normals sum to zero), each has a positive
// volume, and together they fill the mesh; inverted elements and stray faces are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/read.hpp>

#include "dual_mesh.hpp"
#include "flow_meshes.hpp"

namespace flow {
namespace {

using ppsparse::mesh::Mesh;
using Split = ppsparse::mesh::builders::CellSplit;

struct Sums {
  double worst_closure = 0;  // max over vertices of |sum of normals| / the largest normal there
  double volume = 0, min_volume = 1e300;
};

Sums check(const DualMesh& d) {
  auto edges = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.edges);
  auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.edge_normal);
  auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.volume);
  auto bv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.bnode_vertex);
  auto bn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.bnode_normal);
  const int dim = d.dim;
  std::vector<double> sum(static_cast<size_t>(d.nvertices) * dim, 0.0), scale(static_cast<size_t>(d.nvertices), 0.0);
  auto add = [&](ordinal_t v, double s, auto&& n, size_t row) {
    double len = 0;
    for (int k = 0; k < dim; ++k) {
      sum[static_cast<size_t>(v) * dim + k] += s * n(row, k);
      len += n(row, k) * n(row, k);
    }
    scale[v] = std::max(scale[v], std::sqrt(len));
  };
  for (size_t e = 0; e < edges.extent(0); ++e) {
    add(edges(e, 0), 1.0, en, e);
    add(edges(e, 1), -1.0, en, e);
  }
  for (size_t b = 0; b < bv.extent(0); ++b) add(bv(b), 1.0, bn, b);
  Sums s;
  for (ordinal_t v = 0; v < d.nvertices; ++v) {
    double len = 0;
    for (int k = 0; k < dim; ++k) len += sum[static_cast<size_t>(v) * dim + k] * sum[static_cast<size_t>(v) * dim + k];
    s.worst_closure = std::max(s.worst_closure, std::sqrt(len) / scale[v]);
    s.volume += vol(v);
    s.min_volume = std::min(s.min_volume, vol(v));
  }
  return s;
}

double element_volumes(const Mesh& m) {
  double v = 0;
  for (ordinal_t e = 0; e < m.nelements(); ++e) v += ppsparse::mesh::element_volume(m, e);
  return v;
}

TEST(DualMesh, ControlVolumesCloseAndFillBuiltMeshes) {
  struct Case {
    const char* name;
    Mesh m;
    double volume;
  };
  std::vector<Case> cases;
  cases.push_back({"rectangle", test_meshes::rectangle(5, 4, 0.2), 20});
  for (Split s : {Split::hexahedra, Split::tetrahedra, Split::prisms, Split::pyramids, Split::hexahedra_and_pyramids})
    cases.push_back({"box", test_meshes::box(3, 2, 2, s, 0.2), 12});
  for (const auto& c : cases) {
    const DualMesh d = build_dual_mesh(c.m);
    const Sums s = check(d);
    EXPECT_LT(s.worst_closure, 1e-13) << c.name << " " << int(c.m.types[0]);
    EXPECT_GT(s.min_volume, 0) << c.name;
    // Planar boundary faces, so the dual volumes add up to the box's exactly.
    EXPECT_NEAR(s.volume, c.volume, 1e-12 * c.volume) << c.name << " " << int(c.m.types[0]);
  }
}

TEST(DualMesh, ControlVolumesCloseOnSharedMeshes) {
  for (const char* name : {"naca0012_hybrid_2d.su2", "brick_pyra.su2", "bend_coarse.cgns", "triangular_aerofoil.msh"}) {
    const std::string path = test_meshes::shared_mesh(name);
    if (path.empty()) GTEST_SKIP() << "no ../shared";
    if (!std::filesystem::exists(path)) continue;  // a partial copy of ../shared (GPU runs)
    Mesh m;
    try {
      m = ppsparse::mesh::read(path);
    } catch (const ppsparse::Error& e) {  // CGNS in a build without it
      continue;
    }
    const Sums s = check(build_dual_mesh(m));
    EXPECT_LT(s.worst_closure, 1e-11) << name;
    EXPECT_GT(s.min_volume, 0) << name;
    // Non-planar quadrilaterals: the dual cells' faces are flat triangles, the elements'
    // trilinear; the two volumes agree closely.
    const double v = element_volumes(m);
    EXPECT_NEAR(s.volume, v, 1e-6 * v) << name;
  }
}

TEST(DualMesh, PatternHasEveryEdgeBothWays) {
  const DualMesh d = build_dual_mesh(test_meshes::box(2, 2, 1, Split::tetrahedra, 0.1));
  auto edges = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.edges);
  auto pos_edge = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.pos_edge);
  ASSERT_EQ(d.col_idx.size(), 2 * edges.extent(0));
  // Every block (v, j) names the edge joining v and j, and each edge has its two blocks.
  std::vector<int> blocks(edges.extent(0), 0);
  for (ordinal_t v = 0; v < d.nvertices; ++v) {
    EXPECT_TRUE(std::is_sorted(d.col_idx.begin() + d.row_ptr[v], d.col_idx.begin() + d.row_ptr[v + 1]));
    for (offset_t p = d.row_ptr[v]; p < d.row_ptr[v + 1]; ++p) {
      const ordinal_t e = pos_edge(p), j = d.col_idx[static_cast<size_t>(p)];
      EXPECT_LT(edges(e, 0), edges(e, 1));
      EXPECT_EQ(std::min(v, j), edges(e, 0));
      EXPECT_EQ(std::max(v, j), edges(e, 1));
      ++blocks[static_cast<size_t>(e)];
    }
  }
  for (int b : blocks) EXPECT_EQ(b, 2);
}

TEST(DualMesh, RefusesAnInvertedElementByNumber) {
  Mesh m = test_meshes::box(2, 2, 2, Split::tetrahedra, 0.0);
  std::swap(m.elem_nodes[m.elem_ptr[6] + 1], m.elem_nodes[m.elem_ptr[6] + 2]);  // element 7, 1-based
  try {
    build_dual_mesh(m);
    FAIL() << "no error";
  } catch (const ppsparse::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("element 7 (1-based"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("inverted"), std::string::npos) << e.what();
  }
}

TEST(DualMesh, RefusesAFaceOfNoElement) {
  Mesh m = test_meshes::rectangle(3, 3, 0.0);
  const ordinal_t stray[2] = {0, static_cast<ordinal_t>(m.npoints() - 1)};
  m.add_face("stray", ppsparse::mesh::ElementType::line, stray);
  try {
    build_dual_mesh(m);
    FAIL() << "no error";
  } catch (const ppsparse::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("boundary face 1 of marker 'stray'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flow
