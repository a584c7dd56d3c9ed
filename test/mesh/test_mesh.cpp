#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/mesh.hpp>

#include "mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

const ElementType all_types[] = {ElementType::line,        ElementType::triangle,   ElementType::quadrilateral,
                                 ElementType::tetrahedron, ElementType::hexahedron, ElementType::prism,
                                 ElementType::pyramid};

TEST(Mesh, ElementTables) {
  const int nodes[] = {2, 3, 4, 4, 8, 6, 5};
  const int edges[] = {1, 3, 4, 6, 12, 9, 8};
  const int dims[] = {1, 2, 2, 3, 3, 3, 3};
  for (int i = 0; i < 7; ++i) {
    const ElementType t = all_types[i];
    SCOPED_TRACE(element_name(t));
    EXPECT_TRUE(is_element_type_id(static_cast<int>(t)));
    EXPECT_EQ(nodes_per_element(t), nodes[i]);
    EXPECT_EQ(element_dimension(t), dims[i]);
    const auto& ed = element_edges(t);
    ASSERT_EQ(static_cast<int>(ed.size()), edges[i]);
    // Distinct local edges in range; every node on some edge.
    std::vector<int> degree(nodes[i], 0);
    for (size_t a = 0; a < ed.size(); ++a) {
      ASSERT_NE(ed[a][0], ed[a][1]);
      ASSERT_GE(std::min(ed[a][0], ed[a][1]), 0);
      ASSERT_LT(std::max(ed[a][0], ed[a][1]), nodes[i]);
      ++degree[ed[a][0]];
      ++degree[ed[a][1]];
      for (size_t b = 0; b < a; ++b)
        EXPECT_FALSE(std::minmax(ed[a][0], ed[a][1]) == std::minmax(ed[b][0], ed[b][1])) << "edge repeated";
    }
    for (int d : degree) EXPECT_GE(d, 1);
  }
  for (long long id : {-1LL, 0LL, 1LL, 2LL, 4LL, 6LL, 7LL, 8LL, 11LL, 15LL, 300LL})
    EXPECT_FALSE(is_element_type_id(id));
  PPSPARSE_EXPECT_THROW_MESSAGE(nodes_per_element(static_cast<ElementType>(7)), InvalidArgument,
                                "nodes_per_element: invalid element type id 7");
}

TEST(Mesh, ReferenceElementVolumes) {
  // Unperturbed reference elements under one random affine map: their volumes are the
  // reference volumes times the map's determinant, so compare ratios to a tetrahedron's.
  // Reference volumes: tetrahedron 1/6, pyramid 1/3, prism 1/2, hexahedron 1; the
  // reference prism (0,1,2 counter-clockwise seen from 3,4,5) is negative in VTK's order.
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const double ref[] = {1.0 / 6, 1.0 / 3, -1.0 / 2, 1.0};
  const ElementType types[] = {ElementType::tetrahedron, ElementType::pyramid, ElementType::prism,
                               ElementType::hexahedron};
  const double tet = element_signed_volume(builders::single_element(ElementType::tetrahedron, 0.0, seed), 0);
  ASSERT_GT(tet, 0.0);
  for (int i = 0; i < 4; ++i) {
    const double v = element_signed_volume(builders::single_element(types[i], 0.0, seed), 0);
    EXPECT_NEAR(v / tet, ref[i] * 6, 1e-12) << element_name(types[i]);
  }
  const double tri = element_signed_volume(builders::single_element(ElementType::triangle, 0.0, seed), 0);
  const double quad = element_signed_volume(builders::single_element(ElementType::quadrilateral, 0.0, seed), 0);
  ASSERT_GT(tri, 0.0);
  EXPECT_NEAR(quad / tri, 2.0, 1e-12);
}

TEST(Mesh, HexahedronVolumeIsExactForTrilinearMaps) {
  // A hexahedron with non-planar faces: the volume of the trilinear map equals the sum
  // of 8 sub-hexahedra of the same map (its own refinement, built by hand here).
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Mesh m = builders::single_element(ElementType::hexahedron, 0.2, seed);
  const double whole = element_signed_volume(m, 0);
  auto X = [&](double u, double s, double w, int d) {
    const double n[8] = {(1 - u) * (1 - s) * (1 - w), u * (1 - s) * (1 - w), u * s * (1 - w), (1 - u) * s * (1 - w),
                         (1 - u) * (1 - s) * w,       u * (1 - s) * w,       u * s * w,       (1 - u) * s * w};
    double x = 0;
    for (int k = 0; k < 8; ++k) x += n[k] * m.coords[3 * k + d];
    return x;
  };
  Mesh parts;
  static const int off[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  for (int c = 0; c < 8; ++c) {
    std::vector<ordinal_t> nodes;
    for (int k = 0; k < 8; ++k) {
      nodes.push_back(parts.npoints());
      for (int d = 0; d < 3; ++d)
        parts.coords.push_back(
            X(0.5 * (off[c][0] + off[k][0]), 0.5 * (off[c][1] + off[k][1]), 0.5 * (off[c][2] + off[k][2]), d));
    }
    builders::add_element(parts, ElementType::hexahedron, nodes);
  }
  double sum = 0;
  for (ordinal_t e = 0; e < 8; ++e) sum += element_signed_volume(parts, e);
  EXPECT_NEAR(sum, whole, 1e-13 * std::abs(whole));
}

TEST(Mesh, SignFollowsNodeOrder) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (ElementType t : {ElementType::tetrahedron, ElementType::pyramid, ElementType::prism, ElementType::hexahedron,
                        ElementType::triangle, ElementType::quadrilateral}) {
    Mesh m = builders::single_element(t, 0.1, seed);
    builders::orient_positive(m);
    const double v = element_signed_volume(m, 0);
    ASSERT_GT(v, 0.0) << element_name(t);
    // Mirror the element: the signed volume flips, the measure stays.
    for (size_t k = 0; k < m.coords.size(); k += m.dim) m.coords[k] = -m.coords[k];
    EXPECT_NEAR(element_signed_volume(m, 0), -v, 1e-14 * v) << element_name(t);
    EXPECT_NEAR(element_volume(m, 0), v, 1e-14 * v) << element_name(t);
  }
}

TEST(Mesh, ValidateRejectsEachDefect) {
  auto good = [] {
    Mesh m = builders::single_element(ElementType::tetrahedron, 0.0, 1);
    return m;
  };
  EXPECT_NO_THROW(validate(good()));
  auto expect_reject = [](const Mesh& m, const std::string& needle) {
    try {
      validate(m);
      ADD_FAILURE() << "accepted a mesh with: " << needle;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  Mesh m = good();
  m.dim = 4;
  expect_reject(m, "dim is 4");
  m = good();
  m.coords.pop_back();
  expect_reject(m, "not a multiple of dim");
  m = good();
  m.coords[5] = std::nan("");
  expect_reject(m, "non-finite coordinate of point 1");
  m = good();
  m.elem_ptr.push_back(4);
  expect_reject(m, "elem_ptr has 3 entries for 1 elements");
  m = good();
  m.elem_nodes.push_back(0);
  expect_reject(m, "elem_ptr ends at 4 but elem_nodes has 5 entries");
  m = good();
  m.types[0] = static_cast<ElementType>(11);
  expect_reject(m, "invalid type id 11");
  m = good();
  m.types[0] = ElementType::quadrilateral;
  expect_reject(m, "is a quadrilateral, not a volume element of a 3-D mesh");
  m = good();
  m.types[0] = ElementType::pyramid;
  expect_reject(m, "(pyramid) has 4 nodes, want 5");
  m = good();
  m.elem_nodes[2] = 4;
  expect_reject(m, "node 4 out of range [0, 4)");
  m = good();
  m.elem_nodes[2] = -1;
  expect_reject(m, "node -1 out of range");
  m = good();
  m.elem_nodes[3] = m.elem_nodes[1];
  expect_reject(m, "repeats node 1");
  PPSPARSE_EXPECT_THROW_MESSAGE(element_volume(good(), 1), InvalidArgument,
                                "element_signed_volume: element 1 out of range [0, 1)");
  PPSPARSE_EXPECT_THROW_MESSAGE(element_volume(good(), -1), InvalidArgument,
                                "element_signed_volume: element -1 out of range [0, 1)");
}

}  // namespace
}  // namespace ppsparse::mesh
