#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

#include "mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

using builders::CellSplit;

long long count_type(const Mesh& m, ElementType t) { return std::count(m.types.begin(), m.types.end(), t); }

long long quad_faces(const Mesh& m) {
  if (m.dim == 2) return count_type(m, ElementType::quadrilateral);
  const auto faces = builders::sorted_faces(m);
  long long n = 0;
  for (size_t i = 0; i < faces.size(); ++i)
    if (faces[i][3] >= 0 && (i == 0 || faces[i] != faces[i - 1])) ++n;
  return n;
}

long long edge_count(const Mesh& m) { return vertex_graph(m).num_edges_directed() / 2; }

// Euler characteristic of the cell complex: 1 for a mesh of a ball or a disc. A
// non-conforming refinement (a face split differently on its two sides) breaks it.
long long euler_characteristic(const Mesh& m) {
  const long long v = m.npoints(), e = edge_count(m), c = m.nelements();
  if (m.dim == 2) return v - e + c;
  return v - e + builders::summarize_faces(m).faces - c;
}

// Every child's signed volume has the sign of the parent's (all parents are positive
// here), and the total is the parent's to 1e-12 relative.
void expect_volume_and_orientation(const Mesh& coarse, const Mesh& fine) {
  const long double before = builders::total_volume(coarse);
  const long double after = builders::total_volume(fine);
  EXPECT_NEAR(static_cast<double>(after / before), 1.0, 1e-12)
      << "volume " << static_cast<double>(before) << " -> " << static_cast<double>(after);
  for (ordinal_t e = 0; e < fine.nelements(); ++e)
    ASSERT_GT(element_signed_volume(fine, e), 0.0)
        << "child " << e << " (" << element_name(fine.types[e]) << ") is inverted";
}

TEST(Refine, RejectsBadArguments) {
  const Mesh tet = builders::single_element(ElementType::tetrahedron, 0.0, 1);
  try {
    refine_uniform(tet, -1);
    ADD_FAILURE() << "accepted times = -1";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), "refine_uniform: times is -1, must be >= 0");
  }
  // 8^11 tetrahedra pass 2^31 - 1: refused at once, before any memory is spent.
  try {
    refine_uniform(tet, 11);
    ADD_FAILURE() << "accepted 8^11 elements";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()),
              "refine_uniform: 11 refinements of 1 elements give 8589934592 elements after refinement 11, past the "
              "32-bit limit 2147483647");
  }
  PPSPARSE_EXPECT_THROW_MESSAGE(refine_uniform(tet, 1000000), InvalidArgument,
                                "refine_uniform: 1000000 refinements of 1 elements give 8589934592 elements after "
                                "refinement 11, past the 32-bit limit 2147483647");
  Mesh broken = tet;
  broken.elem_nodes[0] = 9;
  PPSPARSE_EXPECT_THROW_MESSAGE(refine_uniform(broken, 1), InvalidArgument,
                                "refine_uniform: input mesh: element 0 (tetrahedron) node 9 out of range [0, 4)");
  broken = tet;
  broken.types[0] = ElementType::line;
  PPSPARSE_EXPECT_THROW_MESSAGE(refine_uniform(broken, 1), InvalidArgument,
                                "refine_uniform: input mesh: element 0 is a line, not a volume element of a 3-D mesh");
}

TEST(Refine, ZeroTimesIsACopy) {
  const Mesh m = builders::box_mesh({2, 2, 1}, CellSplit::prisms, 0.2, 5);
  const Mesh r = refine_uniform(m, 0);
  EXPECT_EQ(r.coords, m.coords);
  EXPECT_EQ(r.elem_nodes, m.elem_nodes);
  EXPECT_EQ(r.types, m.types);
}

// One element of each type, randomly distorted (non-planar quadrilateral faces):
// child counts, point counts, volume and orientation after 1 and 2 refinements.
TEST(Refine, SingleElements) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Case {
    ElementType type;
    long long children1, points1, children2, points2;
  };
  const Case cases[] = {
      {ElementType::tetrahedron, 8, 10, 64, 35}, {ElementType::hexahedron, 8, 27, 64, 125},
      {ElementType::prism, 8, 18, 64, 75},       {ElementType::pyramid, 10, 14, 92, 55},
      {ElementType::triangle, 4, 6, 16, 15},     {ElementType::quadrilateral, 4, 9, 16, 25},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(element_name(c.type));
    Mesh m = builders::single_element(c.type, 0.15, seed);
    builders::orient_positive(m);
    const Mesh r1 = refine_uniform(m, 1);
    const Mesh r2 = refine_uniform(m, 2);
    ASSERT_NO_THROW(validate(r1));
    ASSERT_NO_THROW(validate(r2));
    EXPECT_EQ(r1.nelements(), c.children1);
    EXPECT_EQ(r1.npoints(), c.points1);
    EXPECT_EQ(r2.nelements(), c.children2);
    EXPECT_EQ(r2.npoints(), c.points2);
    expect_volume_and_orientation(m, r1);
    expect_volume_and_orientation(m, r2);
    // Old points keep their numbers and coordinates.
    EXPECT_TRUE(std::equal(m.coords.begin(), m.coords.end(), r1.coords.begin()));
  }
  const Mesh pyr = refine_uniform(builders::single_element(ElementType::pyramid, 0.1, seed), 1);
  EXPECT_EQ(count_type(pyr, ElementType::pyramid), 6);
  EXPECT_EQ(count_type(pyr, ElementType::tetrahedron), 4);
}

// Euler-type point counts for a tiny tetrahedral mesh: V1 = V0 + E0, and with F0 faces
// and T0 tetrahedra E1 = 2 E0 + 3 F0 + T0 (so V2 = V1 + E1), F1 = 4 F0 + 8 T0.
TEST(Refine, TetrahedralPointCountsFollowEulerFormulas) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Mesh m0 = builders::box_mesh({2, 1, 1}, CellSplit::tetrahedra, 0.0, seed);
  const long long v0 = m0.npoints(), e0 = edge_count(m0), t0 = m0.nelements();
  const long long f0 = builders::summarize_faces(m0).faces;
  ASSERT_EQ(t0, 12);
  ASSERT_EQ(v0 - e0 + f0 - t0, 1);
  const Mesh m1 = refine_uniform(m0, 1);
  EXPECT_EQ(m1.npoints(), v0 + e0);
  EXPECT_EQ(edge_count(m1), 2 * e0 + 3 * f0 + t0);
  EXPECT_EQ(builders::summarize_faces(m1).faces, 4 * f0 + 8 * t0);
  const Mesh m2 = refine_uniform(m0, 2);
  EXPECT_EQ(m2.npoints(), m1.npoints() + 2 * e0 + 3 * f0 + t0);
  EXPECT_EQ(m2.nelements(), 64 * t0);
}

// Conformity on meshes of every element type: after K refinements each face is shared
// by at most 2 elements, boundary faces are 4^K times as many (2^K edges in 2-D), the
// Euler characteristic stays 1, points follow V + E + quad faces + hexahedra, and the
// volume is preserved with every child oriented like its parent.
TEST(Refine, ConformingOnEveryElementType) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Case {
    const char* name;
    Mesh mesh;
  };
  const Case cases[] = {
      {"hexahedra", builders::box_mesh({3, 2, 2}, CellSplit::hexahedra, 0.25, seed)},
      {"tetrahedra", builders::box_mesh({2, 2, 2}, CellSplit::tetrahedra, 0.05, seed + 1)},
      {"prisms", builders::box_mesh({2, 3, 2}, CellSplit::prisms, 0.15, seed + 2)},
      {"pyramids", builders::box_mesh({2, 2, 2}, CellSplit::pyramids, 0.15, seed + 3)},
      {"hexahedra+pyramids", builders::box_mesh({3, 2, 2}, CellSplit::hexahedra_and_pyramids, 0.15, seed + 4)},
      {"triangles+quadrilaterals", builders::rectangle_mesh(5, 4, 0.25, seed + 5)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Mesh& m0 = c.mesh;
    ASSERT_NO_THROW(validate(m0));
    const auto faces0 = builders::summarize_faces(m0);
    ASSERT_EQ(faces0.max_sharing, 2);
    ASSERT_EQ(euler_characteristic(m0), 1);
    Mesh prev = m0;
    long long factor = 1;
    for (int k = 1; k <= 2; ++k) {
      SCOPED_TRACE("refinements " + std::to_string(k));
      const Mesh mk = refine_uniform(m0, k);
      ASSERT_NO_THROW(validate(mk));
      factor *= m0.dim == 3 ? 4 : 2;
      const auto faces = builders::summarize_faces(mk);
      EXPECT_LE(faces.max_sharing, 2);
      EXPECT_EQ(faces.boundary, factor * faces0.boundary);
      EXPECT_EQ(euler_characteristic(mk), 1);
      EXPECT_EQ(mk.npoints(),
                prev.npoints() + edge_count(prev) + quad_faces(prev) + count_type(prev, ElementType::hexahedron));
      expect_volume_and_orientation(m0, mk);
      prev = mk;
    }
  }
}

// A face shared by two elements is split identically on both sides even when the two
// elements list its nodes in different orders.
TEST(Refine, SharedQuadFaceIsSplitOnceWhateverTheNodeOrder) {
  const Mesh base = builders::box_mesh({2, 1, 1}, CellSplit::hexahedra, 0.0, 1);
  Mesh m = base;
  // Rotate the second hexahedron's numbering about its z axis (same element, new order).
  ordinal_t* v = m.elem_nodes.data() + 8;
  std::rotate(v, v + 1, v + 4);
  std::rotate(v + 4, v + 5, v + 8);
  ASSERT_GT(element_signed_volume(m, 1), 0.0);
  const Mesh r = refine_uniform(m, 1);
  EXPECT_EQ(r.npoints(), refine_uniform(base, 1).npoints());
  EXPECT_EQ(builders::summarize_faces(r).max_sharing, 2);
  EXPECT_EQ(builders::summarize_faces(r).boundary, 4 * builders::summarize_faces(m).boundary);
}

// The tetrahedron's interior octahedron is cut along its shortest diagonal.
TEST(Refine, TetrahedronUsesShortestDiagonal) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 50; ++trial) {
    Mesh m = builders::single_element(ElementType::tetrahedron, 0.4, seed + trial);
    builders::orient_positive(m);
    const Mesh r = refine_uniform(m, 1);
    // Points 4..9 are the midpoints of the sorted edges 01 02 03 12 13 23; the
    // diagonals join midpoints of opposite edges: (4, 9), (5, 8), (6, 7).
    const Graph g = vertex_graph(r);
    const std::pair<ordinal_t, ordinal_t> diagonals[] = {{4, 9}, {5, 8}, {6, 7}};
    double shortest = 1e300, used = -1;
    int cut = 0;
    for (auto [a, b] : diagonals) {
      double len = 0;
      for (int d = 0; d < 3; ++d) len += std::pow(r.coords[3 * a + d] - r.coords[3 * b + d], 2);
      shortest = std::min(shortest, len);
      if (std::binary_search(g.adj.begin() + g.row_ptr[a], g.adj.begin() + g.row_ptr[a + 1], b)) {
        used = len;
        ++cut;
      }
    }
    EXPECT_EQ(cut, 1);
    EXPECT_EQ(used, shortest);
  }
}

// Real meshes: volume preserved and faces conforming after refinement, and refining
// brick_tets (59k tetrahedra) twice takes seconds.
TEST(Refine, RealMeshes) {
  const auto dir = test::shared_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared dir (../shared) with real meshes";
  {
    const Mesh m = read_su2((dir / "meshes" / "brick_pyra.su2").string());
    const Mesh r = refine_uniform(m, 1);
    EXPECT_EQ(r.nelements(), 8 * count_type(m, ElementType::tetrahedron) + 10 * count_type(m, ElementType::pyramid));
    // Children follow their parent in order (8 per tetrahedron, 10 per pyramid) and
    // keep its orientation.
    ordinal_t child = 0;
    for (ordinal_t e = 0; e < m.nelements(); ++e) {
      const bool positive = element_signed_volume(m, e) > 0;
      const int n = m.types[e] == ElementType::pyramid ? 10 : 8;
      for (int c = 0; c < n; ++c, ++child)
        ASSERT_EQ(element_signed_volume(r, child) > 0, positive) << "parent " << e << " child " << c;
    }
    const long double before = builders::total_volume(m), after = builders::total_volume(r);
    EXPECT_NEAR(static_cast<double>(after / before), 1.0, 1e-12);
    const auto f0 = builders::summarize_faces(m), f1 = builders::summarize_faces(r);
    EXPECT_EQ(f0.max_sharing, 2);
    EXPECT_EQ(f1.max_sharing, 2);
    EXPECT_EQ(f1.boundary, 4 * f0.boundary);
  }
  {
    const Mesh m = read_su2((dir / "meshes" / "brick_tets.su2").string());
    const auto start = std::chrono::steady_clock::now();
    const Mesh r = refine_uniform(m, 2);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ info     ] brick_tets refined twice: %d points, %d tetrahedra in %.2f s\n", r.npoints(),
                r.nelements(), seconds);
    EXPECT_EQ(r.nelements(), 64 * m.nelements());
    const long double before = builders::total_volume(m), after = builders::total_volume(r);
    EXPECT_NEAR(static_cast<double>(after / before), 1.0, 1e-12);
  }
}

// Sizes for the MCPI app's --refine K: points and mean vertex degree of every real
// mesh before and after 1 and 2 refinements. Slow; run with
// --gtest_also_run_disabled_tests --gtest_filter='*RefinementStatistics*'.
TEST(Refine, DISABLED_RefinementStatistics) {
  const auto dir = test::shared_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared dir (../shared) with real meshes";
  for (const char* file : {"brick_tets.su2", "brick_pyra.su2", "brick_hex.su2", "pipe.su2", "naca0012_hybrid_2d.su2"}) {
    Mesh m = read_su2((dir / "meshes" / file).string());
    for (int k = 0; k <= 2; ++k) {
      const auto start = std::chrono::steady_clock::now();
      if (k > 0) m = refine_uniform(m, 1);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const Graph g = vertex_graph(m);
      std::printf(
          "%-24s K=%d  points %9d  elements %9d  mean degree %6.3f  max degree %3d  (refine %.2f s)\n", file, k,
          m.npoints(), m.nelements(), static_cast<double>(g.num_edges_directed()) / g.n,
          [&] {
            ordinal_t d = 0;
            for (ordinal_t v = 0; v < g.n; ++v) d = std::max(d, g.degree(v));
            return d;
          }(),
          seconds);
    }
  }
}

}  // namespace
}  // namespace ppsparse::mesh
