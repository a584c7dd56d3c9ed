#include <gtest/gtest.h>

#include <array>
#include <ppsparse/error.hpp>
#include <ppsparse/gen/grid.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include <set>

#include "test_util.hpp"

namespace ppsparse {
namespace {

bool has_edge(const Graph& g, ordinal_t u, ordinal_t v) {
  return std::binary_search(g.adj.begin() + g.row_ptr[u], g.adj.begin() + g.row_ptr[u + 1], v);
}

TEST(MeshGraph, TetInteriorVerticesHaveTheFourteenKuhnNeighbours) {
  const gen::Grid3 grid{6, 5, 7};
  const Graph g = gen::tet_mesh_graph(grid.nx, grid.ny, grid.nz);
  ASSERT_EQ(g.n, 6 * 5 * 7);
  validate(g);
  const std::array<std::array<int, 3>, 7> kuhn{
      {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}};
  int interior = 0;
  for (ordinal_t v = 0; v < g.n; ++v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    if (i == 0 || j == 0 || k == 0 || i == grid.nx - 1 || j == grid.ny - 1 || k == grid.nz - 1) {
      EXPECT_LT(g.degree(v), 14) << "boundary vertex " << v;
      continue;
    }
    ++interior;
    ASSERT_EQ(g.degree(v), 14) << "interior vertex " << v;
    for (const auto& d : kuhn)
      for (int sgn : {-1, 1})
        EXPECT_TRUE(has_edge(g, v, grid.index(i + sgn * d[0], j + sgn * d[1], k + sgn * d[2])))
            << "vertex " << v << " misses offset " << sgn * d[0] << "," << sgn * d[1] << "," << sgn * d[2];
  }
  EXPECT_EQ(interior, 4 * 3 * 5);
  // Corner (0,0,0) keeps the 7 positive offsets only.
  EXPECT_EQ(g.degree(0), 7);
}

TEST(MeshGraph, TetEdgeCountMatchesTheCellCount) {
  for (auto [nx, ny, nz] : {std::array<ordinal_t, 3>{2, 2, 2}, {5, 3, 4}, {1, 6, 3}, {7, 1, 1}}) {
    const Graph g = gen::tet_mesh_graph(nx, ny, nz);
    validate(g);
    const long long x = nx, y = ny, z = nz;
    // Axis edges, one diagonal per face of the grid, one body diagonal per cell.
    const long long edges = (x - 1) * y * z + x * (y - 1) * z + x * y * (z - 1) + (x - 1) * (y - 1) * z +
                            (x - 1) * y * (z - 1) + x * (y - 1) * (z - 1) + (x - 1) * (y - 1) * (z - 1);
    EXPECT_EQ(g.num_edges_directed(), 2 * edges) << nx << "x" << ny << "x" << nz;
  }
  const Graph one = gen::tet_mesh_graph(1, 1, 1);
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.num_edges_directed(), 0);
}

TEST(MeshGraph, MixedMeanDegreeIsAboutSeventeen) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const gen::Grid3 grid{40, 40, 40};
  const Graph g = gen::mixed_mesh_graph(grid.nx, grid.ny, grid.nz, seed);
  validate(g);
  // Interior vertices (all 8 cells around them exist): expected degree exactly 17.
  long long degree_sum = 0, count = 0;
  for (ordinal_t v = 0; v < g.n; ++v) {
    ordinal_t i, j, k;
    grid.coords(v, i, j, k);
    if (i == 0 || j == 0 || k == 0 || i == grid.nx - 1 || j == grid.ny - 1 || k == grid.nz - 1) continue;
    ASSERT_GE(g.degree(v), 14);
    ASSERT_LE(g.degree(v), 26);
    degree_sum += g.degree(v);
    ++count;
  }
  const double interior_mean = static_cast<double>(degree_sum) / static_cast<double>(count);
  EXPECT_GE(interior_mean, 16.5);
  EXPECT_LE(interior_mean, 17.5);
  // 54872 interior vertices: the sample mean's standard deviation is about 0.01.
  EXPECT_NEAR(interior_mean, 17.0, 0.1);
}

TEST(MeshGraph, MixedMeanDegreeOverAllVerticesOnALargeGrid) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Boundary vertices have fewer neighbours; at 100^3 they lower the mean by about 0.3.
  const Graph g = gen::mixed_mesh_graph(100, 100, 100, seed);
  const double mean = static_cast<double>(g.num_edges_directed()) / g.n;
  EXPECT_GE(mean, 16.5);
  EXPECT_LE(mean, 17.5);
}

TEST(MeshGraph, MixedIsATetSupergraphWhoseExtraEdgesComeFromFullyCoupledCells) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const gen::Grid3 grid{7, 6, 5};
  const Graph tet = gen::tet_mesh_graph(grid.nx, grid.ny, grid.nz);
  const Graph mixed = gen::mixed_mesh_graph(grid.nx, grid.ny, grid.nz, seed);
  validate(mixed);
  for (ordinal_t v = 0; v < tet.n; ++v)
    for (offset_t k = tet.row_ptr[v]; k < tet.row_ptr[v + 1]; ++k) ASSERT_TRUE(has_edge(mixed, v, tet.adj[k]));
  EXPECT_GT(mixed.num_edges_directed(), tet.num_edges_directed());
  // A body diagonal other than (1,1,1) lies in exactly one cell, which must then be a
  // hexahedron with all 28 vertex pairs coupled.
  int hex_cells = 0;
  for (ordinal_t ck = 0; ck + 1 < grid.nz; ++ck)
    for (ordinal_t cj = 0; cj + 1 < grid.ny; ++cj)
      for (ordinal_t ci = 0; ci + 1 < grid.nx; ++ci) {
        std::array<ordinal_t, 8> corner{};
        for (int c = 0; c < 8; ++c) corner[c] = grid.index(ci + (c & 1), cj + ((c >> 1) & 1), ck + ((c >> 2) & 1));
        // corners 1=(1,0,0) and 6=(0,1,1) form an anti-diagonal.
        if (!has_edge(mixed, corner[1], corner[6])) continue;
        ++hex_cells;
        for (int a = 0; a < 8; ++a)
          for (int b = a + 1; b < 8; ++b)
            ASSERT_TRUE(has_edge(mixed, corner[a], corner[b])) << "cell " << ci << cj << ck;
      }
  EXPECT_GT(hex_cells, 0);
}

TEST(MeshGraph, MixedIsDeterministicInTheSeed) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Graph a = gen::mixed_mesh_graph(9, 8, 7, seed);
  const Graph b = gen::mixed_mesh_graph(9, 8, 7, seed);
  const Graph c = gen::mixed_mesh_graph(9, 8, 7, seed + 1);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.adj, b.adj);
  EXPECT_NE(a.adj, c.adj);
}

TEST(MeshGraph, BadSizesAreRefused) {
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::tet_mesh_graph(0, 3, 3), InvalidArgument,
                                "tet_mesh_graph: grid 0 x 3 x 3 has a nonpositive dimension");
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::tet_mesh_graph(3, -1, 3), InvalidArgument,
                                "tet_mesh_graph: grid 3 x -1 x 3 has a nonpositive dimension");
  PPSPARSE_EXPECT_THROW_MESSAGE(gen::mixed_mesh_graph(3, 3, 0, 1), InvalidArgument,
                                "mixed_mesh_graph: grid 3 x 3 x 0 has a nonpositive dimension");
  EXPECT_EQ(test::invalid_argument_message([] { gen::tet_mesh_graph(3, 0, 3); }),
            "tet_mesh_graph: grid 3 x 0 x 3 has a nonpositive dimension");
  EXPECT_EQ(test::invalid_argument_message([] { gen::mixed_mesh_graph(2000, 2000, 1000, 1); }),
            "mixed_mesh_graph: grid 2000 x 2000 x 1000 has more than 2^31-1 (2147483647) points");
  // Products that overflow 64 bits are still refused cleanly.
  PPSPARSE_EXPECT_THROW_MESSAGE(
      gen::tet_mesh_graph(max_ordinal, max_ordinal, max_ordinal), InvalidArgument,
      "tet_mesh_graph: grid 2147483647 x 2147483647 x 2147483647 has more than 2^31-1 (2147483647) points");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      gen::tet_mesh_graph(65536, 32768, 1), InvalidArgument,
      "tet_mesh_graph: grid 65536 x 32768 x 1 has more than 2^31-1 (2147483647) points");  // exactly 2^31
}

}  // namespace
}  // namespace ppsparse
