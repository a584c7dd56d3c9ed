#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

#include "mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

bool adjacent(const Graph& g, ordinal_t u, ordinal_t v) {
  return std::binary_search(g.adj.begin() + g.row_ptr[u], g.adj.begin() + g.row_ptr[u + 1], v);
}

// One element alone: its graph is exactly its edges; face and body diagonals are absent.
TEST(VertexGraph, SingleElementsCoupleAlongEdgesOnly) {
  struct Case {
    ElementType type;
    long long edges;
    std::vector<std::pair<int, int>> absent;
  };
  const Case cases[] = {
      {ElementType::tetrahedron, 6, {}},
      {ElementType::pyramid, 8, {{0, 2}, {1, 3}}},
      {ElementType::prism, 9, {{0, 4}, {1, 3}, {0, 5}, {2, 4}}},
      {ElementType::hexahedron, 12, {{0, 2}, {1, 3}, {0, 5}, {0, 6}, {1, 7}, {2, 4}, {3, 5}, {4, 6}}},
      {ElementType::triangle, 3, {}},
      {ElementType::quadrilateral, 4, {{0, 2}, {1, 3}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(element_name(c.type));
    const Graph g = vertex_graph(builders::single_element(c.type, 0.1, 7));
    ASSERT_NO_THROW(validate(g));
    EXPECT_EQ(g.n, nodes_per_element(c.type));
    EXPECT_EQ(g.num_edges_directed(), 2 * c.edges);
    for (auto [u, v] : c.absent) EXPECT_FALSE(adjacent(g, u, v)) << u << "-" << v;
    for (const auto& e : element_edges(c.type)) EXPECT_TRUE(adjacent(g, e[0], e[1]));
  }
}

// A structured hexahedral grid: interior vertices have exactly 6 neighbours, the
// lattice neighbours; boundary vertices 3 (corner), 4 (edge) or 5 (face).
TEST(VertexGraph, StructuredHexGridHasSixNeighbours) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> size(2, 7);
  const builders::Lattice g{size(rng), size(rng), size(rng)};
  const Mesh m = builders::box_mesh(g, builders::CellSplit::hexahedra, 0.3, seed);
  const Graph graph = vertex_graph(m);
  ASSERT_NO_THROW(validate(graph));
  ASSERT_EQ(graph.n, m.npoints());
  const long long nx = g.nx, ny = g.ny, nz = g.nz;
  EXPECT_EQ(graph.num_edges_directed(),
            2 * (nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) + (nx + 1) * (ny + 1) * nz));
  for (int k = 0; k <= g.nz; ++k)
    for (int j = 0; j <= g.ny; ++j)
      for (int i = 0; i <= g.nx; ++i) {
        const ordinal_t v = g.id(i, j, k);
        const int on_boundary = (i == 0 || i == g.nx) + (j == 0 || j == g.ny) + (k == 0 || k == g.nz);
        ASSERT_EQ(graph.degree(v), 6 - on_boundary) << "vertex (" << i << "," << j << "," << k << ")";
        if (i > 0) {
          EXPECT_TRUE(adjacent(graph, v, g.id(i - 1, j, k)));
        }
        if (j > 0) {
          EXPECT_TRUE(adjacent(graph, v, g.id(i, j - 1, k)));
        }
        if (k > 0) {
          EXPECT_TRUE(adjacent(graph, v, g.id(i, j, k - 1)));
        }
      }
}

// Kuhn tetrahedra: each interior lattice vertex has the 14 neighbours of the
// Freudenthal triangulation (6 axis, 6 face diagonal, 2 body diagonal).
TEST(VertexGraph, KuhnTetrahedraHaveFourteenNeighbours) {
  const builders::Lattice g{4, 3, 3};
  const Mesh m = builders::box_mesh(g, builders::CellSplit::tetrahedra, 0.0, 1);
  const Graph graph = vertex_graph(m);
  ASSERT_NO_THROW(validate(graph));
  for (int k = 1; k < g.nz; ++k)
    for (int j = 1; j < g.ny; ++j)
      for (int i = 1; i < g.nx; ++i) {
        const ordinal_t v = g.id(i, j, k);
        EXPECT_EQ(graph.degree(v), 14);
        EXPECT_TRUE(adjacent(graph, v, g.id(i + 1, j + 1, k + 1)));
        EXPECT_FALSE(adjacent(graph, v, g.id(i + 1, j - 1, k)));
      }
}

TEST(VertexGraph, RejectsInvalidMesh) {
  Mesh m = builders::single_element(ElementType::hexahedron, 0.0, 3);
  m.elem_nodes[5] = 8;
  PPSPARSE_EXPECT_THROW_MESSAGE(vertex_graph(m), InvalidArgument,
                                "vertex_graph: mesh: element 0 (hexahedron) node 8 out of range [0, 8)");
}

TEST(VertexGraph, RealMeshes) {
  const auto dir = test::shared_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared dir (../shared) with real meshes";
  for (const char* file : {"brick_tets.su2", "brick_pyra.su2", "brick_hex.su2", "pipe.su2", "naca0012_hybrid_2d.su2"}) {
    SCOPED_TRACE(file);
    const Mesh m = read_su2((dir / "meshes" / file).string());
    const Graph g = vertex_graph(m);
    ASSERT_NO_THROW(validate(g));
    ASSERT_EQ(g.n, m.npoints());
    const double avg = static_cast<double>(g.num_edges_directed()) / g.n;
    // Unstructured meshes: between a quadrilateral grid (4) and a tetrahedral one (~14).
    EXPECT_GT(avg, 3.0);
    EXPECT_LT(avg, 16.0);
    if (std::string(file) == "brick_hex.su2") {
      // A structured block: no vertex has more than the 6 lattice neighbours.
      for (ordinal_t v = 0; v < g.n; ++v) ASSERT_LE(g.degree(v), 6);
    }
  }
}

}  // namespace
}  // namespace ppsparse::mesh
